import Foundation
import Testing
import SiftCore

/// The tape view reads what `JSONValue` reads: the same members, numbers, booleans and texts.
@Suite struct JSONTapeViewTests {
    static let texts = [
        #"{"a":1,"b":-0,"c":2.5,"d":1e3,"e":123456789012345,"f":1234567890123456,"g":-17,"h":0.1,"i":-2.50e-1,"j":9007199254740993}"#,
        #"{"s":"plain","t":"a\"b","u":"\u00e9","v":true,"w":false,"x":null,"y":[1,{"z":2}],"a":"first","a":"second"}"#,
        #"{"n\u0061me":"escaped name","name":"plain name","body":{"size":42,"size":43}}"#
    ]

    @Test(arguments: texts)
    func readsWhatJSONValueReads(_ text: String) throws {
        let doc = try JSONDocument(string: text)
        let root = doc.root
        doc.withTape { t in
            var names: [String] = []
            var k = 0
            t.forEachMember(root.tapeIndex) { name, value in
                let member = root.members[k]
                #expect(t.value(name).string == member.key)
                let v = member.value
                #expect(t.kind(value) == v.kind)
                #expect(t.int(value) == v.int)
                #expect(t.double(value).map(\.bitPattern) == v.double.map(\.bitPattern))
                #expect(t.bool(value) == v.bool)
                #expect(t.count(value) == v.count)
                #expect(StringPool.text(t, value, max: 4, pool: nil) == StringPool.text(v, max: 4, pool: nil))
                #expect(StringPool.text(t, value, max: 64, pool: StringPool()) == StringPool.text(v, max: 64, pool: nil))
                names.append(member.key)
                k += 1
            }
            #expect(k == root.count)
            #expect(names == root.members.map(\.key))
        }
        // `member` finds the first copy of a name, as the subscript does.
        doc.withTape { t in
            for (name, expected) in [("a", root["a"]), ("s", root["s"]), ("name", root["name"]), ("body", root["body"])] {
                let found: Int? =
                    switch name {
                    case "a": t.member(root.tapeIndex, "a")
                    case "s": t.member(root.tapeIndex, "s")
                    case "name": t.member(root.tapeIndex, "name")
                    default: t.member(root.tapeIndex, "body")
                    }
                #expect(found == expected?.tapeIndex, "\(name)")
            }
            if let body = t.member(root.tapeIndex, "body") {
                #expect(t.member(body, "size").flatMap(t.int) == 42)
            }
        }
    }
}
