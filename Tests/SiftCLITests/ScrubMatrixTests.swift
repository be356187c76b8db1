import Foundation
import Testing
@testable import SiftCLI
import SiftArchive
import SiftCore

/// The leak matrix scrubbed, in every container kind: the leak fixture's export (a credential in
/// every field of every record type — names and values, plain, percent-encoded, base64, gzip'd, in
/// a blob, as a blob reference, in a frame) packed as a folder, zip, tar.gz, JSON Lines and gzip'd
/// JSON Lines, and a HAR with a credential in every HAR field. On each copy: no planted credential
/// is left in any byte, `verify --fail-on low` finds nothing, `inspect` shows the same export, and
/// `waterfall` and `correlate` give the same results as on the input.
@Suite struct ScrubMatrixTests {
    static let kinds = ["folder", "zip", "tar.gz", "jsonl", "jsonl.gz", "har"]

    /// The input of one kind and the planted credentials it holds.
    static func input(_ kind: String) throws -> (path: String, leaks: (String) -> [String]) {
        let fx = try #require(LeakMatrixTests.fixture)
        let root = fx.export
        let dir = try makeTempDir()
        switch kind {
        case "folder":
            return (root.path, fx.leaks)
        case "zip", "tar.gz":
            let path = dir.appendingPathComponent("export.\(kind)").path
            try ScrubMatrixTests.pack(root, kind: kind, to: path)
            return (path, fx.leaks)
        case "jsonl", "jsonl.gz":
            let session = root.appendingPathComponent("sessions/\(LeakFixture.sessionId).jsonl")
            let bytes = Array(try Data(contentsOf: session))
            let path = dir.appendingPathComponent("\(LeakFixture.sessionId).\(kind)").path
            try Data(kind == "jsonl" ? bytes : try DeflateStream.gzip(bytes)).write(to: URL(fileURLWithPath: path))
            return (path, fx.leaks)
        default:
            let har = HARLeakFixture()
            return (try HARFixture.write(har.document), har.leaks)
        }
    }

    /// Packs a folder as a zip (deflate members, blobs stored) or a tar.gz, under `PalbeConsole/`.
    static func pack(_ root: URL, kind: String, to path: String) throws {
        let f = try NewFile(path: path)
        let gz = kind == "tar.gz" ? try DeflateStream(gzip: true) : nil
        let sink: ([UInt8]) throws -> Void = { bytes in try f.write(gz.map { $0.write(bytes) } ?? bytes) }
        let zip = kind == "zip" ? ZipWriter(sink: sink) : nil
        let tar = kind == "zip" ? nil : TarWriter(sink: sink)
        for (name, bytes) in try ScrubTests.files(root) {
            try zip?.add(name: "PalbeConsole/" + name, bytes: bytes, deflate: !name.hasPrefix("blobs/"))
            try tar?.add(name: "PalbeConsole/" + name, bytes: bytes)
        }
        try zip?.finish()
        try tar?.finish()
        if let gz { try f.write(gz.finish()) }
        try f.close()
    }

    /// Every file the output holds, inflated where compressed (the container, then each file).
    static func contents(_ path: String, kind: String) throws -> [(String, String)] {
        var files: [(String, [UInt8])]
        if kind == "zip" {
            // Members are compressed the way the input had them.
            var methods: [String: Bool] = [:]
            _ = InputWalker.walk(path: path, limits: .default) { methods[$0.name] = $0.isDeflated }
            #expect(!methods.isEmpty && methods.allSatisfy { $0.value == !$0.key.contains("/blobs/") }, "\(methods)")
        }
        if kind == "folder" {
            files = try ScrubTests.files(URL(fileURLWithPath: path))
        } else if kind == "zip" || kind == "tar.gz" {
            files = []
            let walk = InputWalker.walk(path: path, limits: .default) { entry in
                if let b = try? ScrubCommand.readAll(entry.source) { files.append((entry.name, b)) }
            }
            #expect(!walk.isPartial, "\(kind): the output reads in full")
        } else {
            files = [(path, Array(try Data(contentsOf: URL(fileURLWithPath: path))))]
        }
        return files.map { name, bytes in
            var b = bytes
            if b.prefix(2) == [0x1F, 0x8B], let inflated = try? Scrubber.inflate(b, limit: 1 << 28) { b = inflated }
            return (name, String(decoding: b, as: UTF8.self))
        }
    }

    func json(_ args: [String]) throws -> JSONValue { try JSONDocument(string: runCLI(args).out).root }

    /// The findings' rules and places (messages name values, which differ by design).
    func findingKeys(_ v: JSONValue?) -> [String] {
        (v?.elements ?? []).map { f in
            [f["rule"]?.string, f["seq"]?.rawText, f["location"]?.string].map { $0 ?? "-" }.joined(separator: " ")
        }.sorted()
    }

