// SiftVerify: `pbsift verify` — the SDK's redaction contract (SESSION-FORMAT.md §3) and value-shape
// credential detectors, run as one `Analysis` over the reader's single pass, plus the verify renderers
// and the baseline. Never prints; never keeps a secret in a finding (previews and fingerprints only).
// May import: SiftCore, SiftArchive, Foundation.

/// A set of bytes as a 256-bit mask: the character classes of the byte matchers.
struct ByteSet: Sendable {
    var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0

    /// `spec` lists single characters and ranges written `a-z` (a `-` at either end is literal).
    init(_ spec: String) {
        let u = Array(spec.utf8)
        var i = 0
        while i < u.count {
            if i + 2 < u.count, u[i + 1] == UInt8(ascii: "-") {
                for c in u[i]...u[i + 2] { insert(c) }
                i += 3
            } else {
                insert(u[i])
                i += 1
            }
        }
    }

    mutating func insert(_ c: UInt8) {
        let bit = UInt64(1) << UInt64(c & 63)
        switch c >> 6 {
        case 0: w0 |= bit
        case 1: w1 |= bit
        case 2: w2 |= bit
        default: w3 |= bit
        }
    }

    @inline(__always) func contains(_ c: UInt8) -> Bool {
        let w: UInt64
        switch c >> 6 {
        case 0: w = w0
        case 1: w = w1
        case 2: w = w2
        default: w = w3
        }
        return (w >> UInt64(c & 63)) & 1 == 1
    }

    static func | (a: ByteSet, b: ByteSet) -> ByteSet {
        var r = a
        r.w0 |= b.w0; r.w1 |= b.w1; r.w2 |= b.w2; r.w3 |= b.w3
        return r
    }

    /// The bytes in the set, ascending.
    var members: [UInt8] { (0..<256).map { UInt8($0) }.filter(contains) }

    /// The set as a bracket expression (`[0-9A-Za-z_-]`): ranges of three or more written `a-z`.
    var described: String {
        var out = ""
        var c = 0
        var dash = false
        while c < 256 {
            guard contains(UInt8(c)) else {
                c += 1
                continue
            }
            var e = c
            while e + 1 < 256 && contains(UInt8(e + 1)) { e += 1 }
            func ch(_ b: Int) -> String { b >= 0x21 && b < 0x7F ? String(UnicodeScalar(UInt8(b))) : String(format: "\\x%02X", b) }
            // `-` last, where it is literal.
            if c == 0x2D && e == c {
                dash = true
            } else if e - c >= 2 {
                out += ch(c) + "-" + ch(e)
            } else {
                for b in c...e { if b == 0x2D { dash = true } else { out += ch(b) } }
            }
            c = e + 1
        }
        return "[" + out + (dash ? "-" : "") + "]"
    }

    static let alnum = ByteSet("A-Za-z0-9")
    static let upperDigit = ByteSet("A-Z0-9")
    static let digit = ByteSet("0-9")
    static let hexLower = ByteSet("0-9a-f")
    static let hex = ByteSet("0-9a-fA-F")
    static let b64url = ByteSet("A-Za-z0-9_-")
    static let b64 = ByteSet("A-Za-z0-9+/")
    static let b64pad = ByteSet("A-Za-z0-9+/=")
    static let word = ByteSet("A-Za-z0-9_")
    static let ident = ByteSet("A-Za-z0-9_.-")
    static let bearerToken = ByteSet("A-Za-z0-9._~+/=-")
    static let space = ByteSet(" \t\r\n")
    static let lower = ByteSet("a-z")
    static let upper = ByteSet("A-Z")
}

/// A byte buffer being scanned, with the context a few detectors need.
struct ScanInput {
    let b: UnsafeBufferPointer<UInt8>
    /// Credential hints taken from the name the value stands under (a key, a header, a parameter).
    let hints: NameHints

    var count: Int { b.count }
    @inline(__always) subscript(_ i: Int) -> UInt8 { b[i] }

