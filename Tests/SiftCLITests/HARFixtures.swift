import Foundation

/// HAR 1.2 documents shaped like each tool's export, built at test time from their documented
/// formats (field names, the -1 conventions, custom `_` fields). Credentials are assembled here.
enum HARFixture {
    typealias Obj = [String: Any]

    static let requestId = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
    /// A GitHub-shaped token, a JWT-shaped value and a password, assembled at run time.
    static let token = "gh" + "p_" + String(repeating: "a1B2", count: 9)
    static let jwt = "ey" + "JhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + String(repeating: "dBjf", count: 8)
    static let password = "hunter" + "2hunter"

    static func header(_ name: String, _ value: String) -> Obj { ["name": name, "value": value] }

    /// One entry. `timings` in milliseconds, -1 where a phase does not apply.
    static func entry(
        method: String = "GET", url: String, started: String = "2026-11-29T10:15:02.000Z",
        status: Int = 200, requestHeaders: [Obj] = [], responseHeaders: [Obj] = [],
        cookies: [Obj] = [], responseCookies: [Obj] = [], postData: Obj? = nil, content: Obj? = nil,
        timings: [String: Double] = ["blocked": 1, "dns": 10, "connect": 30, "ssl": 20, "send": 1, "wait": 50, "receive": 8],
        extra: Obj = [:], httpVersion: String = "http/1.1"
    ) -> Obj {
        let time = timings.filter { $0.key != "ssl" && $0.value >= 0 }.values.reduce(0, +)
        var request: Obj = [
            "method": method, "url": url, "httpVersion": httpVersion, "headers": requestHeaders,
            "cookies": cookies, "queryString": [Obj](), "headersSize": -1, "bodySize": -1
        ]
        if let postData { request["postData"] = postData }
        let response: Obj = [
            "status": status, "statusText": status == 0 ? "" : "OK", "httpVersion": httpVersion,
            "headers": responseHeaders, "cookies": responseCookies,
            "content": content ?? ["size": 0, "mimeType": "x-unknown"],
            "redirectURL": "", "headersSize": -1, "bodySize": -1
        ]
        var e: Obj = [
            "startedDateTime": started, "time": time, "request": request, "response": response, "cache": Obj(),
            "timings": timings
        ]
        for (k, v) in extra { e[k] = v }
        return e
    }

    static func document(
        creator: String, version: String = "1.0", browser: Obj? = nil, pages: [Obj]? = [],
        entries: [Obj]
    ) -> Obj {
        var log: Obj = ["version": "1.2", "creator": ["name": creator, "version": version], "entries": entries]
        if let browser { log["browser"] = browser }
        if let pages { log["pages"] = pages }
        return ["log": log]
    }

