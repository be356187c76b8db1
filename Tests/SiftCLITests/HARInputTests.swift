import Foundation
import Testing
@testable import SiftCLI
import SiftCore

/// HAR 1.2 files read by every command, as exports are.
@Suite struct HARInputTests {
    typealias Obj = HARFixture.Obj

    func json(_ args: [String]) throws -> (RunResult, JSONValue) {
        let r = runCLI(args)
        return (r, try JSONDocument(string: r.out).root)
    }

    /// Each tool's shape reads as one session of network records, with no finding of its own.
    @Test(arguments: [("chrome", 3), ("firefox", 2), ("safari", 2), ("charles", 1), ("mitmproxy", 2)])
    func everyToolsShapeReads(tool: String, requests: Int) throws {
        let doc: Obj = switch tool {
        case "chrome": HARFixture.chrome
        case "firefox": HARFixture.firefox
        case "safari": HARFixture.safari
        case "charles": HARFixture.charles
        default: HARFixture.mitmproxy
        }
        let path = try HARFixture.write(doc)
        let (r, inspect) = try json(["inspect", "--json", path])
        #expect(r.status == 0, "\(tool): \(r.out)")
        #expect(inspect["inputs"]?.elements.first?["container"]?.string == "har", "\(tool)")
        #expect(inspect["sessions"]?.elements.count == 1, "\(tool)")
        #expect(inspect["sessions"]?.elements.first?["records"]?["network"]?.int == requests, "\(tool)")
        #expect(inspect["findings"]?.count == 0, "\(tool): \(r.out)")
        // Flattened records carry the request id found in the headers.
        let records = runCLI(["records", path]).out.split(separator: "\n")
        #expect(records.count == requests, "\(tool)")
        #expect(records.contains { $0.contains(HARFixture.requestId) }, "\(tool)")
        // The compact form reads the same as the pretty one.
        let compact = try HARFixture.write(doc, pretty: false)
        #expect(runCLI(["records", compact]).out.split(separator: "\n").count == requests, "\(tool)")
    }

    /// One leak per place a HAR holds a value: each is found, with the same rules as on an export.
    @Test(arguments: [
        ("authorization header", "redaction.header"),
        ("cookie header", "redaction.header"),
        ("cookies list", "redaction.header"),
        ("set-cookie list", "redaction.header"),
        ("access_token query", "redaction.query"),
        ("postData json", "redaction.body-field"),
        ("postData params", "redaction.form-field"),
        ("base64 content", "secret.github-token"),
        ("text content", "secret.jwt"),
        ("custom field", "secret.github-token"),
        ("location header", "redaction.url-in-header"),
        ("queryString not in the url", "secret.github-token"),
        ("redirectURL", "secret.github-token"),
        ("pageref", "secret.github-token"),
        ("connection", "secret.github-token"),
        ("cache comment", "secret.github-token"),
        ("timings comment", "secret.github-token"),
        ("content comment", "secret.github-token"),
        ("params beside text", "redaction.body-field"),
    ])
    func verifyFindsEachFieldKind(kind: String, rule: String) throws {
        let t = HARFixture.token
        var e: Obj
        let url = "https://api.example.test/v1/me"
        switch kind {
        case "authorization header": e = HARFixture.entry(url: url, requestHeaders: [HARFixture.header("Authorization", "Bearer " + t)])
        case "cookie header": e = HARFixture.entry(url: url, requestHeaders: [HARFixture.header("Cookie", "sid=" + HARFixture.password)])
        case "cookies list": e = HARFixture.entry(url: url, cookies: [["name": "sid", "value": HARFixture.password]])
        case "set-cookie list": e = HARFixture.entry(url: url, responseCookies: [["name": "sid", "value": HARFixture.password]])
        case "access_token query": e = HARFixture.entry(url: url + "?access_token=" + HARFixture.password)
        case "postData json":
            e = HARFixture.entry(method: "POST", url: url, postData: ["mimeType": "application/json",
                                                                      "text": "{\"password\":\"\(HARFixture.password)\"}"])
        case "postData params":
            e = HARFixture.entry(method: "POST", url: url, postData: ["mimeType": "application/x-www-form-urlencoded",
                                                                      "params": [["name": "password", "value": HARFixture.password]]])
        case "base64 content":
            e = HARFixture.entry(url: url, content: ["size": 60, "mimeType": "application/octet-stream", "encoding": "base64",
                                                     "text": Data(("key " + t).utf8).base64EncodedString()])
        case "text content":
            e = HARFixture.entry(url: url, content: ["size": 10, "mimeType": "text/plain", "text": "session " + HARFixture.jwt])
        case "queryString not in the url":
            e = HARFixture.entry(url: url)
            var req = e["request"] as? Obj ?? [:]
            req["queryString"] = [["name": "q", "value": t]]
            e["request"] = req
        case "redirectURL":
            e = HARFixture.entry(url: url, status: 302)
            var resp = e["response"] as? Obj ?? [:]
            resp["redirectURL"] = "https://app.test/cb?next=" + t
            e["response"] = resp
        case "pageref", "connection", "cache comment", "timings comment", "content comment":
            e = HARFixture.entry(url: url)
            switch kind {
            case "pageref": e["pageref"] = t
            case "connection": e["connection"] = t
            case "cache comment": e["cache"] = ["comment": t]
            case "timings comment":
                var tm = e["timings"] as? Obj ?? [:]
                tm["comment"] = t
                e["timings"] = tm
            default:
                var resp = e["response"] as? Obj ?? [:]
                var content = resp["content"] as? Obj ?? [:]
                content["comment"] = t
                resp["content"] = content
                e["response"] = resp
            }
        case "params beside text":
            e = HARFixture.entry(method: "POST", url: url, postData: ["mimeType": "application/json", "text": "{}",
                                                                      "params": [["name": "password", "value": HARFixture.password]]])
        case "custom field":
            e = HARFixture.entry(url: url, extra: ["_initiator": ["type": "script", "url": "https://x.test/?t=" + t]])
        default:
            e = HARFixture.entry(url: url, status: 302,
                                 responseHeaders: [HARFixture.header("Location", "https://app.test/cb?access_token=" + HARFixture.password)])
        }
        let path = try HARFixture.write(HARFixture.document(creator: "WebInspector", entries: [e]))
        let (r, doc) = try json(["verify", "--json", path])
        #expect(r.status == 1, "\(kind)")
        let rules = doc["findings"]?.elements.compactMap { $0["rule"]?.string } ?? []
        #expect(rules.contains(rule), "\(kind): \(rules)")
        #expect(!r.out.contains(t) && !r.out.contains(HARFixture.password), "\(kind)")
    }