    /// Length of the run of bytes in `set` starting at `from` (at most `max`).
    @inline(__always) func run(_ from: Int, _ set: ByteSet, max: Int = 8192) -> Int {
        var i = from
        let end = Swift.min(b.count, from + max)
        while i < end && set.contains(b[i]) { i += 1 }
        return i - from
    }

    /// Length of the run of bytes in `set` ending just before `to` (at most `max`).
    @inline(__always) func runBack(_ to: Int, _ set: ByteSet, max: Int = 256) -> Int {
        var i = to
        let stop = Swift.max(0, to - max)
        while i > stop && set.contains(b[i - 1]) { i -= 1 }
        return to - i
    }

    /// True when `p` is at the start or preceded by a byte outside `set`.
    @inline(__always) func boundaryBefore(_ p: Int, _ set: ByteSet = .alnum) -> Bool {
        p == 0 || !set.contains(b[p - 1])
    }

    /// True when `p` is at the end or holds a byte outside `set`.
    @inline(__always) func boundaryAt(_ p: Int, _ set: ByteSet = .alnum) -> Bool {
        p >= b.count || !set.contains(b[p])
    }

    /// Whether a line ends at `p`: a CR or LF, or the `\n` escape of a JSON string read raw.
    @inline(__always) func breaksLine(at p: Int) -> Bool {
        let c = b[p]
        return c == 0x0A || c == 0x0D || (c == UInt8(ascii: "\\") && p + 1 < b.count && b[p + 1] == UInt8(ascii: "n"))
    }

    /// Whether the literal `lit` is at `p`.
    func has(_ lit: [UInt8], at p: Int) -> Bool {
        guard p >= 0, p + lit.count <= b.count else { return false }
        for k in 0..<lit.count where b[p + k] != lit[k] { return false }
        return true
    }

    /// Whether a lowercase ASCII `needle` occurs (ASCII case-insensitively) in `lo..<hi`.
    func containsCI(_ needle: [UInt8], _ lo: Int, _ hi: Int) -> Bool {
        let lo = Swift.max(0, lo), hi = Swift.min(b.count, hi)
        guard hi - lo >= needle.count, let first = needle.first else { return false }
        var i = lo
        while i + needle.count <= hi {
            if b[i] | 0x20 == first {
                var k = 1
                while k < needle.count && (b[i + k] | 0x20) == needle[k] { k += 1 }
                if k == needle.count { return true }
            }
            i += 1
        }
        return false
    }

    /// First offset of `lit` in `lo..<hi`, or nil.
    func find(_ lit: [UInt8], _ lo: Int, _ hi: Int) -> Int? {
        let lo = Swift.max(0, lo), hi = Swift.min(b.count, hi)
        guard let first = lit.first, hi - lo >= lit.count else { return nil }
        var i = lo
        while i + lit.count <= hi {
            if b[i] == first && has(lit, at: i) { return i }
            i += 1
        }
        return nil
    }
}

/// Small classification helpers over a byte slice.
enum Shape {
    /// Whether `b` starts with an image format's magic (PNG, JPEG, GIF, WebP, BMP, ICO): compressed
    /// pixels, never raw deflate text.
    static func isImage(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        func starts(_ m: [UInt8]) -> Bool { b.count >= m.count && zip(b, m).allSatisfy { $0 == $1 } }
        return starts([0x89, 0x50, 0x4E, 0x47]) || starts([0xFF, 0xD8, 0xFF]) || starts([0x47, 0x49, 0x46, 0x38])
            || (starts([0x52, 0x49, 0x46, 0x46]) && b.count >= 12 && b[8] == 0x57 && b[9] == 0x45) || starts([0x42, 0x4D])
            || starts([0x00, 0x00, 0x01, 0x00])
    }

    /// Shannon entropy in bits per byte.
    static func entropy(_ b: UnsafeBufferPointer<UInt8>) -> Double {
        guard !b.isEmpty else { return 0 }
        var counts = [Int](repeating: 0, count: 256)
        for c in b { counts[Int(c)] += 1 }
        let n = Double(b.count)
        var h = 0.0
        for k in counts where k > 0 {
            let p = Double(k) / n
            h -= p * log2(p)
        }
        return h
    }

