import Foundation
import SiftCore
import SiftReport
import SiftCorrelate
import SiftVerify
import SiftWaterfall

/// Everything `pbsift show` prints about one request, as plain values. Every text from the export
/// or the logs is masked when the report is built; renderers only escape it for their medium.
struct ShowReport: Sendable {
    struct Header: Sendable {
        var name: String
        var value: String
    }

    /// A body as §2.3 describes it: never its content, only what it is.
    struct Body: Sendable {
        var size: Int?
        var contentType: String?
        /// `utf8`, `base64`, or nil (blob or empty).
        var encoding: String?
        /// `sha256:<hex>` of the stored bytes.
        var blob: String?
        var storedSize: Int?
        var truncated: Bool
        /// The content as text (JSON pretty-printed), masked and cut to `--body`'s limit; nil when
        /// not shown (`--body none`, a blob, binary bytes).
        var text: String?
        /// Bytes of the content left out past the limit.
        var omittedBytes = 0
        /// Why the content is not shown, when it is not.
        var notShown: String?

        /// `application/json, 48.2 kB, blob sha256:9f2c0a1b…, stored 48.2 kB`, `none`.
        var summary: String {
            guard let size, size > 0 else { return size == 0 ? "none" : "not recorded" }
            var parts: [String] = [contentType ?? "no content type", Human.bytes(size)]
            if let e = encoding { parts.append(e == "utf8" ? "inline text" : "inline \(e)") }
            if let b = blob { parts.append("blob " + (b.count > 19 ? String(b.prefix(19)) + "…" : b)) }
            if let s = storedSize, blob != nil { parts.append("stored \(Human.bytes(s))") }
            if truncated { parts.append("truncated (only the first \(Human.bytes(storedSize ?? 0)) stored)") }
            return parts.joined(separator: ", ")
        }
    }

    /// One phase on the request's axis.
    struct Phase: Sendable {
        var phase: WaterfallPhase
        /// From the request's start, ms.
        var startMs: Double
        var ms: Double
    }

    struct Transaction: Sendable {
        var index: Int
        var url: String?
        var statusCode: Int?
        /// From the request's start, ms.
        var offsetMs: Double?
        var totalMs: Double?
        var phases: [Phase]
        /// `redirect`, `reused connection`, `new connection`, `from the local cache`, `h2`, `203.0.113.7:443`, `TLS 1.3`.
        var notes: [String]
        var anomalies: [String]
    }

    /// One line of the timeline around the request: a device record or a server line, device clock.
    struct Around: Sendable {
        var ts: Double?
        /// `device` or `server`.
        var side: String
        /// The request itself.
        var isRequest: Bool
        var text: String
        /// A server line from a source that logs whole seconds: its time is printed to the second.
        var wholeSecond = false

        /// The time as printed.
        var time: String? { ts.map { Timestamp.format($0, wholeSecond: wholeSecond) } }
    }

    struct ServerSide: Sendable {
        /// `matched`, `client-only`, `id-mismatch`.
        var status: String
        /// `method, path and time` when the lines were tied to the request without an id; nil: by its id.
        var joinedBy: String? = nil
        var skewSeconds: Double?
        var skewSamples: Int
        var serverMs: Double?
        var networkMs: Double?
        var logFiles: Int
        var lines: [ServerLineView]
    }

    struct ServerLineView: Sendable {
        var deviceTs: Double?
        var serverTs: Double?
        /// The source logs whole seconds: times are printed to the second.
        var wholeSecond = false
        var file: String
        var line: Int
        var text: String
    }

