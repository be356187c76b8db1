import Foundation
import SiftCore

/// URL helpers: a small, total parser (no Foundation `URL`, which rejects or rewrites odd input),
/// the safe form shown in output, and the endpoint key with ids collapsed.
public enum WaterfallURL {
    /// The pieces of an absolute URL. `host` is lowercased and keeps a port; userinfo is dropped.
    public struct Parts: Sendable, Equatable {
        public var scheme: String
        public var host: String
        /// The path (at least `/`), without query or fragment.
        public var path: String
        /// The query without `?`, nil when absent.
        public var query: String?
    }

    /// Splits `scheme://[userinfo@]host[:port]/path?query#fragment`; nil without `://`.
    public static func parts(_ url: String) -> Parts? {
        guard let sep = url.range(of: "://") else { return nil }
        let scheme = String(url[..<sep.lowerBound]).lowercased()
        var rest = url[sep.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let tail = rest[authEnd...]
        var path = tail
        var query: String? = nil
        if let q = tail.firstIndex(of: "?") {
            path = tail[..<q]
            query = String(tail[tail.index(after: q)...])
        }
        return Parts(scheme: scheme, host: authority.lowercased(), path: path.isEmpty ? "/" : String(path), query: query)
    }

    /// Query parameter names whose values the SDK must redact (§3), normalised.
    static let secretParams: Set<String> = [
        "accesstoken", "idtoken", "refreshtoken", "code", "token", "apikey", "key", "sig", "signature", "clientsecret",
        "password", "xamzsignature", "xamzcredential", "xamzsecuritytoken", "xgoogsignature", "xgoogcredential",
        "awsaccesskeyid",
    ]

    /// The URL as output shows it: userinfo removed, and the value of every query parameter the SDK
    /// must redact (or that looks like a JSON Web Token) replaced by `***`, so a waterfall pasted
    /// into a ticket never repeats a leaked credential. Finding the leak is `verify`'s job.
    public static func sanitize(_ url: String) -> String {
        guard let sep = url.range(of: "://") else { return url }
        var out = String(url[..<sep.upperBound])
        var rest = url[sep.upperBound...]
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        let authEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        out += authority
        let tail = rest[authEnd...]
        guard let q = tail.firstIndex(of: "?") else { return out + tail + fragment }
        out += tail[...q]
        let pairs = tail[tail.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false)
        out += pairs.map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<eq]
            let value = pair[pair.index(after: eq)...]
            let norm = name.lowercased().filter { $0 != "_" && $0 != "-" }
            if value != "***" && (secretParams.contains(norm) || (value.hasPrefix("eyJ") && value.filter({ $0 == "." }).count == 2)) {
                return name + "=***"
            }
            return String(pair)
        }.joined(separator: "&")
        return out + fragment
    }

    /// `METHOD host/path` with ids in the path collapsed to `:id`, the query dropped.
    public static func endpointKey(method: String?, url: String?) -> String {
        let m = (method ?? "?").uppercased()
        guard let url else { return m + " ?" }
        guard let p = parts(url) else { return m + " " + collapsePath(url) }
        return m + " " + p.host + collapsePath(p.path)
    }

    /// Replaces each path segment that is an id with `:id`: a UUID (optionally prefixed), a number,
    /// a prefixed id like `req_…` or `ord_77` (letters, `_`, then something with a digit), or a
    /// long hex string (16 or more hex digits).
    public static func collapsePath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { seg -> String in
            isIdSegment(seg) ? ":id" : String(seg)
        }.joined(separator: "/")
    }

    static func isIdSegment(_ seg: Substring) -> Bool {
        let u = Array(seg.utf8)
        guard !u.isEmpty else { return false }
        func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70) }
        func isLetter(_ c: UInt8) -> Bool { (c >= 97 && c <= 122) || (c >= 65 && c <= 90) }
        // A number.
        if u.allSatisfy(isDigit) { return true }
        // Long hex.
        if u.count >= 16 && u.allSatisfy(isHex) { return true }
        // A UUID, anywhere at the end of the segment (covers `ses_<uuid>`).
        if u.count >= 36 {
            let tail = u.suffix(36)
            var ok = true
            for (i, c) in tail.enumerated() {
                if [8, 13, 18, 23].contains(i) { if c != 45 { ok = false; break } } else if !isHex(c) { ok = false; break }
            }
            if ok { return true }
        }
        // letters_then-something-with-a-digit: req_8b0e…, ord_77, usr_123.
        if let us = u.firstIndex(of: 95), us > 0, us <= 12, us + 1 < u.count,
           u[..<us].allSatisfy(isLetter) {
            let rest = u[(us + 1)...]
            if rest.contains(where: isDigit), rest.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 45 || $0 == 95 }) { return true }
        }
        return false
    }
}

/// Human formatting of durations, sizes and numbers for the renderers.
public enum WaterfallFormat {
    /// `0.42 ms`, `3.2 ms`, `412 ms`, `1.2 s`, `63 s`.
    public static func duration(_ ms: Double) -> String {
        guard ms.isFinite else { return "?" }
        if ms < 0 { return "-" + duration(-ms) }
        if ms == 0 { return "0 ms" }
        if ms < 1 { return String(format: "%.2f ms", ms) }
        if ms < 10 { return String(format: "%.1f ms", ms) }
        if ms < 999.5 { return String(format: "%.0f ms", ms) }
        if ms < 59_950 { return String(format: "%.1f s", ms / 1000) }
        return String(format: "%.0f s", ms / 1000)
    }

    /// `512 B`, `48.2 kB`, `4.8 MB`, `1.1 GB` (powers of 1000).
    public static func bytes(_ n: Int) -> String {
        let d = Double(n)
        if n < 1000 { return "\(n) B" }
        if d < 999_950 { return String(format: "%.1f kB", d / 1000) }
        if d < 999_950_000 { return String(format: "%.1f MB", d / 1_000_000) }
        return String(format: "%.1f GB", d / 1_000_000_000)
    }

    /// Milliseconds with at most 3 decimals and no trailing zeros (`412`, `0.123`), for tables and CSV.
    public static func number(_ ms: Double?) -> String {
        guard let ms, ms.isFinite else { return "" }
        var s = String(format: "%.3f", ms)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        if s == "-0" { s = "0" }
        return s
    }

    /// Truncates to `width` characters with a trailing `…`.
    public static func fit(_ s: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if s.count <= width { return s }
        return String(s.prefix(max(0, width - 1))) + "…"
    }

    /// Pads on the right (or left with `right: true`) to `width` characters.
    public static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        if n >= width { return s }
        let sp = String(repeating: " ", count: width - n)
        return right ? sp + s : s + sp
    }
}
