import Foundation

/// Maps HAR 1.2 entries to the network record an export holds (SESSION-FORMAT.md §2.2), so that every
/// analysis reads a HAR exactly as it reads an export.
///
/// - `request`/`response` headers are kept in order; a `cookies` list with no `Cookie` (or
///   `Set-Cookie`) header becomes that header, so the contract's header names apply to it.
/// - `postData.text` (or its `params`, form-encoded) is the request body; `content.text` the response
///   body, `encoding: base64` kept as base64.
/// - `timings` become one transaction's timestamps from `startedDateTime`: -1 (or a missing phase)
///   does not apply, `ssl` is the end of `connect` (HAR counts it inside `connect`).
/// - A status of 0 means no response arrived: the record has no `response` and is a failure.
/// - The record's `requestId` is the request header named `requestIdHeader` (`X-Request-Id`), its
///   `echoedRequestId` the response header of that name.
/// - `_`-prefixed fields and `comment`s stay where they were (verify reads them); the fields `pbsift har`
///   writes for what HAR has no place for (`_recordId`, `_requestId`, `_label`, …) are read back, and
///   consecutive entries with one `_recordId` (a redirect chain) become one record again.
public enum HARMapping {
    /// Entry fields `pbsift har` writes and this mapping reads back instead of keeping.
    static let ownFields: Set<String> = [
        "_recordId", "_seq", "_url", "_noTransactionURL", "_statusCode", "_ts", "_requestId", "_echoedRequestId", "_source", "_kind",
        "_category", "_label",
        "_operation", "_state", "_duration", "_error", "_taskStart", "_taskEnd", "_fetchType", "_reusedConnection",
        "_tlsVersion", "_remotePort", "_sessionId", "_session", "_metrics", "_encoding"
    ]

    /// JSON values the mapping keeps as they stand in the entry (a body's text, a custom field): the
    /// record holds a placeholder string for each, and `splice` puts the raw bytes in its place once
    /// the record is rendered, so a large body is never unescaped, escaped again and copied twice.
    /// The placeholder carries a random nonce, so no text in the input can stand for one.
    public final class RawValues {
        private var values: [ArraySlice<UInt8>] = []
        private let tag: [UInt8]

        public init() {
            tag = Array("\"@@pbsift-raw:\(String(UInt64.random(in: 1...UInt64.max), radix: 16)):".utf8)
        }

        /// A placeholder for `raw` (one whole JSON value).
        func slot(_ raw: ArraySlice<UInt8>) -> JSONOut {
            values.append(raw)
            return .string(String(decoding: tag.dropFirst(), as: UTF8.self) + "\(values.count - 1)@@")
        }

        /// `rendered` with every placeholder (with its quotes) replaced by its raw value.
        public func splice(_ rendered: [UInt8]) -> [UInt8] {
            guard !values.isEmpty, let first = tag.first else { return rendered }
            var out: [UInt8] = []
            out.reserveCapacity(rendered.count + values.reduce(0) { $0 + $1.count })
            var i = 0, copied = 0
            let n = rendered.count, t = tag.count
            while i + t < n {
                guard rendered[i] == first, rendered[i..<(i + t)].elementsEqual(tag) else { i += 1; continue }
                var j = i + t, index = 0
                while j < n, rendered[j] >= 0x30, rendered[j] <= 0x39, index < values.count {
                    index = index * 10 + Int(rendered[j] - 0x30); j += 1
                }
                guard j + 3 <= n, rendered[j] == 0x40, rendered[j + 1] == 0x40, rendered[j + 2] == 0x22, index < values.count else {
                    i += 1; continue
                }
                out += rendered[copied..<i]
                out += values[index]
                i = j + 3
                copied = i
            }
            out += rendered[copied...]
            return out
        }
    }

    /// Whether `prefix` (an input's first bytes) starts a HAR document: `{`, then the member `"log"`.
    public static func looksLikeHAR(_ prefix: [UInt8]) -> Bool { HARStream.looksLikeHAR(prefix) }

