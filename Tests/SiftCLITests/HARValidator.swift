import Foundation
import SiftCore

/// A strict HAR 1.2 validator, field by field from the format's definition: required members and
/// their types, the -1 conventions ("does not apply" / "not known"), `ssl` counted inside `connect`,
/// `time` as the sum of the phases, `text` and `params` excluding each other, base64 content that
/// decodes, ISO 8601 dates, and no member outside the format unless its name starts with `_`.
/// Returns every violation with its place (`log.entries[3].timings.ssl: …`); empty when valid.
struct HARValidator {
    private(set) var errors: [String] = []

    static func validate(_ root: JSONValue) -> [String] {
        var v = HARValidator()
        v.document(root)
        return v.errors
    }

    private mutating func fail(_ path: String, _ why: String) { errors.append("\(path): \(why)") }

    // MARK: types

    private mutating func string(_ o: JSONValue, _ key: String, _ path: String, required: Bool = true) -> String? {
        guard let v = o[key] else { if required { fail("\(path).\(key)", "required") }; return nil }
        guard let s = v.string else { fail("\(path).\(key)", "must be a string"); return nil }
        return s
    }

    private mutating func number(_ o: JSONValue, _ key: String, _ path: String, required: Bool = true) -> Double? {
        guard let v = o[key] else { if required { fail("\(path).\(key)", "required") }; return nil }
        guard v.kind == .number, let d = v.double else { fail("\(path).\(key)", "must be a number"); return nil }
        return d
    }

    /// An integer byte count: 0 or more, or -1 when not known.
    private mutating func size(_ o: JSONValue, _ key: String, _ path: String, minusOne: Bool = true) {
        guard let d = number(o, key, path) else { return }
        if d != d.rounded() { fail("\(path).\(key)", "must be a whole number") }
        if d < (minusOne ? -1 : 0) { fail("\(path).\(key)", minusOne ? "must be -1 or more" : "must be 0 or more") }
    }

    private mutating func array(_ o: JSONValue, _ key: String, _ path: String, required: Bool = true) -> [JSONValue]? {
        guard let v = o[key] else { if required { fail("\(path).\(key)", "required") }; return nil }
        guard v.isArray else { fail("\(path).\(key)", "must be an array"); return nil }
        return v.elements
    }

    private mutating func object(_ o: JSONValue, _ key: String, _ path: String, required: Bool = true) -> JSONValue? {
        guard let v = o[key] else { if required { fail("\(path).\(key)", "required") }; return nil }
        guard v.isObject else { fail("\(path).\(key)", "must be an object"); return nil }
        return v
    }

    /// Members must be the format's (plus `comment`) or start with `_`.
    private mutating func members(_ o: JSONValue, _ path: String, _ allowed: Set<String>) {
        o.forEachMember { k, _ in
            if !allowed.contains(k) && k != "comment" && !k.hasPrefix("_") { fail("\(path).\(k)", "is not a HAR 1.2 field and has no '_'") }
        }
        if let c = o["comment"], c.string == nil { fail("\(path).comment", "must be a string") }
    }

