import Testing
import SiftTestSupport
import SiftCore

/// `Timestamp.parse` reads every form it did before, to the same double: the reference below is
/// the parser as it was written first (a digit at a time, the fraction's scale divided by ten per digit).
@Suite struct TimestampParseTests {
    static func reference(_ s: String) -> Double? {
        let b = Array(s.utf8)
        let n = b.count
        guard n >= 19 else { return nil }
        func digits(_ at: Int, _ len: Int) -> Int? {
            var v = 0
            for i in at..<at + len {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard let year = digits(0, 4), b[4] == UInt8(ascii: "-"), let month = digits(5, 2), b[7] == UInt8(ascii: "-"),
            let day = digits(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
            let hour = digits(11, 2), b[13] == UInt8(ascii: ":"), let minute = digits(14, 2), b[16] == UInt8(ascii: ":"),
            let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60 else { return nil }
        var i = 19
        var frac = 0.0
        if i < n && (b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",")) {
            i += 1
            var scale = 0.1
            let start = i
            while i < n, b[i] >= 48, b[i] <= 57 {
                frac += Double(b[i] - 48) * scale
                scale /= 10
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
                guard i + 3 <= n, let oh = digits(i + 1, 2) else { return nil }
                var om = 0
                if i + 6 <= n && b[i + 3] == UInt8(ascii: ":") {
                    guard let m = digits(i + 4, 2) else { return nil }
                    om = m
                    i += 6
                } else if i + 5 <= n, let m = digits(i + 3, 2) {
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
        return Double(Timestamp.daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset) + frac
    }

    @Test func sameAsTheReference() {
        var fixed = [
            "2026-11-29T10:15:02Z", "2026-11-29T10:15:02.123456Z", "2026-11-29t10:15:02.1z", "2026-11-29 10:15:02,5+01:00",
            "2026-11-29T10:15:02.999999999999999999999999Z", "2026-11-29T10:15:02-0130", "2026-11-29T10:15:02+01",
            "0000-01-01T00:00:00Z", "9999-12-31T23:59:60.999999Z", "2026-13-29T10:15:02Z", "2026-11-29T10:15:02.Z",
            "2026-11-29T10:15:02.12a", "2026-11-29T24:00:00Z", "2026-11-29T10:15", "2026-11-29T10:15:02+01:0",
            "2026-1a-29T10:15:02Z", "2026-11-29T10:15:02+01:00x", "２026-11-29T10:15:02Z",
            "2026-11-29T10:15:02.123456789012345678901234567890Z"
        ]
        // Every fraction length up to 40 digits, with digits of a fixed pseudo-random sequence.
        var generator = SeededGenerator(seed: 0x9E37_79B9_7F4A_7C15)
        func next() -> Int { Int(generator.next() >> 33) }
        for length in 1...40 {
            for _ in 0..<25 {
                let digits = String((0..<length).map { _ in Character(String(next() % 10)) })
                let y = 1900 + next() % 300, mo = 1 + next() % 12, d = 1 + next() % 28
                let h = next() % 24, mi = next() % 60, s = next() % 61
                func p(_ v: Int, _ w: Int) -> String { String(repeating: "0", count: max(0, w - String(v).count)) + String(v) }
                let zone = ["Z", "+02:00", "-0930", "z", ""][next() % 5]
                fixed.append("\(p(y, 4))-\(p(mo, 2))-\(p(d, 2))T\(p(h, 2)):\(p(mi, 2)):\(p(s, 2)).\(digits)\(zone)")
            }
        }
        for text in fixed {
            let a = Timestamp.parse(text), b = TimestampParseTests.reference(text)
            #expect(a?.bitPattern == b?.bitPattern, "\(text)")
        }
        // With a memo of the last minute read, in any order: each text read after every other one
        // (a valid or invalid start, the same minute or not) reads as on its own.
        let some =
            Array(fixed.prefix(40)) + fixed.filter { $0.hasPrefix("2026-11-29") } + [
                "2026-11-29T10:15:61Z", "2026-11-29T10:15:0xZ", "2026-11-29T10:15:", "2026-11-29T10:15:02", "2026-11-29T10:15:59.5-01:00"
            ]
        var wrong: [String] = []
        for first in some {
            for second in some {
                var memo = Timestamp.Memo()
                for text in [first, second, first] {
                    var t = text
                    let a = t.withUTF8 { Timestamp.parse(bytes: $0, memo: &memo) }
                    if a?.bitPattern != Timestamp.parse(text)?.bitPattern { wrong.append("\(first) then \(second)") }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }
}
