import Foundation
import Testing
import SiftCore
import SiftVerify
@testable import SiftCLI

/// The timeline around failures holds what it shows, not whole records: a 1 MiB record costs a few KiB.
@Suite struct FailureTimelineBoundTests {
    func record(_ json: String) throws -> Record { Record(line: 7, json: try JSONDocument(string: json).root) }

    @Test func bigRecordsAreKeptSlim() throws {
        let big = String(repeating: "x", count: 1 << 20)
        let r = try record(#"{"type":"network","seq":3,"ts":"2026-11-29T10:15:02.000Z","id":"rec_3","method":"POST","url":"https://a.test/v1/orders","state":"failure","statusCode":503,"error":{"description":"\#(big)"},"response":{"body":{"encoding":"utf8","text":"\#(big)","size":1048576}}}"#)
        let slim = FailureTimeline.slim(r)
        #expect(slim.json.doc.bytes.count < 4096)
        #expect(slim.line == 7 && slim.seq == 3 && slim.type == .network && slim.id == "rec_3")
        #expect(slim.json["statusCode"]?.int == 503)
        #expect(slim.json["error", "description"]?.string?.count == 1024)
        #expect(FailureTimeline.isFailure(slim))
        #expect(SupportReport.summary(of: r, redactor: .verify()).hasPrefix(SupportReport.summary(of: slim, redactor: .verify()).dropLast(1)))
    }

    @Test func smallRecordsAreKeptAsTheyAre() throws {
        let r = try record(#"{"type":"log","seq":1,"ts":"2026-11-29T10:15:02.000Z","level":"error","message":"m"}"#)
        #expect(FailureTimeline.slim(r).json.doc === r.json.doc)
    }
}
