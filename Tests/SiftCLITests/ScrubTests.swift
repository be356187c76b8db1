import Foundation
import Testing
@testable import SiftCLI
import SiftArchive
import SiftCore

/// `pbsift scrub`: a shareable copy in the same container, verified clean, intact, and telling the
/// same story.
@Suite struct ScrubTests {
    static let token = HARFixture.token
    static let password = HARFixture.password
    static let sid = Fixture.sessionId

    /// A blob holding a JSON body with a password field.
    static var jsonBlob: [UInt8] {
        Array((#"{"user":"u1","password":"\#(password)","padding":""# + String(repeating: "x", count: 200) + #""}"#).utf8)
    }
    /// A raw gzip'd blob (an app-recorded body) holding a token.
    static var gzipBlob: [UInt8] {
        (try? DeflateStream.gzip(Array("upstream key \(token) end".utf8))) ?? []
    }

    /// The session lines: inline leaks (header, query, base64 gzip'd body) and two blob references.
    static func lines(blobA: String, blobB: String) -> [String] {
        let inline = Base64.encode((try? DeflateStream.gzip(Array("token=\(token)".utf8))) ?? [])
        let a = jsonBlob.count, b = gzipBlob.count
        let n1 =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.200Z","id":"rec_1","source":"sdk","kind":"http","category":"call","label":"x","method":"POST","url":"https://api.example.test/v1/login?access_token=\#(password)","state":"success","statusCode":200,"duration":0.2,"requestId":"req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b","request":{"headers":[{"name":"Authorization","value":"Bearer \#(token)"},{"name":"X-Request-Id","value":"req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"}],"body":{"size":\#(Base64.decode(inline)?.count ?? 0),"contentType":"application/octet-stream","encoding":"base64","data":"\#(inline)"}},"response":{"headers":[],"body":{"size":\#(a),"contentType":"application/json","blob":"sha256:\#(blobA)","storedSize":\#(a)}},"metrics":{"taskStart":"2026-11-29T10:15:02.000Z","taskEnd":"2026-11-29T10:15:02.200Z","redirectCount":0,"transactions":[{"fetchStart":"2026-11-29T10:15:02.000Z","domainLookupStart":"2026-11-29T10:15:02.001Z","domainLookupEnd":"2026-11-29T10:15:02.010Z","connectStart":"2026-11-29T10:15:02.010Z","secureConnectionStart":"2026-11-29T10:15:02.020Z","secureConnectionEnd":"2026-11-29T10:15:02.040Z","connectEnd":"2026-11-29T10:15:02.040Z","requestStart":"2026-11-29T10:15:02.041Z","requestEnd":"2026-11-29T10:15:02.050Z","responseStart":"2026-11-29T10:15:02.150Z","responseEnd":"2026-11-29T10:15:02.200Z","statusCode":200,"url":"https://api.example.test/v1/login?access_token=\#(password)"}]}}"#
        let n2 =
            #"{"type":"network","seq":2,"ts":"2026-11-29T10:15:03.000Z","id":"rec_2","source":"app","kind":"custom","category":"app","label":"y","method":"GET","url":"https://up.example.test/raw","state":"success","statusCode":200,"duration":0.1,"response":{"headers":[],"body":{"size":\#(b),"contentType":"application/octet-stream","blob":"sha256:\#(blobB)","storedSize":\#(b)}}}"#
        return [Fixture.header(), n1, n2, Fixture.log.replacingOccurrences(of: "\"seq\":2", with: "\"seq\":3")]
    }

    /// A folder export: sessions, two blobs, export.json and store.json.
    static func folder() throws -> URL {
        let root = try makeTempDir().appendingPathComponent("PalbeConsole")
        let a = SHA256.hexDigest(jsonBlob), b = SHA256.hexDigest(gzipBlob)
        for (hex, bytes) in [(a, jsonBlob), (b, gzipBlob)] {
            let d = root.appendingPathComponent("blobs/\(hex.prefix(2))")
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
            try Data(bytes).write(to: d.appendingPathComponent(hex))
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sessions"), withIntermediateDirectories: true)
        try Data((lines(blobA: a, blobB: b).joined(separator: "\n") + "\n").utf8)
            .write(to: root.appendingPathComponent("sessions/\(sid).jsonl"))
        try Data(#"{"format": "palbe-console-store", "formatVersion": 1, "budgetBytes": 134217728}"#.utf8)
            .write(to: root.appendingPathComponent("store.json"))
        try Data(#"{"format": "palbe-console-export", "formatVersion": 1, "sessions": ["\#(sid)"]}"#.utf8)
            .write(to: root.appendingPathComponent("export.json"))
        return root
    }

    /// Every file of a folder, by relative name.
    static func files(_ root: URL) throws -> [(String, [UInt8])] {
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return try paths.sorted().compactMap { p in
            var isDir: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: root.appendingPathComponent(p).path, isDirectory: &isDir)
            return !exists || isDir.boolValue ? nil : (p, Array(try Data(contentsOf: root.appendingPathComponent(p))))
        }
    }

    /// The input in the container `kind`.
    static func input(_ kind: String) throws -> String {
        let root = try folder()
        let dir = root.deletingLastPathComponent()
        switch kind {
        case "folder": return root.path
        case "zip", "tar", "tar.gz":
            let path = dir.appendingPathComponent("export.\(kind)").path
            let f = try NewFile(path: path)
            let gz = kind == "tar.gz" ? try DeflateStream(gzip: true) : nil
            let sink: ([UInt8]) throws -> Void = { bytes in try f.write(gz.map { $0.write(bytes) } ?? bytes) }
            let zip = kind == "zip" ? ZipWriter(sink: sink) : nil
            let tar = kind == "zip" ? nil : TarWriter(sink: sink)
            for (name, bytes) in try files(root) {
                try zip?.add(name: "PalbeConsole/" + name, bytes: bytes)
                try tar?.add(name: "PalbeConsole/" + name, bytes: bytes)
            }
            try zip?.finish()
            try tar?.finish()
            if let gz { try f.write(gz.finish()) }
            try f.close()
            return path
        case "jsonl", "jsonl.gz":
            // A bare session file: inline leaks only.
            let text =
                [
                    Fixture.header(),
                    lines(blobA: "", blobB: "")[1].replacingOccurrences(
                        of: #","response":{"headers":[],"body""#, with: #","response":{"headers":[],"x""#)
                ].joined(separator: "\n") + "\n"
            let path = dir.appendingPathComponent("\(sid).\(kind)").path
            try Data(kind == "jsonl" ? Array(text.utf8) : try DeflateStream.gzip(Array(text.utf8))).write(to: URL(fileURLWithPath: path))
            return path
        default:
            var doc = HARFixture.chrome
            var log = (doc["log"] as? HARFixture.Obj) ?? [:]
            var entries = (log["entries"] as? [HARFixture.Obj]) ?? []
            entries.append(
                HARFixture.entry(
                    url: "https://api.example.test/v1/me?access_token=\(password)",
                    requestHeaders: [HARFixture.header("Authorization", "Bearer \(token)")],
                    cookies: [["name": "sid", "value": password]],
                    content: [
                        "size": 40, "mimeType": "application/octet-stream", "encoding": "base64",
                        "text": Data("key \(token)".utf8).base64EncodedString()
                    ]))
            log["entries"] = entries
            doc["log"] = log
            return try HARFixture.write(doc)
        }
    }

    func json(_ args: [String]) throws -> JSONValue { try JSONDocument(string: runCLI(args).out).root }

    func withoutPlaces(_ text: String) -> String {
        text.split(separator: "\n").filter { !$0.contains("\"input\"") && !$0.contains("\"file\"") && !$0.contains("\"path\"") }
            .joined(separator: "\n")
    }

    @Test(arguments: ["folder", "zip", "tar", "tar.gz", "jsonl", "jsonl.gz", "har"])
    func everyContainerKind(kind: String) throws {
        let input = try Self.input(kind)
        let before = try json(["verify", "--json", input])
        #expect((before["findings"]?.count ?? 0) >= 3, "\(kind): \(before.rawText.prefix(300))")
        let out = try makeTempDir().appendingPathComponent("scrubbed-" + URL(fileURLWithPath: input).lastPathComponent).path
        let r = runCLI(["scrub", input, "-o", out])
        #expect(r.status == 0, "\(kind): \(r.err)")

        // verify finds nothing at or above low.
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(kind): \(v.out)")
        // inspect shows an intact export of the same kind.
        let a = try json(["inspect", "--json", input]), b = try json(["inspect", "--json", out])
        #expect(b["inputs"]?.elements.first?["container"]?.string == a["inputs"]?.elements.first?["container"]?.string, "\(kind)")
        #expect(b["findings"]?.count == a["findings"]?.count, "\(kind): \(b["findings"]?.rawText ?? "")")
        #expect(b["sessions"]?.elements.first?["recordCount"]?.int == a["sessions"]?.elements.first?["recordCount"]?.int)
        // waterfall and correlate tell the same story.
        // (Blob byte totals differ by design: the blobs changed.)
        for (args, parts) in [
            (["waterfall", "--json"], ["requests", "sessions"]),
            (["correlate", "--json", "--logs", "/dev/null"], ["requests", "correlation", "clockSkew"])
        ] {
            let x = try json(args + [input]), y = try json(args + [out])
            for p in parts {
                #expect(withoutPlaces(x[p]?.rawText ?? "") == withoutPlaces(y[p]?.rawText ?? ""), "\(kind) \(args[0]) \(p)")
            }
        }
        // No secret is left in the bytes (inflated where the container is compressed).
        var bytes: [UInt8]
        if kind == "folder" {
            bytes = try Self.files(URL(fileURLWithPath: out)).flatMap { $0.1 }
        } else {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: out)))
            if kind.hasSuffix("gz") { bytes = try Scrubber.inflate(bytes, limit: 1 << 30) }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains(Self.token) && !text.contains(Self.password), "\(kind)")
        #expect(text.contains("***scrubbed:"), "\(kind)")
    }

    /// Changed blobs are stored under their new hash, references and sizes follow, the rest is byte for byte.
    @Test func blobsAreRehashedAndTheRestIsUntouched() throws {
        let input = try Self.folder()
        let out = try makeTempDir().appendingPathComponent("out")
        #expect(runCLI(["scrub", input.path, "-o", out.path, "-q"]).status == 0)
        let before = Dictionary(uniqueKeysWithValues: try Self.files(input))
        let after = Dictionary(uniqueKeysWithValues: try Self.files(out))
        #expect(after["export.json"] == before["export.json"] && after["store.json"] == before["store.json"])
        let oldBlobs = before.keys.filter { $0.hasPrefix("blobs/") }, newBlobs = after.keys.filter { $0.hasPrefix("blobs/") }
        #expect(oldBlobs.count == 2 && newBlobs.count == 2)
        #expect(Set(oldBlobs).isDisjoint(with: newBlobs), "both blobs held a credential")
        for name in newBlobs {
            let hex = String(name.split(separator: "/").last ?? "")
            #expect(SHA256.hexDigest(after[name] ?? []) == hex)
            #expect(name.hasPrefix("blobs/\(hex.prefix(2))/"))
            let session = String(decoding: after["sessions/\(Self.sid).jsonl"] ?? [], as: UTF8.self)
            #expect(session.contains("sha256:\(hex)"))
            #expect(session.contains("\"storedSize\":\(after[name]?.count ?? -1)"))
        }
        // The gzip'd blob is still gzip.
        #expect(newBlobs.contains { after[$0]?.prefix(2) == [0x1F, 0x8B] })
        let inspect = try json(["inspect", "--json", out.path])
        #expect(inspect["findings"]?.count == 0, "\(inspect["findings"]?.rawText ?? "")")
    }

    /// A password short enough to guess gets no hash of itself, in the listing or in the copy: the
    /// sample's body password and URL userinfo password are `loc:` there, as verify gives them.
    @Test func aGuessableValueIsNeverHashed() throws {
        let out = try makeTempDir().appendingPathComponent("scrubbed.zip")
        let r = try Binary.run(["scrub", packageRoot.appendingPathComponent("samples/export-incident.zip").path, "-o", out.path])
        #expect(r.status == 0, "\(r.err)")
        let records = try Binary.run(["records", out.path]).out
        for guessable in ["hun" + "ter" + "2"] {
            let hash = "sha256:" + String(SHA256.hexDigest(Array(guessable.utf8)).prefix(16))
            #expect(!r.out.contains(hash) && !r.err.contains(hash) && !records.contains(hash))
        }
        #expect((r.out + r.err).contains("redaction.body-field  loc:"), "\(r.err)")
        // The same fingerprint verify gives the value.
        let verify = try Binary.run(["verify", "--json", packageRoot.appendingPathComponent("samples/export-incident.zip").path]).out
        let body = try JSONDocument(string: verify).root["findings"]?.elements.first { $0["rule"]?.string == "redaction.body-field" }
        let fp = try #require(body?["fingerprint"]?.string)
        #expect((r.out + r.err).contains("redaction.body-field  \(fp)"), "\(fp) not in \(r.err)")
    }

    /// One count of values: the report's "N distinct values" is the number scrub replaces.
    @Test func reportAndScrubCountTheSameValues() throws {
        let sample = packageRoot.appendingPathComponent("samples/export-incident.zip").path
        let report = try Binary.run(["report", sample, "-q"]).out
        let scrub = try Binary.run(["scrub", sample, "--dry-run"])
        let distinct = report.firstMatch(of: /\((\d+) distinct values/).map { String($0.1) }
        let replaced = (scrub.out + scrub.err).firstMatch(of: /replace[sd]? (\d+) values/).map { String($0.1) }
        #expect(distinct != nil && distinct == replaced, "report \(distinct ?? "?"), scrub \(replaced ?? "?"): \(scrub.out)\(scrub.err)")
    }

    @Test func dryRunListsAndWritesNothing() throws {
        let input = try Self.input("zip")
        let out = try makeTempDir().appendingPathComponent("never.zip").path
        let r = runCLI(["scrub", "--dry-run", input, "-o", out])
        #expect(r.status == 0)
        #expect(r.out.contains("would replace") && r.out.contains("redaction.header") && r.out.contains("re-hashed"))
        #expect(!r.out.contains(Self.token) && !r.out.contains(Self.password))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A name held twice in one object (`verify.duplicate-key`): the first copy keeps its name, every
    /// later one is renamed to a name held nowhere else in the record, and a credential under a later
    /// copy is replaced too (a header's second `value` is a credential by its header's name alone).
    @Test func duplicateNamesAreRenamedAndTheirValuesScrubbed() throws {
        let network = Fixture.network.replacingOccurrences(
            of: #""duration":0.120}"#,
            with:
                #""duration":0.120,"request":{"headers":[{"name":"Authorization","value":"***","value":"Bearer \#(Self.password)"}]}}"#)
        let log = Fixture.log.replacingOccurrences(
            of: #""message":"cart loaded""#,
            with:
                #""message~2":"earlier","message":"cart loaded","message":"retry with \#(Self.token)""#)
        let dir = try makeTempDir()
        let input = dir.appendingPathComponent("\(Self.sid).jsonl").path
        try Data(([Fixture.header(), network, log].joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
        let before = runCLI(["verify", "--fail-on", "low", input])
        #expect(before.status == 1 && before.out.contains("verify.duplicate-key"), "\(before.out)")

        let dry = runCLI(["scrub", "--dry-run", input])
        #expect(dry.status == 0, "\(dry.err)")
        #expect(
            dry.out.contains("'message' in one object → 'message~3'") && dry.out.contains("'value' in one object → 'value~2'"), "\(dry.out)"
        )
        #expect(!dry.out.contains(Self.token) && !dry.out.contains(Self.password))

        let out = dir.appendingPathComponent("scrubbed.jsonl").path
        let r = runCLI(["scrub", input, "-o", out])
        #expect(r.status == 0, "\(r.err)")
        let text = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(), as: UTF8.self)
        #expect(!text.contains(Self.token) && !text.contains(Self.password), "\(text)")
        #expect(text.contains(#""message~2":"earlier","message":"cart loaded","message~3":"retry with ***scrubbed:"#), "\(text)")
        #expect(
            text.contains(#"{"name":"Authorization","value":"***","value~2":"Bearer ***scrubbed:"#)
                || text.contains(#"{"name":"Authorization","value":"***","value~2":"***scrubbed:"#), "\(text)")
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(v.out)")
        let a = try json(["inspect", "--json", input]), b = try json(["inspect", "--json", out])
        #expect(b["findings"]?.count == 0, "\(b["findings"]?.rawText ?? "")")
        #expect(b["sessions"]?.elements.first?["recordCount"]?.int == a["sessions"]?.elements.first?["recordCount"]?.int)
    }

    /// A gzip'd HAR whose entry holds a header's `value` twice: `--dry-run` names the line of the
    /// later copy, the copy (gzip'd again) keeps the first, renames the later one `_value~2` (a HAR name of its own) with its
    /// credential replaced, and passes verify.
    @Test func harDuplicateNamesAreRenamedAndTheirValuesScrubbed() throws {
        let mark = "DUP" + "MARK"
        let e = HARFixture.entry(url: "https://api.example.test/v1/me", requestHeaders: [HARFixture.header("Authorization", mark)])
        var text = String(decoding: try HARFixture.data(HARFixture.document(creator: "WebInspector", entries: [e])), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"\(mark)\"", with: "\"***\",\n\"value\" : \"Bearer \(Self.password)\"")
        let line = (text.components(separatedBy: "\n").firstIndex { $0.contains(Self.password) } ?? -1) + 1
        let input = try makeTempDir().appendingPathComponent("capture.har.gz").path
        try Data(try DeflateStream.gzip(Array(text.utf8))).write(to: URL(fileURLWithPath: input))
        let before = runCLI(["verify", "--fail-on", "low", input])
        #expect(
            before.status == 1 && before.out.contains("verify.duplicate-key") && before.out.contains("redaction.header"), "\(before.out)")

        let dry = runCLI(["scrub", "--dry-run", input])
        #expect(dry.status == 0 && dry.out.contains("line \(line): a later copy of 'value' in one object → '_value~2'"), "\(dry.out)")
        let out = try makeTempDir().appendingPathComponent("scrubbed.har.gz").path
        let r = runCLI(["scrub", input, "-o", out, "-q"])
        #expect(r.status == 0, "\(r.err)")
        let copy = String(
            decoding: try Scrubber.inflate(Array(try Data(contentsOf: URL(fileURLWithPath: out))), limit: 1 << 20), as: UTF8.self)
        #expect(
            !copy.contains(Self.password) && copy.contains(#""value" : "***""#) && copy.contains(#""_value~2" : "***scrubbed:"#), "\(copy)")
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(v.out)")
    }

    /// A record holding one name a thousand times: `--dry-run` lists the first renamed copies in full,
    /// then one line with how many more and the last, not a line per copy (the list is bounded).
    @Test func manyRenamedCopiesAreCountedNotListed() throws {
        let copies = Array(repeating: "\"k\":1", count: 1000).joined(separator: ",")
        let line = #"{"type":"log","seq":1,"ts":"2026-11-29T10:15:00.000Z","level":"info","message":"m","# + copies + "}"
        let input = try makeTempDir().appendingPathComponent("dup.jsonl").path
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: input))
        let dry = runCLI(["scrub", "--dry-run", input])
        let listed = dry.out.components(separatedBy: "\n").filter { $0.contains("a later copy of 'k'") }
        #expect(dry.status == 0 && listed.count == KeyRenames.listed, "\(dry.out)")
        #expect(
            dry.out.contains(
                "dup.jsonl: \(999 - KeyRenames.listed) more later copies of names held twice renamed, the last on line 1: 'k' → 'k~1000'"),
            "\(dry.out)")
    }

    /// Files beside the sessions (export.json, a note) are read and scrubbed like the rest.
    @Test(arguments: ["export.json", "store.json", "notes.txt"]) func otherFilesAreScrubbed(_ name: String) throws {
        let root = try makeTempDir().appendingPathComponent("PalbeConsole")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sessions"), withIntermediateDirectories: true)
        try Data((Fixture.clean.joined(separator: "\n") + "\n").utf8)
            .write(to: root.appendingPathComponent("sessions").appendingPathComponent(Self.sid + ".jsonl"))
        try Data(#"{"format":"palbe-console-export","note":"\#(Self.token)"}"#.utf8).write(to: root.appendingPathComponent(name))
        let out = try makeTempDir().appendingPathComponent("copy").path
        let r = runCLI(["scrub", root.path, "-o", out])
        #expect(r.status == 0, "\(r.err)")
        let copy = String(
            decoding: (try? Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent(name))) ?? Data(), as: UTF8.self)
        #expect(copy.contains("***scrubbed:") && !copy.contains(Self.token), "\(name): \(copy)")
    }

    /// A gzip'd body that inflates past verify's bound: its end is never checked, so nothing is written.
    @Test func aBodyPastTheBoundIsRefused() throws {
        let bomb = Base64.encode(try DeflateStream.gzip([UInt8](repeating: 0x41, count: 17 << 20)))
        let n =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","method":"POST","url":"https://a.example.test/","state":"success","statusCode":200,"duration":0.1,"request":{"headers":[],"body":{"size":1,"contentType":"application/octet-stream","encoding":"base64","data":"\#(bomb)"}}}"#
        let file = try Fixture.write([Fixture.header(), n])
        let out = try makeTempDir().appendingPathComponent("copy.jsonl").path
        let r = runCLI(["scrub", file, "-o", out])
        #expect(r.status == 2 && r.err.contains("bound"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// The copy proves itself before it is kept: verify reads it, and a finding at or above
    /// `--fail-on` (low by default) refuses it, named by rule and place, never by value.
    @Test func theCopyIsVerifiedBeforeItIsKept() throws {
        let leaky = try Self.input("jsonl.gz")
        let left = try #require(ScrubCommand.leftIn(leaky, limits: .default, failOn: .low))
        #expect(left.contains("verify still finds") && left.contains("redaction.") && !left.contains(Self.token))
        let out = try makeTempDir().appendingPathComponent("copy.jsonl.gz").path
        let r = runCLI(["scrub", leaky, "-o", out])
        #expect(r.status == 0, "\(r.err)")
        #expect(ScrubCommand.leftIn(out, limits: .default, failOn: .low) == nil)
        // A copy that does not read in full is refused too.
        let cut = try makeTempDir().appendingPathComponent("cut.jsonl.gz").path
        let whole = try Data(contentsOf: URL(fileURLWithPath: out))
        try whole.prefix(whole.count - 12).write(to: URL(fileURLWithPath: cut))
        #expect(ScrubCommand.leftIn(cut, limits: .default, failOn: .low)?.contains("does not read in full") == true)
        #expect(runCLI(["scrub", leaky, "-o", out + ".x", "--fail-on", "bogus"]).status == 64)
    }

    @Test func refusals() throws {
        let input = try Self.input("jsonl.gz")
        // The output exists: never written over.
        let existing = try makeTempDir().appendingPathComponent("exists.jsonl.gz").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: existing))
        let r1 = runCLI(["scrub", input, "-o", existing])
        #expect(r1.status == 2 && r1.err.contains("already exists"))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep")
        #expect(runCLI(["scrub", input, "-o", input]).status == 2)
        // A link as the output is refused too.
        let link = try makeTempDir().appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/tmp/pbsift-nowhere")
        #expect(runCLI(["scrub", input, "-o", link]).status == 2)
        // An input not read in full: exit 2, nothing written.
        let cut = try makeTempDir().appendingPathComponent("cut.jsonl.gz").path
        let whole = try Data(contentsOf: URL(fileURLWithPath: input))
        try whole.prefix(whole.count - 12).write(to: URL(fileURLWithPath: cut))
        let out = try makeTempDir().appendingPathComponent("out.jsonl.gz").path
        let r2 = runCLI(["scrub", cut, "-o", out])
        #expect(r2.status == 2 && r2.err.contains("nothing written"), "\(r2.err)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // Usage.
        #expect(runCLI(["scrub", "-", "-o", out]).status == 64)
        #expect(runCLI(["scrub", input]).status == 64)
    }
}