    /// The waterfall's phases come from HAR timings (ssl inside connect, -1 = no phase).
    @Test func waterfallRebuildsPhases() throws {
        let path = try HARFixture.write(HARFixture.document(creator: "WebInspector", entries: [
            HARFixture.entry(url: "https://api.example.test/a",
                             timings: ["blocked": 2, "dns": 10, "connect": 30, "ssl": 20, "send": 1, "wait": 50, "receive": 7]),
        ]))
        let (r, doc) = try json(["waterfall", "--json", path])
        #expect(r.status == 0, "\(r.err)")
        let tx = try #require(doc["requests"]?.elements.first?["transactions"]?.elements.first)
        let phases = tx["phases"]
        #expect(phases?["blocked"]?.double == 2)
        #expect(phases?["dns"]?.double == 10)
        #expect(phases?["tcp"]?.double == 10)
        #expect(phases?["tls"]?.double == 20)
        #expect(phases?["request"]?.double == 1)
        #expect(phases?["waiting"]?.double == 50)
        #expect(phases?["download"]?.double == 7)
    }

    /// `correlate` joins a HAR's X-Request-Id with the server's log line.
    @Test func correlateJoinsOnTheHeader() throws {
        let path = try HARFixture.write(HARFixture.chrome)
        let logs = try makeTempDir().appendingPathComponent("api.log").path
        let line = #"{"ts": "2026-11-29T10:15:02.030Z", "level": "info", "request_id": "\#(HARFixture.requestId)", "method": "GET", "path": "/v1/orders", "status": 200, "duration_ms": 12.0, "msg": "request completed"}"#
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: logs))
        let (r, doc) = try json(["correlate", "--json", path, "--logs", logs])
        #expect(r.status == 0, "\(r.err)")
        #expect(doc["correlation", "matched"]?.int == 1, "\(r.out)")
    }

    /// `--request-id-header` names another header that carries the id.
    @Test func correlateJoinsOnANamedHeader() throws {
        let e = HARFixture.entry(url: "https://api.example.test/v1/orders",
                                 requestHeaders: [HARFixture.header("X-Correlation-Id", HARFixture.requestId)])
        let path = try HARFixture.write(HARFixture.document(creator: "mitmproxy", entries: [e]))
        let logs = try makeTempDir().appendingPathComponent("api.log").path
        let line = #"{"ts": "2026-11-29T10:15:02.030Z", "level": "info", "request_id": "\#(HARFixture.requestId)", "method": "GET", "path": "/v1/orders", "status": 200, "duration_ms": 12.0, "msg": "request completed"}"#
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: logs))
        let (_, plain) = try json(["correlate", "--json", path, "--logs", logs])
        #expect(plain["correlation", "matched"]?.int == 0)
        let (r, named) = try json(["correlate", "--json", path, "--logs", logs, "--request-id-header", "x-correlation-id"])
        #expect(r.status == 0, "\(r.err)")
        #expect(named["correlation", "matched"]?.int == 1)
    }

    /// `report` reads a HAR as it reads an export.
    @Test func reportWorks() throws {
        let path = try HARFixture.write(HARFixture.chrome)
        let r = runCLI(["report", path])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("api.example.test"))
    }

    /// A HAR cut short: a finding naming the place, every entry before it read, exit 2.
    @Test func truncatedHARIsAFindingAndTheRestIsRead() throws {
        let full = try HARFixture.data(HARFixture.chrome)
        // Cut inside the last entry.
        let cutAt = try #require(String(decoding: full, as: UTF8.self).range(of: "cdn.example.test")).lowerBound.utf16Offset(in: String(decoding: full, as: UTF8.self))
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("cut.har").path
        try full.prefix(cutAt).write(to: URL(fileURLWithPath: path))
        let (r, doc) = try json(["inspect", "--json", path])
        #expect(r.status == 2)
        #expect(doc["sessions"]?.elements.first?["records"]?["network"]?.int == 2)
        let f = try #require(doc["findings"]?.elements.first { $0["rule"]?.string == "integrity.torn-line" })
        #expect(f["message"]?.string?.contains("log.entries[2]") == true, "\(f.rawText)")
    }

    /// A damaged entry in the middle is a finding; the entries after it are read.
    @Test func damagedEntryIsAFindingAndTheRestIsRead() throws {
        var text = String(decoding: try HARFixture.data(HARFixture.chrome, pretty: false), as: UTF8.self)
        // Break a literal inside the second entry (its structure stays balanced).
        let r0 = try #require(text.range(of: "\"_transferSize\":0"))
        text.replaceSubrange(r0, with: "\"_transferSize\":nul")
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("damaged.har").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let (r, doc) = try json(["inspect", "--json", path])
        #expect(doc["sessions"]?.elements.first?["records"]?["network"]?.int == 2, "\(r.out)")
        let f = try #require(doc["findings"]?.elements.first { $0["rule"]?.string == "integrity.malformed-line" })
        #expect(f["message"]?.string?.contains("log.entries[1]") == true)
    }

    /// A HAR inside a folder (named .har), and a gzip'd one, are read too.
    @Test func harInAFolderAndGzipped() throws {
        let dir = try makeTempDir()
        try HARFixture.data(HARFixture.mitmproxy).write(to: dir.appendingPathComponent("capture.har"))
        let (r, doc) = try json(["inspect", "--json", dir.path])
        #expect(r.status == 0, "\(r.out)")
        #expect(doc["sessions"]?.elements.first?["records"]?["network"]?.int == 2)

        let gz = dir.appendingPathComponent("capture.har.gz").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c '\(dir.appendingPathComponent("capture.har").path)' > '\(gz)'"]
        try p.run()
        p.waitUntilExit()
        let (r2, doc2) = try json(["inspect", "--json", gz])
        #expect(r2.status == 0, "\(r2.out)")
        #expect(doc2["sessions"]?.elements.first?["records"]?["network"]?.int == 2)
    }

    /// A document whose `log` has no `entries` reads as a finding, not as a clean empty session.
    @Test func harWithoutEntriesIsAFinding() throws {
        let path = try HARFixture.write(["log": ["version": "1.2", "creator": ["name": "x", "version": "1"]]])
        let (_, doc) = try json(["inspect", "--json", path])
        #expect(doc["findings"]?.elements.contains { $0["message"]?.string?.contains("no log.entries") == true } == true)
    }
}
