import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

@Suite struct RequestIDTests {
    @Test func roundTripAndCase() throws {
        let text = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
        let id = try #require(RequestID(text))
        #expect(id.description == text)
        // Uppercase hex is the same UUID (RFC 4122: case-insensitive on input); the text form is lowercase.
        #expect(RequestID("req_8B0E4C2A-6F1D-4E3B-9A57-1C2D3E4F5A6B") == id)
    }

    @Test func nearMissesAreNotIds() {
        #expect(RequestID("req-8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b") == nil)
        #expect(RequestID("8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b") == nil)
        #expect(RequestID("req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6") == nil) // 35 characters
        #expect(RequestID("req_8b0e4c2a6f1d-4e3b-9a57-1c2d3e4f5a6bb") == nil) // dash moved
        #expect(RequestID("req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6g") == nil) // not hex
    }

    @Test func setLookup() {
        let ids = (0..<1000).map { RequestID(rid($0))! }
        let set = RequestIDSet(ids)
        #expect(set.count == 1000)
        #expect(ids.allSatisfy { set.contains($0) })
        #expect(!set.contains(RequestID(rid(5000))!))
        #expect(!RequestIDSet([]).contains(ids[0]))
    }
}

@Suite struct LogTimeTests {
    let base = Timestamp.parse("2026-11-29T10:15:02Z")!

    @Test(arguments: [
        ("2026-11-29T10:15:02.123Z", 0.123),
        ("2026-11-29T10:15:02Z", 0.0),
        ("2026-11-29T10:15:02", 0.0),
        ("2026-11-29T11:15:02.5+01:00", 0.5),
        ("2026-11-29T11:15:02+0100", 0.0),
        ("2026-11-29T09:15:02.25-0100", 0.25),
        ("2026-11-29 10:15:02,123", 0.123),
        ("2026-11-29 10:15:02.123456", 0.123456),
        ("29/Nov/2026:10:15:02 +0000", 0.0),
        ("[29/Nov/2026:11:15:02 +0100]", 0.0),
        ("1795947302", 0.0),
        ("1795947302123", 0.123),
        ("1795947302123456", 0.123456),
        ("1795947302123456789", 0.123456789),
        ("1795947302.5", 0.5)
    ])
    func parses(_ text: String, _ fraction: Double) throws {
        let t = try #require(LogTime.parse(text))
        #expect(abs(t - (base + fraction)) < 1e-5, "\(text) → \(t)")
    }

    @Test func epochByDigitCount() {
        #expect(LogTime.fromEpoch(1795947302) == base)
        #expect(abs(LogTime.fromEpoch(1795947302123.0)! - (base + 0.123)) < 1e-6)
        #expect(LogTime.fromEpoch(12) == nil)
    }

    @Test func findsInLines() {
        func find(_ s: String) -> Double? { Array(s.utf8).withUnsafeBufferPointer { LogTime.find(in: $0.baseAddress!, count: $0.count) } }
        #expect(find("{\"ts\": \"2026-11-29T10:15:02Z\", \"x\": 1}") == base)
        #expect(find("203.0.113.7 - - [29/Nov/2026:10:15:02 +0000] \"GET / HTTP/1.1\" 200") == base)
        #expect(find("{\"time\": 1795947302000, \"msg\": \"x\"}") == base)
        #expect(find("ts=1795947302 level=info") == base)
        #expect(find("no time here") == nil)
    }
}

@Suite struct LineParserTests {
    let id = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
    let t = Timestamp.parse("2026-11-29T10:15:04.790Z")!

