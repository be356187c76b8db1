import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

/// Bodies found clean are not checked again when the same bytes come back (`CleanTextMemo`): only
/// exactly the same bytes count as seen, and a body that raised anything is checked every time.
@Suite struct CleanTextMemoTests {
    @Test func onlyTheSameBytesUnderTheSameTagAreSeen() {
        let memo = CleanTextMemo()
        let text = Array(String(repeating: "{\\\"page\\\": 3, \\\"items\\\": []} ", count: 8).utf8)
        text.withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        text.withUnsafeBufferPointer { memo.insert($0) }
        text.withUnsafeBufferPointer { #expect(memo.contains($0)) }
        text.withUnsafeBufferPointer { #expect(!memo.contains($0, tag: 1)) }
        // One byte changed anywhere (the hash samples a few words; the comparison is whole), one byte
        // more or less: not seen.
        for at in 0..<text.count {
            var other = text
            other[at] = other[at] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
            other.withUnsafeBufferPointer { #expect(!memo.contains($0), "changed at \(at)") }
        }
        (text + [0x20]).withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        Array(text.dropLast()).withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        // Too short to be worth keeping.
        let short = Array("{\\\"a\\\": 1}".utf8)
        short.withUnsafeBufferPointer { memo.insert($0) }
        short.withUnsafeBufferPointer { #expect(!memo.contains($0)) }
    }

    @Test func aFullMemoStartsAgain() {
        let memo = CleanTextMemo()
        let first = Array(String(repeating: "a", count: 100).utf8)
        first.withUnsafeBufferPointer { memo.insert($0) }
        var g = FastPathTests.Bytes(x: 9)
        // More than the memo keeps in all, in texts of the largest size kept.
        for _ in 0..<(CleanTextMemo.arenaCapacity / CleanTextMemo.maxLength + 2) {
            let t = (0..<CleanTextMemo.maxLength).map { _ in g.next() }
            t.withUnsafeBufferPointer { memo.insert($0) }
            t.withUnsafeBufferPointer { #expect(memo.contains($0)) }
        }
        first.withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        // Longer than kept.
        let long = [UInt8](repeating: 0x61, count: CleanTextMemo.maxLength + 1)
        long.withUnsafeBufferPointer { memo.insert($0) }
        long.withUnsafeBufferPointer { #expect(!memo.contains($0)) }
    }

    /// A clean body repeated, then the same body with a credential in it (same length, same sampled
    /// words where possible), then the credential body repeated: every copy that holds it is reported.
    @Test func repeatedBodiesAreReportedEachTimeTheyHoldACredential() throws {
        let token = "ghp_" + Fake.s(36, Fake.alnum, seed: 15)
        let clean = "{\"page\": 3, \"note\": \"" + String(repeating: "y", count: token.utf8.count) + "\", \"items\": [1, 2, 3]}"
        let dirty = "{\"page\": 3, \"note\": \"" + token + "\", \"items\": [1, 2, 3]}"
        #expect(clean.utf8.count == dirty.utf8.count)
        let listed = "{\"page\": 3, \"password\": \"hunter2-hunter2\", \"items\": [1, 2, 3, 4, 5, 6, 7, 8]}"
        var lines: [String] = []
        var seq = 1
        for body in [clean, clean, dirty, clean, dirty, dirty, listed, listed, clean] {
            lines.append(Harness.network(seq: seq, responseBody: Harness.textBody(body)))
            seq += 1
            lines.append(Harness.network(seq: seq, responseBody: Harness.base64Body(Array(body.utf8), "application/json")))
            seq += 1
        }
        let found = try Harness.run(lines)
        let tokens = found.filter { $0.rule == "secret.github-token" }
        // Three text bodies and three base64 bodies hold the token.
        #expect(tokens.count == 6)
        #expect(Set(tokens.compactMap(\.seq)) == [5, 6, 9, 10, 11, 12])
        let breaches = found.filter { $0.rule == "redaction.body-field" }
        #expect(Set(breaches.compactMap(\.seq)) == [13, 14, 15, 16])
        // Serial and parallel runs agree (each worker keeps its own memo).
        let serial = VerifyAnalysis(parallel: false)
        let input = InputContext(path: "export")
        let s = SessionContext(input: input, file: "sessions/\(Harness.sessionId).jsonl", root: "", blobsAvailable: true)
        s.sessionId = Harness.sessionId
        for (i, l) in lines.enumerated() { serial.record(Record(line: i + 1, json: try JSONDocument(string: l).root), session: s) }
        #expect(serial.finish().map(\.seq) == found.map(\.seq))
    }
}