    @Test(arguments: kinds) func noPlantedCredentialSurvives(kind: String) throws {
        let (input, leaks) = try Self.input(kind)
        let out = try makeTempDir().appendingPathComponent("scrubbed-" + URL(fileURLWithPath: input).lastPathComponent).path
        let r = runCLI(["scrub", input, "-o", out, "-q"])
        #expect(r.status == 0, "\(kind): \(r.err)")

        // No planted credential, in any form, in any byte of the copy.
        var leaked: [String] = []
        for (name, text) in try Self.contents(out, kind: kind) {
            let found = leaks(name) + leaks(text)
            if !found.isEmpty { leaked.append("\(name): \(found.joined(separator: ", "))") }
        }
        #expect(leaked.isEmpty, "\(kind):\n\(leaked.joined(separator: "\n"))")

        // verify finds nothing at or above low.
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(kind): \(v.out)\(v.err)")

        // inspect: the same export, findings in the same places (the frame record is gone by design).
        let a = try json(["inspect", "--json", input]), b = try json(["inspect", "--json", out])
        #expect(b["inputs"]?.elements.first?["container"]?.string == a["inputs"]?.elements.first?["container"]?.string, "\(kind)")
        #expect(b["inputs"]?.elements.first?["status"]?.string == "ok", "\(kind)")
        let before = findingKeys(a["findings"]).filter {
            !$0.hasPrefix("policy.frame-in-export") && !$0.hasPrefix("integrity.unknown-record-type")
        }
        let after = findingKeys(b["findings"]).filter { !$0.hasPrefix("integrity.unknown-record-type") }
        #expect(before == after, "\(kind): \(before) vs \(after)")
        #expect(b["sessions"]?.elements.first?["recordCount"]?.int == a["sessions"]?.elements.first?["recordCount"]?.int, "\(kind)")

        // waterfall and correlate: the same timings, phases, joins and skew.
        let fx = try #require(LeakMatrixTests.fixture)
        for (args, parts) in [
            (["waterfall", "--json"], ["requests", "sessions"]),
            (["correlate", "--json", "--logs", fx.logs.path], ["requests", "correlation", "clockSkew"])
        ] {
            let x = try json(args + [input]), y = try json(args + [out])
            for p in parts {
                #expect(Self.shape(x[p]) == Self.shape(y[p]), "\(kind) \(args[0]) \(p)")
            }
        }
    }

