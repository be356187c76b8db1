import Testing
@testable import SiftCore

@Suite struct JSONTests {
    @Test func parsesAndReads() throws {
        let d = try JSONDocument(string: #"{"a": 1, "b": [true, null, "x\n\u00e9\ud83d\ude00"], "c": {"d": -2.5e3}, "e\"": "q"}"#)
        #expect(d.root["a"]?.int == 1)
        #expect(d.root["b"]?.count == 3)
        #expect(d.root["b"]?.elements[0].bool == true)
        #expect(d.root["b"]?.elements[1].isNull == true)
        #expect(d.root["b"]?.elements[2].string == "x\né😀")
        #expect(d.root["c", "d"]?.double == -2500)
        #expect(d.root["e\""]?.string == "q")
        #expect(d.root["zz"] == nil)
        #expect(d.root.members.map(\.key) == ["a", "b", "c", "e\""])
    }

    @Test(arguments: [
        "", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "\"abc", "tru", "01x", "{\"a\":1} x", "\"\u{01}\"", "[1 2]", "-", "1.", "1e"
    ])
    func rejects(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONDocument(string: text) }
    }

    @Test func depthIsBounded() {
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        #expect(throws: JSONParseError.self) { try JSONDocument(string: deep, maxDepth: 512) }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSONDocument(string: ok)) != nil)
    }

    @Test func walksStrings() throws {
        let d = try JSONDocument(string: #"{"a": {"b c": ["x", {"y": "z"}]}, "n": 1}"#)
        var seen: [String] = []
        d.root.walkStrings { path, v in seen.append("\(path)=\(v.string ?? "")") }
        #expect(seen == [#"$.a["b c"][0]=x"#, #"$.a["b c"][1].y=z"#])
    }

    @Test func writesDeterministically() {
        let v = JSONOut.object(["b": .int(1), "a": .array([.string("x\"\n\u{1b}"), .double(3), .null])])
        #expect(v.render(pretty: false) == #"{"a":["x\"\n\u001b",3.0,null],"b":1}"#)
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2026-11-29T10:15:02.123Z", 1_795_947_302.123),
        ("2026-11-29T10:15:02Z", 1_795_947_302.0),
        ("2026-11-29T11:15:02.123+01:00", 1_795_947_302.123),
        ("2026-11-29T11:15:02.123+0100", 1_795_947_302.123),
        ("2026-11-29 10:15:02.123456Z", 1_795_947_302.123456)
    ])
    func parses(_ text: String, _ expected: Double) {
        let t = Timestamp.parse(text)
        #expect(t != nil)
        #expect(abs((t ?? 0) - expected) < 1e-6)
    }

    @Test(arguments: ["", "2026-13-01T00:00:00Z", "2026-11-29T10:15", "2026-11-29T10:15:02.Z", "yesterday"])
    func rejects(_ text: String) { #expect(Timestamp.parse(text) == nil) }

    @Test func formats() {
        #expect(Timestamp.format(1_795_947_302.123) == "2026-11-29T10:15:02.123Z")
        #expect(Timestamp.format(1_795_947_302.1234567, micro: true) == "2026-11-29T10:15:02.123457Z")
    }
}

@Suite struct MaskTests {
    @Test func previewNeverShowsMuch() {
        #expect(SecretMask.preview("k9Xq2mPz7LwR4tYv8NbC") == "k9Xq…(20 chars)")
        // A value a brute force could enumerate shows nothing, not even its length.
        #expect(SecretMask.preview("abcdefghijklmnop") == "…(value hidden)")
        #expect(SecretMask.preview("hunter2") == "…(value hidden)")
        #expect(SecretMask.preview("482913") == "…(value hidden)")
        #expect(SecretMask.preview("ab") == "…(value hidden)")
        #expect(SecretMask.fingerprint("x") == SecretMask.fingerprint("x"))
        #expect(SecretMask.fingerprint("x").hasPrefix("sha256:"))
    }

    @Test func sha256KnownAnswers() {
        #expect(SHA256Check.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Check.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = String(repeating: "a", count: 1_000_000)
        #expect(SHA256Check.hex(long) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

import SiftArchive
enum SHA256Check {
    static func hex(_ s: String) -> String { SHA256.hexDigest(Array(s.utf8)) }
}