    var input: String
    var file: String
    var line: Int
    /// The record's place among those of its line (a one-line HAR).
    var ordinal = 0
    var sessionId: String?
    /// `usr_123`, `signed out` (a header without one) or `unknown` (no header).
    var user: String
    var seq: Int?
    var recordId: String?
    var requestId: String?
    var echoedRequestId: String?
    var method: String?
    var url: String?
    var statusCode: Int?
    var state: String?
    var error: String?
    var source: String?
    var kind: String?
    var category: String?
    var label: String?
    var ts: Double?
    var startUs: Micros?
    var durationMs: Double?
    /// The axis: request start to its last end, ms.
    var spanMs: Double
    var httpVersion: String?
    var requestHeaders: [Header]
    var responseHeaders: [Header]?
    var requestBody: Body?
    var responseBody: Body?
    var transactions: [Transaction]
    var droppedTransactions: Int
    /// The time a request that ended without a response waited after its last phase.
    var noResponse: Phase?
    /// One sentence: where the time went, with the server's share when the logs tell it.
    var verdict: String
    var server: ServerSide?
    var around: [Around]

    /// `GET https://api.example.test/v1/orders`.
    var requestLine: String { "\(method ?? "?") \(url ?? label ?? "?")" }

    /// `→ 503`, `→ 200`, `no response`.
    var outcome: String {
        if let c = statusCode { return "→ \(c)" }
        return state == "pending" ? "pending" : "no response"
    }
}

extension ShowReport {
    /// Bytes of a body shown by default (`--body full` shows all of it).
    static let defaultBodyLimit = 16 << 10
    /// The most of a body masked and shown, whatever `--body` says.
    static let maskedBodyBound = 1 << 20

    enum Content {
        case text(String)
        case none(String)
    }

    /// A body's content as text: inline UTF-8, or base64 that decodes to UTF-8 text; a JSON document
    /// pretty-printed. A blob or binary bytes are not shown.
    static func content(of v: JSONValue) -> Content {
        var text: String?
        if let t = v["text"]?.string {
            text = t
        } else if let d = v["data"]?.string {
            guard let bytes = Data(base64Encoded: d, options: .ignoreUnknownCharacters) else { return .none("base64 that does not decode") }
            guard let s = String(validating: Array(bytes), as: UTF8.self), !s.contains(where: { $0.isASCII && $0.asciiValue! < 9 }) else {
                return .none("binary (\(Human.bytes(bytes.count)))")
            }
            text = s
        } else if v["blob"] != nil {
            return .none("in a blob (pbsift records shows the reference; the export's blobs/ folder holds it)")
        }
        guard let t = text, !t.isEmpty else { return .none("empty") }
        if let f = t.first, f == "{" || f == "[", t.utf8.count <= maskedBodyBound, let doc = try? JSONDocument(string: t, maxDepth: 64) {
            return .text(doc.root.out.render(pretty: true))
        }
        return .text(t)
    }

    /// `s` cut to at most `limit` bytes, at the last space or newline within 4 KiB before it (a
    /// character boundary otherwise); and whether it was cut.
    static func cut(_ s: String, at limit: Int) -> (text: String, cut: Bool) {
        guard s.utf8.count > limit else { return (s, false) }
        var end = s.utf8.index(s.utf8.startIndex, offsetBy: limit)
        while end > s.startIndex, end.samePosition(in: s.unicodeScalars) == nil { end = s.utf8.index(before: end) }
        let head = s[..<end]
        if let ws = head.lastIndex(where: { $0 == " " || $0 == "\n" }), head.utf8.distance(from: ws, to: head.endIndex) <= 4096 {
            return (String(head[..<ws]), true)
        }
        return (String(head), true)
    }