    /// Credentials in file and folder names (a session root, a session file, a note, a folder): the
    /// copy names each with a placeholder, keeping extensions and roles — the session file is still a
    /// session file, blobs stay beside their sessions under their hashes and every reference resolves.
    @Test(arguments: ["folder", "zip", "tar", "tar.gz"]) func credentialsInNamesAreRenamed(kind: String) throws {
        let token = HARFixture.token
        let other = "gh" + "o_" + String(repeating: "Z9y8", count: 9)
        // `PalbeConsole-<token>/` holds the sessions and blobs of ScrubTests.folder().
        let top = try makeTempDir()
        let root = top.appendingPathComponent("PalbeConsole-" + token)
        try FileManager.default.moveItem(at: try ScrubTests.folder(), to: root)
        let sessions = root.appendingPathComponent("sessions")
        try FileManager.default.moveItem(
            at: sessions.appendingPathComponent(ScrubTests.sid + ".jsonl"),
            to: sessions.appendingPathComponent(token + ".jsonl"))
        // A session whose id (header and name) is a credential: names and header still agree afterwards.
        let sid2 = "ses_" + other
        try Data(
            (Fixture.header().replacingOccurrences(of: Fixture.sessionId, with: sid2) + "\n"
                + Fixture.log.replacingOccurrences(of: "\"seq\":2", with: "\"seq\":1") + "\n").utf8
        )
        .write(to: sessions.appendingPathComponent(sid2 + ".jsonl"))
        try Data("see ticket\n".utf8).write(to: root.appendingPathComponent("notes-\(other).txt"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent(other), withIntermediateDirectories: true)
        try Data("x\n".utf8).write(to: root.appendingPathComponent(other + "/readme.md"))

        var input = top.path
        if kind != "folder" {
            input = try makeTempDir().appendingPathComponent("export.\(kind)").path
            let f = try NewFile(path: input)
            let gz = kind == "tar.gz" ? try DeflateStream(gzip: true) : nil
            let sink: ([UInt8]) throws -> Void = { bytes in try f.write(gz.map { $0.write(bytes) } ?? bytes) }
            let zip = kind == "zip" ? ZipWriter(sink: sink) : nil
            let tar = kind == "zip" ? nil : TarWriter(sink: sink)
            for (name, bytes) in try ScrubTests.files(top) {
                try zip?.add(name: name, bytes: bytes, deflate: !name.contains("/blobs/"))
                try tar?.add(name: name, bytes: bytes)
            }
            try zip?.finish()
            try tar?.finish()
            if let gz { try f.write(gz.finish()) }
            try f.close()
        }

        // verify names every part holding a credential.
        let before = try json(["verify", "--json", input])
        let places = (before["findings"]?.elements ?? []).filter { ["file name", "folder name"].contains($0["location"]?.string ?? "") }
        #expect(places.count == 5, "\(kind): \(places.map(\.rawText))")

        let out = try makeTempDir().appendingPathComponent("scrubbed" + (kind == "folder" ? "" : "." + kind)).path
        let r = runCLI(["scrub", input, "-o", out])
        #expect(r.status == 0, "\(kind): \(r.err)")
        #expect(r.err.contains("(renamed)") && !r.err.contains(token) && !r.err.contains(other), "\(kind): \(r.err)")

        // No credential in any name or byte; the roles kept.
        let files = try Self.contents(out, kind: kind == "tar" ? "tar.gz" : kind)
        let names = files.map(\.0)
        for (name, text) in files {
            #expect(!name.contains(token) && !name.contains(other) && !text.contains(token) && !text.contains(other), "\(kind): \(name)")
        }
        // The placeholder names the rule that reported the value at the highest severity (here, where
        // the token also stands in a body), as in the content.
        let placeholder = "scrubbed-"
        #expect(names.filter { $0.contains("/sessions/\(placeholder)") && $0.hasSuffix(".jsonl") }.count == 2, "\(kind): \(names)")
        #expect(names.contains { $0.contains("/notes-scrubbed-secret.github-") && $0.hasSuffix(".txt") }, "\(kind): \(names)")
        #expect(names.contains { $0.hasSuffix("/readme.md") && $0.contains("/scrubbed-secret.github-") }, "\(kind): \(names)")
        #expect(names.filter { $0.contains("/blobs/") }.count == 2, "\(kind): \(names)")
        #expect(names.allSatisfy { $0.hasPrefix("PalbeConsole-" + placeholder) }, "\(kind): \(names)")

        // verify passes; inspect shows an intact export: every session, record and blob, no finding.
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(kind): \(v.out)\(v.err)")
        let a = try json(["inspect", "--json", input]), b = try json(["inspect", "--json", out])
        #expect(b["inputs"]?.elements.first?["status"]?.string == "ok", "\(kind)")
        #expect(b["findings"]?.count == 0, "\(kind): \(b["findings"]?.rawText ?? "")")
        #expect(a["findings"]?.count == 0, "\(kind): \(a["findings"]?.rawText ?? "")")
        #expect(b["sessions"]?.count == 2, "\(kind)")
        #expect(b["blobs"]?["count"]?.int == 2 && b["blobs"]?["references"]?.int == a["blobs"]?["references"]?.int, "\(kind)")
        let records = { (v: JSONValue) in (v["sessions"]?.elements ?? []).map { $0["recordCount"]?.int ?? -1 }.sorted() }
        #expect(records(a) == records(b), "\(kind)")
        for args in [["waterfall", "--json"], ["correlate", "--json", "--logs", "/dev/null"]] {
            let x = try json(args + [input]), y = try json(args + [out])
            #expect(Self.shape(x["requests"]) == Self.shape(y["requests"]), "\(kind) \(args[0])")
        }
        // The dry run says the same and writes nothing.
        let dry = runCLI(["scrub", "--dry-run", input])
        #expect(dry.status == 0 && dry.out.contains("(renamed)") && !dry.out.contains(token), "\(kind): \(dry.out)")
    }

    /// A JSON value with its strings left out where they name a place or show a masked value: the
    /// numbers, booleans and structure that make a waterfall or a correlation.
    static func shape(_ v: JSONValue?) -> String {
        guard let v else { return "nil" }
        switch v.kind {
        case .object:
            var parts: [String] = []
            v.forEachMember { k, x in
                if ["input", "file", "path"].contains(k) { return }
                parts.append(k + ":" + shape(x))
            }
            return "{" + parts.joined(separator: ",") + "}"
        case .array:
            var parts: [String] = []
            v.forEachElement { parts.append(shape($0)) }
            return "[" + parts.joined(separator: ",") + "]"
        case .string:
            let s = v.string ?? ""
            return s.contains("…") || s.contains("***") ? "\"<masked>\"" : v.rawText
        default:
            return v.rawText
        }
    }
}

/// A HAR with a credential in every field a HAR holds: URL path, query and fragment, `queryString`
/// pairs, header names and values, cookies, `postData` text and params (JSON keys too), `content` text (plain,
/// base64, base64 of gzip), `redirectURL`, `comment`s, `_` fields (nested too), `pages`, `creator`,
/// and one written fully percent-encoded.
final class HARLeakFixture {
    private(set) var secrets: [(String, String)] = []