    /// The network record of one entry, or of a redirect chain (`group`, in order). `fallbackId` names
    /// the entry when it carries no `_recordId` (`entries[3]`).
    public static func record(
        _ group: [JSONValue], seq: Int, fallbackId: String, requestIdHeader: String = "X-Request-Id",
        raw: RawValues? = nil
    ) -> JSONOut {
        guard let first = group.first, let last = group.last else { return .object([:]) }
        var r: [String: JSONOut] = ["type": .string("network"), "seq": .int(first["_seq"]?.int ?? seq)]
        r["id"] = .string(first["_recordId"]?.string ?? fallbackId)
        let req = first["request"]
        let resp = last["response"]
        r["method"] = str(req?["method"])
        r["url"] = first["_url"].flatMap(str) ?? str(req?["url"])
        let status = resp?["status"]?.int ?? 0
        if let own = first["_statusCode"] {
            if let s = own.int { r["statusCode"] = .int(s) }
        } else if status > 0 {
            r["statusCode"] = .int(status)
        }

        // Request.
        var request: [String: JSONOut] = [:]
        if let req {
            request["headers"] = .array(headers(req, synthesize: "Cookie", separator: "; "))
            if let v = req["httpVersion"]?.string, !v.isEmpty { request["httpVersion"] = .string(v) }
            if let b = postBody(req["postData"], raw: raw) { request["body"] = b }
            if let q = queryNotInURL(req) { request["_queryString"] = q }
            keepCustom(req, into: &request, skip: [], raw: raw)
        }
        r["request"] = .object(request)

        // Response: absent when none arrived.
        if let resp, status > 0 || (resp["headers"]?.count ?? 0) > 0 {
            var response: [String: JSONOut] = ["headers": .array(headers(resp, synthesize: "Set-Cookie", separator: nil))]
            if let v = resp["httpVersion"]?.string, !v.isEmpty { response["httpVersion"] = .string(v) }
            if let b = contentBody(resp["content"], raw: raw) { response["body"] = b }
            if let t = resp["statusText"]?.string, !t.isEmpty { response["statusText"] = .string(t) }
            // A redirect target the headers don't carry is kept, so verify reads it.
            if let u = resp["redirectURL"]?.string, !u.isEmpty, header(resp, "Location") != u {
                response["_redirectURL"] = .string(u)
            }
            keepCustom(resp, into: &response, skip: ["_error"], raw: raw)
            r["response"] = .object(response)
        }

        // Request ids: ours, else the headers.
        r["requestId"] = first["_requestId"].flatMap(str) ?? req.flatMap { header($0, requestIdHeader) }.map { .string($0) }
        r["echoedRequestId"] = last["_echoedRequestId"].flatMap(str) ?? resp.flatMap { header($0, requestIdHeader) }.map { .string($0) }

        r["source"] = first["_source"].flatMap(str) ?? .string("app")
        r["kind"] = first["_kind"].flatMap(str) ?? .string("http")
        r["category"] = first["_category"].flatMap(str) ?? .string("app")
        if let l = first["_label"].flatMap(str) ?? first["_resourceType"].flatMap(str) { r["label"] = l }
        if let o = first["_operation"].flatMap(str) { r["operation"] = o }

        // State and error.
        var error: JSONOut?
        if let e = last["_error"], e.isObject {
            var o: [String: JSONOut] = [:]
            if let d = e["domain"]?.string { o["domain"] = .string(d) }
            if let c = e["code"]?.int { o["code"] = .int(c) }
            if let d = e["description"]?.string { o["description"] = .string(d) }
            error = .object(o)
        } else if let s = resp?["_error"]?.string, !s.isEmpty {
            error = .object(["domain": .string("HAR"), "description": .string(s)])
        } else if let s = last["_error"]?.string, !s.isEmpty {
            error = .object(["domain": .string("HAR"), "description": .string(s)])
        }
        if let s = last["_state"]?.string {
            r["state"] = .string(s)
        } else {
            r["state"] = .string(status > 0 && error == nil ? "success" : "failure")
        }
        if let error { r["error"] = error }

        // Timing.
        var transactions: [JSONOut] = []
        var taskStart: Int64?
        var taskEnd: Int64?
        var spanMs = 0.0
        for e in group {
            let (tx, start, end) = transaction(e)
            transactions.append(.object(tx))
            if let start { taskStart = min(taskStart ?? start, start) }
            if let end { taskEnd = max(taskEnd ?? end, end) }
            if let t = e["time"]?.double, t.isFinite, t >= 0, t < 1e12 { spanMs += t }
        }
        if let d = first["_duration"]?.double, d.isFinite {
            r["duration"] = .double(d)
        } else if let s = taskStart, let e = taskEnd {
            r["duration"] = .double(Double(e - s) / 1_000_000)
        } else if spanMs > 0 {
            r["duration"] = .double(spanMs / 1000)
        }
        let hasMetrics = first["_metrics"]?.bool != false
        var metrics: [String: JSONOut] = ["redirectCount": .int(group.count - 1), "transactions": .array(transactions)]
        metrics["taskStart"] = first["_taskStart"].flatMap(str) ?? taskStart.map { .string(stamp($0)) }
        metrics["taskEnd"] = last["_taskEnd"].flatMap(str) ?? taskEnd.map { .string(stamp($0)) }
        if hasMetrics { r["metrics"] = .object(metrics) }
        if let ts = first["_ts"].flatMap(str) ?? taskEnd.map({ .string(stamp($0)) }) ?? first["startedDateTime"].flatMap(str) {
            r["ts"] = ts
        }
        keepCustom(first, into: &r, skip: ["_resourceType", "_error"], raw: raw)
        return .object(r)
    }

