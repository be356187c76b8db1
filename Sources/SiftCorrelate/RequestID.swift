// SiftCorrelate: join the network records of console sessions with the server's own log lines
// through the `req_<uuid>` request id — scanning plain and gzip'd logs in constant memory — and
// print the queries that fetch those lines from a log platform.
// May import: SiftCore, SiftArchive, Foundation.

import Foundation

/// A request id `req_<uuid>` held as its 128-bit value, so looking one up costs the same whatever
/// the number of ids. Hex digits are read case-insensitively (a UUID is the same number in either
/// case); the text form is always lowercase.
public struct RequestID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The first 64 bits of the UUID.
    public let hi: UInt64
    /// The last 64 bits of the UUID.
    public let lo: UInt64

    public init(hi: UInt64, lo: UInt64) {
        self.hi = hi
        self.lo = lo
    }

    /// Parses exactly `req_` followed by a UUID (`8-4-4-4-12` hex digits); nil for anything else.
    public init?(_ text: String) {
        var t = text
        guard
            let id = t.withUTF8({ b -> RequestID? in
                guard b.count == 40, b[0] == 0x72, b[1] == 0x65, b[2] == 0x71, b[3] == 0x5F else { return nil }
                return RequestID.parseUUID(b.baseAddress! + 4)
            })
        else { return nil }
        self = id
    }

    /// Parses the 36 bytes at `p` as a UUID in `8-4-4-4-12` form. The caller guarantees 36 readable bytes.
    @inline(__always)
    public static func parseUUID(_ p: UnsafePointer<UInt8>) -> RequestID? {
        guard p[8] == 0x2D, p[13] == 0x2D, p[18] == 0x2D, p[23] == 0x2D else { return nil }
        #if _endian(little)
            // Eight digits at a time: 0-7, then 9-12 with 14-17, 19-22 with 24-27, and 28-35.
            let raw = UnsafeRawPointer(p)
            @inline(__always) func four(_ at: Int) -> UInt64 { UInt64(raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
            let (a, okA) = hex8(raw.loadUnaligned(as: UInt64.self))
            let (b, okB) = hex8(four(9) | four(14) << 32)
            let (c, okC) = hex8(four(19) | four(24) << 32)
            let (d, okD) = hex8(raw.loadUnaligned(fromByteOffset: 28, as: UInt64.self))
            guard okA && okB && okC && okD else { return nil }
            return RequestID(hi: a << 32 | b, lo: c << 32 | d)
        #else
            return parseUUIDBytewise(p)
        #endif
    }

    /// `parseUUID` a digit at a time (its reference, and the path of big-endian machines).
    static func parseUUIDBytewise(_ p: UnsafePointer<UInt8>) -> RequestID? {
        guard p[8] == 0x2D, p[13] == 0x2D, p[18] == 0x2D, p[23] == 0x2D else { return nil }
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        var bad: UInt8 = 0
        // Digits 0..15 (positions 0-7, 9-12, 14-17) go to `hi`; 16..31 (19-22, 24-35) to `lo`.
        for i in 0..<18 where i != 8 && i != 13 {
            let v = hexNibble(p[i])
            bad |= v
            hi = hi << 4 | UInt64(v & 0x0F)
        }
        for i in 19..<36 where i != 23 {
            let v = hexNibble(p[i])
            bad |= v
            lo = lo << 4 | UInt64(v & 0x0F)
        }
        return bad & 0xF0 == 0 ? RequestID(hi: hi, lo: lo) : nil
    }

    /// Eight hex digits (either case) loaded little-endian (the first digit in the low byte): their
    /// value, and whether all eight are hex digits.
    @inline(__always)
    static func hex8(_ w: UInt64) -> (UInt64, Bool) {
        let high: UInt64 = 0x8080_8080_8080_8080
        // Per byte, with every byte below 0x80 (no carry between bytes): bit 7 of `c + (0x80 - x)` says c >= x.
        let digit = (w &+ 0x5050_5050_5050_5050) & ~(w &+ 0x4646_4646_4646_4646) // 0x30...0x39
        let l = w | 0x2020_2020_2020_2020
        let letter = (l &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(l &+ 0x1919_1919_1919_1919) // a...f, A...F
        let ok = w & high == 0 && (digit | letter) & high == high
        let v = (w & 0x0F0F_0F0F_0F0F_0F0F) &+ ((w >> 6) & 0x0101_0101_0101_0101) &* 9
        let t1 = ((v & 0x000F_000F_000F_000F) << 4) | ((v >> 8) & 0x000F_000F_000F_000F)
        let t2 = ((t1 & 0x0000_00FF_0000_00FF) << 8) | ((t1 >> 16) & 0x0000_00FF_0000_00FF)
        return (((t2 & 0xFFFF) << 16) | ((t2 >> 32) & 0xFFFF), ok)
    }

    /// The value of one hex digit (either case), or 0xFF for any other byte.
    @inline(__always)
    static func hexNibble(_ c: UInt8) -> UInt8 {
        let d = c &- 0x30
        if d < 10 { return d }
        let l = (c | 0x20) &- 0x61
        if l < 6 { return l &+ 10 }
        return 0xFF
    }

    /// Whether `c` continues a word (an ASCII letter or digit): an id followed by one is not an id.
    @inline(__always)
    static func isWordByte(_ c: UInt8) -> Bool {
        let d = c &- 0x30
        if d < 10 { return true }
        let l = (c | 0x20) &- 0x61
        return l < 26
    }

    /// `req_` and the lowercase UUID.
    public var description: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(40)
        out.append(contentsOf: [0x72, 0x65, 0x71, 0x5F])
        for k in 0..<16 {
            if k == 8 || k == 12 { out.append(0x2D) }
            out.append(digits[Int((hi >> UInt64(60 - 4 * k)) & 0xF)])
        }
        for k in 0..<16 {
            if k == 0 || k == 4 { out.append(0x2D) }
            out.append(digits[Int((lo >> UInt64(60 - 4 * k)) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func < (a: RequestID, b: RequestID) -> Bool { a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo }
}

/// An open-addressing hash set of request ids: one multiply and about one probe per lookup, whatever its size.
public struct RequestIDSet: Sendable {
    private var his: [UInt64]
    private var los: [UInt64]
    private var used: [Bool]
    private var mask: Int
    private var shift: UInt64
    /// How many distinct ids the set holds.
    package private(set) var count = 0

    /// A set holding `ids` (duplicates collapse).
    public init<S: Sequence>(_ ids: S) where S.Element == RequestID {
        let list = Array(ids)
        var cap = 16
        while cap < list.count * 2 + 1 { cap <<= 1 }
        his = [UInt64](repeating: 0, count: cap)
        los = [UInt64](repeating: 0, count: cap)
        used = [Bool](repeating: false, count: cap)
        mask = cap - 1
        shift = UInt64(64 - cap.trailingZeroBitCount)
        for id in list { insert(id) }
    }

    @inline(__always)
    private func slot(_ id: RequestID) -> Int {
        Int(truncatingIfNeeded: ((id.hi ^ (id.lo &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> shift)
    }

    private mutating func insert(_ id: RequestID) {
        var i = slot(id)
        while used[i] {
            if his[i] == id.hi && los[i] == id.lo { return }
            i = (i + 1) & mask
        }
        used[i] = true
        his[i] = id.hi
        los[i] = id.lo
        count += 1
    }

    /// Whether the set holds `id`.
    @inline(__always)
    public func contains(_ id: RequestID) -> Bool {
        var i = slot(id)
        while used[i] {
            if his[i] == id.hi && los[i] == id.lo { return true }
            i = (i + 1) & mask
        }
        return false
    }
}

/// `s.trimmingCharacters(in: .whitespaces)`, without Foundation when there is nothing to trim (an
/// ASCII first and last byte that is neither a space nor a tab: the common case, a hundred thousand
/// times per join).
@inline(__always)
func trimmingWhitespace(_ s: String) -> String {
    guard let first = s.utf8.first, let last = s.utf8.last else { return s }
    @inline(__always) func plain(_ c: UInt8) -> Bool { c < 0x80 && c != 0x20 && c != 0x09 }
    if plain(first) && plain(last) { return s }
    return s.trimmingCharacters(in: .whitespaces)
}
