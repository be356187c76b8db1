import Testing
@testable import SiftCore

/// Body lengths measured in place must be what decoding gives, for every kind of text.
@Suite struct BodySizeTests {
    /// JSON string literals (the content between the quotes), as a line holds them.
    static let texts: [[UInt8]] = [
        Array("".utf8), Array("plain ascii text".utf8), Array(#"a\nb\t\"c\"\\d\/e\b\f\r"#.utf8),
        Array(#"\u00e9\u20ac\ud83d\ude00"#.utf8), Array(#"lone \ud83d high, lone \ude00 low, \ud83d\u0041"#.utf8),
        Array(#"\u0000\u007f\u0080\u07ff\u0800\uffff"#.utf8), Array("caf\u{e9} \u{1F600}".utf8),
        Array(String(repeating: "0123456789abcdef", count: 40).utf8) + Array(#"\n"#.utf8),
        [0x61, 0xFF, 0x62], [0xC3], [0xE2, 0x82], [0x61, 0xC3, 0x5C, 0x6E], [0xF0, 0x9F, 0x98],
        Array(String(repeating: "x", count: 33).utf8) + [0x80]
    ]

    static let base64: [String] = [
        "", "QQ==", "QUI=", "QUJD", "QUJDRA", "QUJDR", #"QU JD\nRA=="#, #"QU\tJD RA"#, "QUJD=RA", "QUJD==", "Q", "Q===",
        "-_-_", "QUJ*", "aGVsbG8gd29ybGQ", #"aGVs\/bG8="#, "caf\u{e9}", String(repeating: "QUJD", count: 1000)
    ]

    static func document(_ content: [UInt8]) throws -> JSONDocument {
        try JSONDocument(bytes: Array("\"".utf8) + content + Array("\"".utf8))
    }

    @Test func textCountsMatchDecoding() throws {
        for t in BodySizeTests.texts {
            let v = try BodySizeTests.document(t).root
            #expect(v.decodedUTF8Count == v.string?.utf8.count, "\(t)")
            #expect(v.measuredUTF8Count == v.string?.utf8.count, "\(t)")
        }
        // The parser's count, with a byte of 0x80 or more at every offset of a word.
        for k in 0..<20 {
            let head = Array(String(repeating: "a", count: k).utf8)
            let v = try BodySizeTests.document(head + [0xC3, 0xA9] + head + Array(#"\n"#.utf8)).root
            #expect(v.decodedUTF8Count == v.string?.utf8.count, "\(k)")
            #expect(try BodySizeTests.document(head + Array(#"\u00e9"#.utf8) + head).root.decodedUTF8Count == 2 * k + 2)
        }
        let number = try JSONDocument(string: "12").root
        #expect(number.decodedUTF8Count == nil)
    }

    @Test func base64CountsMatchDecoding() throws {
        for s in BodySizeTests.base64 {
            let v = try BodySizeTests.document(Array(s.utf8)).root
            #expect(v.base64DecodedCount == v.string.flatMap(Base64.decode)?.count, "\(s)")
        }
        #expect(try JSONDocument(string: "null").root.base64DecodedCount == nil)
    }

    /// The parser skips plain text a word at a time: a quote, a backslash or a control byte at any
    /// offset of a word is still seen.
    @Test func stringsEndAndEscapeAtEveryOffset() throws {
        for k in 0..<20 {
            let head = String(repeating: "a", count: k)
            let doc = try JSONDocument(string: "{\"s\": \"\(head)\\n\(head)\", \"t\": \"\(head)\"}")
            #expect(doc.root["s"]?.string == head + "\n" + head)
            #expect(doc.root["t"]?.string == head)
            #expect(throws: JSONParseError.self) { try JSONDocument(string: "\"\(head)\u{01}\(head)\"") }
            #expect(throws: JSONParseError.self) { try JSONDocument(string: "\"\(head)") }
            #expect(doc.root["s"]?.decodedUTF8Count == 2 * k + 1)
        }
    }
}
