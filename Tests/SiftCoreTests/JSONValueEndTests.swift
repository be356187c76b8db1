import Testing
@testable import SiftCore

/// `JSONValueEnd` (the HAR reader's and scrub's value scanner) finds the end of a value and counts
/// its line feeds wherever the chunks are cut: strings with quotes, backslashes and line feeds at
/// every offset of its eight-byte steps, nesting, indentation, and scalars.
@Suite struct JSONValueEndTests {
    /// A value of random strings (escapes, raw line feeds, runs longer than eight bytes), arrays,
    /// objects and white space.
    static func value(_ rng: inout SystemRandomNumberGenerator, depth: Int = 0) -> [UInt8] {
        func string() -> [UInt8] {
            var s: [UInt8] = [0x22]
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: s += [0x5C, 0x22]
                case 1: s += [0x5C, 0x5C]
                case 2: s += [0x0A]
                default: s += [UInt8](repeating: 0x61, count: Int.random(in: 0...23, using: &rng))
                }
            }
            return s + [0x22]
        }
        if depth > 3 { return string() }
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return string()
        case 1:
            let items = (0..<Int.random(in: 0...4, using: &rng)).map { _ in value(&rng, depth: depth + 1) }
            return [0x5B, 0x0A, 0x20, 0x20] + Array(items.joined(separator: [0x2C, 0x0A, 0x20, 0x20, 0x20, 0x20])) + [0x5D]
        default:
            let items = (0..<Int.random(in: 0...4, using: &rng)).map { _ in string() + [0x3A, 0x20] + value(&rng, depth: depth + 1) }
            return [0x7B] + Array(items.joined(separator: [0x2C, 0x20])) + [0x7D]
        }
    }

    /// Scans `bytes` in chunks of the sizes `cuts` gives; returns where the value ends and the line
    /// feeds before it.
    static func scan(_ bytes: [UInt8], cuts: inout SystemRandomNumberGenerator) -> (end: Int, newlines: Int)? {
        guard let first = bytes.first else { return nil }
        var scanner = JSONValueEnd(first: first)
        var newlines = 0
        var at = 0
        return bytes.withUnsafeBufferPointer { b -> (Int, Int)? in
            while at < b.count {
                let to = min(b.count, at + Int.random(in: 1...40, using: &cuts))
                let (end, done) = scanner.scan(b, from: at, to: to, newlines: &newlines)
                if done { return (end, newlines) }
                at = end
            }
            return nil
        }
    }

    @Test func endsAndLinesWhereverTheChunksAreCut() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let v = Self.value(&rng)
            let text = v + Array(", \"next\"\n".utf8)
            let found = Self.scan(text, cuts: &rng)
            #expect(found?.end == v.count, "\(String(decoding: text, as: UTF8.self))")
            #expect(found?.newlines == v.filter { $0 == 0x0A }.count)
        }
    }

    @Test func scalarsEndBeforeASeparator() {
        var rng = SystemRandomNumberGenerator()
        for (text, end) in [("123,", 3), ("-1.5e3}", 6), ("true]", 4), ("null ", 4), ("false\n", 5)] {
            #expect(Self.scan(Array(text.utf8), cuts: &rng)?.end == end)
        }
        #expect(Self.scan(Array("12345".utf8), cuts: &rng) == nil)
        #expect(JSONValueEnd.canStart(UInt8(ascii: "{")) && !JSONValueEnd.canStart(UInt8(ascii: "x")))
    }
}
