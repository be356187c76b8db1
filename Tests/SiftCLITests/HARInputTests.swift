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
    @Test(arguments: [("chrome", 3), ("chromium", 3), ("firefox", 2), ("safari", 2), ("charles", 1), ("mitmproxy", 2)])
    func everyToolsShapeReads(tool: String, requests: Int) throws {
        let doc: Obj =
            switch tool {
            case "chrome": HARFixture.chrome
            case "chromium": HARFixture.chromium()
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
        ("websocket text message", "redaction.body-field"),
        ("websocket binary message", "secret.github-token"),
        ("websocket message shape", "secret.jwt"),
        ("initiator stack url", "redaction.query")
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
            e = HARFixture.entry(
                method: "POST", url: url,
                postData: [
                    "mimeType": "application/json",
                    "text": "{\"password\":\"\(HARFixture.password)\"}"
                ])
        case "postData params":
            e = HARFixture.entry(
                method: "POST", url: url,
                postData: [
                    "mimeType": "application/x-www-form-urlencoded",
                    "params": [["name": "password", "value": HARFixture.password]]
                ])
        case "base64 content":
            e = HARFixture.entry(
                url: url,
                content: [
                    "size": 60, "mimeType": "application/octet-stream", "encoding": "base64",
                    "text": Data(("key " + t).utf8).base64EncodedString()
                ])
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
            e = HARFixture.entry(
                method: "POST", url: url,
                postData: [
                    "mimeType": "application/json", "text": "{}",
                    "params": [["name": "password", "value": HARFixture.password]]
                ])
        case "custom field":
            e = HARFixture.entry(url: url, extra: ["_initiator": ["type": "script", "url": "https://x.test/?t=" + t]])
        case "websocket text message", "websocket binary message", "websocket message shape":
            let data =
                kind == "websocket text message"
                ? #"{"event":"auth","payload":{"access_token":"\#(HARFixture.password)"}}"#
                : kind == "websocket message shape"
                    ? "hello " + HARFixture.jwt
                    : Data(#"{"k":"\#(t)"}"#.utf8).base64EncodedString()
            e = HARFixture.entry(
                url: "wss://rt.example.test/socket", status: 101,
                extra: [
                    "_resourceType": "websocket",
                    "_webSocketMessages": [
                        [
                            "type": "send", "time": 1_764_411_302.1,
                            "opcode": kind == "websocket binary message" ? 2 : 1, "data": data
                        ]
                    ]
                ])
        case "initiator stack url":
            e = HARFixture.entry(
                url: url,
                extra: [
                    "_initiator": [
                        "type": "script",
                        "stack": [
                            "callFrames": [
                                [
                                    "functionName": "f", "scriptId": "1", "url": "https://x.test/app.js?code=" + HARFixture.password,
                                    "lineNumber": 1, "columnNumber": 2
                                ]
                            ]
                        ]
                    ]
                ])
        default:
            e = HARFixture.entry(
                url: url, status: 302,
                responseHeaders: [HARFixture.header("Location", "https://app.test/cb?access_token=" + HARFixture.password)])
        }
        let path = try HARFixture.write(HARFixture.document(creator: "WebInspector", entries: [e]))
        let (r, doc) = try json(["verify", "--json", path])
        #expect(r.status == 1, "\(kind)")
        let rules = doc["findings"]?.elements.compactMap { $0["rule"]?.string } ?? []
        #expect(rules.contains(rule), "\(kind): \(rules)")
        #expect(!r.out.contains(t) && !r.out.contains(HARFixture.password), "\(kind)")
    }

    /// A name held twice in one object of an entry (`verify.duplicate-key`): the place is named, and
    /// the value under every copy is checked, whichever copy holds the credential.
    @Test(arguments: [
        ("header value", "log.entries[0].request.headers[0]", "value", "redaction.header"),
        ("header value swapped", "log.entries[0].request.headers[0]", "value", "redaction.header"),
        ("cookie value", "log.entries[0].request.cookies[0]", "value", "redaction.header"),
        ("query value", "log.entries[0].request.queryString[0]", "value", "secret.github-token"),
        ("postData text", "log.entries[0].request.postData", "text", "redaction.body-field"),
        ("content text", "log.entries[0].response.content", "text", "secret.jwt"),
        ("websocket data", "log.entries[0]._webSocketMessages[0]", "data", "redaction.body-field"),
        ("entry comment", "log.entries[0].cache", "comment", "secret.github-token"),
        ("request url", "log.entries[0].request", "url", "redaction.query")
    ])
    func duplicateNamesAreNamedAndEveryCopyChecked(kind: String, place: String, name: String, rule: String) throws {
        let t = HARFixture.token, pw = HARFixture.password
        let mark = "DUP" + "MARK"
        let url = "https://api.example.test/v1/me"
        var e: Obj
        var first = "***", second = ""
        switch kind {
        case "header value", "header value swapped":
            e = HARFixture.entry(url: url, requestHeaders: [HARFixture.header("Authorization", mark)])
            second = "Bearer " + pw
            if kind == "header value swapped" { swap(&first, &second) }
        case "cookie value":
            e = HARFixture.entry(url: url, cookies: [["name": "sid", "value": mark]])
            second = pw
        case "query value":
            e = HARFixture.entry(url: url)
            var req = e["request"] as? Obj ?? [:]
            req["queryString"] = [["name": "q", "value": mark]]
            e["request"] = req
            second = t
        case "postData text":
            e = HARFixture.entry(method: "POST", url: url, postData: ["mimeType": "application/json", "text": mark])
            first = "{}"
            second = #"{\"password\":\"\#(pw)\"}"#
        case "content text":
            e = HARFixture.entry(url: url, content: ["size": 10, "mimeType": "text/plain", "text": mark])
            first = "ok"
            second = "session " + HARFixture.jwt
        case "websocket data":
            e = HARFixture.entry(
                url: "wss://rt.example.test/socket", status: 101,
                extra: [
                    "_resourceType": "websocket",
                    "_webSocketMessages": [["type": "send", "time": 1_764_411_302.1, "opcode": 1, "data": mark]]
                ])
            first = "{}"
            second = #"{\"access_token\":\"\#(pw)\"}"#
        case "entry comment":
            e = HARFixture.entry(url: url)
            e["cache"] = ["comment": mark]
            first = "none"
            second = t
        default:
            e = HARFixture.entry(url: mark)
            first = url
            second = url + "?access_token=" + pw
        }
        var text = String(decoding: try HARFixture.data(HARFixture.document(creator: "WebInspector", entries: [e])), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"\(mark)\"", with: "\"\(first)\", \"\(name)\" : \"\(second)\"")
        let path = try makeTempDir().appendingPathComponent("capture.har").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let (r, doc) = try json(["verify", "--json", path])
        #expect(r.status == 1, "\(kind)")
        let findings = doc["findings"]?.elements ?? []
        #expect(
            findings.contains {
                $0["rule"]?.string == "verify.duplicate-key" && $0["location"]?.string == place
                    && $0["severity"]?.string == "high"
            }, "\(kind): \(r.out)")
        #expect(findings.contains { $0["rule"]?.string == rule }, "\(kind): \(r.out)")
        #expect(!r.out.contains(t) && !r.out.contains(pw), "\(kind)")

        // Scrub replaces the credential under whichever copy holds it, renames later copies
        // `<name>~2`, and its copy passes verify.
        let out = try makeTempDir().appendingPathComponent("scrubbed.har").path
        let s = runCLI(["scrub", path, "-o", out])
        #expect(s.status == 0, "\(kind): \(s.err)")
        #expect(s.err.contains("'\(name)' in one object → '_\(name)~2'") && !s.err.contains(t) && !s.err.contains(pw), "\(kind): \(s.err)")
        let copy = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(), as: UTF8.self)
        #expect(!copy.contains(t) && !copy.contains(pw) && copy.contains("\"_\(name)~2\""), "\(kind): \(copy)")
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(kind): \(v.out)")
    }

    /// A Chromium capture with credentials in its WebSocket messages (text JSON, binary base64) and in
    /// its initiator's stack: verify finds each; the scrubbed copy keeps every message (type, time,
    /// opcode), its binary data still base64, is as valid a HAR as its input, and verify finds nothing in it.
    @Test func chromiumWebSocketMessagesAreCheckedAndScrubbed() throws {
        let t = HARFixture.token, pw = HARFixture.password
        let messages: [Obj] = [
            [
                "type": "send", "time": 1_764_411_302.101, "opcode": 1,
                "data": #"{"topic":"realtime:orders","event":"phx_join","payload":{"access_token":"\#(pw)"},"ref":"1"}"#
            ],
            ["type": "receive", "time": 1_764_411_302.143, "opcode": 1, "data": #"{"event":"phx_reply","payload":{"status":"ok"}}"#],
            ["type": "send", "time": 1_764_411_302.150, "opcode": 2, "data": Data("key=\(t)".utf8).base64EncodedString()]
        ]
        let doc = HARFixture.chromium(messages: messages, initiatorURL: "https://shop.example.test/app.js?access_token=" + pw)
        // Chrome writes one member HAR 1.2 does not know (a cookie's `sameSite`); scrub adds no other.
        let violations = HARValidator.validate(try JSONDocument(bytes: Array(try HARFixture.data(doc))).root)
        #expect(violations == ["log.entries[0].request.cookies[0].sameSite: is not a HAR 1.2 field and has no '_'"])
        let path = try HARFixture.write(doc)
        let (r, found) = try json(["verify", "--json", path])
        #expect(r.status == 1)
        let places = Set((found["findings"]?.elements ?? []).compactMap { $0["location"]?.string })
        for want in [
            "_webSocketMessages[0].data $.payload.access_token", "_webSocketMessages[2].data form:key",
            "_initiator.stack.callFrames[0].url ?access_token", "_initiator.stack.parent.callFrames[0].url ?access_token",
            "_initiator.url ?access_token"
        ] {
            #expect(places.contains(want), "\(want): \(places.sorted())")
        }

        let out = try makeTempDir().appendingPathComponent("scrubbed.har").path
        let s = runCLI(["scrub", path, "-o", out, "-q"])
        #expect(s.status == 0, "\(s.err)")
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(v.out)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: out)))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains(t) && !text.contains(pw))
        let copy = try JSONDocument(bytes: bytes).root
        #expect(HARValidator.validate(copy) == violations, "\(HARValidator.validate(copy))")
        let after = copy["log", "entries"]?.elements[1]["_webSocketMessages"]?.elements ?? []
        #expect(after.count == messages.count)
        for (m, o) in zip(after, messages) {
            #expect(m["type"]?.string == o["type"] as? String && m["opcode"]?.int == o["opcode"] as? Int)
            #expect(m["time"]?.double == o["time"] as? Double)
        }
        #expect(after[1]["data"]?.string == messages[1]["data"] as? String, "a message with no credential is kept as it was")
        let binary = try #require(after[2]["data"]?.string.flatMap { Data(base64Encoded: $0) })
        #expect(String(decoding: binary, as: UTF8.self).hasPrefix("key=***scrubbed:"))
        // The other entries' Chromium fields are kept.
        let first = copy["log", "entries"]?.elements[0]
        #expect(first?["_priority"]?.string == "High" && first?["response", "_transferSize"]?.int == 312)
        #expect(first?["timings", "_blocked_queueing"]?.double == 1.9)
    }

    /// The waterfall's phases come from HAR timings (ssl inside connect, -1 = no phase).
    @Test func waterfallRebuildsPhases() throws {
        let path = try HARFixture.write(
            HARFixture.document(
                creator: "WebInspector",
                entries: [
                    HARFixture.entry(
                        url: "https://api.example.test/a",
                        timings: ["blocked": 2, "dns": 10, "connect": 30, "ssl": 20, "send": 1, "wait": 50, "receive": 7])
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
        let line =
            #"{"ts": "2026-11-29T10:15:02.030Z", "level": "info", "request_id": "\#(HARFixture.requestId)", "method": "GET", "path": "/v1/orders", "status": 200, "duration_ms": 12.0, "msg": "request completed"}"#
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: logs))
        let (r, doc) = try json(["correlate", "--json", path, "--logs", logs])
        #expect(r.status == 0, "\(r.err)")
        #expect(doc["correlation", "matched"]?.int == 1, "\(r.out)")
    }

    /// `--request-id-header` names another header that carries the id.
    @Test func correlateJoinsOnANamedHeader() throws {
        let e = HARFixture.entry(
            url: "https://api.example.test/v1/orders",
            requestHeaders: [HARFixture.header("X-Correlation-Id", HARFixture.requestId)])
        let path = try HARFixture.write(HARFixture.document(creator: "mitmproxy", entries: [e]))
        let logs = try makeTempDir().appendingPathComponent("api.log").path
        let line =
            #"{"ts": "2026-11-29T10:15:02.030Z", "level": "info", "request_id": "\#(HARFixture.requestId)", "method": "GET", "path": "/v1/orders", "status": 200, "duration_ms": 12.0, "msg": "request completed"}"#
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
        let cutAt = try #require(String(decoding: full, as: UTF8.self).range(of: "cdn.example.test")).lowerBound.utf16Offset(
            in: String(decoding: full, as: UTF8.self))
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
        let (r, doc) = try json(["inspect", "--json", path])
        #expect(r.status == 2)
        #expect(doc["findings"]?.elements.contains { $0["message"]?.string?.contains("no log.entries") == true } == true)
    }

    /// A HAR with no request in it — an empty capture, or one whose every entry is damaged — is not
    /// checked: like an empty file, every command says so on stderr and exits 2 (verify never passes
    /// on nothing), and scrub writes nothing. Beside an export that holds records, it changes nothing.
    @Test(arguments: ["empty", "damaged"]) func harWithNoRequestIsNotChecked(kind: String) throws {
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("capture.har").path
        let text =
            kind == "empty"
            ? #"{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"pages":[],"entries":[]}}"#
            : #"{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"entries":[{"request":nul}]}}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let why =
            kind == "empty"
            ? "no request to check (a HAR capture with no entries)"
            : "no request to check (a HAR capture none of whose 1 entry could be read)"
        for command in [["verify"], ["verify", "--fail-on", "critical"], ["inspect"], ["waterfall"], ["records"], ["har"]] {
            let r = runCLI(command + [path])
            #expect(r.status == 2, "\(command) \(kind): \(r.out)")
            #expect(r.err.contains("pbsift: \(path): \(why)"), "\(command) \(kind): \(r.err)")
        }
        let (_, doc) = try json(["inspect", "--json", path])
        #expect(doc["inputs"]?.elements.first?["status"]?.string == "unreadable")
        #expect(doc["inputs"]?.elements.first?["container"]?.string == "har")
        let out = dir.appendingPathComponent("scrubbed.har").path
        #expect(runCLI(["scrub", path, "-o", out]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: out))

        // Beside a session that holds records, the input is checked.
        try Data((Fixture.clean.joined(separator: "\n") + "\n").utf8)
            .write(to: dir.appendingPathComponent(Fixture.sessionId + ".jsonl"))
        let beside = runCLI(["verify", "--fail-on", "critical", dir.path])
        #expect(beside.status == 0, "\(kind): \(beside.out)\(beside.err)")
    }
}