    /// Builds the report of one matched record. `wf` is its rebuilt request (masked here), `hosts`
    /// the session's per-host counts for the explanation, `correlation` the join (nil without logs).
    init(
        match m: ShowAnalysis.Match, request wf: WaterfallRequest?, hosts: [String: (requests: Int, opened: Int)],
        correlation: CorrelationReport?, bodyLimit: Int? = ShowReport.defaultBodyLimit
    ) {
        let secrets = RecordSecrets()
        let base = Redactor.verify()
        let redactor = secrets.scan(m.record).redactor(base)
        func mask(_ s: String?) -> String? { redactor.text(s.untrusted).value }
        let j = m.record.json

        input = m.input
        file = m.file
        line = m.record.line
        ordinal = m.record.ordinal
        sessionId = m.sessionId
        user = m.userId ?? (m.hasHeader ? "signed out" : "unknown")
        seq = m.record.seq
        recordId = m.record.id
        requestId = j["requestId"]?.string
        echoedRequestId = j["echoedRequestId"]?.string
        method = j["method"]?.string
        url = redactor.url((wf?.url ?? j["url"]?.string).untrusted).value
        statusCode = j["statusCode"]?.int
        state = j["state"]?.string
        if let e = j["error"], e.isObject {
            var t = e["description"]?.string ?? "error"
            let domain = e["domain"]?.string, code = e["code"]?.int
            if domain != nil || code != nil {
                t += " (" + [domain, code.map(String.init)].compactMap { $0 }.joined(separator: " ") + ")"
            }
            error = mask(t)
        } else {
            error = nil
        }
        source = j["source"]?.string
        kind = j["kind"]?.string
        category = j["category"]?.string
        label = mask(j["label"]?.string)
        ts = m.record.ts
        startUs = wf?.startUs
        durationMs = wf?.durationMs ?? j["duration"]?.double.map { $0 * 1000 }
        httpVersion = j["request", "httpVersion"]?.string ?? j["response", "httpVersion"]?.string

        func headers(_ v: JSONValue?) -> [Header] {
            guard let v, v.isArray else { return [] }
            return v.elements.prefix(200).map { h in
                Header(name: h["name"]?.string ?? "?", value: mask(h["value"]?.string ?? h["value"]?.rawText ?? "") ?? "")
            }
        }
        func body(_ v: JSONValue?) -> Body? {
            guard let v, v.isObject else { return nil }
            var b = Body(
                size: v["size"]?.int, contentType: v["contentType"]?.string, encoding: v["encoding"]?.string,
                blob: v["blob"]?.string, storedSize: v["storedSize"]?.int, truncated: v["truncated"]?.bool ?? false)
            if let limit = bodyLimit {
                switch ShowReport.content(of: v) {
                case .text(let t):
                    // Masked whole (cut first only at a space, past 1 MiB), then cut for display: a
                    // cut never splits a credential before it is masked.
                    let bounded = ShowReport.cut(t, at: ShowReport.maskedBodyBound).text
                    let masked = mask(bounded) ?? ""
                    let shown = ShowReport.cut(masked, at: limit)
                    b.text = shown.text
                    // What the cut left out of the masked text, and what the bound left unmasked and unshown.
                    b.omittedBytes = (masked.utf8.count - shown.text.utf8.count) + (t.utf8.count - bounded.utf8.count)
                case .none(let why):
                    b.notShown = why
                }
            } else {
                b.notShown = "--body none"
            }
            return b
        }
        requestHeaders = headers(j["request", "headers"])
        responseHeaders = j["response"].map { headers($0["headers"]) }
        requestBody = body(j["request", "body"])
        responseBody = body(j["response", "body"])

        // The axis: the request's start to its end (the last transaction's end, or start + duration).
        let start = wf?.startUs
        let end = wf?.endUs
        spanMs = {
            guard let s = start, let e = end, e > s else { return max(wf?.elapsedMs ?? 0, 0) }
            return Double(e - s) / 1000
        }()
        func off(_ us: Micros?) -> Double? {
            guard let s = start, let us else { return nil }
            return Double(us - s) / 1000
        }
        let txs = wf?.transactions ?? []
        transactions = txs.enumerated().map { k, t in
            var notes: [String] = []
            let isRedirect = t.statusCode.map { (300..<400).contains($0) } ?? false
            if isRedirect { notes.append("redirect") }
            if k > 0 {
                let afterRedirect = txs[k - 1].statusCode.map { (300..<400).contains($0) } ?? false
                notes.append(afterRedirect ? "after a redirect" : "a retry")
            }
            if t.isCacheHit {
                notes.append("from the local cache")
            } else if t.reusedConnection == true {
                notes.append("reused connection")
            } else if t.openedConnection {
                notes.append("new connection")
            }
            if let p = t.networkProtocol { notes.append(p) }
            if let a = t.remoteAddress { notes.append(a + (t.remotePort.map { ":\($0)" } ?? "")) }
            if let v = t.tlsVersion { notes.append("TLS \(v)") }
            let phases = t.segments.map { seg in
                Phase(phase: seg.phase, startMs: off(seg.startUs) ?? 0, ms: Double(seg.endUs - seg.startUs) / 1000)
            }
            return Transaction(
                index: t.index, url: redactor.url(t.url.untrusted).value, statusCode: t.statusCode, offsetMs: off(t.startUs),
                totalMs: t.totalMs, phases: phases, notes: notes, anomalies: t.anomalies)
        }
        droppedTransactions = wf?.droppedTransactions ?? 0
        // A request that ended without a response: the time after its last phase, drawn as every
        // renderer draws it (`x`, "no response").
        let lastPhaseEnd = transactions.flatMap(\.phases).map { $0.startMs + $0.ms }.max() ?? 0
        if statusCode == nil, NetworkRecord.endedWithoutResponse(state: state), let d = durationMs, d > lastPhaseEnd + 1 {
            noResponse = Phase(phase: .waiting, startMs: lastPhaseEnd, ms: d - lastPhaseEnd)
        }

        // The server's side.
        let c = correlation?.requests.first { $0.entry.ref == m.ref }
        if let correlation {
            let lines = c?.lines ?? []
            let texts = lines.map { redactor.text((SupportReport.serverText($0, max: 300, redactor: redactor)).untrusted).value }
            server = ServerSide(
                status: c?.status.rawValue ?? (requestId == nil ? "no request id" : CorrelationStatus.clientOnly.rawValue),
                joinedBy: c?.lines.contains { $0.line.joinedBy == .requestLine } == true ? JoinBasis.requestLine.rawValue : nil,
                skewSeconds: correlation.clockSkew.seconds, skewSamples: correlation.clockSkew.samples,
                serverMs: c?.serverMs, networkMs: c?.networkMs, logFiles: correlation.logs.files.count,
                lines: lines.enumerated().sorted { a, b in
                    let ta = a.element.deviceTs ?? a.element.line.parsed.ts ?? .infinity
                    let tb = b.element.deviceTs ?? b.element.line.parsed.ts ?? .infinity
                    return ta != tb ? ta < tb : a.offset < b.offset
                }.map { i, pl in
                    ServerLineView(
                        deviceTs: pl.deviceTs, serverTs: pl.line.parsed.ts, wholeSecond: pl.wholeSecond, file: pl.line.file,
                        line: pl.line.line,
                        text: (i < texts.count ? texts[i] : nil) ?? "")
                })
        } else {
            server = nil
        }

        var why: String
        if let wf {
            why = WaterfallSummary.explain(wf, hosts: hosts).sentence
            if let c, let s = c.serverMs, let gaveUp = Correlator.outlastedClient(c.entry, serverMs: s) {
                why += "; " + gaveUp
            } else if let c, let s = c.serverMs, let w = c.waitingMs, s > w {
                why += "; " + Correlator.longerThanWait(server: s, wait: w)
            } else if let c, let s = c.serverMs {
                why += "; server \(Human.duration(ms: s)) of it"
                if let n = c.networkMs ?? c.waitingMs.map({ max(0, $0 - s) }) {
                    why += ", network and queueing \(Human.duration(ms: n))"
                }
            } else if let c, c.status == .clientOnly {
                why +=
                    c.echoed
                    ? "; the server answered (the response echoed the request id) but no log line carries it"
                    : "; no server line carries its id: it never reached the server, or the logs don't cover it"
            }
        } else {
            why = "no timing: the record could not be rebuilt"
        }
        verdict = why

        // Records around it and its server lines, on the device clock.
        var around: [Around] = []
        for r in m.before + [m.record] + m.after {
            let isReq = r.line == m.record.line && r.ordinal == m.record.ordinal
            let text = ShowReport.maskedSummary(r, secrets: secrets, redactor: base)
            let n = "#\(r.seq.map(String.init) ?? "?") "
            // The record is written when the request ends: its start gets a row of its own.
            if isReq, let s = start, let t = r.ts, Double(s) / 1_000_000 < t - 0.0005 {
                around.append(
                    Around(
                        ts: Double(s) / 1_000_000, side: "device", isRequest: true,
                        text: n + "starts: \(method ?? "?") \(url ?? label ?? "?")"))
            }
            around.append(Around(ts: r.ts, side: "device", isRequest: isReq, text: n + text))
        }
        for l in server?.lines ?? [] {
            around.append(
                Around(ts: l.deviceTs, side: "server", isRequest: false, text: "\(l.file):\(l.line) \(l.text)", wholeSecond: l.wholeSecond))
        }
        self.around = around.enumerated().sorted { a, b in
            let ta = a.element.ts ?? .infinity, tb = b.element.ts ?? .infinity
            return ta != tb ? ta < tb : a.offset < b.offset
        }.map(\.element)
        // Every other text of the record (names, method, state, ids, header names…) too.
        self = self.redacted(by: redactor)
    }

