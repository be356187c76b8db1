import Foundation
import Testing
@testable import SiftCLI
@testable import SiftVerify
import SiftArchive

/// A small archive of blank or damaged lines is read quickly by every command: a run of blank lines
/// costs the reader one event, and a file's repeated problems are counted, not built one by one.
/// (Each blank line once cost about 2 µs in every command: 50 MiB of them took minutes.)
@Suite(.serialized) struct DamagedLineCostTests {
    /// A zip whose one session file is the clean fixture followed by `filler`.
    static func zip(_ filler: [UInt8]) throws -> String {
        var bytes: [UInt8] = []
        let writer = ZipWriter { bytes += $0 }
        let session = Array((Fixture.clean.joined(separator: "\n") + "\n").utf8) + filler
        try writer.add(name: "sessions/\(Fixture.sessionId).jsonl", bytes: session, deflate: true)
        try writer.finish()
        let url = try makeTempDir().appendingPathComponent("damaged.zip")
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test func blankLinesInAZipAreQuickInEveryCommand() throws {
        // 8 Mi blank lines (LF and CRLF): at the old cost, well over a minute per command even in release.
        let path = try Self.zip([UInt8](repeating: 0x0A, count: 6 << 20) + Array(String(repeating: "\r\n", count: 1 << 20).utf8))
        for command in ["verify", "inspect", "waterfall", "records"] {
            let start = Date()
            let r = try Binary.run([command, path])
            let seconds = Date().timeIntervalSince(start)
            #expect(r.status != 2 || !r.err.isEmpty, "\(command): \(r.err)")
            #expect(!r.err.contains("Fatal"), "\(command): \(r.err)")
            // Generous: a debug build on a busy machine reads this in about a second.
            #expect(seconds < 30, "\(command) took \(seconds) s")
        }
        let json = try Binary.run(["inspect", "--format", "json", path])
        let doc = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        let findings = doc?["findings"] as? [[String: Any]] ?? []
        let malformed = findings.filter { $0["rule"] as? String == "integrity.malformed-line" }
        // The first ones in full and one summary counting the rest.
        #expect(malformed.count == 51, "\(malformed.count)")
        #expect(malformed.contains { ($0["message"] as? String)?.hasPrefix("\((7 << 20) - 50) more findings") == true })
    }

    @Test func damagedLinesInAZipAreCountedPastTheFirst() throws {
        // Not JSON, JSON but not an object, invalid UTF-8, records without a seq: 50k lines.
        var filler: [UInt8] = []
        for i in 0..<12_500 {
            filler += Array("x\(i)\n[]\n{}\n".utf8) + [0xFF, 0xFE, 0x0A]
        }
        let path = try Self.zip(filler)
        let start = Date()
        let r = try Binary.run(["inspect", "--format", "json", path])
        #expect(Date().timeIntervalSince(start) < 60)
        // verify reads each damaged line as text (a credential may sit in one): bounded too.
        let v = try Binary.run(["verify", path])
        #expect(v.status == 0, "\(v.err)")
        let doc = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        let findings = doc?["findings"] as? [[String: Any]] ?? []
        let malformed = findings.filter { $0["rule"] as? String == "integrity.malformed-line" }
        #expect(malformed.count == 51, "\(malformed.count)")
        #expect(malformed.contains { ($0["message"] as? String)?.hasPrefix("\(37_500 - 50) more findings") == true })
        let gaps = findings.filter { $0["rule"] as? String == "integrity.seq-gap" }
        #expect(gaps.count == 51, "\(gaps.count)")
    }

    /// In `verify` a damaged line that can hold nothing (no string, no stem, shallow) costs a scan of
    /// its bytes: it is never queued for a worker. (Each once cost about 2 500 instructions there:
    /// 50 MiB of `x` lines took 22 s in release.)
    @Test func inertDamagedLinesAreQuickInVerify() throws {
        let path = try Self.zip(Array(String(repeating: "x\n", count: 1 << 20).utf8))
        let start = Date()
        let r = try Binary.run(["verify", path])
        let seconds = Date().timeIntervalSince(start)
        #expect(r.status == 0, "\(r.err)")
        // Generous: a debug build on a busy machine reads this in a few seconds.
        #expect(seconds < 60, "verify took \(seconds) s")
    }

    /// What makes a damaged line worth checking: a string, a credential stem, deep nesting.
    @Test func whatIsInert() {
        let v = VerifyAnalysis(parallel: false)
        #expect(v.isInert(Array("x".utf8)))
        #expect(v.isInert(Array("[1,2,3] {} NaN".utf8)))
        #expect(v.isInert([]))
        #expect(!v.isInert(Array("{\"password\":1}".utf8)))
        #expect(!v.isInert(Array("a\\b".utf8)))
        #expect(!v.isInert(Array(("token " + VerifyBypassTests.token(3)).utf8)))
        #expect(!v.isInert(Array(String(repeating: "[", count: 300).utf8)))
        #expect(v.isInert(Array(String(repeating: "[", count: 200).utf8)))
    }

    /// A credential on a damaged line is found, with the inert lines around it skipped.
    @Test func aCredentialAmongInertLinesIsFound() throws {
        var filler = Array(String(repeating: "x\n", count: 10_000).utf8)
        filler += Array(("not json " + VerifyBypassTests.token(5) + "\n").utf8)
        filler += Array(String(repeating: "{}x\n", count: 10_000).utf8)
        let path = try Self.zip(filler)
        let r = try Binary.run(["verify", "--format", "json", path])
        #expect(r.status == 1, "\(r.err)")
        #expect(r.out.contains("secret.github-token"), "\(r.out.prefix(400))")
    }
}
