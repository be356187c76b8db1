import Testing
@testable import SiftArchive

/// `SeenNames` holds long names as digests and still tells every name from every other.
@Suite struct SeenNamesTests {
    @Test func shortAndLongNamesAreMembersAsStringsCompare() {
        var set = SeenNames()
        let long = String(repeating: "d", count: 4096) + "/ses_1.jsonl"
        let longToo = String(repeating: "d", count: 4096) + "/ses_2.jsonl"
        let edge = String(repeating: "e", count: SeenNames.heldWhole), pastEdge = edge + "e"
        for name in ["a", "sessions/ses_1.jsonl", long, longToo, edge, pastEdge, "é", long + "é"] {
            #expect(!set.contains(name))
            let added = set.insert(name)
            #expect(added, "\(name.prefix(20))")
            #expect(set.contains(name))
            let again = set.insert(name)
            #expect(!again)
        }
        #expect(set.count == 8)
        #expect(!set.contains(String(repeating: "d", count: 4096) + "/ses_3.jsonl"))
        #expect(!set.contains(String(long.dropLast())))
        // Canonically equivalent names are one name, short or long, as Swift compares strings.
        #expect(set.contains("e\u{301}") && set.contains(long + "e\u{301}"))
        let equivalent = set.insert(long + "e\u{301}")
        #expect(!equivalent)
        // Equivalent forms on either side of the 64 bytes held whole: 63 bytes and `é` (65 in
        // NFC) against the same with `e` and a combining accent (66).
        let near = String(repeating: "n", count: 63)
        let added = set.insert(near + "é")
        #expect(added && set.contains(near + "e\u{301}"))
        let nearShort = String(repeating: "m", count: 61)
        let addedShort = set.insert(nearShort + "e\u{301}")
        #expect(addedShort && set.contains(nearShort + "é"))
    }
}
