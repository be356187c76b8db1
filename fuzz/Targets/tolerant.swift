// libFuzzer target `tolerant`: see FuzzEntries.tolerant.
import SiftFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntries.tolerant(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
