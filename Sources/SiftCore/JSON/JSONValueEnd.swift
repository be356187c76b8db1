/// Finds where one JSON value ends in text that arrives a piece at a time (a HAR document read in
/// chunks): it follows only strings (quotes, backslash escapes) and nesting (`{` `[` `]` `}`);
/// `JSONDocument` checks the rest once the value's bytes are held. A number or a literal (a
/// "scalar") ends before the next `,` `}` `]` or white space; an object, array or string at its
/// closing byte.
@frozen
public struct JSONValueEnd {
    /// Whether the value is a number or a literal, not an object, array or string.
    public let scalar: Bool
    @usableFromInline var depth = 0
    @usableFromInline var inString = false
    @usableFromInline var escape = false

    /// A scanner for the value whose first byte is `first`.
    @inlinable public init(first: UInt8) {
        scalar = !(first == 0x7B || first == 0x5B || first == 0x22)
    }

    /// Whether `c` can open a JSON value: `{` `[` `"` `-`, a digit, or the first letter of `true`,
    /// `false` or `null`.
    @inlinable public static func canStart(_ c: UInt8) -> Bool {
        c == 0x7B || c == 0x5B || c == 0x22 || c == 0x2D || (c >= 0x30 && c <= 0x39) || c == 0x74 || c == 0x66 || c == 0x6E
    }

    /// Non-zero when one of the eight bytes of `w` is `c` (the high bit of that byte's lane is set).
    @inlinable @inline(__always)
    static func holds(_ w: UInt64, _ c: UInt8) -> UInt64 {
        let x = w ^ (0x0101_0101_0101_0101 &* UInt64(c))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }

    /// Scans `b[from..<to]`, the next bytes of the value. Returns the index just past the value's
    /// last byte and `true` when the value ends in them, or `to` and `false` when it goes on.
    /// `newlines` grows by the line feeds passed over (inside strings too, so line numbers stay
    /// right in damaged text).
    @inlinable
    public mutating func scan(_ b: UnsafeBufferPointer<UInt8>, from: Int, to e: Int, newlines: inout Int) -> (end: Int, done: Bool) {
        var i = from
        if scalar {
            while i < e {
                let c = b[i]
                if c == 0x2C || c == 0x7D || c == 0x5D || c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { return (i, true) }
                i &+= 1
            }
            return (e, false)
        }
        while i < e {
            let c = b[i]
            if inString {
                if escape {
                    escape = false
                    if c == 0x0A { newlines &+= 1 }
                } else if c == 0x5C {
                    escape = true
                } else if c == 0x22 {
                    inString = false
                    if depth == 0 { return (i &+ 1, true) }
                } else {
                    // The body of a string: on to its next quote, backslash or line feed, eight bytes
                    // at a time, then byte by byte.
                    if c == 0x0A { newlines &+= 1 }
                    i &+= 1
                    if let base = b.baseAddress {
                        while i &+ 8 <= e {
                            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                            if JSONValueEnd.holds(w, 0x22) | JSONValueEnd.holds(w, 0x5C) | JSONValueEnd.holds(w, 0x0A) != 0 { break }
                            i &+= 8
                        }
                    }
                    while i < e {
                        let d = b[i]
                        if d == 0x22 || d == 0x5C || d == 0x0A { break }
                        i &+= 1
                    }
                    continue
                }
            } else {
                switch c {
                case 0x22: inString = true
                case 0x7B, 0x5B: depth &+= 1
                case 0x7D, 0x5D:
                    depth &-= 1
                    if depth == 0 { return (i &+ 1, true) }
                case 0x0A: newlines &+= 1
                case 0x20:
                    // Indentation: a run of spaces in one tight loop.
                    i &+= 1
                    while i < e && b[i] == 0x20 { i &+= 1 }
                    continue
                default: break
                }
            }
            i &+= 1
        }
        return (e, false)
    }
}