    @Test func platformJSON() {
        let p = LineParser.parse(
            "{\"ts\": \"2026-11-29T10:15:04.790Z\", \"level\": \"info\", \"request_id\": \"\(id)\", \"method\": \"POST\", \"path\": \"/v1/auth/token\", \"status\": 200, \"duration_ms\": 38.2, \"user_id\": \"usr_123\", \"env\": \"env_prod_eu\", \"msg\": \"request completed\"}"
        )
        #expect(
            p
                == ParsedLine(
                    format: .platform, ts: t, level: "info", status: 200, durationMs: 38.2, durationUnit: "ms",
                    message: "request completed",
                    method: "POST", path: "/v1/auth/token", fieldIDs: [RequestID(id)!]
                ).with(fields: ["user_id": "usr_123", "env": "env_prod_eu"]))
    }

    @Test func otherJSONNestedAndEpochs() {
        let p = LineParser.parse(
            "{\"@timestamp\": 1795947304790, \"severity\": \"WARN\", \"http\": {\"requestId\": \"\(id)\", \"status_code\": \"503\", \"latency_ms\": 12}, \"message\": \"upstream slow\"}"
        )
        #expect(p.format == .json)
        #expect(abs(p.ts! - t) < 1e-6)
        #expect(p.level == "warn")
        #expect(p.status == 503)
        #expect(p.durationMs == 12)
        #expect(p.message == "upstream slow")
        let q = LineParser.parse(
            "{\"time\": \"2026-11-29T10:15:04.790+00:00\", \"x_request_id\": \"\(id)\", \"request_time\": 0.038, \"msg\": \"done\"}")
        #expect(q.ts == t)
        #expect(abs(q.durationMs! - 38) < 1e-9)
        let r = LineParser.parse("{\"timestamp\": 1795947304790000000, \"req_id\": \"\(id)\", \"elapsed\": \"38ms\"}")
        #expect(abs(r.ts! - t) < 1e-6)
        #expect(r.durationMs == 38)
    }

    @Test func lokiAndElasticsearchExports() {
        let inner =
            "{\\\"ts\\\": \\\"2026-11-29T10:15:04.790Z\\\", \\\"level\\\": \\\"error\\\", \\\"request_id\\\": \\\"\(id)\\\", \\\"status\\\": 500, \\\"duration_ms\\\": 7, \\\"msg\\\": \\\"boom\\\"}"
        let loki = LineParser.parse("{\"labels\": {\"job\": \"api\"}, \"timestamp\": \"2026-11-29T10:15:05Z\", \"line\": \"\(inner)\"}")
        #expect(loki.ts == t)
        #expect(loki.level == "error")
        #expect(loki.status == 500)
        #expect(loki.message == "boom")
        let es = LineParser.parse(
            "{\"_index\": \"logs\", \"_id\": \"1\", \"_source\": {\"@timestamp\": \"2026-11-29T10:15:04.790Z\", \"request_id\": \"\(id)\", \"status\": 201, \"duration_ms\": 3.5, \"msg\": \"created\"}}"
        )
        #expect(es.ts == t)
        #expect(es.status == 201)
        #expect(es.durationMs == 3.5)
        let lokiLogfmt = LineParser.parse(
            "{\"line\": \"ts=2026-11-29T10:15:04.790Z level=info request_id=\(id) status=204 duration_ms=1.5 msg=ok\"}")
        #expect(lokiLogfmt.ts == t)
        #expect(lokiLogfmt.status == 204)
        #expect(lokiLogfmt.message == "ok")
    }

    @Test func byteOrderMarkAndCRLF() {
        let p = LineParser.parse("\u{FEFF}{\"ts\": \"2026-11-29T10:15:04.790Z\", \"request_id\": \"\(id)\", \"status\": 200}\r")
        #expect(p.format == .platform)
        #expect(p.ts == t)
        #expect(p.status == 200)
    }

    @Test func logfmt() {
        let p = LineParser.parse(
            "ts=2026-11-29T10:15:04.790Z level=info request_id=\(id) status=200 duration_ms=38.2 msg=\"request \\\"completed\\\"\"")
        #expect(
            p
                == ParsedLine(
                    format: .logfmt, ts: t, level: "info", status: 200, durationMs: 38.2, durationUnit: "ms",
                    message: "request \"completed\"",
                    fieldIDs: [RequestID(id)!]))
    }

    @Test func accessLog() {
        let p = LineParser.parse(
            "203.0.113.7 - - [29/Nov/2026:10:15:04 +0000] \"POST /v1/auth/token HTTP/1.1\" 200 512 \"-\" \"ios\" \(id) 0.038")
        #expect(p.format.rawValue == "nginx-combined")
        #expect(p.ts == Timestamp.parse("2026-11-29T10:15:04Z"))
        #expect(p.status == 200)
        #expect(abs((p.durationMs ?? 0) - 38) < 1e-9, "\(p)")
        #expect(p.message == "POST /v1/auth/token HTTP/1.1")
        let q = LineParser.parse("10.0.0.1 - - [29/Nov/2026:10:15:04 +0000] \"GET / HTTP/2.0\" 404 0 rt=0.002 rid=\(id)")
        #expect(q.status == 404)
        #expect(abs((q.durationMs ?? 0) - 2) < 1e-9, "\(q)")
    }

    @Test(arguments: [
        "2026-11-29 10:15:04,790 INFO [api] handled \(String("req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b")) in 38ms",
        "2026-11-29T10:15:04.790Z INFO handled req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b",
        "2026-11-29T10:15:04.790+0000 info handled req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b",
        "2026-11-29T10:15:04.790+00:00 [INFO] handled req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b",
        "[2026-11-29 10:15:04.790] INFO: handled req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
    ])
    func plainText(_ line: String) {
        let p = LineParser.parse(line)
        #expect(p.format == (line.contains(",790") ? LogFormat(rawValue: "python-logging") : .plain))
        #expect(abs((p.ts ?? 0) - t) < 1e-6, "\(line)")
        #expect(p.level == "info")
        #expect(p.message?.hasPrefix("handled") == true || p.message?.hasPrefix("[api] handled") == true)
    }
}

extension ParsedLine {
    /// The same line with `fields` set (what the line carries beyond the places read).
    func with(fields: [String: String]) -> ParsedLine {
        var p = self
        p.fields = fields
        return p
    }
}
