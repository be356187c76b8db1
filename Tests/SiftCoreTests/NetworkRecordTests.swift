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
        // Escaped in the export: the decoded state is the one judged.
        (#"fail\u0075re"#, nil, true), (#"cancel\u006Ced"#, 200, true), (#"failure\u0020"#, 200, false)
    ]

    @Test func failedIsOneDefinition() throws {
        for c in Self.cases {
            let decoded = try c.state.map { try JSONDocument(string: "{\"s\":\"\($0)\"}").root["s"]?.string }
            #expect(NetworkRecord.failed(state: decoded ?? nil, statusCode: c.status) == c.failed, "\(c)")
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

    @Test func sharedFieldsAreReadOnceAndNumbersMayBeAbsent() throws {
        let id = "req_" + "5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13"
        let line =
            #"{"type":"network","seq":7,"ts":"2026-11-29T10:15:03.000Z","id":"rec_1","method":"GET","method":"POST","#
            + #""url":"https://api.example/v1/orders","requestId":"\#(id)","echoedRequestId":"\#(id)","state":"failure","#
            + #""duration":0.25,"error":{"domain":"NSURLErrorDomain","code":-1001,"description":"The request timed out."}}"#
        let record = Record(line: 9, json: try JSONDocument(bytes: Array(line.utf8)).root)
        let r = NetworkRecord(network: record, input: "in", file: "f", sessionId: "ses_1")
        #expect(r.method == "GET") // the first of a repeated name, as the subscript reads it
        #expect(r.seq == 7 && r.statusCode == nil && r.duration == 0.25 && r.ts != nil)
        #expect(r.error == "The request timed out. (NSURLErrorDomain -1001)")
        #expect(r.requestId == id && r.echoedRequestId == id)
        #expect(r.failed)
        var m = r
        m.statusCode = 503
        m.seq = nil
        m.ts = nil
        #expect(m.statusCode == 503 && m.seq == nil && m.ts == nil && m != r)
    }

    @Test func aPoolKeepsOneCopyOfEachTextAndIsBounded() throws {
        // Where a native string keeps its bytes: one copy, one address.
        func address(_ s: String) -> UInt {
            var t = s
            return t.withUTF8 { UInt(bitPattern: $0.baseAddress) }
        }
        let pool = StringPool(maxEntries: 2, maxBytes: 1 << 20)
        let url = "https://api.example/v1/orders?page=1"
        // Fresh copies each time (a string literal, or a copy of a string, shares its storage already).
        let a = pool.intern(String(decoding: Array(url.utf8), as: UTF8.self))
        let b = pool.intern(String(decoding: Array(url.utf8), as: UTF8.self))
        #expect(a == url && address(a) == address(b))
        #expect(pool.intern("short") == "short")
        _ = pool.intern("https://api.example/v1/second")
        #expect(pool.unpooledBytes == 0)
        // Full: a third text is a copy of its own, counted.
        let third = "https://api.example/v1/third-one"
        let c = pool.intern(String(decoding: Array(third.utf8), as: UTF8.self))
        let d = pool.intern(String(decoding: Array(third.utf8), as: UTF8.self))
        #expect(c == d && address(c) != address(d))
        #expect(pool.unpooledBytes == 2 * StringPool.heapBytes(c))
    }

    /// `internCopy` gives what `intern` gives and leaves the pool as `intern` does, whether the text
    /// comes again in the same storage (another pool's copy) or in a new one, pooled or not.
    @Test func internCopyEndsAsInternDoes() throws {
        let texts = (0..<12).map { "https://api.example/v1/orders/\($0)?page=1" } + ["short", "tiny"]
        // Another pool's copies: each text in one storage, asked for again and again.
        let source = StringPool(maxEntries: 100, maxBytes: 1 << 20)
        let copies = texts.map { t in Array(t.utf8).withUnsafeBufferPointer { source.string($0) } }
        let plain = StringPool(maxEntries: 5, maxBytes: 1 << 20)
        let memo = StringPool(maxEntries: 5, maxBytes: 1 << 20)
        for round in 0..<3 {
            for (k, s) in copies.enumerated() {
                // Every third time a fresh copy of the text, in storage of its own.
                let asked = (k + round) % 3 == 0 ? String(decoding: Array(s.utf8), as: UTF8.self) : s
                let p = plain.intern(asked)
                let m = memo.internCopy(asked)
                #expect(p == m && p == texts[k])
            }
            #expect(plain.unpooledBytes == memo.unpooledBytes, "round \(round)")
        }
        #expect(memo.unpooledBytes > 0)
    }
}