    /// ISO 8601 (`YYYY-MM-DDThh:mm:ss.sTZD`) with a time zone.
    static let iso8601 = try? NSRegularExpression(pattern: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"#)

    private mutating func date(_ o: JSONValue, _ key: String, _ path: String, required: Bool = true) {
        guard let s = string(o, key, path, required: required) else { return }
        let ok = HARValidator.iso8601?.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
        if !ok || Timestamp.parse(s) == nil { fail("\(path).\(key)", "'\(s)' is not an ISO 8601 date with a time zone") }
    }

    // MARK: the format

    private mutating func document(_ root: JSONValue) {
        guard root.isObject else { fail("$", "the document must be an object"); return }
        members(root, "$", ["log"])
        guard let log = object(root, "log", "$") else { return }
        members(log, "log", ["version", "creator", "browser", "pages", "entries"])
        if let v = string(log, "version", "log"), v != "1.2" { fail("log.version", "'\(v)' is not 1.2") }
        for who in ["creator", "browser"] {
            guard let c = object(log, who, "log", required: who == "creator") else { continue }
            members(c, "log.\(who)", ["name", "version"])
            _ = string(c, "name", "log.\(who)")
            _ = string(c, "version", "log.\(who)")
        }
        var pageIds = Set<String>()
        for (i, p) in (array(log, "pages", "log", required: false) ?? []).enumerated() {
            let path = "log.pages[\(i)]"
            guard p.isObject else { fail(path, "must be an object"); continue }
            members(p, path, ["startedDateTime", "id", "title", "pageTimings"])
            date(p, "startedDateTime", path)
            if let id = string(p, "id", path) { if !pageIds.insert(id).inserted { fail("\(path).id", "is not unique") } }
            _ = string(p, "title", path)
            if let t = object(p, "pageTimings", path) {
                members(t, "\(path).pageTimings", ["onContentLoad", "onLoad"])
                for k in ["onContentLoad", "onLoad"] {
                    if let d = number(t, k, "\(path).pageTimings", required: false), d < 0 && d != -1 {
                        fail("\(path).pageTimings.\(k)", "must be -1 or 0 or more")
                    }
                }
            }
        }
        for (i, e) in (array(log, "entries", "log") ?? []).enumerated() {
            entry(e, "log.entries[\(i)]", pages: pageIds)
        }
    }

    private mutating func entry(_ e: JSONValue, _ path: String, pages: Set<String>) {
        guard e.isObject else { fail(path, "must be an object"); return }
        members(e, path, ["pageref", "startedDateTime", "time", "request", "response", "cache", "timings", "serverIPAddress", "connection"])
        if let ref = string(e, "pageref", path, required: false), !pages.contains(ref) { fail("\(path).pageref", "names no page") }
        date(e, "startedDateTime", path)
        let time = number(e, "time", path)
        if let time, time < 0 { fail("\(path).time", "must be 0 or more") }
        _ = string(e, "serverIPAddress", path, required: false)
        _ = string(e, "connection", path, required: false)
        if let c = object(e, "cache", path) {
            members(c, "\(path).cache", ["beforeRequest", "afterRequest"])
            for k in ["beforeRequest", "afterRequest"] {
                guard let s = c[k], s.kind != .null else { continue }
                guard s.isObject else { fail("\(path).cache.\(k)", "must be an object or null"); continue }
                members(s, "\(path).cache.\(k)", ["expires", "lastAccess", "eTag", "hitCount"])
                date(s, "expires", "\(path).cache.\(k)", required: false)
                date(s, "lastAccess", "\(path).cache.\(k)")
                _ = string(s, "eTag", "\(path).cache.\(k)")
                _ = number(s, "hitCount", "\(path).cache.\(k)")
            }
        }
        if let r = object(e, "request", path) { request(r, "\(path).request") }
        var status: Int?
        if let r = object(e, "response", path) { status = response(r, "\(path).response") }
        if let t = object(e, "timings", path) { timings(t, "\(path).timings", time: time) }
        if let url = e["response", "redirectURL"]?.string, !url.isEmpty, let status, !(300..<400).contains(status) {
            fail("\(path).response.redirectURL", "is set on a response with status \(status), not a redirect")
        }
    }

    private mutating func pairs(_ o: JSONValue, _ key: String, _ path: String, extra: Set<String> = []) -> [JSONValue] {
        let list = array(o, key, path) ?? []
        for (i, p) in list.enumerated() {
            let at = "\(path).\(key)[\(i)]"
            guard p.isObject else { fail(at, "must be an object"); continue }
            members(p, at, Set(["name", "value"]).union(extra))
            _ = string(p, "name", at)
            _ = string(p, "value", at)
        }
        return list
    }

    private mutating func cookies(_ o: JSONValue, _ path: String) {
        let list = pairs(o, "cookies", path, extra: ["path", "domain", "expires", "httpOnly", "secure"])
        for (i, c) in list.enumerated() where c.isObject {
            let at = "\(path).cookies[\(i)]"
            _ = string(c, "path", at, required: false)
            _ = string(c, "domain", at, required: false)
            date(c, "expires", at, required: false)
            for k in ["httpOnly", "secure"] where c[k] != nil && c[k]?.bool == nil { fail("\(at).\(k)", "must be a boolean") }
        }
    }

    private mutating func request(_ r: JSONValue, _ path: String) {
        members(r, path, ["method", "url", "httpVersion", "cookies", "headers", "queryString", "postData", "headersSize", "bodySize"])
        if let m = string(r, "method", path), m.isEmpty { fail("\(path).method", "is empty") }
        if let u = string(r, "url", path), !u.contains("://") { fail("\(path).url", "'\(u)' is not an absolute URL") }
        _ = string(r, "httpVersion", path)
        cookies(r, path)
        _ = pairs(r, "headers", path)
        _ = pairs(r, "queryString", path)
        size(r, "headersSize", path)
        size(r, "bodySize", path)
        guard let p = object(r, "postData", path, required: false) else { return }
        let at = "\(path).postData"
        members(p, at, ["mimeType", "params", "text"])
        _ = string(p, "mimeType", at)
        let text = string(p, "text", at, required: false)
        let params = array(p, "params", at, required: false)
        if let params, !params.isEmpty, let text, !text.isEmpty {
            fail(at, "has both text and params; HAR 1.2 has them exclude each other")
        }
        for (i, q) in (params ?? []).enumerated() {
            guard q.isObject else { fail("\(at).params[\(i)]", "must be an object"); continue }
            members(q, "\(at).params[\(i)]", ["name", "value", "fileName", "contentType"])
            _ = string(q, "name", "\(at).params[\(i)]")
            for k in ["value", "fileName", "contentType"] { _ = string(q, k, "\(at).params[\(i)]", required: false) }
        }
    }

    private mutating func response(_ r: JSONValue, _ path: String) -> Int? {
        members(r, path, ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"])
        let status = number(r, "status", path)
        if let status, status < 0 || status != status.rounded() { fail("\(path).status", "must be a whole number, 0 or more") }
        _ = string(r, "statusText", path)
        _ = string(r, "httpVersion", path)
        cookies(r, path)
        _ = pairs(r, "headers", path)
        _ = string(r, "redirectURL", path)
        size(r, "headersSize", path)
        size(r, "bodySize", path)
        if let c = object(r, "content", path) {
            let at = "\(path).content"
            members(c, at, ["size", "compression", "mimeType", "text", "encoding"])
            size(c, "size", at, minusOne: false)
            _ = number(c, "compression", at, required: false)
            _ = string(c, "mimeType", at)
            let text = string(c, "text", at, required: false)
            if let enc = string(c, "encoding", at, required: false) {
                if enc != "base64" { fail("\(at).encoding", "'\(enc)' is not base64") }
                if let text, Base64.decode(text) == nil { fail("\(at).text", "does not decode as base64") }
            }
        }
        return status.flatMap { Int(exactly: $0) }
    }

    private mutating func timings(_ t: JSONValue, _ path: String, time: Double?) {
        members(t, path, ["blocked", "dns", "connect", "send", "wait", "receive", "ssl"])
        var sum = 0.0
        var values: [String: Double] = [:]
        for k in ["blocked", "dns", "connect", "ssl", "send", "wait", "receive"] {
            let required = ["send", "wait", "receive"].contains(k)
            guard let d = number(t, k, path, required: required) else { continue }
            values[k] = d
            if required && d < 0 { fail("\(path).\(k)", "is required and never -1") }
            if !required && d < 0 && d != -1 { fail("\(path).\(k)", "must be -1 (does not apply) or 0 or more") }
            if d >= 0 && k != "ssl" { sum += d }
        }
        if let ssl = values["ssl"], ssl >= 0 {
            let connect = values["connect"] ?? -1
            if connect < 0 {
                fail("\(path).ssl", "is \(ssl) but connect does not apply; ssl is counted inside connect")
            } else if ssl > connect + 1e-9 {
                fail("\(path).ssl", "\(ssl) is longer than connect (\(connect)); ssl is counted inside connect")
            }
        }
        if let time, abs(time - sum) > 0.01 { fail(path, "the phases add up to \(sum) but time is \(time)") }
    }
}
