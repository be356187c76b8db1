import Testing
@testable import SiftCore

/// Member names read in place give what reading them as Strings gives.
@Suite struct JSONNameTests {
    @Test func stringBytesInPlaceAreTheStringsBytes() throws {
        for t in BodySizeTests.texts {
            let v = try BodySizeTests.document(t).root
            let got = v.withStringUTF8 { Array($0) }
            #expect(got == Array((v.string ?? "").utf8), "\(t)")
        }
        #expect(try JSONDocument(string: "12").root.withStringUTF8 { $0.count } == 0)
    }

    @Test func namesInPlaceAreTheNamesForEachMemberGives() throws {
        let names: [[UInt8]] = BodySizeTests.texts + [Array(#"t\u0079pe"#.utf8), Array("name".utf8), Array(#"na\"me"#.utf8)]
        var text: [UInt8] = Array("{".utf8)
        for (k, n) in names.enumerated() {
            if k > 0 { text += Array(",".utf8) }
            text += Array("\"".utf8) + n + Array("\":".utf8) + Array("[\(k), {\"x\": \"\(k)\"}]".utf8)
        }
        text += Array("}".utf8)
        let root = try JSONDocument(bytes: text).root
        var viaStrings: [(String, Int)] = []
        root.forEachMember { k, v in viaStrings.append((k, v.index)) }
        var inPlace: [(String, Int)] = []
        root.forEachMemberName { k, v in
            inPlace.append((k.string ?? "", v.index))
            #expect(k.withStringUTF8 { Array($0) } == Array((k.string ?? "").utf8))
            let bytes = Array(text[k.contentRange])
            #expect(bytes == names[inPlace.count - 1])
        }
        #expect(viaStrings.map(\.0) == inPlace.map(\.0))
        #expect(viaStrings.map(\.1) == inPlace.map(\.1))
        // Not an object: no member.
        try JSONDocument(string: "[1]").root.forEachMemberName { _, _ in Issue.record("an array has no member") }
    }

    @Test func memberByStaticNameIsTheSubscript() throws {
        let doc = try JSONDocument(string: #"{"name": 1, "n\u0061me": 2, "value": "v", "": 3, "valu": 4}"#)
        let root = doc.root
        #expect(root.member("name")?.index == root["name"]?.index)
        #expect(root.member("value")?.index == root["value"]?.index)
        #expect(root.member("valu")?.index == root["valu"]?.index)
        #expect(root.member("")?.index == root[""]?.index)
        #expect(root.member("missing") == nil)
        #expect(try JSONDocument(string: "[]").root.member("name") == nil)
        #expect(try JSONDocument(string: #"{"a\u0062c": true}"#).root.member("abc")?.bool == true)
    }
}
