import Foundation
import Testing
@testable import SiftCore

/// The one definition of a failed request, as a table: every view of a network record (waterfall,
/// correlate, show, report's failure timeline) answers from it.
@Suite struct NetworkRecordTests {
    static let cases: [(state: String?, status: Int?, failed: Bool)] = [
        ("success", 200, false), ("success", 304, false), ("success", 404, true), ("success", 503, true),
        ("failure", nil, true), ("cancelled", nil, true), ("pending", nil, false), (nil, nil, false),
        (nil, 500, true), ("failure", 200, true), ("weird", 399, false),
    ]

    @Test func failedIsOneDefinition() throws {
        for c in Self.cases {
            #expect(NetworkRecord.failed(state: c.state, statusCode: c.status) == c.failed, "\(c)")
            var fields = [#""type":"network""#, #""seq":3"#, #""ts":"2026-11-29T10:15:03.000Z""#]
            if let s = c.state { fields.append(#""state":"\#(s)""#) }
            if let n = c.status { fields.append(#""statusCode":\#(n)"#) }
            let record = Record(line: 4, json: try JSONDocument(bytes: Array("{\(fields.joined(separator: ","))}".utf8)).root)
            #expect(NetworkRecord.failed(record) == c.failed, "\(c)")
            let session = SessionContext(input: InputContext(path: "in.zip"), file: "sessions/a.jsonl", root: "", blobsAvailable: false)
            let view = try #require(NetworkRecord(record, in: session))
            #expect(view.failed == c.failed)
            #expect(view.ref == RecordRef(input: "in.zip", file: "sessions/a.jsonl", line: 4))
        }
    }

    @Test func onlyNetworkRecordsHaveTheView() throws {
        let record = Record(line: 2, json: try JSONDocument(bytes: Array(#"{"type":"log","statusCode":500}"#.utf8)).root)
        let session = SessionContext(input: InputContext(path: "-"), file: "-", root: "", blobsAvailable: false)
        #expect(NetworkRecord(record, in: session) == nil)
        #expect(!NetworkRecord.failed(record))
    }
}
