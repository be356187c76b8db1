import Testing
@testable import SiftCore

/// Entry names are held and shown whole up to 512 bytes, longer ones cut in the middle on whole
/// characters, keeping the leaf.
@Suite struct HeldNameTests {
    @Test func longNamesAreCutInTheMiddle() {
        let short = "PalbeConsole/sessions/ses_1.jsonl"
        #expect(SessionContext.heldName(short) == short)
        let edge = String(repeating: "a", count: SessionContext.heldNameBytes)
        #expect(SessionContext.heldName(edge) == edge)
        for filler in ["d", "é", "€", "😀"] {
            let name = "PalbeConsole/" + String(repeating: filler, count: 3000) + "/sessions/ses_0123.jsonl"
            let held = SessionContext.heldName(name)
            #expect(held.utf8.count <= SessionContext.heldNameBytes + 1)
            #expect(held.hasPrefix("PalbeConsole/") && held.hasSuffix("/sessions/ses_0123.jsonl") && held.contains("…"))
            #expect(!held.unicodeScalars.contains("\u{FFFD}"))
        }
    }
}
