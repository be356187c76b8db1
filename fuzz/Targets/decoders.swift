// libFuzzer target `decoders`: see FuzzEntries.decoders.
import SiftFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntries.decoders(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
