import Foundation
import Testing
import SiftCore
@testable import SiftReport
import SiftVerify
@testable import SiftCLI

/// The timeline around failures holds what it shows, not whole records: a 1 MiB record costs a few KiB.
@Suite struct FailureTimelineBoundTests {
    func record(_ json: String) throws -> Record { Record(line: 7, json: try JSONDocument(string: json).root) }

    @Test func bigRecordsAreKeptSlim() throws {
        let big = String(repeating: "x", count: 1 << 20)
        let r = try record(
            #"{"type":"network","seq":3,"ts":"2026-11-29T10:15:02.000Z","id":"rec_3","method":"POST","url":"https://a.test/v1/orders","state":"failure","statusCode":503,"error":{"description":"\#(big)"},"response":{"body":{"encoding":"utf8","text":"\#(big)","size":1048576}}}"#
        )
        let slim = FailureTimeline.slim(r)
        #expect(slim.json.doc.bytes.count < 4096)
        #expect(slim.line == 7 && slim.seq == 3 && slim.type == .network && slim.id == "rec_3")
        #expect(slim.json["statusCode"]?.int == 503)
        #expect(slim.json["error", "description"]?.string == "…(1048576 bytes cut)")
        #expect(NetworkRecord.failed(slim))
    }

    /// A credential straddling the 1 KiB cut is dropped whole: `report` shows no 8-character piece of it.
    @Test func aTokenStraddlingTheCutLeavesNoPiece() throws {
        let token = VerifyBypassTests.token(77)
        // The cut at 1 KiB falls 11 characters into the token, which `id:` glues to the word before it.
        let description = String(repeating: "word ", count: 202) + "id:" + token + " " + String(repeating: "z", count: 1500)
        let fail =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"GET","url":"https://api.example.test/v1/orders","state":"failure","statusCode":503,"duration":0.1,"error":{"description":"\#(description)"}}"#
        let log = #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.000Z","level":"error","label":"checkout","message":"m"}"#
        let path = try Fixture.write([Fixture.header(), fail, log])
        for format in ["text", "markdown", "json"] {
            let r = runCLI(["report", "-f", format, path, "--fail-on", "never"])
            let out = r.out + r.err
            #expect(out.contains("word word"), "\(format): the failure is shown")
            let chars = Array(token)
            let leaked = (0...(chars.count - 8)).map { String(chars[$0..<($0 + 8)]) }.filter { out.contains($0) }
            #expect(leaked.isEmpty, "\(format): \(leaked.count) pieces of the token shown")
        }
        #expect(FailureTimeline.cutText(String(repeating: "a", count: 1000) + "&" + token) == String(repeating: "a", count: 1000))
    }

    @Test func smallRecordsAreKeptAsTheyAre() throws {
        let r = try record(#"{"type":"log","seq":1,"ts":"2026-11-29T10:15:02.000Z","level":"error","message":"m"}"#)
        #expect(FailureTimeline.slim(r).json.doc === r.json.doc)
    }
}