    static func data(_ doc: Obj, pretty: Bool = true) throws -> Data {
        try JSONSerialization.data(withJSONObject: doc, options: pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys])
    }

    /// Writes `doc` as `name` in a new temp folder; returns the path.
    static func write(_ doc: Obj, name: String = "capture.har", pretty: Bool = true) throws -> String {
        let dir = try makeTempDir()
        let url = dir.appendingPathComponent(name)
        try data(doc, pretty: pretty).write(to: url)
        return url.path
    }

    // MARK: each tool's shape

    /// Chrome DevTools: `_initiator`, `_priority`, `_resourceType`, `_transferSize`, `_fromCache`,
    /// `_error` on a failed request (status 0), IPv6 in brackets, `connection`, `pageref`.
    static var chrome: Obj {
        let ok = entry(
            url: "https://api.example.test/v1/orders", requestHeaders: [header("X-Request-Id", requestId)],
            extra: [
                "_initiator": ["type": "script"], "_priority": "High", "_resourceType": "fetch",
                "serverIPAddress": "[2001:db8::1]", "connection": "1234", "pageref": "page_1"
            ],
            httpVersion: "h2")
        var failed = entry(
            method: "POST", url: "https://api.example.test/v1/pay", started: "2026-11-29T10:15:03.000Z", status: 0,
            timings: ["blocked": 3, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": -1, "receive": -1],
            extra: ["_resourceType": "xhr", "pageref": "page_1"])
        var resp = (failed["response"] as? Obj) ?? [:]
        resp["_error"] = "net::ERR_CONNECTION_RESET"
        resp["_transferSize"] = 0
        failed["response"] = resp
        var cached = entry(
            url: "https://cdn.example.test/app.js", started: "2026-11-29T10:15:04.000Z",
            timings: ["blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": 2],
            extra: ["_fromCache": "memory", "_resourceType": "script"])
        cached["pageref"] = "page_1"
        return document(
            creator: "WebInspector", version: "537.36",
            pages: [
                [
                    "startedDateTime": "2026-11-29T10:15:01.000Z", "id": "page_1", "title": "https://shop.example.test/",
                    "pageTimings": ["onContentLoad": 100, "onLoad": 200]
                ]
            ],
            entries: [ok, failed, cached])
    }

    /// Chromium's DevTools export in full, from its HAR writer (`front_end/models/har/Log.ts`): an
    /// `_initiator` with a script stack (`callFrames` with `functionName`, `scriptId`, `url`,
    /// `lineNumber`, `columnNumber`, and a `parent` stack), `_priority`, `_resourceType`,
    /// `_fromCache`, `connection`, `pageref` `page_N`, `serverIPAddress` without brackets; the
    /// response's `_transferSize` and `_error` (null when none); `content.compression`; timings with
    /// `_blocked_queueing` and `_blocked_proxy`; cookies with `expires`, `httpOnly`, `secure`,
    /// `sameSite`; and a WebSocket entry (status 101, `_resourceType: websocket`) whose
    /// `_webSocketMessages` hold `type` (`send`/`receive`), `time` (seconds since 1970), `opcode`
    /// (1 text, 2 binary: `data` in base64) and `data`. `messages` replaces the socket's messages.
    static func chromium(messages: [Obj]? = nil, initiatorURL: String = "https://shop.example.test/static/app.js") -> Obj {
        let initiator: Obj = [
            "type": "script",
            "stack": [
                "callFrames": [
                    [
                        "functionName": "loadOrders", "scriptId": "31", "url": initiatorURL,
                        "lineNumber": 120, "columnNumber": 17
                    ]
                ],
                "parent": [
                    "description": "Promise.then",
                    "callFrames": [["functionName": "", "scriptId": "31", "url": initiatorURL, "lineNumber": 88, "columnNumber": 3]]
                ]
            ]
        ]
        let timings: [String: Double] = ["blocked": 2.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0.2, "wait": 41.3, "receive": 1.1]
        var ok = entry(
            url: "https://api.example.test/v1/orders", requestHeaders: [header("X-Request-Id", requestId)],
            cookies: [
                [
                    "name": "theme", "value": "dark", "path": "/", "domain": "api.example.test",
                    "expires": "2027-01-01T00:00:00.000Z", "httpOnly": false, "secure": true, "sameSite": "Lax"
                ]
            ],
            content: ["size": 11, "mimeType": "application/json", "compression": 0, "text": "{\"ok\":true}"],
            timings: timings,
            extra: [
                "_initiator": initiator, "_priority": "High", "_resourceType": "fetch", "connection": "48211",
                "pageref": "page_2", "serverIPAddress": "2001:db8::1"
            ],
            httpVersion: "h2")
        var resp = (ok["response"] as? Obj) ?? [:]
        resp["_transferSize"] = 312
        resp["_error"] = NSNull()
        ok["response"] = resp
        var t = (ok["timings"] as? Obj) ?? [:]
        t["_blocked_queueing"] = 1.9
        t["_blocked_proxy"] = 0.3
        ok["timings"] = t
        let socketMessages =
            messages ?? [
                [
                    "type": "send", "time": 1_764_411_302.101, "opcode": 1,
                    "data": #"{"topic":"realtime:orders","event":"phx_join","payload":{},"ref":"1"}"#
                ],
                [
                    "type": "receive", "time": 1_764_411_302.143, "opcode": 1,
                    "data": #"{"topic":"realtime:orders","event":"phx_reply","payload":{"status":"ok"},"ref":"1"}"#
                ],
                ["type": "send", "time": 1_764_411_302.150, "opcode": 2, "data": Data([0x82, 0x01, 0x00, 0x7F]).base64EncodedString()]
            ]
        var socket = entry(
            url: "wss://rt.example.test/socket/websocket?vsn=2.0.0", started: "2026-11-29T10:15:02.100Z", status: 101,
            requestHeaders: [header("Upgrade", "websocket"), header("Sec-WebSocket-Version", "13")],
            responseHeaders: [header("Upgrade", "websocket"), header("Connection", "Upgrade")],
            timings: ["blocked": 0.8, "dns": 3, "connect": 22, "ssl": 14, "send": 0.1, "wait": 18, "receive": 0],
            extra: [
                "_initiator": ["type": "script", "url": initiatorURL, "lineNumber": 12], "_priority": "VeryHigh",
                "_resourceType": "websocket", "connection": "48240", "pageref": "page_2",
                "serverIPAddress": "192.0.2.20", "_webSocketMessages": socketMessages
            ])
        var sresp = (socket["response"] as? Obj) ?? [:]
        sresp["statusText"] = "Switching Protocols"
        sresp["_transferSize"] = 0
        sresp["_error"] = NSNull()
        socket["response"] = sresp
        var cached = entry(
            url: "https://cdn.example.test/app.css", started: "2026-11-29T10:15:02.200Z",
            timings: ["blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0.4, "receive": 0.1],
            extra: [
                "_fromCache": "disk", "_resourceType": "stylesheet", "_priority": "VeryHigh",
                "_initiator": ["type": "parser", "url": "https://shop.example.test/", "lineNumber": 9],
                "pageref": "page_2"
            ])
        var cresp = (cached["response"] as? Obj) ?? [:]
        cresp["_transferSize"] = 0
        cresp["_error"] = NSNull()
        cached["response"] = cresp
        return document(
            creator: "WebInspector", version: "537.36",
            pages: [
                [
                    "startedDateTime": "2026-11-29T10:15:01.000Z", "id": "page_2", "title": "https://shop.example.test/",
                    "pageTimings": ["onContentLoad": 180.4, "onLoad": 312.9]
                ]
            ],
            entries: [ok, socket, cached])
    }

    /// Firefox: a local time with its offset, `browser`, no `pages` member, `HTTP/2` spelled out,
    /// -1 for `blocked` and `ssl` on plain HTTP, -1 body sizes.
    static var firefox: Obj {
        let e1 = entry(
            url: "https://api.example.test/v1/orders", started: "2026-11-29T11:15:02.000+01:00",
            requestHeaders: [header("X-Request-Id", requestId)], httpVersion: "HTTP/2")
        let e2 = entry(
            url: "http://api.example.test/health", started: "2026-11-29T11:15:02.500+01:00",
            timings: ["blocked": -1, "dns": 2, "connect": 5, "ssl": -1, "send": 0, "wait": 10, "receive": 1])
        return document(
            creator: "Firefox", version: "133.0", browser: ["name": "Firefox", "version": "133.0"], pages: nil,
            entries: [e1, e2])
    }

    /// Safari Web Inspector: `_fetchType` spelled in words, `_priority`, pages.
    static var safari: Obj {
        let e1 = entry(
            url: "https://api.example.test/v1/orders", requestHeaders: [header("X-Request-Id", requestId)],
            extra: ["_fetchType": "Network Load", "_priority": "medium", "pageref": "page_0"])
        let e2 = entry(
            url: "https://cdn.example.test/logo.png", started: "2026-11-29T10:15:02.200Z",
            timings: ["blocked": 0, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": 0],
            extra: ["_fetchType": "Memory Cache", "pageref": "page_0"])
        return document(
            creator: "WebKit Web Inspector", version: "1.0",
            pages: [["startedDateTime": "2026-11-29T10:15:01.000Z", "id": "page_0", "title": "Shop", "pageTimings": Obj()]],
            entries: [e1, e2])
    }

    /// Charles Proxy: no pages, `comment` fields, base64 response content.
    static var charles: Obj {
        let body = Data("{\"ok\":true}".utf8).base64EncodedString()
        let e1 = entry(
            url: "https://api.example.test/v1/orders", requestHeaders: [header("X-Request-Id", requestId)],
            content: ["size": 11, "mimeType": "application/json", "encoding": "base64", "text": body],
            extra: ["comment": ""])
        return document(creator: "Charles Proxy", version: "4.6.6", pages: nil, entries: [e1])
    }

    /// mitmproxy: `serverIPAddress`, `pages` empty, a redirect kept as its own entry.
    static var mitmproxy: Obj {
        let e1 = entry(
            url: "http://api.example.test/v1/orders", status: 301,
            responseHeaders: [header("Location", "https://api.example.test/v1/orders")],
            extra: ["serverIPAddress": "192.0.2.10"])
        let e2 = entry(
            url: "https://api.example.test/v1/orders", started: "2026-11-29T10:15:02.100Z",
            requestHeaders: [header("X-Request-Id", requestId)], extra: ["serverIPAddress": "192.0.2.10"])
        return document(creator: "mitmproxy", version: "11.0.0", entries: [e1, e2])
    }
}
