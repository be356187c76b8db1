import Foundation

/// Writes the network records of a read as one HAR 1.2 document, streamed: the document's head, then
/// each record's entries as the record arrives, then the tail from `close()`.
///
/// - One entry per transaction: a redirect or a retry stays an entry of its own, in order, and the
///   entries of one record share its `_recordId` (so `pbsift` reads them back as one record).
/// - `startedDateTime` is the transaction's `fetchStart`; `timings` are milliseconds laid end to end
///   (`blocked`, `dns`, `connect`, `send`, `wait`, `receive`), -1 where a phase does not apply, and
///   `ssl` inside `connect`; `time` is their sum without `ssl`, or the record's whole `duration` when
///   that is longer (a timeout: the silent rest is in `wait`).
/// - What HAR has no place for is kept in `_`-prefixed fields: `_recordId`, `_seq`, `_ts`,
///   `_url`, `_statusCode`, `_requestId`, `_echoedRequestId`, `_source`, `_kind`, `_category`, `_label`, `_operation`,
///   `_state`, `_duration`, `_error`, `_taskStart`, `_taskEnd`, `_fetchType`, `_reusedConnection`,
///   `_tlsVersion`, `_remotePort`, `_sessionId`, and the session header as `_session` on the first
///   entry of each session. A body stored in a blob is named (`_blob`), not copied.
/// - Every entry goes through `redact` before it is written: only a `Redactor` makes the
///   `Redacted<JSONOut>` it must return.
public final class HARWriter: Analysis {
    private let sink: OutputSink
    /// Called once per record (its checks cost as much as the record is long); gives what redacts
    /// each of its entries (one per transaction).
    private let transform: (Record) -> (JSONOut) -> Redacted<JSONOut>
    private let creator: String
    private var started = false
    private var entries = 0
    private var headers: [ObjectIdentifier: JSONValue] = [:]
    private var headerWritten = Set<ObjectIdentifier>()
    /// Entries written.
    public var entryCount: Int { entries }

    public init(creatorVersion: String, sink: OutputSink, redact: @escaping (Record) -> (JSONOut) -> Redacted<JSONOut>) {
        self.sink = sink
        self.transform = redact
        self.creator = creatorVersion
    }

    private func write(_ s: String) { sink.write(s) }

    private func head() {
        guard !started else { return }
        started = true
        let creator = JSONOut.object(["name": .string("pbsift"), "version": .string(self.creator)]).render(pretty: false)
        write("{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": \(creator),\n    \"pages\": [],\n    \"entries\": [")
    }

    public func beginInput(_ input: InputContext) { head() }

    public func record(_ record: Record, session: SessionContext) {
        let key = ObjectIdentifier(session)
        if record.type == .session {
            headers[key] = record.json
            return
        }
        guard record.type == .network else { return }
        head()
        var first = !headerWritten.contains(key)
        let redact = transform(record)
        for e in HARWriter.entries(record, sessionId: session.sessionId) {
            var e = e
            if first, case .object(var o) = e {
                if let h = headers[key] { o["_session"] = h.out }
                e = .object(o)
                headerWritten.insert(key)
                first = false
            }
            write((entries == 0 ? "\n      " : ",\n      ") + redact(e).value.render(pretty: false))
            entries += 1
        }
    }

    public func endSession(_ session: SessionContext) {
        headers[ObjectIdentifier(session)] = nil
    }

    /// Writes the end of the document (the head too, when nothing was read).
    public func close() {
        head()
        write(entries == 0 ? "]\n  }\n}\n" : "\n    ]\n  }\n}\n")
    }

    // MARK: mapping

    /// The HAR entries of one network record: one per transaction (one when it has none).
    public static func entries(_ record: Record, sessionId: String?) -> [JSONOut] {
        let j = record.json
        let txs = j["metrics", "transactions"]?.elements.filter(\.isObject) ?? []
        let count = max(1, txs.count)
        var out: [JSONOut] = []
        for i in 0..<count {
            let tx = i < txs.count ? txs[i] : nil
            let isLast = i == count - 1
            let nextURL = i + 1 < txs.count ? txs[i + 1]["url"]?.string : nil
            out.append(entry(j, tx: tx, isFirst: i == 0, isLast: isLast, nextURL: nextURL, sessionId: sessionId))
        }
        return out
    }

    static func micros(_ v: JSONValue?) -> Int64? { HARMapping.micros(stamp: v?.string) }

    static func ms(_ us: Int64) -> JSONOut { .double(Double(us) / 1000) }

