import Testing
import SiftTestSupport
@testable import SiftVerify

/// The prefilter of encoded runs (`EncodedSpans.hasRun`, one byte in 20 looked at where there is no
/// run) agrees with a plain scan, on text made of short and long runs at every alignment.
@Suite struct EncodedSpanPrefilterTests {
    static func plain(_ b: [UInt8]) -> Bool {
        var run = 0
        for c in b {
            run = EncodedSpans.runBytes.contains(c) ? run + 1 : 0
            if run >= EncodedSpans.minBase64 { return true }
        }
        return false
    }

    @Test func agreesWithAPlainScan() {
        var generator = SeededGenerator(seed: 0x9E37_79B9_7F4A_7C15)
        func next(_ n: Int) -> Int { generator.below(n) }
        let inRun = Array("aZ09+/_-".utf8), outside = Array(" .:=\"%".utf8)
        for _ in 0..<4000 {
            var b: [UInt8] = []
            while b.count < next(120) {
                let len = next(4) == 0 ? 15 + next(10) : next(12)
                for _ in 0..<len { b.append(inRun[next(inRun.count)]) }
                b.append(outside[next(outside.count)])
            }
            let expected = Self.plain(b)
            let got = b.withUnsafeBufferPointer { EncodedSpans.hasRun($0, EncodedSpans.runBytes) }
            #expect(got == expected, "\(String(decoding: b, as: UTF8.self))")
            if got != expected { return }
        }
    }
}
