import Foundation
import Testing
@testable import SiftCLI
import SiftArchive

/// Read errors are loud, verify's findings stay bounded (and baselines still work on what was
/// counted), and names the redaction list knows cannot be slipped past it. Through the built binary.
@Suite(.serialized) struct ReadingBoundsTests {
    /// A session folder with `extra` files beside `sessions/`.
    static func exportFolder(lines: [String] = Fixture.clean, extra: [String: [UInt8]] = [:]) throws -> URL {
        let dir = try makeTempDir()
        let sessions = dir.appendingPathComponent("sessions")
        try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: sessions.appendingPathComponent(Fixture.sessionId + ".jsonl"))
        for (name, bytes) in extra { try Data(bytes).write(to: dir.appendingPathComponent(name)) }
        return dir
    }

    /// gzip of `text`, cut short: the inflater fails part-way through.
    static func truncatedGzip(_ text: String) throws -> [UInt8] {
        let whole = try DeflateStream.gzip(Array(text.utf8))
        return Array(whole.prefix(whole.count * 2 / 3))
    }

    @Test func otherFileThatFailsMidReadIsLoud() throws {
        let text = (1...4000).map { "note line \($0) with some words in it" }.joined(separator: "\n")
        let dir = try Self.exportFolder(extra: ["notes.har.gz": try Self.truncatedGzip(text)])
        let r = try Binary.run(["verify", dir.path])
        #expect(r.status == 2, "\(r.out)")
        #expect(r.err.contains("pbsift: \(dir.path): notes.har.gz: "), "\(r.err)")
        #expect(r.out.contains("not verified in full"), "\(r.out)")
        let json = try Binary.run(["verify", "--format", "json", dir.path])
        #expect(json.status == 2)
        let doc = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        let inputs = doc?["inputs"] as? [[String: Any]] ?? []
        #expect(inputs.first?["status"] as? String == "partial", "\(json.out)")
        #expect((inputs.first?["errors"] as? [String])?.contains { $0.hasPrefix("notes.har.gz: ") } ?? false, "\(json.out)")
    }

    @Test func onlyVerifyReadsOtherFiles() throws {
        // The same damaged notes: commands that never look at them neither read them nor fail on them.
        let text = (1...4000).map { "note line \($0)" }.joined(separator: "\n")
        let dir = try Self.exportFolder(extra: ["notes.har.gz": try Self.truncatedGzip(text)])
        for command in ["inspect", "waterfall", "records"] {
            let r = try Binary.run([command, dir.path])
            #expect(r.status == 0, "\(command): \(r.err)")
            #expect(!r.err.contains("notes.har.gz"), "\(command): \(r.err)")
        }
    }

    static func token(_ i: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var x = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 | 1
        var body = ""
        for _ in 0..<36 {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            body.append(alphabet[Int(x % UInt64(alphabet.count))])
        }
        return "gh" + "p_" + body
    }

    static func tokenLines(_ count: Int) -> [String] {
        [Fixture.header()]
            + (1...count).map { i in
                #"{"type":"log","seq":\#(i),"ts":"2026-11-29T10:15:03.500Z","level":"info","label":"auth","message":"token \#(token(i)) refreshed"}"#
            }
    }

    static func findings(_ json: String) throws -> [[String: Any]] {
        let doc = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return doc?["findings"] as? [[String: Any]] ?? []
    }

    /// Every credential finding is listed with its record (a CI job reading `--json` sees which
    /// records leaked); a baseline accepts them and a new one among them is new again.
    @Test func verifyListsEveryCredentialFinding() throws {
        let dir = try Self.exportFolder(lines: Self.tokenLines(300))
        let r = try Binary.run(["verify", "--format", "json", dir.path])
        #expect(r.status == 1, "\(r.err)")
        let found = try Self.findings(r.out).filter { ($0["rule"] as? String)?.hasPrefix("secret.") ?? false }
        #expect(found.count == 300, "\(found.count)")
        #expect(Set(found.compactMap { $0["seq"] as? Int }).count == 300)

        // A baseline accepts the counted findings as a set; one more credential among them is new again.
        let baseline = dir.appendingPathComponent("baseline.json").path
        #expect(try Binary.run(["verify", "--write-baseline", baseline, dir.path]).status == 0)
        #expect(try Binary.run(["verify", "--baseline", baseline, dir.path]).status == 0)
        let more = try Self.exportFolder(lines: Self.tokenLines(301))
        try FileManager.default.copyItem(atPath: baseline, toPath: more.appendingPathComponent("baseline.json").path)
        try FileManager.default.copyItem(atPath: baseline + ".key", toPath: more.appendingPathComponent("baseline.json.key").path)
        let again = try Binary.run(["verify", "--baseline", more.appendingPathComponent("baseline.json").path, more.path])
        #expect(again.status == 1, "\(again.out)")
    }

    @Test func metadataKeyWithABadByteStaysOnTheList() throws {
        let value = "hunter2-" + "s3cr3t-" + "value"
        var line = Array(
            #"{"type":"log","seq":1,"ts":"2026-11-29T10:15:03.500Z","level":"info","label":"login","message":"ok","metadata":{"pass"#.utf8)
        line += [0xFF] + Array(#"word":"\#(value)"}}"#.utf8)
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent(Fixture.sessionId + ".jsonl")
        try Data(Array((Fixture.header() + "\n").utf8) + line + [0x0A]).write(to: path)
        let v = try Binary.run(["verify", "--format", "json", path.path])
        #expect(v.status == 1)
        #expect(try Self.findings(v.out).contains { $0["rule"] as? String == "redaction.metadata-field" }, "\(v.out)")
        let r = try Binary.run(["records", path.path])
        #expect(!r.out.contains(value), "records printed a listed metadata value")
    }

    @Test func transactionKeysAreCheckedAsNames() throws {
        let name = Self.token(7)
        let record =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"GET","url":"https://api.example.test/v1/orders","state":"success","statusCode":200,"metrics":{"transactions":[{"\#(name)":1}]}}"#
        let path = try Fixture.write([Fixture.header(), record])
        let r = try Binary.run(["verify", "--format", "json", path])
        #expect(r.status == 1, "\(r.out)")
        let found = try Self.findings(r.out)
        #expect(found.contains { ($0["location"] as? String)?.hasPrefix("metrics.transactions[0]") ?? false }, "\(r.out)")
    }
}
