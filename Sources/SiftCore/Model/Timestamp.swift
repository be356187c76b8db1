import Foundation

/// RFC 3339 timestamps to and from seconds since 1970 (UTC), without Foundation's date formatters
/// (which are slow and locale-dependent).
public enum Timestamp {
    /// Parses `2026-11-29T10:15:02.123456Z`, `…+01:00`, `…+0100`, a space instead of `T`, a fraction
    /// of any length (kept to the nanosecond), a lowercase `t`/`z`. Nil for anything else.
    public static func parse(_ s: String) -> Double? {
        var s = s
        return s.withUTF8 { parse(bytes: $0) }
    }

    public static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard b.count >= 19, let base = minute(b) else { return nil }
        return rest(b, minute: base)
    }

    /// The start of the last timestamp `parse(bytes:memo:)` read: its first 17 bytes (date, hour and
    /// minute, `2026-11-29T10:15:`) and the seconds since 1970 they stand for. The timestamps of one
    /// transaction mostly share their minute: a caller reading them in a row keeps one memo.
    public struct Memo {
        var head: (UInt64, UInt64, UInt8) = (0, 0, 0)
        var seconds = 0
        var valid = false
        public init() {}
    }

    /// `parse(bytes:)`, the date, hour and minute taken from `memo` when `b` starts as the last
    /// timestamp read with it did (the same bytes stand for the same seconds), else read and kept.
    public static func parse(bytes b: UnsafeBufferPointer<UInt8>, memo: inout Memo) -> Double? {
        guard b.count >= 19, let p = b.baseAddress else { return nil }
        let raw = UnsafeRawPointer(p)
        let head = (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self), p[16])
        if memo.valid && memo.head.0 == head.0 && memo.head.1 == head.1 && memo.head.2 == head.2 {
            return rest(b, minute: memo.seconds)
        }
        guard let base = minute(b) else { return nil }
        memo.head = head
        memo.seconds = base
        memo.valid = true
        return rest(b, minute: base)
    }

    /// The first 17 bytes of a timestamp (`2026-11-29T10:15:`) as seconds since 1970: the date, hour
    /// and minute checked. `b` holds 19 bytes or more.
    @inline(__always) private static func minute(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        @inline(__always) func two(_ i: Int) -> Int? {
            let h = b[i] &- 48, l = b[i &+ 1] &- 48
            return h < 10 && l < 10 ? Int(h) &* 10 &+ Int(l) : nil
        }
        guard let y1 = two(0), let y2 = two(2), b[4] == UInt8(ascii: "-"), let month = two(5), b[7] == UInt8(ascii: "-"),
            let day = two(8), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
            let hour = two(11), b[13] == UInt8(ascii: ":"), let minute = two(14), b[16] == UInt8(ascii: ":")
        else { return nil }
        let year = y1 * 100 + y2
        guard (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59 else { return nil }
        return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60
    }

    /// The rest of a timestamp whose first 17 bytes stand for `base` seconds: the second, the
    /// fraction and the zone, to the end.
    @inline(__always) private static func rest(_ b: UnsafeBufferPointer<UInt8>, minute base: Int) -> Double? {
        let n = b.count
        // Digit pairs read inline (a nested function was a call per field, on every timestamp of
        // every transaction).
        @inline(__always) func digit(_ i: Int) -> Int? {
            let c = b[i] &- 48
            return c < 10 ? Int(c) : nil
        }
        @inline(__always) func two(_ i: Int) -> Int? {
            let h = b[i] &- 48, l = b[i &+ 1] &- 48
            return h < 10 && l < 10 ? Int(h) &* 10 &+ Int(l) : nil
        }
        guard let second = two(17), second <= 60 else { return nil }
        var i = 19
        var frac = 0.0
        if i < n && (b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",")) {
            i += 1
            let start = i
            // The same sums as `frac += digit × scale; scale /= 10`, the scales read from a table
            // made by those divisions (identical values, no division per digit).
            let scales = Timestamp.fractionScales
            var scale = 0.1
            while i < n, let d = digit(i) {
                let k = i - start
                if k < scales.count { scale = scales[k] }
                frac += Double(d) * scale
                if k >= scales.count - 1 { scale /= 10 }
                i += 1
            }
            if i == start { return nil }
        }
        var offset = 0
        if i < n {
            let c = b[i]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i += 1
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                let sign = c == UInt8(ascii: "+") ? 1 : -1
                guard i + 3 <= n, let oh = two(i + 1) else { return nil }
                var om = 0
                if i + 6 <= n && b[i + 3] == UInt8(ascii: ":") {
                    guard let m = two(i + 4) else { return nil }
                    om = m
                    i += 6
                } else if i + 5 <= n, let m = two(i + 3) {
                    om = m
                    i += 5
                } else {
                    i += 3
                }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == n else { return nil }
        return Double(base + second - offset) + frac
    }

    /// 0.1, 0.1 / 10, 0.1 / 10 / 10, …: the scale of each fraction digit as dividing by ten digit
    /// after digit makes it (the table gives the same doubles without the divisions).
    static let fractionScales: [Double] = {
        var out: [Double] = []
        var s = 0.1
        for _ in 0..<20 {
            out.append(s)
            s /= 10
        }
        return out
    }()

    /// Days since 1970-01-01 for a proleptic Gregorian date.
    public static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The end of the times `format` writes: 10000-01-01T00:00:00Z, excluded. Times come from input (a
    /// log line's epoch number can be anything): past this range they are not dates anyone logged.
    public static let maxSeconds: Double = 253_402_300_800
    /// The earliest time `format` writes: 0000-01-01T00:00:00Z.
    public static let minSeconds: Double = -62_167_219_200

    /// Whether `format` writes `t` as a date (finite, years 0000 to 9999).
    public static func inRange(_ t: Double) -> Bool { t.isFinite && t >= minSeconds && t < maxSeconds }

    /// Formats seconds since 1970 as `2026-11-29T10:15:02.123Z` (milliseconds; `micro` for 6 digits).
    /// Empty for a time outside years 0000–9999 (or not finite): no conversion of input can trap.
    /// `format(t)`, or to the second (`2026-11-29T10:15:58Z`, the nearest) when `wholeSecond`: a time
    /// read from a source that logs whole seconds (an access log's `[29/Nov/2026:10:15:55 +0000]`),
    /// moved to the device clock by a skew, is printed at the precision its source has.
    public static func format(_ t: Double, wholeSecond: Bool) -> String {
        guard wholeSecond else { return format(t) }
        let s = format(t.rounded())
        return s.hasSuffix(".000Z") ? String(s.dropLast(5)) + "Z" : s
    }

    public static func format(_ t: Double, micro: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        guard write(t, micro: micro, { out.append($0) }) else { return "" }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text of `format(t, micro:)`, byte by byte to `emit` (digits by hand: `String(format:)` is
    /// slow enough to show in renderers that print many timestamps). False, and nothing emitted, for a
    /// time outside years 0000–9999 or not finite.
    @inlinable
    public static func write(_ t: Double, micro: Bool, _ emit: (UInt8) -> Void) -> Bool {
        guard inRange(t) else { return false }
        let scale = micro ? 1_000_000.0 : 1000.0
        let total = (t * scale).rounded()
        var secs = Int((total / scale).rounded(.down))
        var fracUnits = Int(total - Double(secs) * scale)
        if fracUnits < 0 { fracUnits += Int(scale); secs -= 1 }
        var days = secs / 86400
        var rem = secs % 86400
        if rem < 0 { rem += 86400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        @inline(__always) func put(_ v: Int, _ width: Int) {
            var v = v
            if v < 0 { emit(UInt8(ascii: "-")); v = -v }
            var div = 1
            for _ in 1..<width { div *= 10 }
            while v / div >= 10 { div *= 10 } // more digits than the width
            while div > 0 {
                emit(UInt8(48 + (v / div) % 10))
                div /= 10
            }
        }
        put(y, 4); emit(UInt8(ascii: "-")); put(m, 2); emit(UInt8(ascii: "-")); put(d, 2)
        emit(UInt8(ascii: "T")); put(rem / 3600, 2); emit(UInt8(ascii: ":")); put(rem % 3600 / 60, 2)
        emit(UInt8(ascii: ":")); put(rem % 60, 2); emit(UInt8(ascii: ".")); put(fracUnits, micro ? 6 : 3)
        emit(UInt8(ascii: "Z"))
        return true
    }

    public static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
