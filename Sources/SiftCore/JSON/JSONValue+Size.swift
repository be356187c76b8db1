import Foundation

extension JSONValue {
    /// `string?.utf8.count` without building the string when the text allows: the content is
    /// measured in place (escapes counted as the bytes they stand for) when it is all ASCII, which
    /// makes the decoded text valid UTF-8 whatever its escapes; otherwise it is decoded (invalid
    /// UTF-8 is repaired by decoding, which changes its length). Nil for a non-string.
    public var decodedUTF8Count: Int? {
        let n = node
        guard n.kind == .string else { return nil }
        // The parser measured it (all ASCII), or found a byte of 0x80 or more (-1).
        return n.count >= 0 ? Int(n.count) : string?.utf8.count
    }

    /// `decodedUTF8Count` measured from the bytes (the parser's count is checked against it in tests).
    var measuredUTF8Count: Int? {
        let n = node
        guard n.kind == .string else { return nil }
        let s = Int(n.start), e = Int(n.end)
        let count: Int? = doc.bytes.withUnsafeBufferPointer { b in
            guard JSONValue.isASCII(b, s, e) else { return nil }
            return n.escaped ? JSONValue.unescapedCount(b, s, e) : e - s
        }
        return count ?? string?.utf8.count
    }

    /// The length `Base64.decode` gives the string's decoded text, or nil when it rejects it, without
    /// decoding (a string with escapes is unescaped first). Nil for a non-string too.
    public var base64DecodedCount: Int? {
        let n = node
        guard n.kind == .string else { return nil }
        if n.escaped {
            return stringBytes.withUnsafeBufferPointer { Base64.decodedCount(bytes: $0) }
        }
        return doc.bytes.withUnsafeBufferPointer { b in
            let s = Int(n.start), e = Int(n.end)
            // Whole blocks of symbols only (no padding, white space or stranger) decode to 3 bytes per
            // 4 symbols whatever follows; the rest is counted by `Base64.decodedCount` itself.
            let plain = JSONValue.base64Prefix(b, s, e)
            return Base64.decodedCount(bytes: UnsafeBufferPointer(rebasing: b[(s + plain)..<e])).map { $0 + plain / 4 * 3 }
        }
    }

    /// How many bytes from `b[s]` on, in whole blocks of 16 before `e`, are base64 symbols of either
    /// alphabet (`A`–`Z`, `a`–`z`, `0`–`9`, `+`, `/`, `-`, `_`): a multiple of 16.
    static func base64Prefix(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Int {
        guard let base = b.baseAddress else { return 0 }
        var i = s
        while i &+ 64 <= e {
            let m =
                StringBlock.base64Symbols(base + i) & StringBlock.base64Symbols(base + (i &+ 16))
                & StringBlock.base64Symbols(base + (i &+ 32)) & StringBlock.base64Symbols(base + (i &+ 48))
            guard m == 0xFFFF else { break }
            i &+= 64
        }
        while i &+ 16 <= e && StringBlock.base64Symbols(base + i) == 0xFFFF { i &+= 16 }
        return i - s
    }

    /// Whether `b[s..<e]` holds no byte of 0x80 or more (eight bytes at a time).
    static func isASCII(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        guard let base = b.baseAddress else { return true }
        var i = s
        var acc: UInt64 = 0
        while i + 32 <= e {
            let p = UnsafeRawPointer(base + i)
            acc |=
                p.loadUnaligned(as: UInt64.self) | p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                | p.loadUnaligned(fromByteOffset: 16, as: UInt64.self) | p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            i += 32
        }
        while i + 8 <= e {
            acc |= UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            i += 8
        }
        while i < e {
            acc |= UInt64(base[i])
            i += 1
        }
        return acc & 0x8080_8080_8080_8080 == 0
    }

    /// The byte count `unescape` writes for `b[s..<e]`, without writing it: the length less what
    /// each escape saves, going from backslash to backslash.
    static func unescapedCount(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Int {
        guard let base = b.baseAddress else { return 0 }
        func hex4(_ at: Int) -> UInt32 {
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 4 | UInt32(max(0, hexValue(at + k < e ? b[at + k] : 0))) }
            return v
        }
        func width(_ v: UInt32) -> Int {
            let cp = (v >= 0xD800 && v < 0xE000) || v > 0x10FFFF ? 0xFFFD : v
            return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
        }
        var o = e - s
        var i = s
        while i < e, let p = memchr(base + i, 0x5C, e - i) {
            let k = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
            guard k + 1 < e else { return o - 1 } // a last lone backslash is dropped
            guard b[k + 1] == UInt8(ascii: "u") else { // two bytes for one
                o -= 1
                i = k + 2
                continue
            }
            let hi = hex4(k + 2)
            i = k + 6
            if hi >= 0xD800 && hi < 0xDC00, i + 6 <= e, b[i] == 0x5C, b[i + 1] == UInt8(ascii: "u") {
                let lo = hex4(i + 2)
                if lo >= 0xDC00 && lo < 0xE000 {
                    o -= 12 - 4
                    i += 6
                    continue
                }
            }
            // `\uXXXX` is six bytes, and can run past the end only in the count (never in a parsed line).
            o -= min(6, e - k) - width(hi)
        }
        return o
    }
}