    private func shaped(_ field: String) -> String {
        let v = "gh" + "p_" + String(format: "%04d", secrets.count) + String(repeating: "c3D4", count: 8)
        secrets.append((field, v))
        return v
    }

    private func plain(_ field: String) -> String {
        let v = "Plain" + "Har" + String(format: "%04d", secrets.count) + "zQ"
        secrets.append((field, v))
        return v
    }

    lazy var document: HARFixture.Obj = {
        typealias Obj = HARFixture.Obj
        let h = HARFixture.header
        let gz = Data(LeakFixture.gzipStored(Array(#"{"k":"\#(shaped("content gzip"))"}"#.utf8))).base64EncodedString()
        let accessToken = plain("url access_token")
        var e1 = HARFixture.entry(
            method: "POST",
            url: "https://api.example.test/v1/" + shaped("url path") + "?access_token=" + accessToken
                + "&p=" + LeakFixture.percentAll(shaped("url percent-encoded")) + "#id_token=" + plain("url fragment"),
            requestHeaders: [
                h("Authorization", "Bearer " + shaped("header Authorization")), h("X-Request-Id", HARFixture.requestId),
                h(shaped("header name"), "x"), h("X-Other", shaped("header value"))
            ],
            responseHeaders: [
                h("Location", "https://a.example/cb?code=" + plain("Location code")),
                h("Set-Cookie", "sid=" + plain("Set-Cookie") + "; Path=/")
            ],
            cookies: [["name": "session", "value": plain("request cookie")]],
            responseCookies: [["name": "sid", "value": plain("response cookie")]],
            postData: [
                "mimeType": "application/json",
                "text": LeakFixture.json([
                    "password": plain("postData password"), "note": shaped("postData value"),
                    shaped("postData key"): "v"
                ])
            ],
            content: ["size": 60, "mimeType": "text/plain", "text": "issued " + shaped("content text")],
            extra: [
                "comment": "see " + shaped("entry comment"), "_custom": shaped("custom field"),
                "_initiator": ["type": "script", "stack": ["url": "https://x.example/?token=" + plain("initiator url")]]
            ])
        var req = (e1["request"] as? Obj) ?? [:]
        req["queryString"] = [
            ["name": "access_token", "value": accessToken],
            ["name": "refresh_token", "value": plain("queryString only")]
        ]
        req["comment"] = LeakFixture.percentAll(shaped("request comment percent-encoded"))
        e1["request"] = req
        var resp = (e1["response"] as? Obj) ?? [:]
        resp["redirectURL"] = "https://b.example/next?access_token=" + plain("redirectURL")
        e1["response"] = resp

        let e2 = HARFixture.entry(
            method: "POST", url: "https://api.example.test/v1/form", started: "2026-11-29T10:15:03.000Z",
            requestHeaders: [h("X-Request-Id", "req_0b7a1e5f-3b8d-4c52-9a41-0d6e2f7b9c14")],
            postData: [
                "mimeType": "application/x-www-form-urlencoded",
                "params": [
                    ["name": "password", "value": plain("postData.params password")],
                    ["name": "note", "value": shaped("postData.params value")]
                ]
            ],
            content: [
                "size": 40, "mimeType": "application/json", "encoding": "base64",
                "text": Data(LeakFixture.json(["access": shaped("content base64"), shaped("content base64 key"): 1]).utf8)
                    .base64EncodedString()
            ])
        let e3 = HARFixture.entry(
            url: "https://api.example.test/v1/raw", started: "2026-11-29T10:15:04.000Z",
            content: ["size": 40, "mimeType": "application/octet-stream", "encoding": "base64", "text": gz])
        var doc = HARFixture.document(
            creator: "WebInspector", version: "537.36",
            pages: [
                [
                    "startedDateTime": "2026-11-29T10:15:01.000Z", "id": "page_1",
                    "title": "https://shop.example.test/?token=" + plain("page title"),
                    "pageTimings": ["onContentLoad": 100, "onLoad": 200]
                ]
            ],
            entries: [e1, e2, e3])
        var log = (doc["log"] as? Obj) ?? [:]
        log["comment"] = "exported with " + shaped("log comment")
        doc["log"] = log
        return doc
    }()

    /// The planted credentials found in `text` (see `LeakFixture.leaks`).
    func leaks(_ text: String) -> [String] {
        var out: [String] = []
        let decoded = LeakFixture.decodedForms(of: text)
        for (field, v) in secrets {
            if text.contains(v) { out.append(field); continue }
            if text.contains(LeakFixture.percentAll(v)) { out.append(field + " (percent-encoded)"); continue }
            if decoded.contains(where: { $0.contains(v) }) { out.append(field + " (encoded)") }
        }
        return out
    }
}
