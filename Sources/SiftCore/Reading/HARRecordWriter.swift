/// Writes the network record of a HAR entry (or a redirect chain) straight to bytes, from the entry's
/// parsed tape: no `JSONOut` tree, no dictionary, no second escaping pass. The bytes are exactly
/// what `HARMapping.record(…, raw:)` rendered and spliced (keys sorted as `JSONWriter` sorts them,
/// strings escaped as it escapes them, kept values copied raw), so every reader sees the same
/// record; `HARMapping.record` stays the reference the tests compare against.
extension HARMapping {
    /// The record's compact JSON bytes (see `record`).
    public static func recordBytes(
        _ group: [JSONValue], seq: Int, fallbackId: String,
        requestIdHeader: String = "X-Request-Id"
    ) -> [UInt8] {
        guard let first = group.first, let last = group.last else { return Array("{}".utf8) }
        var r = Members()
        r.put("type", lit: "\"network\"")
        r.put("seq", int: first["_seq"]?.int ?? seq)
        if let id = first["_recordId"], id.isString { r.put("id", string: id) } else { r.put("id", text: fallbackId) }
        let req = first["request"]
        let resp = last["response"]
        if let m = req?["method"], m.isString { r.put("method", string: m) }
        if let u = first["_url"], u.isString { r.put("url", string: u) } else if let u = req?["url"], u.isString { r.put("url", string: u) }
        let status = resp?["status"]?.int ?? 0
        if let own = first["_statusCode"] {
            if let s = own.int { r.put("statusCode", int: s) }
        } else if status > 0 {
            r.put("statusCode", int: status)
        }

        // Request.
        var request = Members()
        if let req {
            request.put("headers", bytes: headerBytes(req, synthesize: "Cookie", separator: "; "))
            if let v = req["httpVersion"], v.isString, v.rawBytes.count > 2 { request.put("httpVersion", string: v) }
            if let b = postBodyBytes(req["postData"]) { request.put("body", bytes: b) }
            if let q = queryNotInURL(req), case .string(let s) = q { request.put("_queryString", text: s) }
            keepCustom(req, into: &request, skip: [])
        }
        r.put("request", bytes: request.object())

        // Response: absent when none arrived.
        if let resp, status > 0 || (resp["headers"]?.count ?? 0) > 0 {
            var response = Members()
            response.put("headers", bytes: headerBytes(resp, synthesize: "Set-Cookie", separator: nil))
            if let v = resp["httpVersion"], v.isString, v.rawBytes.count > 2 { response.put("httpVersion", string: v) }
            if let b = contentBodyBytes(resp["content"]) { response.put("body", bytes: b) }
            if let t = resp["statusText"], t.isString, t.rawBytes.count > 2 { response.put("statusText", string: t) }
            if let u = resp["redirectURL"]?.string, !u.isEmpty, headerValue(resp, "Location") != u {
                response.put("_redirectURL", text: u)
            }
            keepCustom(resp, into: &response, skip: ["_error"])
            r.put("response", bytes: response.object())
        }

        // Request ids: ours, else the headers.
        if let v = first["_requestId"], v.isString {
            r.put("requestId", string: v)
        } else if let req, let v = headerValue(req, requestIdHeader) {
            r.put("requestId", text: v)
        }
        if let v = last["_echoedRequestId"], v.isString {
            r.put("echoedRequestId", string: v)
        } else if let resp, let v = headerValue(resp, requestIdHeader) {
            r.put("echoedRequestId", text: v)
        }

        for (key, own, fallback) in [("source", "_source", "app"), ("kind", "_kind", "http"), ("category", "_category", "app")] {
            if let v = first[own], v.isString { r.put(key, string: v) } else { r.put(key, text: fallback) }
        }
        if let l = first["_label"], l.isString {
            r.put("label", string: l)
        } else if let l = first["_resourceType"], l.isString {
            r.put("label", string: l)
        }
        if let o = first["_operation"], o.isString { r.put("operation", string: o) }

        // State and error.
        var error: [UInt8]?
        if let e = last["_error"], e.isObject {
            var o = Members()
            if let d = e["domain"]?.string { o.put("domain", text: d) }
            if let c = e["code"]?.int { o.put("code", int: c) }
            if let d = e["description"]?.string { o.put("description", text: d) }
            error = o.object()
        } else if let s = resp?["_error"]?.string, !s.isEmpty {
            var o = Members()
            o.put("domain", lit: "\"HAR\"")
            o.put("description", text: s)
            error = o.object()
        } else if let s = last["_error"]?.string, !s.isEmpty {
            var o = Members()
            o.put("domain", lit: "\"HAR\"")
            o.put("description", text: s)
            error = o.object()
        }
        if let s = last["_state"], s.isString {
            r.put("state", string: s)
        } else {
            r.put("state", lit: status > 0 && error == nil ? "\"success\"" : "\"failure\"")
        }
        if let error { r.put("error", bytes: error) }

        // Timing.
        var transactions: [UInt8] = [0x5B]
        var taskStart: Int64?
        var taskEnd: Int64?
        var spanMs = 0.0
        for (i, e) in group.enumerated() {
            let (tx, start, end) = transactionBytes(e)
            if i > 0 { transactions.append(0x2C) }
            transactions += tx
            if let start { taskStart = min(taskStart ?? start, start) }
            if let end { taskEnd = max(taskEnd ?? end, end) }
            if let t = e["time"]?.double, t.isFinite, t >= 0, t < 1e12 { spanMs += t }
        }
        transactions.append(0x5D)
        if let d = first["_duration"]?.double, d.isFinite {
            r.put("duration", double: d)
        } else if let s = taskStart, let e = taskEnd {
            r.put("duration", double: Double(e - s) / 1_000_000)
        } else if spanMs > 0 {
            r.put("duration", double: spanMs / 1000)
        }
        if first["_metrics"]?.bool != false {
            var metrics = Members()
            metrics.put("redirectCount", int: group.count - 1)
            metrics.put("transactions", bytes: transactions)
            if let v = first["_taskStart"], v.isString {
                metrics.put("taskStart", string: v)
            } else if let s = taskStart {
                metrics.put("taskStart", text: stamp(s))
            }
            if let v = last["_taskEnd"], v.isString {
                metrics.put("taskEnd", string: v)
            } else if let e = taskEnd {
                metrics.put("taskEnd", text: stamp(e))
            }
            r.put("metrics", bytes: metrics.object())
        }
        if let ts = first["_ts"], ts.isString {
            r.put("ts", string: ts)
        } else if let e = taskEnd {
            r.put("ts", text: stamp(e))
        } else if let s = first["startedDateTime"], s.isString {
            r.put("ts", string: s)
        }
        keepCustom(first, into: &r, skip: ["_resourceType", "_error"])
        return r.object()
    }