    static func entry(_ j: JSONValue, tx: JSONValue?, isFirst: Bool, isLast: Bool, nextURL: String?, sessionId: String?) -> JSONOut {
        var e: [String: JSONOut] = [:]
        // Timings, from the transaction's timestamps.
        var timings: [String: JSONOut] = [:]
        var totalUs: Int64 = 0
        let t = { (k: String) in micros(tx?[k]) }
        let fetch = t("fetchStart") ?? micros(j["metrics", "taskStart"])
        let firstOf = [t("domainLookupStart"), t("connectStart"), t("requestStart")].compactMap { $0 }.first
        func phase(_ name: String, _ a: Int64?, _ b: Int64?, counts: Bool = true) {
            if let a, let b, b >= a {
                timings[name] = ms(b - a)
                if counts { totalUs += b - a }
            } else {
                timings[name] = .int(-1)
            }
        }
        phase("blocked", fetch, firstOf)
        phase("dns", t("domainLookupStart"), t("domainLookupEnd"))
        phase("connect", t("connectStart"), t("connectEnd") ?? t("secureConnectionEnd"))
        phase("ssl", t("secureConnectionStart"), t("secureConnectionEnd") ?? t("connectEnd"), counts: false)
        // `ssl` is part of `connect` (HAR 1.2): never longer, and -1 when `connect` does not apply.
        if case .double(let c) = timings["connect"] ?? .int(-1), case .double(let s) = timings["ssl"] ?? .int(-1) {
            if s > c { timings["ssl"] = .double(c) }
        } else {
            timings["ssl"] = .int(-1)
        }
        for (name, a, b) in [
            ("send", "requestStart", "requestEnd"), ("wait", "requestEnd", "responseStart"),
            ("receive", "responseStart", "responseEnd")
        ] {
            phase(name, t(a), t(b))
            if timings[name] == .int(-1) { timings[name] = .int(0) } // required, never -1
        }
        // A request that timed out or failed has phases only up to where it stopped; its record's
        // `duration` is the whole time. HAR's `time` is the whole time too, the silent rest in `wait`,
        // so a viewer reads back the 30 s a timeout took, not the 3 ms before the silence.
        // With several transactions (redirects), the last one's whole time runs from its own start
        // to the record's end (`metrics.taskStart` + `duration`).
        if isLast, let d = j["duration"]?.double, d.isFinite, d >= 0, d < 1e9 {
            let durationUs = Int64(d * 1_000_000)
            let taskStart = micros(j["metrics", "taskStart"])
            var wholeUs: Int64 = isFirst ? durationUs : 0
            if let taskStart, let fetch, fetch >= taskStart, fetch - taskStart <= durationUs {
                wholeUs = durationUs - (fetch - taskStart)
            }
            if wholeUs > totalUs {
                var waitMs = 0.0
                if case .double(let w) = timings["wait"] ?? .int(0) { waitMs = w }
                timings["wait"] = .double(waitMs + Double(wholeUs - totalUs) / 1000)
                totalUs = wholeUs
            }
        }
        let started = fetch ?? micros(j["ts"]) ?? 0
        e["startedDateTime"] = .string(Timestamp.format(Double(started) / 1_000_000, micro: true))
        e["time"] = ms(totalUs)
        e["timings"] = .object(timings)
        e["cache"] = .object([:])
        if let ip = tx?["remoteAddress"]?.string { e["serverIPAddress"] = .string(ip) }

        // Request.
        let url = tx?["url"]?.string ?? j["url"]?.string ?? ""
        let proto = tx?["networkProtocol"]?.string
        let httpVersion = proto ?? j["request", "httpVersion"]?.string ?? ""
        var request: [String: JSONOut] = [
            "method": .string(j["method"]?.string ?? "GET"), "url": .string(url), "httpVersion": .string(httpVersion),
            "headers": .array(headerList(j["request", "headers"])),
            "cookies": .array(cookies(j["request", "headers"], name: "cookie")),
            "queryString": .array(query(url)),
            "headersSize": size(tx?["requestHeaderBytes"]),
            "bodySize": size(tx?["requestBodyBytes"])
        ]
        if isFirst, let body = j["request", "body"], body.isObject, let post = postData(body) { request["postData"] = post }
        e["request"] = .object(request)

        // Response: headers and body on the last transaction (the one the app saw).
        let status = max(0, tx?["statusCode"]?.int ?? (isLast ? j["statusCode"]?.int : nil) ?? 0)
        // `redirectURL` is a redirect's target: the next transaction's URL, or the last one's Location.
        let isRedirect = (300..<400).contains(status)
        let location = isLast ? headerValue(j["response", "headers"], "location") : nil
        var response: [String: JSONOut] = [
            "status": .int(status), "statusText": .string(j["response", "statusText"]?.string ?? ""),
            "httpVersion": .string(proto ?? j["response", "httpVersion"]?.string ?? ""),
            "headers": .array(isLast ? headerList(j["response", "headers"]) : []),
            "cookies": .array(isLast ? cookies(j["response", "headers"], name: "set-cookie") : []),
            "content": isLast ? content(j["response", "body"]) : .object(["size": .int(0), "mimeType": .string("x-unknown")]),
            "redirectURL": .string(isRedirect ? nextURL ?? location ?? "" : ""),
            "headersSize": size(tx?["responseHeaderBytes"]),
            "bodySize": size(tx?["responseBodyBytes"])
        ]
        if isLast, let d = j["error", "description"]?.string { response["_error"] = .string(d) }
        e["response"] = .object(response)

        // What HAR has no place for.
        for (k, name) in [
            ("id", "_recordId"), ("requestId", "_requestId"), ("echoedRequestId", "_echoedRequestId"),
            ("source", "_source"), ("kind", "_kind"), ("category", "_category"), ("label", "_label"),
            ("operation", "_operation"), ("state", "_state"), ("ts", "_ts")
        ] {
            if let v = j[k]?.string { e[name] = .string(v) }
        }
        if let s = j["seq"]?.int { e["_seq"] = .int(s) }
        if let u = j["url"]?.string { e["_url"] = .string(u) }
        if tx != nil && tx?["url"] == nil { e["_noTransactionURL"] = .bool(true) }
        e["_statusCode"] = j["statusCode"]?.int.map { .int($0) } ?? .null
        if let d = j["duration"]?.double { e["_duration"] = .double(d) }
        if let err = j["error"], err.isObject { e["_error"] = err.out }
        if let v = j["metrics", "taskStart"]?.string { e["_taskStart"] = .string(v) }
        if let v = j["metrics", "taskEnd"]?.string { e["_taskEnd"] = .string(v) }
        if j["metrics"] == nil { e["_metrics"] = .bool(false) }
        if let f = tx?["fetchType"]?.string { e["_fetchType"] = .string(f) }
        if let r = tx?["reusedConnection"]?.bool { e["_reusedConnection"] = .bool(r) }
        if let v = tx?["tlsVersion"]?.string { e["_tlsVersion"] = .string(v) }
        if let p = tx?["remotePort"]?.int { e["_remotePort"] = .int(p) }
        if let sessionId { e["_sessionId"] = .string(sessionId) }
        return .object(e)
    }

