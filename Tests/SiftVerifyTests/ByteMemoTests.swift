import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

/// Bodies found clean are not checked again when the same bytes come back (`ByteMemo`, `.cleanTexts`): only
/// exactly the same bytes count as seen, and a body that raised anything is checked every time.
@Suite struct ByteMemoTests {
    @Test func onlyTheSameBytesUnderTheSameTagAreSeen() {
        let memo = ByteMemo(.cleanTexts)
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
        let memo = ByteMemo(.cleanTexts)
        let first = Array(String(repeating: "a", count: 100).utf8)
        first.withUnsafeBufferPointer { memo.insert($0) }
        var g = FastPathTests.Bytes(x: 9)
        // More than the memo keeps in all, in texts of the largest size kept.
        for _ in 0..<(ByteMemo.Policy.cleanTexts.arenaCapacity / ByteMemo.Policy.cleanTexts.maxLength + 2) {
            let t = (0..<ByteMemo.Policy.cleanTexts.maxLength).map { _ in g.next() }
            t.withUnsafeBufferPointer { memo.insert($0) }
            t.withUnsafeBufferPointer { #expect(memo.contains($0)) }
        }
        first.withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        // Longer than kept.
        let long = [UInt8](repeating: 0x61, count: ByteMemo.Policy.cleanTexts.maxLength + 1)
        long.withUnsafeBufferPointer { memo.insert($0) }
        long.withUnsafeBufferPointer { #expect(!memo.contains($0)) }
    }

    /// Strings whose hashes pick the same set all stay, up to the set's ways; past that the oldest
    /// drops out (one set of four here, so every string shares it).
    @Test func aFullSetDropsItsOldestString() {
        let oneSet = ByteMemo.Policy(
            slots: 4, ways: 4, arenaCapacity: 1 << 16, minLength: 1, maxLength: 256,
            sampledHash: false, startAgainWhenFull: true)
        let memo = ByteMemo(oneSet)
        let texts = (0..<5).map { Array("text number \($0)".utf8) }
        for t in texts.prefix(4) { t.withUnsafeBufferPointer { memo.insert($0) } }
        for t in texts.prefix(4) { t.withUnsafeBufferPointer { #expect(memo.contains($0)) } }
        texts[4].withUnsafeBufferPointer { memo.insert($0) }
        texts[0].withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        for t in texts.dropFirst() { t.withUnsafeBufferPointer { #expect(memo.contains($0)) } }
        // Inserting a string already held changes nothing.
        texts[4].withUnsafeBufferPointer { memo.insert($0) }
        for t in texts.dropFirst() { t.withUnsafeBufferPointer { #expect(memo.contains($0)) } }
    }

    /// The names' policy: every byte hashed, short strings kept, and a full memo keeps what it holds
    /// and stops growing (names are few and the same ones all run long).
    @Test func theNamesMemoStopsGrowingWhenFull() {
        let memo = ByteMemo(.names)
        let name = Array("Authorization".utf8)
        name.withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        name.withUnsafeBufferPointer { memo.insert($0) }
        name.withUnsafeBufferPointer { #expect(memo.contains($0)) }
        Array("authorization".utf8).withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        name.withUnsafeBufferPointer { #expect(!memo.contains($0, tag: 1)) }
        var g = FastPathTests.Bytes(x: 5)
        var last: [UInt8] = []
        for _ in 0..<(ByteMemo.Policy.names.arenaCapacity / ByteMemo.Policy.names.maxLength + 2) {
            last = (0..<ByteMemo.Policy.names.maxLength).map { _ in g.next() }
            last.withUnsafeBufferPointer { memo.insert($0) }
        }
        name.withUnsafeBufferPointer { #expect(memo.contains($0)) }
        last.withUnsafeBufferPointer { #expect(!memo.contains($0)) }
        let long = [UInt8](repeating: 0x61, count: ByteMemo.Policy.names.maxLength + 1)
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

    /// URLs found clean are not checked again (`ByteMemo`, `.urls`): repeated clean, listed and
    /// credential-named URLs, in lines with and without another stem (a query name is checked as a
    /// value only in a line holding one), find exactly what each line finds checked on its own.
    @Test func repeatedURLsFindWhatEachLineFindsAlone() throws {
        let token = "ghp_" + Fake.s(36, Fake.alnum, seed: 16)
        let encodedName = token.utf8.map { "%" + String($0, radix: 16, uppercase: true) }.joined()
        let clean = "https://api.example.test/v1/orders?page=2"
        let listed = "https://api.example.test/v1/orders?token=abc123&page=2"
        let named = "https://api.example.test/v1/orders?\(encodedName)=1"
        var lines: [String] = []
        var seq = 1
        for url in [clean, clean, listed, clean, listed, named, named, clean, named] {
            // The same URL in a line with no other stem, then in one whose note holds `\u` (a stem).
            lines.append(Harness.network(seq: seq, url: url, transactions: [url]))
            seq += 1
            lines.append(Harness.network(seq: seq, url: url, transactions: [url], extra: ["note": .string("\\u")]))
            seq += 1
        }
        func key(_ f: Finding) -> String { "\(f.rule) \(f.seq ?? -1) \(f.location ?? "") \(f.fingerprint ?? f.message)" }
        let together = try Harness.run(lines).map(key).sorted()
        var alone: [String] = []
        for l in lines { alone += try Harness.run([l]).map(key) }
        #expect(together == alone.sorted())
        #expect(together.contains { $0.hasPrefix("redaction.query ") })
    }
}
