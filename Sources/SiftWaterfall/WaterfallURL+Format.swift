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

    /// Byte offsets of the pieces of an absolute URL (working on UTF-8, never on Characters).
    struct Layout {
        /// Index of `://`.
        var sep: Int
        /// Authority start (after userinfo) and end.
        var hostStart: Int
        var hostEnd: Int
        var hasUserinfo: Bool
        /// Index of `?`, or nil.
        var query: Int?
        /// Index of `#`, or `count`.
        var fragment: Int
    }

    static func layout(_ u: UnsafeBufferPointer<UInt8>) -> Layout? {
        let n = u.count
        var sep = -1
        var i = 0
        while i + 2 < n {
            let c = u[i]
            if c == 0x3A, u[i + 1] == 0x2F, u[i + 2] == 0x2F { sep = i; break }
            if c == 0x2F || c == 0x3F || c == 0x23 { return nil }
            i += 1
        }
        guard sep >= 0 else { return nil }
        var fragment = n
        for k in (sep + 3)..<max(sep + 3, n) where u[k] == 0x23 { fragment = k; break }
        var authEnd = fragment
        for k in (sep + 3)..<max(sep + 3, fragment) where u[k] == 0x2F || u[k] == 0x3F { authEnd = k; break }
        var hostStart = sep + 3
        var hasUserinfo = false
        for k in stride(from: authEnd - 1, through: sep + 3, by: -1) where u[k] == 0x40 {
            hostStart = k + 1
            hasUserinfo = true
            break
        }
        var query: Int?
        for k in authEnd..<fragment where u[k] == 0x3F { query = k; break }
        return Layout(sep: sep, hostStart: hostStart, hostEnd: authEnd, hasUserinfo: hasUserinfo, query: query, fragment: fragment)
    }

    static func text(_ u: UnsafeBufferPointer<UInt8>, _ a: Int, _ b: Int, lower: Bool = false) -> String {
        guard b > a else { return "" }
        let slice = UnsafeBufferPointer(rebasing: u[a..<b])
        if !lower { return String(decoding: slice, as: UTF8.self) }
        return String(decoding: slice.map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// Splits `scheme://[userinfo@]host[:port]/path?query#fragment`; nil without `://`.
    public static func parts(_ url: String) -> Parts? {
        var url = url
        return url.withUTF8 { u -> Parts? in
            guard let l = layout(u) else { return nil }
            let pathEnd = l.query ?? l.fragment
            let path = text(u, l.hostEnd, pathEnd)
            return Parts(
                scheme: text(u, 0, l.sep, lower: true), host: text(u, l.hostStart, l.hostEnd, lower: true),
                path: path.isEmpty ? "/" : path,
                query: l.query.map { text(u, $0 + 1, l.fragment) })
        }
    }

    /// `host/path` of an absolute URL (host lowercased; no userinfo, query or fragment).
    public static func hostAndPath(_ url: String) -> String? {
        var url = url
        return url.withUTF8 { u -> String? in
            guard let l = layout(u) else { return nil }
            let end = l.query ?? l.fragment
            var out: [UInt8] = []
            out.reserveCapacity(end - l.hostStart + 1)
            for k in l.hostStart..<l.hostEnd {
                let c = u[k]
                out.append((c >= 65 && c <= 90) ? c + 32 : c)
            }
            if l.hostEnd == end { out.append(0x2F) } else { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[l.hostEnd..<end])) }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The lowercased host (with port) of an absolute URL.
    public static func host(_ url: String) -> String? {
        var url = url
        return url.withUTF8 { u -> String? in
            guard let l = layout(u) else { return nil }
            return text(u, l.hostStart, l.hostEnd, lower: true)
        }
    }

    /// `METHOD host/path` with ids in the path collapsed to `:id`, the query dropped.
    public static func endpointKey(method: String?, url: String?) -> String {
        let m = (method ?? "?").uppercased()
        guard var url else { return m + " ?" }
        // One pass over the bytes: host lowercased, path collapsed, query and fragment dropped.
        return url.withUTF8 { u -> String in
            var out: [UInt8] = Array(m.utf8)
            out.append(0x20)
            var pathStart = 0
            var pathEnd = u.count
            if let l = layout(u) {
                for k in l.hostStart..<l.hostEnd {
                    let c = u[k]
                    out.append((c >= 65 && c <= 90) ? c + 32 : c)
                }
                pathStart = l.hostEnd
                pathEnd = l.query ?? l.fragment
                if pathStart == pathEnd { out.append(0x2F) }
            }
            var a = pathStart
            while a <= pathEnd {
                var b = a
                while b < pathEnd && u[b] != 0x2F { b += 1 }
                let seg = UnsafeBufferPointer(rebasing: u[a..<b])
                if isIdSegment(seg) { out += [0x3A, 0x69, 0x64] } else { out.append(contentsOf: seg) }
                if b < pathEnd { out.append(0x2F) }
                a = b + 1
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Replaces each path segment that is an id with `:id`: a UUID (optionally prefixed), a number,
    /// a prefixed id like `req_…` or `ord_77` (letters, `_`, then something with a digit), or a
    /// long hex string (16 or more hex digits).
    public static func collapsePath(_ path: String) -> String {
        let bytes = Array(path.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var changed = false
        var a = 0
        while a <= bytes.count {
            var b = a
            while b < bytes.count && bytes[b] != 0x2F { b += 1 }
            if bytes[a..<b].withUnsafeBufferPointer({ isIdSegment($0) }) {
                out.append(contentsOf: [0x3A, 0x69, 0x64])
                changed = true
            } else {
                out.append(contentsOf: bytes[a..<b])
            }
            if b < bytes.count { out.append(0x2F) }
            a = b + 1
        }
        return changed ? String(decoding: out, as: UTF8.self) : path
    }

    static func isIdSegment(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
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
                if i == 8 || i == 13 || i == 18 || i == 23 { if c != 45 { ok = false; break } } else if !isHex(c) { ok = false; break }
            }
            if ok { return true }
        }
        // letters_then-something-with-a-digit: req_8b0e…, ord_77, usr_123.
        if let us = u.firstIndex(of: 95), us > 0, us <= 12, us + 1 < u.count,
            u[..<us].allSatisfy(isLetter)
        {
            let rest = u[(us + 1)...]
            if rest.contains(where: isDigit), rest.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 45 || $0 == 95 }) { return true }
        }
        return false
    }
}

/// Numbers and cells for the waterfall's renderers (durations and sizes: `Human`).
public enum WaterfallFormat {
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

    /// `s` in at most `width` characters, cut in the middle so a path's tail survives:
    /// `POST api.example.com/v…/orders/quote`.
    public static func fitMiddle(_ s: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard s.count > width else { return s }
        guard width > 3 else { return String(s.prefix(width)) }
        let tail = (width - 1) / 2
        let head = width - 1 - tail
        return String(s.prefix(head)) + "…" + String(s.suffix(tail))
    }

    /// Pads on the right (or left with `right: true`) to `width` characters.
    /// A right-aligned column: padded to `width`, or, when it does not fit, one space before it, so
    /// two columns never run together (`403 +1 min 00 s`, not `403+1 min 00 s`).
    public static func column(_ s: String, _ width: Int) -> String {
        s.count >= width ? " " + s : pad(s, width, right: true)
    }

    public static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        if n >= width { return s }
        let sp = String(repeating: " ", count: width - n)
        return right ? sp + s : s + sp
    }
}