    /// A byte count HAR can hold: the number when it is 0 or more, else -1 (not known).
    static func size(_ v: JSONValue?) -> JSONOut {
        guard let n = v?.int, n >= 0 else { return .int(-1) }
        return .int(n)
    }

    /// The value of the first header named `name` (lowercase).
    static func headerValue(_ v: JSONValue?, _ name: String) -> String? {
        v?.elements.first { $0["name"]?.string?.lowercased() == name }?["value"]?.string
    }

    static func headerList(_ v: JSONValue?) -> [JSONOut] {
        (v?.elements ?? []).filter(\.isObject).map {
            .object(["name": .string($0["name"]?.string ?? ""), "value": .string($0["value"]?.string ?? "")])
        }
    }

    /// `Cookie: a=1; b=2` (or each `Set-Cookie: a=1; Path=/`) as HAR cookies. Both headers are on
    /// the SDK's redaction list: a value they carry is a credential, written as its masked preview.
    static func cookies(_ headers: JSONValue?, name: String) -> [JSONOut] {
        var out: [JSONOut] = []
        for h in headers?.elements ?? [] where h["name"]?.string?.lowercased() == name {
            let value = h["value"]?.string ?? ""
            let parts = value.split(separator: ";").map { String($0) }
            for p in name == "cookie" ? parts : Array(parts.prefix(1)) {
                let kv = p.trimmingCharacters(in: CharacterSet.whitespaces)
                guard let eq = kv.firstIndex(of: "=") else { continue }
                let v = String(kv[kv.index(after: eq)...])
                out.append(
                    .object(["name": .string(String(kv[..<eq])), "value": .string(v == "***" || v.isEmpty ? v : SecretMask.preview(v))]))
            }
        }
        return out
    }

    /// The URL's query as name/value pairs, percent-decoded.
    static func query(_ url: String) -> [JSONOut] {
        func decode(_ s: Substring) -> String {
            let plus = s.replacingOccurrences(of: "+", with: " ")
            return plus.removingPercentEncoding ?? plus
        }
        return URLQuery.rawPairs(of: url).map { .object(["name": .string(decode($0.name)), "value": .string(decode($0.value))]) }
    }

    static func postData(_ body: JSONValue) -> JSONOut? {
        let mime = JSONOut.string(body["contentType"]?.string ?? "")
        // `text` only: HAR 1.2 has `text` and `params` exclude each other.
        if let t = body["text"]?.string { return .object(["mimeType": mime, "text": .string(t)]) }
        if let d = body["data"]?.string {
            return .object(["mimeType": mime, "text": .string(d), "_encoding": .string("base64")])
        }
        if let b = body["blob"]?.string {
            return .object([
                "mimeType": mime, "text": .string(""), "_blob": .string(b),
                "comment": .string("the body is stored in the export's blob \(b)")
            ])
        }
        return nil
    }

    static func content(_ body: JSONValue?) -> JSONOut {
        var c: [String: JSONOut] = [
            "size": .int(max(0, body?["size"]?.int ?? 0)),
            "mimeType": .string(body?["contentType"]?.string ?? "x-unknown")
        ]
        if let t = body?["text"]?.string {
            c["text"] = .string(t)
        } else if let d = body?["data"]?.string {
            c["text"] = .string(d)
            c["encoding"] = .string("base64")
        } else if let b = body?["blob"]?.string {
            c["_blob"] = .string(b)
            c["comment"] = .string("the body is stored in the export's blob \(b)")
            if body?["truncated"]?.bool == true { c["_truncated"] = .bool(true) }
        }
        return .object(c)
    }
}