    /// The session header standing for a HAR file: who wrote it (`creator` as the writer, `browser`
    /// as the system), and the session id `pbsift har` recorded, if any.
    public static func header(creator: JSONValue?, browser: JSONValue?, sessionId: String?) -> JSONOut {
        var h: [String: JSONOut] = ["type": .string("session"), "seq": .int(0), "formatVersion": .int(1)]
        if let c = creator, c.isObject {
            var sdk: [String: JSONOut] = [:]
            if let n = c["name"]?.string { sdk["name"] = .string(n) }
            if let v = c["version"]?.string { sdk["version"] = .string(v) }
            h["sdk"] = .object(sdk)
        }
        if let b = browser, b.isObject {
            let text = [b["name"]?.string, b["version"]?.string].compactMap { $0 }.joined(separator: " ")
            if !text.isEmpty { h["device"] = .object(["system": .string(text)]) }
        }
        if let sessionId { h["sessionId"] = .string(sessionId) }
        return .object(h)
    }

    // MARK: parts

    static func str(_ v: JSONValue?) -> JSONOut? { v?.string.map { .string($0) } }

    /// The value of the first header named `name` (case-insensitive).
    static func header(_ side: JSONValue, _ name: String) -> String? {
        let want = name.lowercased()
        var found: String?
        side["headers"]?.forEachElement { h in
            guard found == nil, let n = h["name"]?.string, n.lowercased() == want, let v = h["value"]?.string else { return }
            found = v
        }
        return found
    }

    /// `{name, value}` pairs in order; the `cookies` list as a `synthesize` header, for the cookies
    /// no such header carries (a HAR's `cookies` may hold values its headers do not).
    static func headers(_ side: JSONValue, synthesize: String, separator: String?) -> [JSONOut] {
        var out: [JSONOut] = []
        var existing: [String] = []
        side["headers"]?.forEachElement { h in
            guard h.isObject else { return }
            let name = h["name"]?.string ?? ""
            let value = h["value"]?.string ?? ""
            if name.lowercased() == synthesize.lowercased() { existing.append(value) }
            var o: [String: JSONOut] = ["name": .string(name), "value": .string(value)]
            if let c = h["comment"]?.string { o["comment"] = .string(c) }
            out.append(.object(o))
        }
        if let cookies = side["cookies"], cookies.count > 0 {
            var masked = true
            let pairs = cookies.elements.compactMap { c -> String? in
                guard let n = c["name"]?.string else { return nil }
                let v = c["value"]?.string ?? ""
                if !existing.isEmpty && existing.contains(where: { $0.contains(v) }) { return nil }
                let bytes = Array(v.utf8)
                if v != "***" && !bytes.withUnsafeBufferPointer(ScrubPlaceholder.matches) { masked = false }
                return n + "=" + v
            }
            // Cookies whose values are all masked make a masked header (none when a header is there).
            if masked {
                if existing.isEmpty && !pairs.isEmpty { out.append(.object(["name": .string(synthesize), "value": .string("***")])) }
                return out
            }
            if let separator {
                if !pairs.isEmpty {
                    out.append(.object(["name": .string(synthesize), "value": .string(pairs.joined(separator: separator))]))
                }
            } else {
                for p in pairs { out.append(.object(["name": .string(synthesize), "value": .string(p)])) }
            }
        }
        return out
    }

