import Testing
import SiftTestSupport
@testable import SiftCore

/// The string scanner reads sixteen bytes at a time (64 past a string's first block); what it makes of a
/// string must be what reading it a byte at a time makes (`Reference`), wherever in a block, or at
/// the end of the text, a quote, an escape, a control byte or a byte of 0x80 or more falls.
@Suite struct JSONStringScanTests {
    /// What the parser made of one string starting at byte 0 of `text`.
    struct Outcome: Equatable, CustomStringConvertible {
        var next = 0
        var end = 0
        var escaped = false
        var count: Int32 = 0
        var error: JSONParseError?
        var description: String {
            error.map { "error \($0.reason) at \($0.offset): \($0.message)" }
                ?? "end \(end), next \(next), escaped \(escaped), count \(count)"
        }
    }

    static func scan(_ text: [UInt8]) -> Outcome {
        var parser = JSONTapeParser(maxDepth: 512)
        let next = text.withUnsafeBufferPointer { parser.string($0, 0) }
        if let e = parser.error { return Outcome(error: e) }
        let node = parser.nodes[0]
        #expect(node.start == 1)
        return Outcome(next: next, end: Int(node.end), escaped: node.escaped, count: node.count)
    }

    /// The scanner as it was before it read blocks: byte by byte.
    static func reference(_ b: [UInt8]) -> Outcome {
        func fail(_ r: JSONParseError.Reason, _ at: Int, _ m: String) -> Outcome {
            Outcome(error: JSONParseError(reason: r, offset: at, message: m))
        }
        func printable(_ c: UInt8) -> String {
            (c >= 0x20 && c < 0x7F) ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
        }
        func width(_ v: Int) -> Int { v < 0x80 ? 1 : v < 0x800 ? 2 : 3 }
        var i = 1, escaped = false, nonASCII = false, saved = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if c == 0x22 {
                return Outcome(
                    next: i + 1, end: i, escaped: escaped,
                    count: nonASCII ? -1 : Int32(truncatingIfNeeded: i - 1 - saved))
            }
            if c == 0x5C {
                escaped = true
                guard i + 1 < n else { break }
                let e = b[i + 1]
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    saved += 1
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 6 <= n else { return fail(.unterminated, i, "line ends inside a \\u escape") }
                    var v = 0
                    for k in 2..<6 {
                        let h = hexValue(b[i + k])
                        if h < 0 { return fail(.syntax, i + k, "invalid \\u escape") }
                        v = v << 4 | h
                    }
                    i += 6
                    if v >= 0xD800 && v < 0xE000 {
                        if v < 0xDC00, i + 6 <= n, b[i] == 0x5C, b[i + 1] == UInt8(ascii: "u") {
                            var lo = 0
                            for k in 2..<6 { lo = lo << 4 | max(0, hexValue(b[i + k])) }
                            if lo >= 0xDC00 && lo < 0xE000 {
                                saved += 6 - 1
                                continue
                            }
                        }
                        saved += 6 - 3
                    } else {
                        saved += 6 - width(v)
                    }
                default:
                    return fail(.syntax, i + 1, "invalid escape '\\\(printable(e))'")
                }
                continue
            }
            if c >= 0x80 { nonASCII = true; i += 1; continue }
            if c < 0x20 { return fail(.syntax, i, "control character in a string") }
            i += 1
        }
        return fail(.unterminated, 0, "line ends inside a string")
    }

    /// What can interrupt plain text: every kind of escape (valid, invalid, cut short), quotes,
    /// control bytes, DEL, and UTF-8 both valid and not.
    static let tokens: [[UInt8]] =
        [
            #"""#, #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#, #"\u0041"#, #"\u00e9"#, #"\u20ac"#,
            #"\ud83d\ude00"#, #"\ud83d"#, #"\udc00"#, #"\ud83dx"#, #"\ud83d\u0041"#, #"\x"#, #"\'"#, #"\u12"#, #"\u12G4"#,
            #"\\\""#, #"\"\""#, "\\", "\\u"
        ].map { Array($0.utf8) } + [
            [0x00], [0x09], [0x0A], [0x1F], [0x7F], [0x80], [0xFF], [0xC3, 0xA9], [0xC3, 0x28],
            [0xE2, 0x82], [0xF0, 0x9F, 0x98, 0x80], [0x5C, 0x80], [0x5C, 0x00]
        ]

    /// One token at every offset of the first three blocks, with text after it of every length up to
    /// past a block, ending with a quote or with the line.
    @Test func oneTokenAtEveryPosition() {
        for token in JSONStringScanTests.tokens {
            for before in 0..<40 {
                for after in 0..<20 {
                    for closed in [true, false] {
                        var text: [UInt8] =
                            [0x22] + Array(repeating: UInt8(ascii: "a"), count: before) + token
                            + Array(repeating: UInt8(ascii: "b"), count: after)
                        if closed { text.append(0x22) }
                        let got = JSONStringScanTests.scan(text)
                        let want = JSONStringScanTests.reference(text)
                        #expect(got == want, "\(token) after \(before), \(after) more, closed \(closed)")
                        if got != want { return }
                    }
                }
            }
        }
    }

    /// Plain text of every length up to past the caller's short path (64 bytes) and on into the long
    /// loop, then a token, with text after the string's end or none (a string read from the middle
    /// of a line, as member names and values are).
    @Test func plainTextThenATokenWithTextAfter() {
        let tokens = [#"""#, #"\n"#, #"\u0041"#].map { Array($0.utf8) } + [[0x1F], [0x80], [0xC3, 0xA9]]
        for token in tokens {
            for before in 0..<140 {
                for after in [0, 1, 15, 16, 17, 70] {
                    let text: [UInt8] =
                        [0x22] + Array(repeating: UInt8(ascii: "a"), count: before) + token
                        + Array(repeating: UInt8(ascii: "b"), count: 3) + [0x22] + Array(repeating: UInt8(ascii: "c"), count: after)
                    let got = JSONStringScanTests.scan(text)
                    let want = JSONStringScanTests.reference(text)
                    #expect(got == want, "\(token) after \(before), \(after) after the string")
                    if got != want { return }
                }
            }
        }
    }

    /// Two tokens, the second at every distance from the first, across block boundaries.
    @Test func twoTokensAtEveryDistance() {
        let tokens = JSONStringScanTests.tokens
        for first in tokens {
            for second in tokens {
                for before in [0, 5, 12, 13, 14, 15, 16, 17] {
                    for gap in 0..<18 {
                        let text: [UInt8] =
                            [0x22] + Array(repeating: UInt8(ascii: "a"), count: before) + first
                            + Array(repeating: UInt8(ascii: "b"), count: gap) + second
                            + Array(repeating: UInt8(ascii: "c"), count: 17) + [0x22]
                        let got = JSONStringScanTests.scan(text)
                        let want = JSONStringScanTests.reference(text)
                        #expect(got == want, "\(first) after \(before), \(second) \(gap) later")
                        if got != want { return }
                    }
                }
            }
        }
    }

    /// A long plain run is skipped 64 bytes at a time: a token anywhere in it, or just past it, after
    /// a plain or a non-ASCII start (which lets bytes of 0x80 or more through the skip), is found as
    /// byte by byte.
    @Test func oneTokenInALongPlainRun() {
        for token in JSONStringScanTests.tokens {
            for start in [[UInt8](), [0xC3, 0xA9]] {
                for before in 0..<150 {
                    for after in [0, 1, 15, 16, 17, 63, 64, 65] {
                        let text: [UInt8] =
                            [0x22] + start + Array(repeating: UInt8(ascii: "a"), count: before) + token
                            + Array(repeating: UInt8(ascii: "b"), count: after) + [0x22]
                        let got = JSONStringScanTests.scan(text)
                        let want = JSONStringScanTests.reference(text)
                        #expect(got == want, "\(token) after \(start) and \(before), \(after) more")
                        if got != want { return }
                    }
                }
            }
        }
    }

    /// The byte classes of a block, found with the machine's vector instructions, are the portable
    /// code's and the bytes' own, wherever the bytes that matter fall.
    @Test func blockClassesMatchThePortableCode() {
        var generator = SeededGenerator(seed: 0xB10C)
        func next() -> UInt64 { generator.next() }
        let matter = Array(#""\/bfnrtu a@[`{+-_09AZz"#.utf8)
        for round in 0..<20_000 {
            // Dense blocks, and plain ones with a rare byte that matters.
            let dense = round % 2 == 0
            let block: [UInt8] = (0..<64).map { _ in
                if !dense && next() % 64 != 0 { return UInt8(ascii: "a") }
                return next() % 3 == 0 ? UInt8(truncatingIfNeeded: next()) : matter[Int(next() % UInt64(matter.count))]
            }
            block.withUnsafeBufferPointer { buf in
                let p = buf.baseAddress!
                let fast = StringBlock(p), portable = StringBlock(portable: p)
                var quote: UInt32 = 0, backslash: UInt32 = 0, control: UInt32 = 0, high: UInt32 = 0, letters: UInt32 = 0
                for k in 0..<16 {
                    let c = block[k]
                    if c == 0x22 { quote |= 1 << k }
                    if c == 0x5C { backslash |= 1 << k }
                    if c < 0x20 { control |= 1 << k }
                    if c >= 0x80 { high |= 1 << k }
                    if Array("/bfnrt".utf8).contains(c) { letters |= 1 << k }
                }
                for b in [fast, portable] {
                    #expect(b.quote == quote && b.backslash == backslash && b.control == control && b.high == high, "\(block)")
                }
                #expect(StringBlock.escapeLetters(p) == letters && StringBlock.escapeLetters(portable: p) == letters)
                var symbols: UInt32 = 0
                for k in 0..<16 where Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_".utf8).contains(block[k]) {
                    symbols |= 1 << k
                }
                #expect(StringBlock.base64Symbols(p) == symbols && StringBlock.base64Symbols(portable: p) == symbols, "\(block)")
                let special = quote | backslash | control | high
                for (q, s) in [StringBlock.quotesAndSpecials(p), StringBlock.quotesAndSpecials(portable: p)] {
                    #expect(q == quote && s == special, "\(block)")
                }
                var quote64: UInt64 = 0, backslash64: UInt64 = 0, control64: UInt64 = 0, high64: UInt64 = 0, letters64: UInt64 = 0
                for k in 0..<64 {
                    let c = block[k]
                    if c == 0x22 { quote64 |= 1 << k }
                    if c == 0x5C { backslash64 |= 1 << k }
                    if c < 0x20 { control64 |= 1 << k }
                    if c >= 0x80 { high64 |= 1 << k }
                    if Array("/bfnrt".utf8).contains(c) { letters64 |= 1 << k }
                }
                for high in [true, false] {
                    let stop = control64 | (high ? high64 : 0)
                    for b in [StringBlock64(p, high: high), StringBlock64(portable: p, high: high)] {
                        #expect(b.quote == quote64 && b.backslash == backslash64 && b.stop == stop, "\(block)")
                    }
                    let plain = quote64 | backslash64 | stop == 0
                    #expect(
                        StringBlock64.isPlain(p, high: high) == plain && StringBlock64.isPlain(portable: p, high: high) == plain, "\(block)"
                    )
                }
                #expect(StringBlock64.escapeLetters(p) == letters64)
            }
        }
    }

    /// Random strings made mostly of the bytes that matter, of every length up to five blocks.
    @Test func randomStrings() {
        var generator = SeededGenerator(seed: 0x5EED)
        func next() -> UInt64 { generator.next() }
        let alphabet = Array(#"a\\\\\"nu0d8cDE/"#.utf8) + [0x01, 0x1F, 0x20, 0x7F, 0x80, 0xC3, 0xA9, 0xFF]
        for _ in 0..<40_000 {
            let length = Int(next() % 80)
            var text: [UInt8] = [0x22]
            for _ in 0..<length { text.append(alphabet[Int(next() % UInt64(alphabet.count))]) }
            if next() % 4 != 0 { text.append(0x22) }
            let got = JSONStringScanTests.scan(text)
            let want = JSONStringScanTests.reference(text)
            #expect(got == want, "\(text)")
            if got != want { return }
        }
    }

    /// Long runs of two-byte escapes (JSON text inside JSON) and plain runs, block after block.
    @Test func longEscapedText() throws {
        let inner = #"{\"page\": 1, \"items\": [{\"id\": \"prd_4704b9e2\", \"name\": \"Wool \\\"Scarf\\\"\", \"tags\": []}]}"#
        for k in 0..<40 {
            let text = Array(("\"" + String(repeating: "x", count: k) + String(repeating: inner, count: 7) + "\"").utf8)
            #expect(JSONStringScanTests.scan(text) == JSONStringScanTests.reference(text))
            let doc = try JSONDocument(bytes: Array("{\"s\":".utf8) + text + Array("}".utf8))
            #expect(doc.root["s"]?.decodedUTF8Count == doc.root["s"]?.string?.utf8.count)
        }
    }

    /// Past its first block, a string is read 64 bytes at a time: a token at every offset of escaped
    /// text (two-byte escapes every few bytes, so no block is plain) and of plain text, across the
    /// 64-byte blocks and up to the text's last bytes, after a plain or a non-ASCII start.
    @Test func oneTokenInLongEscapedText() {
        let unit = Array(#"ab\"c\\d\n"#.utf8)
        for token in JSONStringScanTests.tokens {
            for start in [[UInt8](), [0xC3, 0xA9]] {
                for before in 0..<140 {
                    for after in [0, 1, 2, 63, 64, 65, 130] {
                        let text: [UInt8] =
                            [0x22] + start + (0..<before).map { unit[$0 % unit.count] } + token
                            + (0..<after).map { unit[$0 % unit.count] } + [0x22]
                        let got = JSONStringScanTests.scan(text)
                        let want = JSONStringScanTests.reference(text)
                        #expect(got == want, "\(token) after \(start) and \(before), \(after) more")
                        if got != want { return }
                    }
                }
            }
        }
    }

    /// Runs of backslashes of every length ending at every offset around the 64-byte block ends
    /// (an escape begun in a block's last byte is taken whole in the next), then a quote or a letter.
    @Test func backslashRunsAtBlockEnds() {
        for plain in [16, 17, 30] {
            for run in 1..<8 {
                for end in 60..<200 {
                    for last in [UInt8(ascii: "\""), UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "x"), 0x01, 0xC3] {
                        let lead = max(0, end - run)
                        var text: [UInt8] =
                            [0x22] + (0..<lead).map { $0 < plain ? UInt8(ascii: "a") : ($0 % 3 == 0 ? 0x5C : UInt8(ascii: "n")) }
                        if lead > 0 && text.last == 0x5C { text[text.count - 1] = UInt8(ascii: "z") }
                        text += Array(repeating: 0x5C, count: run) + [last] + Array("0041 tail, then the end".utf8) + [0x22]
                        let got = JSONStringScanTests.scan(text)
                        let want = JSONStringScanTests.reference(text)
                        #expect(got == want, "run \(run) ending at \(end), then \(last)")
                        if got != want { return }
                    }
                }
            }
        }
    }

    /// Random long strings, dense with escapes, of every length up to seven 64-byte blocks.
    @Test func randomLongStrings() {
        var generator = SeededGenerator(seed: 0x10C6)
        func next() -> UInt64 { generator.next() }
        let plain = Array("abcdefgh ,:{}[]0123".utf8)
        let rare = Array(#"\\\\"nu0d8cDE/bfrt"#.utf8) + [0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF]
        for round in 0..<20_000 {
            let length = 16 + Int(next() % 440)
            // From one special byte in two to one in a hundred.
            let density = UInt64([2, 4, 8, 16, 100][round % 5])
            var text: [UInt8] = [0x22]
            for _ in 0..<length {
                text.append(next() % density == 0 ? rare[Int(next() % UInt64(rare.count))] : plain[Int(next() % UInt64(plain.count))])
            }
            // Mostly without the quote and control bytes that would end the string early.
            if round % 3 != 0 { text = [0x22] + text.dropFirst().map { $0 == 0x22 || $0 < 0x20 ? UInt8(ascii: "q") : $0 } }
            if next() % 4 != 0 { text.append(0x22) }
            let got = JSONStringScanTests.scan(text)
            let want = JSONStringScanTests.reference(text)
            #expect(got == want, "\(text)")
            if got != want { return }
        }
    }

    /// Member names compared in place or decoded: a repeat is found either way, and only a repeat.
    @Test func repeatedNames() throws {
        let cases: [(String, Bool)] = [
            (#"{"a":1,"b":2}"#, false), (#"{"a":1,"a":2}"#, true), (#"{"a":1,"\u0061":2}"#, true),
            (#"{"name":1,"value":2}"#, false), (#"{"a":1,"bb":2,"ccc":3,"a":4}"#, true), (#"{"":1,"":2}"#, true),
            (#"{"a":1,"bb":2,"ccc":3,"dddd":4,"eeeee":5,"ffffff":6,"ggggggg":7,"bb":8}"#, true),
            (#"{"a":1,"bb":2,"ccc":3,"dddd":4,"eeeee":5,"ffffff":6,"ggggggg":7,"hhhhhhhh":8}"#, false),
            (#"{"ab":1,"a\u0062":2}"#, true), (#"{"ab":1,"\n":2}"#, false),
            ("{\"" + String(repeating: "x", count: 64) + "\":1,\"" + String(repeating: "x", count: 64) + "\":2}", true),
            ("{\"" + String(repeating: "x", count: 64) + "\":1,\"" + String(repeating: "x", count: 63) + "y\":2}", false),
            ("{\"" + String(repeating: "x", count: 63) + "\":1,\"" + String(repeating: "x", count: 63) + "\":2}", true),
            (#"{"abcdefghijkl":1,"abcdefghijkm":2}"#, false), (#"{"abcdefghijkl":1,"abcdefghijkl":2}"#, true),
            (#"{"abcdefgh-middle-xyz":1,"abcdefgh+middle+xyz":2}"#, false),
            (#"{"abcdefgh-middle-xyz":1,"abcdefgh-middle-xyz":2}"#, true),
            ("{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}", false),
            ("{" + (0..<40).map { "\"k\($0 % 39)\":\($0)" }.joined(separator: ",") + "}", true),
            ("{" + (0..<40).map { "\"key-with-a-long-shared-prefix-\($0)-and-suffix\":\($0)" }.joined(separator: ",") + "}", false),
            ("{" + (0..<40).map { "\"key-with-a-long-shared-prefix-\($0 % 39)-and-suffix\":\($0)" }.joined(separator: ",") + "}", true)
        ]
        for (text, repeated) in cases {
            let doc = try JSONDocument(string: text)
            #expect(doc.hasDuplicateKeys == repeated, "\(text)")
        }
    }

    /// Base64 counted a block at a time must count what `Base64.decodedCount` counts, wherever a
    /// padding sign, white space, a URL-safe symbol or a stranger falls.
    @Test func base64CountedInBlocks() throws {
        let symbols = Array("ABCXYZabcxyz0189+/-_".utf8)
        let odd: [[UInt8]] = [
            [], Array("=".utf8), Array("==".utf8), [0x20], Array(#"\n"#.utf8), Array("*".utf8),
            Array("@".utf8), Array("[".utf8), Array("`".utf8), Array("{".utf8), Array(":".utf8),
            Array(".".utf8), Array(",".utf8), [0xC3, 0xA9], [0x7F], Array("=A".utf8)
        ]
        for length in 0..<50 {
            for o in odd {
                for at in stride(from: 0, through: length, by: 3) {
                    var data = (0..<length).map { symbols[$0 * 7 % symbols.count] }
                    data.insert(contentsOf: o, at: at)
                    let doc = try JSONDocument(bytes: Array(#"{"d":""#.utf8) + data + Array(#""}"#.utf8))
                    let value = try #require(doc.root["d"])
                    let want = value.stringBytes.withUnsafeBufferPointer { Base64.decodedCount(bytes: $0) }
                    #expect(value.base64DecodedCount == want, "\(data)")
                }
            }
        }
    }
}
