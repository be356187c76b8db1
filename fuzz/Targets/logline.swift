// libFuzzer target `logline`: see FuzzEntries.logLine.
import SiftFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntries.logLine(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