    /// `postData` as a body: its `text`, else its `params` form-encoded.
    static func postBody(_ p: JSONValue?, raw: RawValues? = nil) -> JSONOut? {
        guard let p, p.isObject else { return nil }
        let mime = p["mimeType"]?.string
        if let t = p["text"], t.isString, t.rawBytes.count > 2 {
            return body(t, base64: (p["encoding"] ?? p["_encoding"])?.string == "base64", mime: mime, raw: raw)
        }
        guard let params = p["params"], params.count > 0 else { return nil }
        let form = params.elements.map { q -> String in
            formEncode(q["name"]?.string ?? "") + "=" + formEncode(q["value"]?.string ?? "")
        }.joined(separator: "&")
        return body(text: form, base64: false, mime: mime ?? "application/x-www-form-urlencoded")
    }

    /// `content` as a body: `text`, base64 when `encoding` says so.
    static func contentBody(_ c: JSONValue?, raw: RawValues? = nil) -> JSONOut? {
        guard let c, c.isObject, let t = c["text"], t.isString else { return nil }
        return body(t, base64: c["encoding"]?.string == "base64", mime: c["mimeType"]?.string, raw: raw)
    }

    /// A body from a string value of the entry: kept raw (see `RawValues`) when `raw` is given.
    static func body(_ t: JSONValue, base64: Bool, mime: String?, raw: RawValues?) -> JSONOut {
        guard let raw else { return body(text: t.string ?? "", base64: base64, mime: mime) }
        let bytes = t.rawBytes
        var o: [String: JSONOut] = [:]
        if let mime { o["contentType"] = .string(mime) }
        if base64 {
            o["encoding"] = .string("base64")
            o["data"] = raw.slot(bytes)
            o["size"] = .int(base64Length(bytes) ?? Base64.decode(t.string ?? "")?.count ?? unescapedLength(bytes))
        } else {
            o["encoding"] = .string("utf8")
            o["text"] = raw.slot(bytes)
            o["size"] = .int(unescapedLength(bytes))
        }
        return .object(o)
    }

    /// The UTF-8 length of a JSON string literal's value (its raw bytes, quotes included), without
    /// building it: each escape counts as the bytes it stands for.
    static func unescapedLength(_ raw: ArraySlice<UInt8>) -> Int {
        guard raw.count >= 2 else { return 0 }
        var n = 0
        var i = raw.startIndex + 1
        let end = raw.endIndex - 1
        while i < end {
            // The bytes up to the next backslash count one each: find it with memchr.
            if raw[i] != 0x5C {
                let next = raw.withUnsafeBufferPointer { b -> Int in
                    let from = i - raw.startIndex
                    guard let base = b.baseAddress, let p = memchr(base + from, 0x5C, end - i) else { return end }
                    return raw.startIndex + base.distance(to: p.assumingMemoryBound(to: UInt8.self))
                }
                n += next - i
                i = next
                continue
            }
            guard i + 1 < end else { n += 1; i += 1; continue }
            guard raw[i + 1] == UInt8(ascii: "u"), i + 5 < end + 0, let u = hex4(raw, i + 2) else { n += 1; i += 2; continue }
            if (0xD800..<0xDC00).contains(u), i + 11 < end + 0, raw[i + 6] == 0x5C, raw[i + 7] == UInt8(ascii: "u"),
                let lo = hex4(raw, i + 8), (0xDC00..<0xE000).contains(lo)
            {
                n += 4
                i += 12
            } else {
                n += u < 0x80 ? 1 : u < 0x800 ? 2 : 3
                i += 6
            }
        }
        return n
    }

