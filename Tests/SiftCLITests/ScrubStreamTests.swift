import Foundation
import SiftTestSupport
import Testing
@testable import SiftCLI
import SiftArchive
import SiftCore

/// `pbsift scrub` streams: a session file goes through a line at a time, so memory is bounded by a
/// line, not a file; zip outputs past the zip32 limits are written as zip64; a failure part way
/// leaves nothing that looks complete. Run through the built binary.
@Suite(.serialized) struct ScrubStreamTests {
    static let token = HARFixture.token
    static let password = HARFixture.password

    /// Every file under `url` (or `url` itself) as `<sha256>  <relative path>` lines, sorted by path.
    static func listing(_ url: URL, as name: String) throws -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else { return [] }
        guard isDir.boolValue else { return [SHA256.hexDigest(Array(try Data(contentsOf: url))) + "  " + name] }
        let paths = FileManager.default.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? []
        return try paths.sorted().compactMap { p in
            var d: ObjCBool = false
            let u = url.appendingPathComponent(p)
            guard FileManager.default.fileExists(atPath: u.path, isDirectory: &d), !d.boolValue else { return nil }
            return SHA256.hexDigest(Array(try Data(contentsOf: u))) + "  " + name + "/" + p
        }
    }

    /// Hidden names scrub may leave next to its output (a temporary output, a scratch file).
    static func leftovers(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix(".") }
    }

    /// The samples' scrubbed copies are the bytes recorded in `Golden/scrub-samples.sha256` (recorded
    /// from the whole-file scrub that came before the streamed one: streaming changes no byte).
    @Test func samplesGiveTheRecordedBytes() throws {
        let samples = packageRoot.appendingPathComponent("samples")
        let out = try makeTempDir()
        var lines: [String] = []
        for name in [
            "export-incident.zip", "export-incident.tar.gz", "ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl",
            "ses_c393fd0e-1cc6-4be5-b836-46bf0324aac3.jsonl.gz", "export-clean", "damaged/frame-in-export"
        ] {
            let base = URL(fileURLWithPath: name).lastPathComponent
            let target = out.appendingPathComponent(base)
            let r = try Binary.run(["scrub", samples.appendingPathComponent(name).path, "-o", target.path, "-q"])
            #expect(r.status == 0 && r.err.isEmpty, "\(name): \(r.err)")
            lines += try Self.listing(target, as: base)
        }
        let golden = packageRoot.appendingPathComponent("Tests/SiftCLITests/Golden/scrub-samples.sha256")
        let expected = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.sorted() == expected.sorted())
        #expect(Self.leftovers(out).isEmpty)
    }

    /// A session of `records` records with bodies of `bodyBytes`, each holding a password and a token.
    static func bigSession(records: Int, bodyBytes: Int) -> [UInt8] {
        var out = Array((Fixture.header() + "\n").utf8)
        let filler = Array(String(repeating: "lorem ipsum dolor sit amet ", count: bodyBytes / 27 + 1).utf8.prefix(bodyBytes))
        for i in 1...records {
            let text = "password=\(password) token \(token) " + String(decoding: filler, as: UTF8.self)
            let line =
                #"{"type":"network","seq":\#(i),"ts":"2026-11-29T10:15:02.000Z","id":"rec_\#(i)","source":"sdk","kind":"http","category":"call","label":"x","method":"GET","url":"https://api.example.test/v1/orders","state":"success","statusCode":200,"duration":0.2,"request":{"headers":[{"name":"Authorization","value":"Bearer \#(token)"}]},"response":{"headers":[],"body":{"size":\#(text.utf8.count),"contentType":"text/plain","encoding":"utf8","text":"\#(text)"}}}"#
            out += Array(line.utf8) + [0x0A]
        }
        return out
    }

    /// Large bodies go through a line at a time, in a zip (deflated, and gzip'd inside) and bare:
    /// the copy is whole (every line, every body at its new size), holds no credential, and verifies clean.
    @Test func bigBodiesGoThroughWhole() throws {
        let session = Self.bigSession(records: 6, bodyBytes: 1 << 20)
        let dir = try makeTempDir()
        let zipPath = dir.appendingPathComponent("export.zip").path
        let f = try NewFile(path: zipPath)
        let zip = ZipWriter(file: f)
        try zip.add(name: "PalbeConsole/sessions/\(Fixture.sessionId).jsonl", bytes: session, deflate: true)
        try zip.add(
            name: "PalbeConsole/sessions/ses_0f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13.jsonl.gz",
            bytes: try DeflateStream.gzip(session), deflate: false)
        try zip.finish()
        try f.close()
        let bare = dir.appendingPathComponent("\(Fixture.sessionId).jsonl.gz").path
        try Data(try DeflateStream.gzip(session)).write(to: URL(fileURLWithPath: bare))
        for input in [zipPath, bare] {
            let out = dir.appendingPathComponent("scrubbed-" + URL(fileURLWithPath: input).lastPathComponent).path
            let r = try Binary.run(["scrub", input, "-o", out])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.err.contains("rewritten"))
            let v = try Binary.run(["verify", out])
            #expect(v.status == 0, "\(v.out)\(v.err)")
            let (_, files) = Self.walk(out)
            #expect(!files.isEmpty)
            for (name, bytes) in files {
                let text = Scrubber.isGzip(bytes) ? try Scrubber.inflate(bytes, limit: 1 << 30) : bytes
                #expect(text.split(separator: 0x0A, omittingEmptySubsequences: false).count == 8, "\(name)")
                #expect(ScrubValues.replaceAll(text, Array(Self.token.utf8), []) == nil, "\(name)")
                #expect(ScrubValues.replaceAll(text, Array(Self.password.utf8), []) == nil, "\(name)")
                #expect(text.count > 6 * (1 << 20), "\(name)")
            }
        }
        #expect(Self.leftovers(dir).isEmpty)
    }

    /// Every entry of an input, read whole.
    static func walk(_ path: String) -> (WalkResult, [(String, [UInt8])]) {
        var files: [(String, [UInt8])] = []
        let result = InputWalker.walk(path: path) { entry in
            files.append((entry.name, (try? ScrubCommand.readAll(entry.source)) ?? []))
        }
        return (result, files)
    }

    /// An output of more than 65,535 entries is a zip64 archive (end record and locator), which
    /// pbsift, Python's zipfile and Info-ZIP's unzip read back in full.
    @Test func manyEntriesMakeAZip64Archive() throws {
        let dir = try makeTempDir()
        let input = dir.appendingPathComponent("many.zip").path
        let f = try NewFile(path: input)
        let zip = ZipWriter(file: f)
        try zip.add(
            name: "PalbeConsole/sessions/\(Fixture.sessionId).jsonl",
            bytes: Array(
                (Fixture.clean + [
                    #"{"type":"log","seq":3,"ts":"2026-11-29T10:15:03.600Z","level":"info","label":"x","message":"password=\#(Self.password)"}"#
                ]).joined(separator: "\n").utf8) + [0x0A])
        for i in 0..<65_540 { try zip.add(name: "PalbeConsole/notes/\(i).txt", bytes: [0x6E]) }
        try zip.finish()
        try f.close()
        let out = dir.appendingPathComponent("scrubbed.zip").path
        let r = try Binary.run(["scrub", input, "-o", out, "-q"])
        #expect(r.status == 0, "\(r.err)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(ScrubValues.replaceAll(bytes, [0x50, 0x4B, 0x06, 0x06], []) != nil, "no zip64 end record")
        #expect(ScrubValues.replaceAll(bytes, [0x50, 0x4B, 0x06, 0x07], []) != nil, "no zip64 end locator")
        let (walk, files) = Self.walk(out)
        #expect(walk.issues.isEmpty && files.count == 65_541)
        #expect(files.first.map { ScrubValues.replaceAll($0.1, Array(Self.password.utf8), []) == nil } == true)
        for tool in [["python3", "-m", "zipfile", "-t", out], ["unzip", "-tq", out]] {
            guard let status = ExternalTool.status(tool) else { continue }
            #expect(status == 0, "\(tool[0]) rejects the zip64 output")
        }
    }

    /// A write that fails part way (the file-size limit reached while the copy is written): exit 2
    /// with `pbsift: PATH: reason`, and neither the output nor a temporary or scratch file is left.
    @Test func aWriteThatFailsPartWayLeavesNothing() throws {
        guard let binary = Binary.url else { Issue.record("pbsift binary not built"); return }
        let dir = try makeTempDir()
        let input = dir.appendingPathComponent("in").appendingPathComponent("\(Fixture.sessionId).jsonl")
        try FileManager.default.createDirectory(at: input.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(Self.bigSession(records: 4, bodyBytes: 1 << 20)).write(to: input)
        let outDir = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
        for name in ["copy.jsonl", "copy-folder"] {
            let source = name == "copy-folder" ? input.deletingLastPathComponent().path : input.path
            let out = outDir.appendingPathComponent(name).path
            // SIGXFSZ ignored, so a write past the limit (64 KiB) fails with EFBIG instead of killing the process.
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "trap '' XFSZ; ulimit -f 128; exec \"$0\" scrub \"$1\" -o \"$2\"", binary.path, source, out]
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus == 2, "\(text)")
            #expect(text.hasPrefix("pbsift: \(out): ") && text.contains("nothing written"), "\(text)")
            #expect(!FileManager.default.fileExists(atPath: out))
            #expect(Self.leftovers(outDir).isEmpty, "\(Self.leftovers(outDir))")
        }
    }

    /// Input damaged part way through a session file (a zip member whose deflate data is broken in
    /// the middle, a gzip'd file cut short): exit 2, nothing written, nothing left behind.
    @Test func damagedInputPartWayWritesNothing() throws {
        let session = Self.bigSession(records: 3, bodyBytes: 256 << 10)
        let dir = try makeTempDir()
        var zipBytes: [UInt8] = []
        let zip = ZipWriter { zipBytes += $0 }
        try zip.add(name: "PalbeConsole/sessions/\(Fixture.sessionId).jsonl", bytes: session, deflate: true)
        try zip.finish()
        // Flip bytes in the middle of the member's deflate data (the CRC stays as recorded).
        let mid = 30 + 64 + (zipBytes.count - 200) / 2
        for i in mid..<(mid + 16) { zipBytes[i] ^= 0x5A }
        let broken = dir.appendingPathComponent("broken.zip").path
        try Data(zipBytes).write(to: URL(fileURLWithPath: broken))
        let gz = try DeflateStream.gzip(session)
        let cut = dir.appendingPathComponent("\(Fixture.sessionId).jsonl.gz").path
        try Data(gz.prefix(gz.count / 2)).write(to: URL(fileURLWithPath: cut))
        let outDir = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
        for input in [broken, cut] {
            let out = outDir.appendingPathComponent("copy-" + URL(fileURLWithPath: input).lastPathComponent).path
            let r = try Binary.run(["scrub", input, "-o", out])
            #expect(r.status == 2, "\(r.err)")
            #expect(r.err.hasPrefix("pbsift: ") && r.err.contains("nothing written"), "\(r.err)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        #expect(Self.leftovers(outDir).isEmpty)
    }
}
