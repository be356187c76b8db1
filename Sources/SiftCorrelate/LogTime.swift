import Foundation
import SiftCore

/// Timestamps as log lines write them, to seconds since 1970 (UTC).
///
/// Shapes: RFC 3339 with or without a fraction and offset (`Z`, `+00:00`, `+0000`, `+00`, ` UTC`, none = UTC),
/// a space instead of `T`, a comma before the fraction (`2026-11-29 10:15:02,123`); the common log
/// format `29/Nov/2026:10:15:02 +0000` (with or without its brackets); epoch numbers, whose unit is told
/// by the digits before any fraction: up to 11 seconds, 12–14 milliseconds, 15–17 microseconds, more
/// nanoseconds.
public enum LogTime {
    /// Parses a whole value (a JSON string or number text, a logfmt value); nil when it is no timestamp.
    public static func parse(_ s: String) -> Double? {
        if let t = Timestamp.parse(s) { return t }
        var s = s
        return s.withUTF8 { b -> Double? in
            guard let base = b.baseAddress, b.count > 0 else { return nil }
            var p = base
            var n = b.count
            if p[0] == UInt8(ascii: "[") && p[n - 1] == UInt8(ascii: "]") { p += 1; n -= 2 }
            if let (t, len) = iso(p, n), len == n { return t }
            if let (t, len) = clf(p, n), len == n { return t }
            return epoch(p, n)
        }
    }

