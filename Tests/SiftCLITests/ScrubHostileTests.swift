import Foundation
import Testing
@testable import SiftCLI
import SiftArchive
import SiftCore

/// `pbsift scrub` streams what used to be rewritten whole: a HAR document a value at a time, and
/// gzip inside a gzip (a session file, a blob) inflated, edited and compressed again as it goes.
@Suite struct ScrubHostileTests {
    static let token = HARFixture.token
    static let password = HARFixture.password

    /// A session whose request carries the password in its URL and the token in a header.
    static var session: String {
        let n =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.200Z","id":"rec_1","source":"sdk","kind":"http","category":"call","label":"x","method":"GET","url":"https://api.example.test/v1/me?access_token=\#(password)","state":"success","statusCode":200,"duration":0.2,"request":{"headers":[{"name":"Authorization","value":"Bearer \#(token)"}]}}"#
        return Fixture.header() + "\n" + n + "\n"
    }

    /// `bytes` inflated as many times as they are gzip'd.
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var b = bytes
        while Scrubber.isGzip(b) { b = try Scrubber.inflate(b, limit: 1 << 30) }
        return b
    }

    /// A session file gzip'd twice, as a whole input: the copy holds the placeholders and none of
    /// the values, and verify passes on it.
    @Test func gzipInsideAGzippedSessionFile() throws {
        let input = try makeTempDir().appendingPathComponent("\(Fixture.sessionId).jsonl.gz").path
        try Data(try DeflateStream.gzip(try DeflateStream.gzip(Array(Self.session.utf8)))).write(to: URL(fileURLWithPath: input))
        #expect(runCLI(["verify", "--fail-on", "low", input]).status == 1)
        let out = try makeTempDir().appendingPathComponent("copy.jsonl.gz").path
        let r = runCLI(["scrub", input, "-o", out, "-q"])
        #expect(r.status == 0, "\(r.err)")
        let copy = String(decoding: try Self.gunzip(Array(try Data(contentsOf: URL(fileURLWithPath: out)))), as: UTF8.self)
        #expect(copy.contains("***scrubbed:") && !copy.contains(Self.password) && !copy.contains(Self.token), "\(copy)")
        #expect(copy.split(separator: "\n").count == 2)
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(v.out)")
    }

    /// A gzip'd session file inside a .tar.gz, citing a gzip'd blob gzip'd again: both scrubbed,
    /// the blob re-hashed.
    @Test func gzipInsideAGzippedEntryAndBlob() throws {
        let blob = try DeflateStream.gzip(try DeflateStream.gzip(Array("key \(Self.token) end".utf8)))
        let hex = SHA256.hexDigest(blob)
        let cite =
            #"{"type":"network","seq":2,"ts":"2026-11-29T10:15:03.000Z","id":"rec_2","source":"app","kind":"custom","category":"app","label":"y","method":"GET","url":"https://up.example.test/raw","state":"success","statusCode":200,"duration":0.1,"response":{"headers":[],"body":{"size":\#(blob.count),"contentType":"application/octet-stream","blob":"sha256:\#(hex)","storedSize":\#(blob.count)}}}"#
        let input = try makeTempDir().appendingPathComponent("export.tar.gz").path
        let f = try NewFile(path: input)
        let gz = try DeflateStream(gzip: true)
        let tar = TarWriter(sink: { try f.write(gz.write($0)) })
        try tar.add(
            name: "PalbeConsole/sessions/\(Fixture.sessionId).jsonl.gz",
            bytes: try DeflateStream.gzip(Array((Self.session + cite + "\n").utf8)))
        try tar.add(name: "PalbeConsole/blobs/\(hex.prefix(2))/\(hex)", bytes: blob)
        try tar.finish()
        try f.write(gz.finish())
        try f.close()
        #expect(runCLI(["verify", "--fail-on", "low", input]).status == 1)
        let out = try makeTempDir().appendingPathComponent("copy.tar.gz").path
        let r = runCLI(["scrub", input, "-o", out])
        #expect(r.status == 0 && r.err.contains("(re-hashed)"), "\(r.err)")
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(v.out)")
        let a = try JSONDocument(string: runCLI(["inspect", "--json", out]).out).root
        #expect(a["findings"]?.count == 0, "\(a["findings"]?.rawText ?? "")")
    }

    /// A pretty-printed HAR is rewritten a value at a time: every line that held no value is kept
    /// byte for byte (white space included), the values are replaced, and a second `log` member
    /// is renamed `_log~2` as a later copy of a name.
    @Test func harKeepsItsLayoutAndRenamesALaterLog() throws {
        let e1 = HARFixture.entry(
            url: "https://api.example.test/v1/me?access_token=\(Self.password)",
            requestHeaders: [HARFixture.header("Authorization", "Bearer \(Self.token)")])
        let e2 = HARFixture.entry(url: "https://api.example.test/v1/clean")
        var text = String(decoding: try HARFixture.data(HARFixture.document(creator: "WebInspector", entries: [e1, e2])), as: UTF8.self)
        // A second `log` after the first, holding a value too, and trailing white space.
        guard let close = text.lastIndex(of: "}") else { Issue.record("no closing brace"); return }
        text = String(text[..<close]) + ",\n  \"log\" : {\"comment\" : \"Bearer \(Self.token)\"}\n}\n\n"
        let input = try makeTempDir().appendingPathComponent("capture.har").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: input))
        let out = try makeTempDir().appendingPathComponent("copy.har").path
        let r = runCLI(["scrub", input, "-o", out, "-q"])
        #expect(r.status == 0, "\(r.err)")
        let copy = String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self)
        #expect(!copy.contains(Self.password) && !copy.contains(Self.token) && copy.contains("***scrubbed:"), "\(copy)")
        #expect(copy.contains("\"_log~2\" : {\"comment\" : \"***scrubbed:"), "\(copy)")
        let inLines = text.components(separatedBy: "\n"), outLines = copy.components(separatedBy: "\n")
        #expect(inLines.count == outLines.count)
        for (a, b) in zip(inLines, outLines) where !a.contains(Self.password) && !a.contains(Self.token) {
            #expect(a == b)
        }
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(v.out)")
    }
}
