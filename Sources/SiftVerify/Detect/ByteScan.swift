import SiftCore

/// Word-at-a-time searches over bytes: eight bytes are tested with a few integer operations, and
/// only the word holding a match is looked at byte by byte. Every read stays inside `0..<n`.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The high bit of each byte of `w` that is zero, exact (no carry between bytes, so no false positives).
    @inline(__always) static func zeroBytes(_ w: UInt64) -> UInt64 {
        ~(((w & low7) &+ low7) | w | low7)
    }

    @inline(__always) private static func load(_ p: UnsafePointer<UInt8>, _ i: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
    }

    /// The first offset `>= from` in `p[0..<n]` holding `c`, or `n`.
    @inline(__always) static func first(_ c: UInt8, in p: UnsafePointer<UInt8>, from: Int, _ n: Int) -> Int {
        var i = from
        let pattern = ones &* UInt64(c)
        while i + 8 <= n {
            let m = zeroBytes(load(p, i) ^ pattern)
            if m != 0 { return i + m.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < n && p[i] != c { i += 1 }
        return i
    }

    /// The first offset `>= from` in `p[0..<n]` holding `a` or `b`, or `n`.
    @inline(__always) static func first(_ a: UInt8, or b: UInt8, in p: UnsafePointer<UInt8>, from: Int, _ n: Int) -> Int {
        var i = from
        let pa = ones &* UInt64(a), pb = ones &* UInt64(b)
        while i + 8 <= n {
            let w = load(p, i)
            let m = zeroBytes(w ^ pa) | zeroBytes(w ^ pb)
            if m != 0 { return i + m.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < n && p[i] != a && p[i] != b { i += 1 }
        return i
    }
}

/// Base64 decoding into a buffer the caller keeps, four symbols at a time; the same bytes and the same
/// failures as `Base64.decode(bytes:)` (standard and URL-safe alphabets, white space skipped, `=`
/// only at the end, a last symbol alone is an error).
final class Base64Buffer {
    /// Each byte's six bits, or 0xFF for a byte outside both alphabets (white space and `=` included:
    /// the four-at-a-time loop stops there and the byte-wise one handles them).
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { t[Int(c)] = UInt8(i) }
        t[Int(UInt8(ascii: "-"))] = 62
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()
    /// A buffer this large or larger is given back after use, so a worker holds what is live.
    static let keepLimit = 1 << 20

    private var storage: UnsafeMutablePointer<UInt8>?
    private var capacity = 0

    deinit { storage?.deallocate() }

    /// Calls `body` with the decoding of `b`, or with nil where `Base64.decode(bytes:)` returns nil.
    /// Not reentrant: `body` must not decode into the same buffer.
    func withDecoded<R>(_ b: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        let need = b.count / 4 * 3 + 3
        if capacity < need {
            storage?.deallocate()
            storage = .allocate(capacity: need)
            capacity = need
        }
        defer {
            if capacity >= Base64Buffer.keepLimit {
                storage?.deallocate()
                storage = nil
                capacity = 0
            }
        }
        let out = storage!
        guard let count = Base64Buffer.decode(b, into: out) else { return body(nil) }
        return body(UnsafeBufferPointer(start: out, count: count))
    }

    /// Decodes `b` into `out` (room for `b.count / 4 * 3 + 3` bytes); the count, or nil on failure.
    static func decode(_ b: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let n = b.count
        guard n > 0, let p = b.baseAddress else { return 0 }
        return table.withUnsafeBufferPointer { tb -> Int? in
            let t = tb.baseAddress!
            var i = 0, o = 0
            // Whole groups of four symbols: 24 bits, three bytes, nothing carried over.
            while i + 4 <= n {
                let a = t[Int(p[i])], c1 = t[Int(p[i + 1])], c2 = t[Int(p[i + 2])], c3 = t[Int(p[i + 3])]
                if (a | c1 | c2 | c3) & 0xC0 != 0 { break }
                let v = UInt32(a) << 18 | UInt32(c1) << 12 | UInt32(c2) << 6 | UInt32(c3)
                out[o] = UInt8(truncatingIfNeeded: v >> 16)
                out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                out[o + 2] = UInt8(truncatingIfNeeded: v)
                o += 3
                i += 4
            }
            // The rest byte by byte, exactly as `Base64.decode(bytes:)` does.
            var acc: UInt32 = 0
            var bits = 0
            var padding = false
            while i < n {
                let c = p[i]
                i += 1
                if c == UInt8(ascii: "=") { padding = true; continue }
                if c == 0x0A || c == 0x0D || c == 0x20 || c == 0x09 { continue }
                if padding { return nil }
                let v = t[Int(c)]
                if v == 0xFF { return nil }
                acc = acc << 6 | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out[o] = UInt8(truncatingIfNeeded: acc >> UInt32(bits))
                    o += 1
                }
            }
            if bits >= 6 { return nil }
            return o
        }
    }
}