    /// `8-4-4-4-12` hex digits.
    static func isUUID(_ b: UnsafeBufferPointer<UInt8>, _ at: Int = 0) -> Bool {
        guard at + 36 <= b.count else { return false }
        for k in 0..<36 {
            let c = b[at + k]
            if k == 8 || k == 13 || k == 18 || k == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else if !ByteSet.hex.contains(c) {
                return false
            }
        }
        return true
    }

    static func all(_ b: UnsafeBufferPointer<UInt8>, _ set: ByteSet) -> Bool {
        for c in b where !set.contains(c) { return false }
        return true
    }

    static func hasPrefix(_ b: UnsafeBufferPointer<UInt8>, _ p: String) -> Bool {
        let u = Array(p.utf8)
        guard b.count >= u.count else { return false }
        for k in 0..<u.count where b[k] != u[k] { return false }
        return true
    }

    /// Whether bytes look like text rather than binary: no NUL and few control bytes in the first KiB.
    private static let placeholderWords: [[UInt8]] = [
        "example", "xxxx", "sample", "dummy", "placeholder", "your_", "your-", "yourkey", "yourtoken", "redacted",
        "changeme", "fake", "insert_", "replace_me", "replaceme", "tokenhere", "keyhere", "secrethere", "_here"
    ].map { Array($0.utf8) }

    /// A documentation value, not a credential: `EXAMPLE`, `xxxx`, `your_token_here`, `token123`, a run of five equal
    /// characters or five in sequence (`abcde`, `12345`, `54321`; an eighth of a longer value), a short
    /// value typed in order (`AbCeFG123`), or at most three distinct characters.
    static func isPlaceholder(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let lower = b.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }
        if b.count <= 20 && ValueJudgement.isWordAndNumber(String(decoding: lower, as: UTF8.self)) { return true }
        for w in placeholderWords where lower.count >= w.count {
            for i in 0...(lower.count - w.count) where lower[i] == w[0] && lower[i..<(i + w.count)].elementsEqual(w) { return true }
        }
        // A long token may hold a short run by chance or by format (`hvb.AAAAAQ…`, base64 of binary
        // zeros in a macaroon): a run must be a larger part of a longer value to make it a placeholder.
        let runLimit = Swift.max(5, b.count / 8)
        var same = 1, up = 1, down = 1, steps = 0
        var seen = Set<UInt8>()
        for i in 0..<b.count {
            seen.insert(b[i])
            if i == 0 { continue }
            let a = b[i - 1], c = b[i]
            same = c == a ? same + 1 : 1
            let alnum = ByteSet.alnum.contains(a) && ByteSet.alnum.contains(c)
            // Runs of a separator (`_____`, `-----`) are part of formats (a Heroku key, PEM armour).
            if !alnum { same = 1 }
            up = alnum && c == a &+ 1 ? up + 1 : 1
            down = alnum && c &+ 1 == a ? down + 1 : 1
            if same >= runLimit || up >= runLimit || down >= runLimit { return true }
            if alnum && (c | 0x20) == (a | 0x20) &+ 1 { steps += 1 }
        }
        // A short value typed in order across cases (`AbCeFG123`): most neighbours one step apart.
        if b.count <= 24 && b.count >= 6 && steps * 5 >= (b.count - 1) * 3 { return true }
        return b.count >= 12 && seen.count <= 3
    }

    /// Printable runs of at least `min` bytes inside binary bytes (strings in protobuf or gRPC framing).
    static func printableRuns(_ b: UnsafeBufferPointer<UInt8>, min: Int = 8) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var s = -1
        for i in 0...b.count {
            let printable = i < b.count && b[i] >= 0x20 && b[i] < 0x7F
            if printable {
                if s < 0 { s = i }
            } else if s >= 0 {
                if i - s >= min { out.append(s..<i) }
                s = -1
            }
        }
        return out
    }

    static func looksLikeText(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = min(b.count, 1024)
        var bad = 0
        for i in 0..<n {
            let c = b[i]
            if c == 0 { return false }
            if c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D { bad += 1 }
        }
        return bad * 50 <= n
    }

    @inline(__always) static func hexNibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - 55
        default: return nil
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
