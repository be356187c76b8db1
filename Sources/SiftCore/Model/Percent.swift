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

    /// `decode` on an array.
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