    static func hex4(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt32? {
        guard at + 4 <= b.endIndex else { return nil }
        var v: UInt32 = 0
        for k in at..<(at + 4) {
            let c = b[k]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x37)
            case 0x61...0x66: d = UInt32(c - 0x57)
            default: return nil
            }
            v = v << 4 | d
        }
        return v
    }

    /// The decoded length of a base64 string literal with no escapes and no white space (nil when
    /// it is not that plain: the caller decodes it).
    static func base64Length(_ raw: ArraySlice<UInt8>) -> Int? {
        guard raw.count >= 2 else { return nil }
        let body = raw.dropFirst().dropLast()
        guard body.count % 4 == 0 else { return nil }
        var pad = 0
        for (k, c) in zip(body.indices, body) {
            switch c {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2B, 0x2F:
                if pad > 0 { return nil }
            case 0x3D:
                guard k >= body.endIndex - 2 else { return nil }
                pad += 1
            default:
                return nil
            }
        }
        return body.count / 4 * 3 - pad
    }

    static func body(text: String, base64: Bool, mime: String?) -> JSONOut {
        var o: [String: JSONOut] = [:]
        if let mime { o["contentType"] = .string(mime) }
        if base64 {
            o["encoding"] = .string("base64")
            o["data"] = .string(text)
            o["size"] = .int(Base64.decode(text)?.count ?? text.utf8.count)
        } else {
            o["encoding"] = .string("utf8")
            o["text"] = .string(text)
            o["size"] = .int(text.utf8.count)
        }
        return .object(o)
    }

    static func formEncode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(b))
            default:
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }

    /// `_`-prefixed members and `comment` of `from`, kept under the same names.
    /// `queryString` pairs whose value the entry's `url` does not carry (a HAR may list pairs that
    /// differ from its URL): kept as `_queryString`, the URL with those pairs as its query, so verify
    /// reads every one of them as a query parameter.
    static func queryNotInURL(_ req: JSONValue) -> JSONOut? {
        guard let list = req["queryString"], list.count > 0 else { return nil }
        let url = req["url"]?.string ?? ""
        var decodedURL: String?
        var decoded: String {
            if let d = decodedURL { return d }
            let d = url.removingPercentEncoding ?? url
            decodedURL = d
            return d
        }
        var kept: [String] = []
        for q in list.elements {
            let name = q["name"]?.string ?? ""
            let value = q["value"]?.string ?? ""
            // The URL as it stands first: percent-decoding it (Foundation) is the slow path.
            let needle = value.isEmpty ? name : value
            if containsFast(url, needle) || decoded.contains(needle) { continue }
            kept.append(formEncode(name) + "=" + formEncode(value))
        }
        guard !kept.isEmpty else { return nil }
        let base = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let noFragment = base.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let prefix = noFragment.lowercased().hasPrefix("http") ? noFragment : "https://har.invalid/"
        return .string(prefix + "?" + kept.joined(separator: "&"))
    }

    /// `hay.contains(needle)` (Foundation's search), as bytes when both are ASCII: the same answer
    /// without a Foundation string per call.
    static func containsFast(_ hay: String, _ needle: String) -> Bool {
        if needle.isEmpty { return hay.contains(needle) }
        let h = hay.utf8, n = needle.utf8
        guard h.allSatisfy({ $0 < 0x80 }), n.allSatisfy({ $0 < 0x80 }) else { return hay.contains(needle) }
        guard n.count <= h.count else { return false }
        let hb = Array(h), nb = Array(n)
        return hb.withUnsafeBufferPointer { hp in
            nb.withUnsafeBufferPointer { np in
                guard let h0 = hp.baseAddress, let n0 = np.baseAddress else { return false }
                var i = 0
                let last = hp.count - np.count
                while i <= last {
                    guard let p = memchr(h0 + i, Int32(np[0]), last - i + 1) else { return false }
                    let at = h0.distance(to: p.assumingMemoryBound(to: UInt8.self))
                    if memcmp(h0 + at, n0, np.count) == 0 { return true }
                    i = at + 1
                }
                return false
            }
        }
    }

    /// `postData.params` when a `postData.text` stands beside them (the body is the text), as an
    /// object of their names and values, so each value is read under its name. Whatever else an
    /// entry holds that its record does not is found by `uncarried`.
    static func unmapped(_ e: JSONValue) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        if let p = e["request", "postData"], p["text"]?.string?.isEmpty == false, let v = p["params"], v.count > 0 {
            // The pairs as an object, so each value is read under its name (`password` is a listed name).
            var text = "{"
            for (i, q) in v.elements.enumerated() {
                if i > 0 { text += "," }
                JSONOut.quote(q["name"]?.string ?? "", into: &text)
                text += ":"
                JSONOut.quote(q["value"]?.string ?? "", into: &text)
            }
            out.append(("request.postData.params", Array((text + "}").utf8)))
        }
        return out
    }

    static func keepCustom(_ from: JSONValue, into o: inout [String: JSONOut], skip: Set<String>, raw: RawValues? = nil) {
        from.forEachMember { k, v in
            guard k.hasPrefix("_") || k == "comment", !ownFields.contains(k), !skip.contains(k), o[k] == nil else { return }
            o[k] = raw?.slot(v.rawBytes) ?? v.out
        }
    }

    // MARK: timings

    /// Milliseconds as whole microseconds; nil for -1, a negative, or an absurd value.
    static func micros(_ v: JSONValue?) -> Int64? {
        guard let d = v?.double, d.isFinite, d >= 0, d < 1e12 else { return nil }
        return Int64(exactly: (d * 1000).rounded())
    }

    /// Seconds since 1970 as whole microseconds.
    static func micros(stamp: String?) -> Int64? {
        guard let s = stamp, let t = Timestamp.parse(s), t.isFinite, abs(t) < 1e11 else { return nil }
        return Int64(exactly: (t * 1_000_000).rounded())
    }

    static func stamp(_ us: Int64) -> String { Timestamp.format(Double(us) / 1_000_000, micro: true) }

    /// The phases of an entry's `timings` from `start`, each handed to `put` as a transaction field
    /// and its time (HAR 1.2: a phase that does not apply is -1; `ssl` is inside `connect`); with no
    /// `timings`, the entry's `time` ends it. Returns the end. One definition for both record writers.
    static func phases(_ e: JSONValue, start: Int64, put: (String, Int64) -> Void) -> Int64? {
        guard let t = e["timings"], t.isObject else {
            guard let time = micros(e["time"]) else { return nil }
            put("responseEnd", start + time)
            return start + time
        }
        var c = start
        if let b = micros(t["blocked"]) { c += b }
        if let d = micros(t["dns"]) {
            put("domainLookupStart", c); c += d; put("domainLookupEnd", c)
        }
        if let k = micros(t["connect"]) {
            put("connectStart", c)
            c += k
            if let s = micros(t["ssl"]) {
                put("secureConnectionStart", c - min(s, k))
                put("secureConnectionEnd", c)
            }
            put("connectEnd", c)
        }
        let send = micros(t["send"]), wait = micros(t["wait"]), receive = micros(t["receive"])
        if send != nil || wait != nil || receive != nil {
            put("requestStart", c); c += send ?? 0; put("requestEnd", c)
        }
        if wait != nil || receive != nil {
            c += wait ?? 0; put("responseStart", c); c += receive ?? 0; put("responseEnd", c)
        }
        return c
    }

    /// One transaction from an entry's `startedDateTime` and `timings`, with its start and end.
    static func transaction(_ e: JSONValue) -> ([String: JSONOut], Int64?, Int64?) {
        var tx: [String: JSONOut] = [:]
        let start = micros(stamp: e["startedDateTime"]?.string)
        var end: Int64?
        if let start {
            func put(_ k: String, _ v: Int64) { tx[k] = .string(stamp(v)) }
            put("fetchStart", start)
            end = phases(e, start: start, put: put)
        }
        let req = e["request"], resp = e["response"]
        if let u = req?["url"]?.string, e["_noTransactionURL"]?.bool != true { tx["url"] = .string(u) }
        if let s = resp?["status"]?.int, s > 0 { tx["statusCode"] = .int(s) }
        if let v = resp?["httpVersion"]?.string ?? req?["httpVersion"]?.string, let p = networkProtocol(v) {
            tx["networkProtocol"] = .string(p)
        }
        if var ip = e["serverIPAddress"]?.string, !ip.isEmpty {
            if ip.hasPrefix("[") && ip.hasSuffix("]") { ip = String(ip.dropFirst().dropLast()) }
            tx["remoteAddress"] = .string(ip)
        }
        if let p = e["_remotePort"]?.int { tx["remotePort"] = .int(p) }
        if let t = e["_tlsVersion"]?.string { tx["tlsVersion"] = .string(t) }
        if let r = e["_reusedConnection"]?.bool {
            tx["reusedConnection"] = .bool(r)
        } else if let t = e["timings"], t.isObject, start != nil {
            tx["reusedConnection"] = .bool(micros(t["connect"]) == nil)
        }
        tx["fetchType"] = .string(fetchType(e))
        for (k, from, field) in [
            ("requestHeaderBytes", req, "headersSize"), ("requestBodyBytes", req, "bodySize"),
            ("responseHeaderBytes", resp, "headersSize"), ("responseBodyBytes", resp, "bodySize")
        ] {
            if let n = from?[field]?.int, n >= 0 { tx[k] = .int(n) }
        }
        return (tx, start, end)
    }

    /// `h2`, `h3`, `http/1.1` from a HAR `httpVersion`.
    static func networkProtocol(_ v: String) -> String? {
        let l = v.lowercased()
        switch l {
        case "": return nil
        case "http/2", "http/2.0", "h2": return "h2"
        case "http/3", "http/3.0", "h3": return "h3"
        default: return String(l.prefix(64))
        }
    }

    /// The export's `fetchType` for an entry: ours, else Chrome's `_fromCache`, Safari's `_fetchType`.
    static func fetchType(_ e: JSONValue) -> String {
        if let f = e["_fetchType"]?.string {
            switch f {
            case "network", "localCache", "serverPush", "unknown": return f
            default: return f.lowercased().contains("cache") ? "localCache" : "network"
            }
        }
        if let c = e["_fromCache"]?.string, !c.isEmpty { return "localCache" }
        return "network"
    }
}

extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

extension HARMapping {
    /// Every object in `v` that holds a name more than once: its place under `path`, the name, how many copies.
    static func duplicateNames(_ v: JSONValue, path: String, into out: inout [DuplicateName]) {
        switch v.kind {
        case .object:
            var counts: [String: Int] = [:]
            var order: [String] = []
            v.forEachMember { k, x in
                if counts[k] == nil { order.append(k) }
                counts[k, default: 0] += 1
                duplicateNames(x, path: path + "." + (k.count > 64 ? String(k.prefix(64)) + "…" : k), into: &out)
            }
            for k in order where (counts[k] ?? 0) > 1 { out.append(DuplicateName(place: path, name: k, count: counts[k] ?? 0)) }
        case .array:
            var i = 0
            v.forEachElement { x in
                duplicateNames(x, path: path + "[\(i)]", into: &out)
                i += 1
            }
        default:
            break
        }
    }

    /// `doc` once per later copy of a name it holds twice in one object (at most 63, and at most
    /// `limit`): in the k-th, copy k of each such name is the one that stands (the others renamed;
    /// copies whose values are written alike count as one, see `JSONDocument.DuplicateName`),
    /// as verify reads a session record's copies. Empty when no name is held twice. Made one at a
    /// time as the sequence is walked.
    static func duplicateVariants(
        _ doc: JSONDocument, _ duplicates: [JSONDocument.DuplicateName], maxDepth: Int,
        limit: Int = Int.max
    ) -> some Sequence<JSONDocument> {
        (1..<(1 + min(max(0, limit), JSONDocument.laterCopyCount(duplicates)))).lazy.compactMap { k -> JSONDocument? in
            var bytes = doc.bytes
            for d in duplicates {
                let keep = d.kept(k)
                for (j, r) in d.ranges.enumerated() where j != keep && !r.isEmpty { bytes[r.lowerBound] = UInt8(ascii: "_") }
            }
            return try? JSONDocument(bytes: bytes, maxDepth: maxDepth)
        }
    }
}