    // MARK: parts

    /// `header(side, name)` without a String per header name.
    static func headerValue(_ side: JSONValue, _ name: String) -> String? {
        let lower = name.lowercased()
        let quoted = Array(("\"" + lower + "\"").utf8)
        var found: String?
        side["headers"]?.forEachElement { h in
            guard found == nil, let n = h["name"], n.isString, equalsIgnoringCase(n, lower, quoted), let v = h["value"]?.string else {
                return
            }
            found = v
        }
        return found
    }

    /// `_`-prefixed members and `comment` of `from`, raw, under the same names (the first of a name).
    static func keepCustom(_ from: JSONValue, into o: inout Members, skip: Set<String>) {
        from.forEachMember { k, v in
            guard k.hasPrefix("_") || k == "comment", !ownFields.contains(k), !skip.contains(k), !o.has(k) else { return }
            o.put(k, bytes: Array(v.rawBytes))
        }
    }

    /// The `headers` array (see `headers`).
    static func headerBytes(_ side: JSONValue, synthesize: String, separator: String?) -> [UInt8] {
        var out: [UInt8] = [0x5B]
        var n = 0
        func element() { if n > 0 { out.append(0x2C) }; n += 1 }
        var existing: [String] = []
        let wantLower = synthesize.lowercased()
        let want = Array(("\"" + wantLower + "\"").utf8)
        side["headers"]?.forEachElement { h in
            guard h.isObject else { return }
            let name = h["name"], value = h["value"]
            if let name, name.isString, equalsIgnoringCase(name, wantLower, want) { existing.append(value?.string ?? "") }
            element()
            out.append(0x7B)
            if let c = h["comment"], c.isString {
                lit("\"comment\":", &out)
                writeString(c, into: &out)
                out.append(0x2C)
            }
            lit("\"name\":", &out)
            if let name, name.isString { writeString(name, into: &out) } else { out += [0x22, 0x22] }
            lit(",\"value\":", &out)
            if let value, value.isString { writeString(value, into: &out) } else { out += [0x22, 0x22] }
            out.append(0x7D)
        }
        func pair(_ name: String, _ value: String) {
            element()
            lit("{\"name\":", &out)
            writeString(name, into: &out)
            lit(",\"value\":", &out)
            writeString(value, into: &out)
            out.append(0x7D)
        }
        if let cookies = side["cookies"], cookies.count > 0 {
            var masked = true
            var pairs: [String] = []
            cookies.forEachElement { c in
                guard let n = c["name"]?.string else { return }
                let v = c["value"]?.string ?? ""
                if !existing.isEmpty && existing.contains(where: { $0.contains(v) }) { return }
                let bytes = Array(v.utf8)
                if v != "***" && !bytes.withUnsafeBufferPointer(ScrubPlaceholder.matches) { masked = false }
                pairs.append(n + "=" + v)
            }
            if masked {
                if existing.isEmpty && !pairs.isEmpty { pair(synthesize, "***") }
            } else if let separator {
                if !pairs.isEmpty { pair(synthesize, pairs.joined(separator: separator)) }
            } else {
                for p in pairs { pair(synthesize, p) }
            }
        }
        out.append(0x5D)
        return out
    }