    /// An epoch number (digits, optionally a fraction) told apart by digit count.
    public static func epoch(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var i = 0
        var intPart: Double = 0
        var digits = 0
        while i < n, p[i] >= 0x30, p[i] <= 0x39 {
            intPart = intPart * 10 + Double(p[i] - 0x30)
            digits += 1
            i += 1
        }
        guard digits >= 9, digits <= 20 else { return nil }
        var frac = 0.0
        if i < n, p[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            while i < n, p[i] >= 0x30, p[i] <= 0x39 {
                frac += Double(p[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        guard i == n else { return nil }
        return fromEpoch(intPart + frac, digits: digits)
    }

    /// Seconds from an epoch value whose integer part has `digits` digits.
    public static func fromEpoch(_ v: Double, digits: Int) -> Double {
        switch digits {
        case ...11: return v
        case 12...14: return v / 1e3
        case 15...17: return v / 1e6
        default: return v / 1e9
        }
    }

    /// Seconds from an epoch number, by the digit count of its integer part.
    /// Nil for a value that is no epoch time: not finite, under 1e8, over 20 integer digits, or past year 9999.
    public static func fromEpoch(_ v: Double) -> Double? {
        guard v.isFinite, v >= 1e8, v < 1e20 else { return nil }
        let digits = Int(log10(v.rounded(.down))) + 1
        let t = fromEpoch(v, digits: digits)
        return Timestamp.inRange(t) ? t : nil
    }

    @inline(__always)
    static func digits(_ p: UnsafePointer<UInt8>, _ at: Int, _ len: Int) -> Int? {
        var v = 0
        for i in at..<at + len {
            let d = p[i] &- 0x30
            guard d < 10 else { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }

    /// `YYYY-MM-DD[T ]HH:MM:SS[.,fraction][Z|±HH[:MM|MM]| ±HHMM]` at `p`: the time and the bytes it used.
    /// A fraction of a second at `i` (`.123`, or `,123` when `comma`), advancing `i` past it; 0 when none.
    @inline(__always)
    static func fraction(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int, comma: Bool) -> Double {
        guard i + 1 < n, p[i] == UInt8(ascii: ".") || (comma && p[i] == UInt8(ascii: ",")), p[i + 1] &- 0x30 < 10 else { return 0 }
        i += 1
        var frac = 0.0
        var scale = 0.1
        while i < n, p[i] &- 0x30 < 10 {
            frac += Double(p[i] - 0x30) * scale
            scale /= 10
            i += 1
        }
        return frac
    }

    public static func iso(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Int)? {
        isoZoned(p, n).map { ($0.0, $0.1) }
    }

    /// As `iso`, and whether the time carried a zone (`Z`, an offset, ` UTC`): one without is naive.
    public static func isoZoned(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Int, Bool)? {
        guard n >= 19, let seconds = isoSeconds(p) else { return nil }
        return isoTail(p, n, seconds)
    }

    /// `YYYY-MM-DDTHH:MM:SS` at `p` (19 readable bytes), checked: seconds since the epoch.
    @inline(__always)
    static func isoSeconds(_ p: UnsafePointer<UInt8>) -> Int? {
        // `-` between the parts (RFC 3339), or `/` (Go's log package: `2026/11/29 12:55:03`).
        guard let year = digits(p, 0, 4), p[4] == 0x2D || p[4] == 0x2F, let month = digits(p, 5, 2), p[7] == p[4],
            let day = digits(p, 8, 2), p[10] == UInt8(ascii: "T") || p[10] == UInt8(ascii: "t") || p[10] == 0x20,
            let hour = digits(p, 11, 2), p[13] == 0x3A, let minute = digits(p, 14, 2), p[16] == 0x3A,
            let second = digits(p, 17, 2),
            (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        return Timestamp.daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    }

    /// What follows the seconds: a fraction and a zone. The time, the bytes used and whether it is zoned.
    @inline(__always)
    static func isoTail(_ p: UnsafePointer<UInt8>, _ n: Int, _ seconds: Int) -> (Double, Int, Bool) {
        var i = 19
        let frac = fraction(p, &i, n, comma: true)
        var offset = 0
        var zoned = false
        if i < n {
            var j = i
            if p[j] == 0x20, j + 1 < n, p[j + 1] == UInt8(ascii: "+") || p[j + 1] == UInt8(ascii: "-") { j += 1 }
            let c = p[j]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i = j + 1
                zoned = true
            } else if (c == UInt8(ascii: "+") || c == UInt8(ascii: "-")), j + 2 < n, p[j + 1] &- 0x30 < 10,
                let (off, len) = zone(p + j, n - j)
            {
                offset = off
                i = j + len
                zoned = true
            } else if c == 0x20, i + 4 <= n,
                (p[i + 1] == UInt8(ascii: "U") && p[i + 2] == UInt8(ascii: "T") && p[i + 3] == UInt8(ascii: "C"))
                    || (p[i + 1] == UInt8(ascii: "G") && p[i + 2] == UInt8(ascii: "M") && p[i + 3] == UInt8(ascii: "T"))
            {
                i += 4 // BigQuery and others print ` UTC`
                zoned = true
            }
        }
        return (Double(seconds - offset) + frac, i, zoned)
    }

    /// The last `YYYY-MM-DDTHH:MM:SS` read and its seconds: log lines come many to a second, so most
    /// lines read only their fraction and zone (`findZoned(in:count:cache:)`).
    struct SecondCache {
        var a: UInt64 = 0
        var b: UInt64 = 0
        var c: UInt64 = 0
        var seconds: Int?

        /// `isoZoned` through the cache: the same result, the date and time of day checked and
        /// computed only when the 19 bytes differ from the last ones.
        @inline(__always)
        mutating func isoZoned(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Int, Bool)? {
            guard n >= 19 else { return nil }
            let raw = UnsafeRawPointer(p)
            let a = raw.loadUnaligned(as: UInt64.self), b = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let c = raw.loadUnaligned(fromByteOffset: 11, as: UInt64.self)
            if seconds == nil || a != self.a || b != self.b || c != self.c {
                self.a = a
                self.b = b
                self.c = c
                seconds = LogTime.isoSeconds(p)
            }
            guard let s = seconds else { return nil }
            return LogTime.isoTail(p, n, s)
        }
    }

    /// A whole value as a time, and whether it carried a zone (an epoch number does).
    public static func parseZoned(_ s: String) -> (Double, Bool)? {
        var s = s
        return s.withUTF8 { b -> (Double, Bool)? in
            guard let base = b.baseAddress, b.count > 0 else { return nil }
            var p = base
            var n = b.count
            if p[0] == UInt8(ascii: "[") && p[n - 1] == UInt8(ascii: "]") && n >= 2 { p += 1; n -= 2 }
            if let (t, len, zoned) = isoZoned(p, n), len == n { return (t, zoned) }
            if let (t, len) = clf(p, n), len == n { return (t, len > 20) }
            if let (t, len) = ctime(p, n), len == n { return (t, false) }
            return epoch(p, n).map { ($0, true) }
        }
    }

    /// syslog's `Nov 29 10:15:02` (day space-padded or not, maybe a fraction) at `p`, naive: the year is
    /// the one that puts it nearest `near` (the current year without it). The time and the bytes used.
    public static func syslog(_ p: UnsafePointer<UInt8>, _ n: Int, near: Double?) -> (Double, Int)? {
        guard n >= 15, p[3] == 0x20 else { return nil }
        let key = UInt32(p[0] | 0x20) << 16 | UInt32(p[1] | 0x20) << 8 | UInt32(p[2] | 0x20)
        guard let mi = months.firstIndex(of: key) else { return nil }
        let day: Int
        if p[4] == 0x20, let d = digits(p, 5, 1) { day = d } else if let d = digits(p, 4, 2) { day = d } else { return nil }
        guard p[6] == 0x20, let hour = digits(p, 7, 2), p[9] == 0x3A, let minute = digits(p, 10, 2), p[12] == 0x3A,
            let second = digits(p, 13, 2), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var i = 15
        let frac = fraction(p, &i, n, comma: false)
        return (nearestYear(month: mi + 1, day: day, seconds: hour * 3600 + minute * 60 + second, near: near) + frac, i)
    }

    /// A date written without its year (syslog, klog), in the year that puts it nearest `near` (now
    /// without it): seconds since 1970.
    static func nearestYear(month: Int, day: Int, seconds: Int, near: Double?) -> Double {
        let ref = near ?? Date().timeIntervalSince1970
        let refYear = Timestamp.inRange(ref) ? Timestamp.civilFromDays(Int((ref / 86400).rounded(.down))).0 : 2026
        let times = [refYear - 1, refYear, refYear + 1].map { y in Double(Timestamp.daysFromCivil(y, month, day) * 86400 + seconds) }
        return times.min { abs($0 - ref) < abs($1 - ref) } ?? times[1]
    }

    /// ctime's `Sun Nov 29 12:55:03[.fraction] 2026` (uWSGI, Apache's error log) at `p`, naive. The time
    /// and the bytes used.
    public static func ctime(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Int)? {
        guard n >= 24, p[3] == 0x20, (p[0] | 0x20) >= UInt8(ascii: "a"), (p[0] | 0x20) <= UInt8(ascii: "z"),
            let (t, len) = syslog(p + 4, n - 4, near: nil)
        else { return nil }
        let i = 4 + len
        guard i + 5 <= n, p[i] == 0x20, let year = digits(p, i + 1, 4) else { return nil }
        // `syslog` placed the day in a year near now: move it to the one written.
        let days = Int((t / 86400).rounded(.down))
        let (y, m, d) = Timestamp.civilFromDays(days)
        guard y > 0 else { return nil }
        let shifted = t + Double((Timestamp.daysFromCivil(year, m, d) - Timestamp.daysFromCivil(y, m, d)) * 86400)
        return (shifted, i + 5)
    }

    /// klog's (Kubernetes) `I1129 12:55:03.748000` at `p`: a level letter, month and day, the time of day;
    /// naive, the year that puts it nearest `near`. The time and the bytes used.
    public static func klog(_ p: UnsafePointer<UInt8>, _ n: Int, near: Double?) -> (Double, Int)? {
        guard n >= 14, [UInt8(ascii: "I"), UInt8(ascii: "W"), UInt8(ascii: "E"), UInt8(ascii: "F"), UInt8(ascii: "D")].contains(p[0]),
            let month = digits(p, 1, 2), let day = digits(p, 3, 2), p[5] == 0x20, let hour = digits(p, 6, 2), p[8] == 0x3A,
            let minute = digits(p, 9, 2), p[11] == 0x3A, let second = digits(p, 12, 2),
            (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var i = 14
        let frac = fraction(p, &i, n, comma: false)
        return (nearestYear(month: month, day: day, seconds: hour * 3600 + minute * 60 + second, near: near) + frac, i)
    }

    /// Gin's default logger: `[GIN] 2026/11/29 - 12:55:03` at `p`, naive. The time and the bytes used.
    public static func gin(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Int)? {
        guard n >= 27, p[0] == UInt8(ascii: "["), p[1] == UInt8(ascii: "G"), p[2] == UInt8(ascii: "I"), p[3] == UInt8(ascii: "N"),
            p[4] == UInt8(ascii: "]"), p[5] == 0x20, p[16] == 0x20, p[17] == UInt8(ascii: "-"), p[18] == 0x20
        else { return nil }
        // `2026/11/29 12:55:03`: the date, one space, the time of day.
        var joined = [UInt8](repeating: 0x20, count: 19)
        for k in 0..<10 { joined[k] = p[6 + k] }
        for k in 0..<8 { joined[11 + k] = p[19 + k] }
        return joined.withUnsafeBufferPointer { b in isoSeconds(b.baseAddress!).map { (Double($0), 27) } }
    }

    /// A time of day alone, `12:55:03[.fraction]` (Serilog's console), naive: the day that puts it
    /// nearest `near`. Nil without `near`. The time and the bytes used.
    public static func timeOfDay(_ p: UnsafePointer<UInt8>, _ n: Int, near: Double?) -> (Double, Int)? {
        guard let ref = near, Timestamp.inRange(ref), n >= 8, let hour = digits(p, 0, 2), p[2] == 0x3A, let minute = digits(p, 3, 2),
            p[5] == 0x3A, let second = digits(p, 6, 2), hour <= 23, minute <= 59, second <= 60, n == 8 || p[8] &- 0x30 >= 10
        else { return nil }
        var i = 8
        let frac = fraction(p, &i, n, comma: false)
        let day = (ref / 86400).rounded(.down) * 86400
        let t = day + Double(hour * 3600 + minute * 60 + second) + frac
        let best = [t - 86400, t, t + 86400].min { abs($0 - ref) < abs($1 - ref) } ?? t
        return (best, i)
    }

    /// `+HH:MM`, `+HHMM` or `+HH` at `p` (which starts with the sign): seconds east of UTC and length.
    static func zone(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Int, Int)? {
        let sign = p[0] == UInt8(ascii: "-") ? -1 : 1
        guard n >= 3, let h = digits(p, 1, 2), h <= 23 else { return nil }
        if n >= 6, p[3] == 0x3A, let m = digits(p, 4, 2) { return (sign * (h * 3600 + m * 60), 6) }
        if n >= 5, let m = digits(p, 3, 2) { return (sign * (h * 3600 + m * 60), 5) }
        return (sign * h * 3600, 3)
    }

    private static let months: [UInt32] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { s in s.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1 | 0x20) } }

    /// `DD/Mon/YYYY:HH:MM:SS[.fraction][ ±HHMM]` (the common log format) at `p`; a space instead of the
    /// colon after the year is read too (Werkzeug, Apache's `%{%d/%b/%Y %T}t`).
    public static func clf(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Int)? {
        guard n >= 20, let day = digits(p, 0, 2), p[2] == 0x2F, p[6] == 0x2F, let year = digits(p, 7, 4), p[11] == 0x3A || p[11] == 0x20,
            let hour = digits(p, 12, 2), p[14] == 0x3A, let minute = digits(p, 15, 2), p[17] == 0x3A,
            let second = digits(p, 18, 2)
        else { return nil }
        let key = UInt32(p[3] | 0x20) << 16 | UInt32(p[4] | 0x20) << 8 | UInt32(p[5] | 0x20)
        guard let mi = months.firstIndex(of: key), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60 else { return nil }
        var i = 20
        let frac = fraction(p, &i, n, comma: false)
        var offset = 0
        if i + 1 < n, p[i] == 0x20, p[i + 1] == UInt8(ascii: "+") || p[i + 1] == UInt8(ascii: "-"),
            let (off, len) = zone(p + i + 1, n - i - 1)
        {
            offset = off
            i += 1 + len
        }
        let days = Timestamp.daysFromCivil(year, mi + 1, day)
        return (Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + frac, i)
    }

    /// The first timestamp in a line, found cheaply on its bytes (used to place lines in a session's
    /// window without parsing them): an RFC 3339-like date, else a common-log-format date, else an epoch
    /// number under a `ts`/`time`/`timestamp` key.
    public static func find(in p: UnsafePointer<UInt8>, count n: Int) -> Double? {
        findZoned(in: p, count: n)?.0
    }

    /// As `find`, and whether the time carried a zone (a naive one is taken in `--log-timezone`).
    public static func findZoned(in p: UnsafePointer<UInt8>, count n: Int) -> (Double, Bool)? {
        var cache = SecondCache()
        return findZoned(in: p, count: n, cache: &cache)
    }

    /// `findZoned`, reading RFC 3339-like times through `cache`.
    static func findZoned(in p: UnsafePointer<UInt8>, count n: Int, cache: inout SecondCache) -> (Double, Bool)? {
        var i = 0
        var tries = 0
        // RFC 3339-like: look at each '-' that could be the one after the year.
        while i < n, tries < 24, let h = memchr(p + i, 0x2D, n - i) {
            let k = p.distance(to: h.assumingMemoryBound(to: UInt8.self))
            if k >= 4, let (t, _, zoned) = cache.isoZoned(p + k - 4, n - k + 4) { return (t, zoned) }
            i = k + 1
            tries += 1
        }
        i = 0
        tries = 0
        while i < n, tries < 24, let h = memchr(p + i, 0x2F, n - i) {
            let k = p.distance(to: h.assumingMemoryBound(to: UInt8.self))
            if k >= 2, let (t, len) = clf(p + k - 2, n - k + 2) { return (t, len > 20) }
            if k >= 4, let (t, _, zoned) = isoZoned(p + k - 4, n - k + 4) { return (t, zoned) }
            i = k + 1
            tries += 1
        }
        for key in epochKeys {
            if let t = epochAfter(key, p, n) { return (t, true) }
        }
        return nil
    }

    private static let epochKeys: [[UInt8]] = ["\"ts\"", "\"time\"", "\"timestamp\"", "ts=", "time="].map { Array($0.utf8) }

    private static func epochAfter(_ key: [UInt8], _ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        key.withUnsafeBufferPointer { k -> Double? in
            guard let f = ByteSearch.find(p, n, k) else { return nil }
            var i = f + k.count
            if k.last != UInt8(ascii: "=") {
                while i < n, p[i] == 0x20 { i += 1 }
                guard i < n, p[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                while i < n, p[i] == 0x20 { i += 1 }
            }
            if i < n, p[i] == UInt8(ascii: "\"") { i += 1 }
            let s = i
            while i < n, p[i] &- 0x30 < 10 || p[i] == UInt8(ascii: ".") { i += 1 }
            return epoch(p + s, i - s)
        }
    }
}
