// libFuzzer target `rulefile`: see FuzzEntries.ruleFile.
import SiftFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntries.ruleFile(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