    /// `postData` as a body: its `text`, else its `params` form-encoded.
    static func postBodyBytes(_ p: JSONValue?) -> [UInt8]? {
        guard let p, p.isObject else { return nil }
        let mime = p["mimeType"]
        if let t = p["text"], t.isString, t.rawBytes.count > 2 {
            return bodyBytes(t, base64: (p["encoding"] ?? p["_encoding"])?.string == "base64", mime: mime)
        }
        guard let params = p["params"], params.count > 0 else { return nil }
        var form = ""
        var first = true
        params.forEachElement { q in
            if !first { form += "&" }
            first = false
            form += formEncode(q["name"]?.string ?? "") + "=" + formEncode(q["value"]?.string ?? "")
        }
        var o = Members()
        o.put("contentType", text: mime?.string ?? "application/x-www-form-urlencoded")
        o.put("encoding", lit: "\"utf8\"")
        o.put("text", text: form)
        o.put("size", int: form.utf8.count)
        return o.object()
    }

    /// `content` as a body: `text`, base64 when `encoding` says so.
    static func contentBodyBytes(_ c: JSONValue?) -> [UInt8]? {
        guard let c, c.isObject, let t = c["text"], t.isString else { return nil }
        return bodyBytes(t, base64: c["encoding"]?.string == "base64", mime: c["mimeType"])
    }

    /// A body whose text (or base64 data) is the entry's string, copied raw.
    static func bodyBytes(_ t: JSONValue, base64: Bool, mime: JSONValue?) -> [UInt8] {
        let bytes = t.rawBytes
        var o = Members()
        if let mime, mime.isString { o.put("contentType", string: mime) }
        if base64 {
            o.put("encoding", lit: "\"base64\"")
            o.put("data", bytes: Array(bytes))
            o.put("size", int: base64Length(bytes) ?? Base64.decode(t.string ?? "")?.count ?? unescapedLength(bytes))
        } else {
            o.put("encoding", lit: "\"utf8\"")
            o.put("text", bytes: Array(bytes))
            o.put("size", int: unescapedLength(bytes))
        }
        return o.object()
    }

    /// One transaction (see `transaction`), with its start and end.
    static func transactionBytes(_ e: JSONValue) -> ([UInt8], Int64?, Int64?) {
        var tx = Members()
        let start = micros(stamp: e["startedDateTime"]?.string)
        var end: Int64?
        if let start {
            func put(_ k: String, _ v: Int64) { tx.put(k, text: stamp(v)) }
            put("fetchStart", start)
            end = phases(e, start: start, put: put)
        }
        let req = e["request"], resp = e["response"]
        if let u = req?["url"], u.isString, e["_noTransactionURL"]?.bool != true { tx.put("url", string: u) }
        if let s = resp?["status"]?.int, s > 0 { tx.put("statusCode", int: s) }
        if let v = resp?["httpVersion"]?.string ?? req?["httpVersion"]?.string, let p = networkProtocol(v) {
            tx.put("networkProtocol", text: p)
        }
        if var ip = e["serverIPAddress"]?.string, !ip.isEmpty {
            if ip.hasPrefix("[") && ip.hasSuffix("]") { ip = String(ip.dropFirst().dropLast()) }
            tx.put("remoteAddress", text: ip)
        }
        if let p = e["_remotePort"]?.int { tx.put("remotePort", int: p) }
        if let t = e["_tlsVersion"], t.isString { tx.put("tlsVersion", string: t) }
        if let r = e["_reusedConnection"]?.bool {
            tx.put("reusedConnection", lit: r ? "true" : "false")
        } else if let t = e["timings"], t.isObject, start != nil {
            tx.put("reusedConnection", lit: micros(t["connect"]) == nil ? "true" : "false")
        }
        tx.put("fetchType", text: fetchType(e))
        for (k, from, field) in [
            ("requestHeaderBytes", req, "headersSize"), ("requestBodyBytes", req, "bodySize"),
            ("responseHeaderBytes", resp, "headersSize"), ("responseBodyBytes", resp, "bodySize")
        ] {
            if let n = from?[field]?.int, n >= 0 { tx.put(k, int: n) }
        }
        return (tx.object(), start, end)
    }

