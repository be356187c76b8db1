#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Percent-encoding (`%XX`), one decoder for every module: verify's checks, the redactor and scrub.
public enum Percent {
    /// `%XX` resolved to its byte (a `%` without two hex digits after it stays as it is); with
    /// `plusIsSpace` (form encoding), `+` is a space.
    @inlinable public static func decode(_ b: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "%"), i + 2 < b.count, let h = nibble(b[i + 1]), let l = nibble(b[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(c == UInt8(ascii: "+") && plusIsSpace ? 0x20 : c)
                i += 1
            }
        }
        return out
    }

    /// `decode` for text: an escape is resolved only where it makes text, an ASCII byte or a whole UTF-8
    /// sequence of escapes (`%C3%A9`). Any other (`%DB_PASSWORD%`, a Windows variable: `%DB` would be
    /// byte 0xDB) stays as written, so text that only looks escaped reads as it stands.
    public static func decodeText(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        func escaped(_ at: Int) -> UInt8? {
            guard at + 2 < b.count, b[at] == UInt8(ascii: "%"), let h = nibble(b[at + 1]), let l = nibble(b[at + 2]) else { return nil }
            return h << 4 | l
        }
        while i < b.count {
            guard let v = escaped(i) else {
                out.append(b[i])
                i += 1
                continue
            }
            if v < 0x80 {
                out.append(v)
                i += 3
                continue
            }
            let length = v >= 0xC2 && v <= 0xDF ? 2 : v >= 0xE0 && v <= 0xEF ? 3 : v >= 0xF0 && v <= 0xF4 ? 4 : 0
            var sequence: [UInt8] = [v]
            var k = 1
            while k < length, let c = escaped(i + 3 * k), c & 0xC0 == 0x80 {
                sequence.append(c)
                k += 1
            }
            if length > 0 && k == length, String(validating: sequence, as: UTF8.self) != nil {
                out.append(contentsOf: sequence)
                i += 3 * length
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return out
    }

    /// Whether `b` holds a `%XX` escape (a `%` and two hex digits).
    public static func hasEscape(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = b.baseAddress else { return false }
        var at = base
        let end = base + b.count
        while at < end, let hit = memchr(at, 0x25, end - at) {
            let p = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            if end - p >= 3, nibble(p[1]) != nil, nibble(p[2]) != nil { return true }
            at = p + 1
        }
        return false
    }

    /// `decode` on an array.
    public static func decode(_ b: [UInt8], plusIsSpace: Bool) -> [UInt8] {
        b.withUnsafeBufferPointer { decode($0, plusIsSpace: plusIsSpace) }
    }

    /// The value of one hex digit, either case.
    @inlinable @inline(__always) public static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - 55
        default: return nil
        }
    }
}

/// A URL's query, split once for every reader (HAR's `queryString`, the join by method, path and time).
public enum URLQuery {
    /// The `name=value` pairs after the `?` and before any `#`, as written (not decoded: each reader
    /// decodes in its own way); empty pairs (`a=1&&b=2`) are skipped, a name without `=` has an empty value.
    public static func rawPairs(of url: String) -> [(name: Substring, value: Substring)] {
        guard let q = url.firstIndex(of: "?") else { return [] }
        var rest = url[url.index(after: q)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        return rest.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }
}
