import Foundation
import Testing
@testable import SiftCLI
import SiftArchive
import SiftCore

/// Gzip inside gzip, through the built binary: a session file gzip'd twice inside an archive is read
/// as a session file (each layer bounded by --max-input-bytes, a finding when the bound is reached),
/// and scrub's copy of a whole input keeps the input's layers.
@Suite(.serialized) struct GzipLayerTests {
    static let session = ScrubHostileTests.session
    static let token = ScrubHostileTests.token
    static let password = ScrubHostileTests.password

    /// How many times `bytes` are gzip'd, and what is under the last layer.
    static func layers(_ bytes: [UInt8]) throws -> (Int, [UInt8]) {
        var b = bytes
        var n = 0
        while Scrubber.isGzip(b) {
            b = try Scrubber.inflate(b, limit: 1 << 30)
            n += 1
        }
        return (n, b)
    }

    /// A .tar.gz holding `files` (name, bytes).
    static func tarGz(_ files: [(String, [UInt8])]) throws -> String {
        let path = try makeTempDir().appendingPathComponent("export.tar.gz").path
        let f = try NewFile(path: path)
        let gz = try DeflateStream(gzip: true)
        let tar = TarWriter(sink: { try f.write(gz.write($0)) })
        for (name, bytes) in files { try tar.add(name: name, bytes: bytes) }
        try tar.finish()
        try f.write(gz.finish())
        try f.close()
        return path
    }

    /// The entries of a .tar.gz, by name.
    static func entries(_ path: String) -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        _ = InputWalker.walk(path: path) { e in out[e.name] = try? ScrubCommand.readAll(e.source) }
        return out
    }

    /// A whole input gzip'd twice: scrub's copy is gzip'd twice too (the walker's layer compressed
    /// again over the inner one, edited as it stands), holds the placeholders, and verifies clean.
    @Test func aWholeInputKeepsItsLayers() throws {
        let input = try makeTempDir().appendingPathComponent("\(Fixture.sessionId).jsonl.gz").path
        try Data(try DeflateStream.gzip(try DeflateStream.gzip(Array(Self.session.utf8)))).write(to: URL(fileURLWithPath: input))
        let out = try makeTempDir().appendingPathComponent("copy.jsonl.gz").path
        let r = try Binary.run(["scrub", input, "-o", out, "-q"])
        #expect(r.status == 0, "\(r.err)")
        let (n, text) = try Self.layers(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(n == 2)
        let copy = String(decoding: text, as: UTF8.self)
        #expect(copy.contains("***scrubbed:") && !copy.contains(Self.password) && !copy.contains(Self.token), "\(copy)")
        let v = try Binary.run(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(v.out)\(v.err)")
    }

    /// A session file gzip'd twice inside a .tar.gz is read as a session file, not as binary:
    /// verify finds its credentials (exit 1, not 2) in its record (after the header), and scrub's copy
    /// keeps the member's two layers.
    @Test func aSessionFileGzippedTwiceInsideAnArchiveIsRead() throws {
        let name = "PalbeConsole/sessions/\(Fixture.sessionId).jsonl.gz"
        let input = try Self.tarGz([(name, try DeflateStream.gzip(try DeflateStream.gzip(Array(Self.session.utf8))))])
        let v = try Binary.run(["verify", "--fail-on", "low", input])
        #expect(v.status == 1, "\(v.out)\(v.err)")
        #expect(v.err.isEmpty && v.out.contains("(1 record,"), "\(v.out)\(v.err)")
        let out = try makeTempDir().appendingPathComponent("copy.tar.gz").path
        let s = try Binary.run(["scrub", input, "-o", out, "-q"])
        #expect(s.status == 0, "\(s.err)")
        guard let member = Self.entries(out)[name] else { Issue.record("no \(name) in the copy"); return }
        let (n, text) = try Self.layers(member)
        #expect(n == 2)
        let copy = String(decoding: text, as: UTF8.self)
        #expect(copy.contains("***scrubbed:") && !copy.contains(Self.password) && !copy.contains(Self.token), "\(copy)")
        let again = try Binary.run(["verify", "--fail-on", "low", out])
        #expect(again.status == 0, "\(again.out)\(again.err)")
    }

    /// The inner layer is bounded as a top-level gzip is: past --max-input-bytes the read stops with
    /// a finding and an error naming the member, and the input is not verified in full (exit 2).
    @Test func theInnerLayerIsBounded() throws {
        let name = "PalbeConsole/sessions/\(Fixture.sessionId).jsonl.gz"
        let filler =
            #"{"type":"log","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","level":"info","message":"\#(String(repeating: "a", count: 200))"}"#
        let body = Self.session + String(repeating: filler + "\n", count: 20_000)
        let input = try Self.tarGz([(name, try DeflateStream.gzip(try DeflateStream.gzip(Array(body.utf8))))])
        let v = try Binary.run(["verify", "--max-input-bytes", "1M", "-f", "json", input])
        #expect(v.status == 2, "\(v.out)\(v.err)")
        #expect(v.err.contains("\(name): gzip stream inflates past the limit of 1048576 bytes"), "\(v.err)")
        #expect(v.out.contains("inflates past the limit"), "\(v.out)")
    }
}