/// The record bytes the reader makes of each HAR entry straight from its tape are exactly those of
/// the reference mapping (a `JSONOut` tree rendered with its kept values spliced in), for every
/// tool's shape, the leak fixture, `pbsift har`'s own output (redirect chains grouped back), and
/// entries with escapes, non-ASCII text, and fields of unexpected kinds.
@Suite struct HARRecordBytesTests {
    typealias Obj = HARFixture.Obj

    static func reference(_ group: [JSONValue], seq: Int, id: String, header: String) -> [UInt8] {
        let raw = HARMapping.RawValues()
        let out = HARMapping.record(group, seq: seq, fallbackId: id, requestIdHeader: header, raw: raw)
        return raw.splice(Array(out.render(pretty: false).utf8))
    }

    /// Every entry of `doc`, grouped as the reader groups them (consecutive `_recordId`s).
    static func compare(_ bytes: [UInt8], _ name: String) throws -> Int {
        let root = try JSONDocument(bytes: bytes).root
        let entries = root["log", "entries"]?.elements ?? []
        var groups: [[JSONValue]] = []
        for e in entries {
            if let id = e["_recordId"]?.string, let last = groups.last?.last, last["_recordId"]?.string == id {
                groups[groups.count - 1].append(e)
            } else {
                groups.append([e])
            }
        }
        for (i, g) in groups.enumerated() {
            for header in ["X-Request-Id", "x-correlation-id"] {
                let want = reference(g, seq: i + 1, id: "entries[\(i)]", header: header)
                let got = HARMapping.recordBytes(g, seq: i + 1, fallbackId: "entries[\(i)]", requestIdHeader: header)
                #expect(
                    got == want, "\(name) group \(i):\n\(String(decoding: got, as: UTF8.self))\n\(String(decoding: want, as: UTF8.self))")
            }
        }
        return groups.count
    }

    static var odd: Obj {
        var e = HARFixture.entry(
            method: "PO\u{e9}ST", url: "https://api.example.test/v1/caf\u{e9}?q=\u{2028}&x=%2F",
            requestHeaders: [
                ["name": "X-Esc", "value": "a\"b\\c/\u{1}\u{7f}", "comment": "\u{2029}"],
                ["name": 3, "value": ["x"]], ["value": "no name"],
                ["name": "Cookie", "value": "a=1"], ["name": "COO\u{212A}IE", "value": "k=1"],
                ["name": "X-Correlation-\u{130}d", "value": "req_0"], ["name": "X-Correlation-Id", "value": "req_1"]
            ],
            responseHeaders: [["name": "Set-Cookie", "value": "s=\u{e9}t\u{e9}"], ["name": "Location", "value": "/next"]],
            cookies: [["name": "a", "value": "1"], ["name": "b", "value": "***"], ["value": "nameless"]],
            responseCookies: [["name": "s", "value": "\u{e9}t\u{e9}"], ["name": "t", "value": "two"]],
            postData: ["mimeType": 7, "params": [["name": "p w", "value": "\u{e9}&="], ["value": "v"]]],
            content: ["size": 3, "mimeType": "text/plain", "text": "\u{0}\"\u{e9}\\u"],
            timings: ["blocked": -1, "dns": 1e300, "connect": 3.3333, "ssl": 9, "send": 0, "wait": -5, "receive": 1.5],
            extra: [
                "_requestId": 42, "_echoedRequestId": "req_\u{e9}", "_label": ["x"], "_resourceType": "xhr",
                "_seq": "7", "_url": 1, "_statusCode": "200", "_state": 0, "_duration": "1e999",
                "_error": "boom \u{e9}", "_remotePort": 443.0, "_tlsVersion": "1.3", "_reusedConnection": "yes",
                "_fetchType": "Disk Cache", "comment": "c\u{e9}", "_custom": ["a": [1, 2.5, NSNull()]],
                "serverIPAddress": "[::1]", "_metrics": true, "_taskStart": 5, "_ts": "2026-11-29T10:15:02Z"
            ],
            httpVersion: "HTTP/2")
        var resp = (e["response"] as? Obj) ?? [:]
        resp["statusText"] = "\u{e9}"
        resp["redirectURL"] = "https://b.example/\u{e9}"
        resp["_transferSize"] = 12
        resp["comment"] = "r"
        e["response"] = resp
        var req = (e["request"] as? Obj) ?? [:]
        req["queryString"] = [["name": "q", "value": "not in url \u{e9}"], ["name": "x", "value": "/"]]
        req["_encoding"] = "none"
        req["headers"] = ((req["headers"] as? [Any]) ?? []) + ["not an object"]
        e["request"] = req
        var failed = HARFixture.entry(
            url: "https://api.example.test/fail", status: 0,
            extra: ["_error": ["domain": "NSURLErrorDomain", "code": -1001, "description": "t"]])
        failed.removeValue(forKey: "timings")
        failed["time"] = 12.5
        let noTimes = HARFixture.entry(url: "https://api.example.test/x", started: "not a date", extra: ["_metrics": false])
        return HARFixture.document(creator: "odd", entries: [e, failed, noTimes, ["request": "x"], [:]])
    }

    @Test func directBytesEqualTheReference() throws {
        var docs: [(String, [UInt8])] = []
        for (name, doc) in [
            ("chrome", HARFixture.chrome), ("chromium", HARFixture.chromium()), ("firefox", HARFixture.firefox),
            ("safari", HARFixture.safari), ("charles", HARFixture.charles), ("mitmproxy", HARFixture.mitmproxy),
            ("leak", HARLeakFixture().document), ("odd", Self.odd)
        ] {
            docs.append((name, Array(try HARFixture.data(doc))))
        }
        // `pbsift har`'s own output: records split into transactions and read back.
        let fx = try #require(LeakMatrixTests.fixture)
        for input in [fx.export.path, packageRoot.appendingPathComponent("samples/export-incident.zip").path] {
            let r = runCLI(["har", input])
            docs.append((input, Array(r.out.utf8)))
        }
        var groups = 0
        for (name, bytes) in docs { groups += try Self.compare(bytes, name) }
        #expect(groups > 30)
    }
}