    /// A string value of the entry as `JSONWriter` writes it: its raw literal when that is already
    /// the same (printable ASCII, no escape), else decoded and escaped.
    static func writeString(_ v: JSONValue, into out: inout [UInt8]) {
        let raw = v.rawBytes
        let plain = raw.withUnsafeBufferPointer { b -> Bool in
            guard b.count >= 2 else { return false }
            for i in 1..<(b.count - 1) where b[i] < 0x20 || b[i] >= 0x7F || b[i] == 0x5C { return false }
            return true
        }
        if plain { out += raw; return }
        writeString(v.string ?? "", into: &out)
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        // Printable ASCII with nothing to escape is written as it is; anything else as JSONWriter writes it.
        let done = s.utf8.withContiguousStorageIfAvailable { u -> Bool in
            for c in u where c < 0x20 || c >= 0x7F || c == 0x22 || c == 0x5C { return false }
            out.append(0x22)
            out.append(contentsOf: u)
            out.append(0x22)
            return true
        }
        if done == true { return }
        var w = JSONWriter(pretty: false)
        w.string(s)
        out += w.buf
    }

    static func lit(_ s: StaticString, _ out: inout [UInt8]) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// Whether the string `v` lowercased is `lower` (whose quoted UTF-8 is `lowerQuoted`), as
    /// `String.lowercased()` says: bytes compared when the literal is plain ASCII, else decoded.
    static func equalsIgnoringCase(_ v: JSONValue, _ lower: String, _ lowerQuoted: [UInt8]) -> Bool {
        let raw = v.rawBytes
        if raw.contains(where: { $0 >= 0x80 || $0 == 0x5C }) { return v.string?.lowercased() == lower }
        guard raw.count == lowerQuoted.count else { return false }
        for (a, b) in zip(raw, lowerQuoted) {
            let l = a >= 0x41 && a <= 0x5A ? a + 0x20 : a
            if l != b { return false }
        }
        return true
    }

    /// The members of one object, written sorted by name (as `JSONWriter.value` sorts an object's keys).
    struct Members {
        private var keys: [String] = []
        private var values: [[UInt8]] = []

        func has(_ k: String) -> Bool { keys.contains(k) }

        /// Adds `k`: each name is put once (the mapping's names are distinct; kept `_` members are
        /// put only when `has` says the name is new).
        mutating func put(_ k: String, bytes: [UInt8]) {
            keys.append(k)
            values.append(bytes)
        }

        mutating func put(_ k: String, lit: StaticString) {
            put(k, bytes: lit.withUTF8Buffer { Array($0) })
        }

        mutating func put(_ k: String, int: Int) {
            put(k, bytes: Array(String(int).utf8))
        }

        mutating func put(_ k: String, double: Double) {
            put(k, bytes: Array(JSONOut.format(double).utf8))
        }

        mutating func put(_ k: String, text: String) {
            var b: [UInt8] = []
            HARMapping.writeString(text, into: &b)
            put(k, bytes: b)
        }

        mutating func put(_ k: String, string v: JSONValue) {
            var b: [UInt8] = []
            HARMapping.writeString(v, into: &b)
            put(k, bytes: b)
        }

        /// `{"k":v,…}`, keys sorted.
        func object() -> [UInt8] {
            var out: [UInt8] = [0x7B]
            out.reserveCapacity(values.reduce(2) { $0 + $1.count + 4 } + keys.reduce(0) { $0 + $1.utf8.count })
            for (n, i) in keys.indices.sorted(by: { keys[$0] < keys[$1] }).enumerated() {
                if n > 0 { out.append(0x2C) }
                HARMapping.writeString(keys[i], into: &out)
                out.append(0x3A)
                out += values[i]
            }
            out.append(0x7D)
            return out
        }
    }
}