    /// One record in a line, redacted with the values verify's checks find in it.
    static func maskedSummary(_ r: Record, secrets: RecordSecrets, redactor: Redactor) -> String {
        let withRecord = secrets.scan(r).redactor(redactor)
        return withRecord.text((SupportReport.summary(of: r, redactor: withRecord)).untrusted).value
    }

    /// `server clock 2.49 s ahead of the device`, `4 h 7 min behind`.
    static func skewWords(_ s: Double) -> String { ClockSkew.words(s) }
}

extension ShowReport: NetworkRecordView {
    var ref: RecordRef { RecordRef(input: input, file: file, line: line, ordinal: ordinal) }
}

extension ShowReport: Redactable {
    /// Every text that came from the export or the logs.
    func redacted(by r: Redactor) -> ShowReport {
        var x = self
        x.file = r.text(file.untrusted).value
        x.sessionId = r.text(sessionId.untrusted).value
        x.user = r.text(user.untrusted).value
        x.recordId = r.text(recordId.untrusted).value
        x.requestId = r.text(requestId.untrusted).value
        x.echoedRequestId = r.text(echoedRequestId.untrusted).value
        x.method = r.text(method.untrusted).value
        x.state = r.text(state.untrusted).value
        x.error = r.text(error.untrusted).value
        x.source = r.text(source.untrusted).value
        x.kind = r.text(kind.untrusted).value
        x.category = r.text(category.untrusted).value
        x.label = r.text(label.untrusted).value
        x.httpVersion = r.text(httpVersion.untrusted).value
        func headers(_ h: [Header]) -> [Header] {
            h.map { Header(name: r.text($0.name.untrusted).value, value: r.text($0.value.untrusted).value) }
        }
        func body(_ b: Body?) -> Body? {
            guard var b else { return nil }
            b.contentType = r.text(b.contentType.untrusted).value
            b.encoding = r.text(b.encoding.untrusted).value
            b.blob = r.text(b.blob.untrusted).value
            b.text = b.text.map { r.text($0.untrusted).value }
            return b
        }
        x.requestHeaders = headers(requestHeaders)
        x.responseHeaders = responseHeaders.map(headers)
        x.requestBody = body(requestBody)
        x.responseBody = body(responseBody)
        x.transactions = transactions.map { t in
            var t = t
            t.notes = t.notes.map { r.text($0.untrusted).value }
            t.anomalies = t.anomalies.map { r.text($0.untrusted).value }
            return t
        }
        x.verdict = r.text(verdict.untrusted).value
        x.server = server.map { s in
            var s = s
            s.lines = s.lines.map { l in
                var l = l
                l.file = r.text(l.file.untrusted).value
                l.text = r.text(l.text.untrusted).value
                return l
            }
            return s
        }
        x.around = around.map { a in
            var a = a
            a.text = r.text(a.text.untrusted).value
            return a
        }
        return x
    }
}
