import Testing
@testable import SiftWaterfall

/// The request writer's word-at-a-time test for bytes to escape finds every one the byte-by-byte
/// test finds: every byte value at every offset of texts of 1 to 17 bytes (two words and a tail),
/// on plain and other filler.
@Suite struct EscapeScanTests {
    static func byteByByte(_ u: [UInt8]) -> Bool {
        u.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 >= 0x80 }
    }

    @Test func theWordTestIsTheByteTest() {
        var wrong: [[UInt8]] = []
        var checked = 0
        for n in 1...17 {
            for filler in [UInt8(ascii: "a"), 0x21, 0x80, 0xE3] {
                for at in 0..<n {
                    for c in UInt8(0)...UInt8(255) {
                        var u = [UInt8](repeating: filler, count: n)
                        u[at] = c
                        let word = u.withUnsafeBufferPointer { Bytes.mayNeedEscape($0) }
                        if word != Self.byteByByte(u) && wrong.count < 10 { wrong.append(u) }
                        checked += 1
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(checked == 4 * 256 * (1...17).reduce(0, +))
        #expect(![UInt8]().withUnsafeBufferPointer { Bytes.mayNeedEscape($0) })
    }
}
