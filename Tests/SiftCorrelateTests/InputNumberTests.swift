import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

/// Every conversion of a number read from a log line is checked or clamped: one row per place.
@Suite struct InputNumberTests {
    let id = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"

    @Test(arguments: [1e19, 1e28, 1e300, -1e20, Double.infinity, -Double.infinity, Double.nan, Timestamp.maxSeconds])
    func formatNeverTraps(_ t: Double) {
        #expect(Timestamp.format(t) == "")
        #expect(Timestamp.format(t, micro: true) == "")
    }

    @Test func formatEdgesOfTheRange() {
        #expect(Timestamp.format(Timestamp.maxSeconds - 1) == "9999-12-31T23:59:59.000Z")
        #expect(Timestamp.format(Timestamp.minSeconds) == "0000-01-01T00:00:00.000Z")
    }

    /// (JSON `ts` text, whether a time is read)
    @Test(arguments: [
        ("1e28", false), ("1e19", true), ("9999999999999999999", true), ("99999999999999999999", false), ("1e20", false), ("1e308", false),
        ("-1795947302", false), ("12", false), ("1795947302.5", true), ("17959473020000000000000000000", false)
    ])
    func epochNumbersInJSON(_ number: String, _ read: Bool) {
        let p = LineParser.parse("{\"ts\": \(number), \"request_id\": \"\(id)\", \"msg\": \"x\"}")
        #expect((p.ts != nil) == read, "\(number) → \(String(describing: p.ts))")
        if let t = p.ts { #expect(Timestamp.inRange(t)) }
    }

    /// (key, value, milliseconds or nil)
    @Test(
        arguments: [
            ("duration_ms", "1e308", nil), ("latency", "1e306", nil), ("duration_ms", "-5", nil),
            ("duration_ms", "1e12", 1e12), ("duration_ms", "1.5", 1.5), ("latency", "\"1e400ms\"", nil),
            ("duration_ns", "1e19", nil), ("duration_ns", "1e18", 1e12), ("duration_ns", "38000000", 38)
        ] as [(String, String, Double?)])
    func durations(_ key: String, _ value: String, _ ms: Double?) {
        let p = LineParser.parse("{\"ts\": \"2026-11-29T10:15:04Z\", \"request_id\": \"\(id)\", \"\(key)\": \(value)}")
        #expect(p.durationMs == ms, "\(key)=\(value) → \(String(describing: p.durationMs))")
    }

    @Test(arguments: ["1e20", "-200", "200.5", "9223372036854775808", "\"99999999999999999999\""])
    func statusesOutOfRange(_ value: String) {
        let p = LineParser.parse("{\"ts\": \"2026-11-29T10:15:04Z\", \"request_id\": \"\(id)\", \"status\": \(value)}")
        #expect(p.status == nil)
    }

    /// Numbers in the places the format catalogue reads: sums, spans, forced units, numeric levels.
    @Test(arguments: [
        // ALB's three processing times, summed.
        "https 2026-11-29T10:15:04.790123Z app/x 203.0.113.7:1 10.0.0.1:80 1e308 1e308 1e308 200 200 1 1 \"GET https://h/ HTTP/1.1\" \"ua\" c p arn \"-\" \"h\" \"-\" 0 2026-11-29T10:15:04Z \"forward\" \"-\" \"-\" \"-\" \"200\" \"-\" \"-\" \"ID\"",
        // Cloudflare's span of two epoch numbers past any date.
        "{\"EdgeStartTimestamp\": 1e300, \"EdgeEndTimestamp\": 1e308, \"EdgeResponseStatus\": 200, \"RequestHeaders\": {\"x-request-id\": \"ID\"}}",
        // OTLP's nanoseconds as a string of 40 digits.
        "{\"timeUnixNano\": \"9999999999999999999999999999999999999999\", \"attributes\": [{\"key\": \"request_id\", \"value\": {\"stringValue\": \"ID\"}}]}",
        // pino's milliseconds, Traefik's nanoseconds, a numeric level past the table.
        "{\"level\": 1e300, \"time\": 1e300, \"req\": {\"id\": \"ID\"}, \"res\": {\"statusCode\": 1e300}, \"responseTime\": 1e300}",
        "{\"DownstreamStatus\": 200, \"Duration\": 1e308, \"StartUTC\": \"2026-11-29T10:15:04Z\", \"request_X-Request-Id\": \"ID\"}",
        // Heroku's service time with a unit, huge.
        "2026-11-29T10:15:04Z heroku[router]: at=info method=GET path=/ request_id=ID service=1e400ms status=200",
        // Apache's %D in microseconds, past Int.
        "203.0.113.7 - - [29/Nov/2026:10:15:04 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\" ID 99999999999999999999999"
    ])
    func catalogueNumbersNeverTrap(_ template: String) {
        let p = LineParser.parse(template.replacingOccurrences(of: "ID", with: id))
        if let t = p.ts { #expect(Timestamp.inRange(t)) }
        if let d = p.durationMs { #expect(d.isFinite && d >= 0 && d <= LineParser.maxDurationMs) }
        if let s = p.status { #expect((100...599).contains(s)) }
        _ = p.ts.map { Timestamp.format($0, micro: true) }
    }

    @Test func hugeTimesInTextShapes() {
        // Digits past what an epoch holds, in logfmt and in a plain line: no time, no trap.
        let digits = String(repeating: "9", count: 40)
        #expect(LineParser.parse("ts=\(digits) request_id=\(id) status=200").ts == nil)
        #expect(LineParser.parse("\(digits) INFO \(id)").ts == nil)
        #expect(LogTime.parse("9999-12-31T23:59:60+23:59") != nil)
    }
}

/// A logged message is text the app was handed: JSON inside it never outranks the line's own fields.
@Suite struct FieldPrecedenceTests {
    let id = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
    let t = Timestamp.parse("2026-11-29T10:15:04.790Z")!

    @Test(arguments: ["msg", "message", "event"])
    func wrapperWinsOverItsMessage(_ key: String) {
        let forged =
            "{\\\"ts\\\": 1e28, \\\"status\\\": 500, \\\"duration_ms\\\": 99999, \\\"level\\\": \\\"error\\\", \\\"msg\\\": \\\"forged\\\"}"
        // The message before and after the line's own fields: key order does not matter.
        let before =
            "{\"\(key)\": \"\(forged)\", \"ts\": \"2026-11-29T10:15:04.790Z\", \"level\": \"info\", \"request_id\": \"\(id)\", \"status\": 200, \"duration_ms\": 38}"
        let after =
            "{\"ts\": \"2026-11-29T10:15:04.790Z\", \"level\": \"info\", \"request_id\": \"\(id)\", \"status\": 200, \"duration_ms\": 38, \"\(key)\": \"\(forged)\"}"
        for line in [before, after] {
            let p = LineParser.parse(line)
            #expect(p.ts == t, "\(line)")
            #expect(p.status == 200)
            #expect(p.durationMs == 38)
            #expect(p.level == "info")
        }
    }

    @Test func messageFillsOnlyGaps() {
        let p = LineParser.parse(
            "{\"ts\": \"2026-11-29T10:15:04.790Z\", \"request_id\": \"\(id)\", \"msg\": \"{\\\"status\\\": 503, \\\"ts\\\": \\\"2020-01-01T00:00:00Z\\\"}\"}"
        )
        #expect(p.ts == t)
        #expect(p.status == 503)
    }

    @Test func shipperEnvelopeCarriesTheOriginalLine() {
        // Loki's `line`: the string is the server's own line; its time beats the shipper's read time.
        let inner =
            "{\\\"ts\\\": \\\"2026-11-29T10:15:04.790Z\\\", \\\"request_id\\\": \\\"\(id)\\\", \\\"status\\\": 500, \\\"msg\\\": \\\"{\\\\\\\"status\\\\\\\": 201}\\\"}"
        let p = LineParser.parse("{\"timestamp\": \"2026-11-29T10:15:05Z\", \"line\": \"\(inner)\"}")
        #expect(p.ts == t)
        #expect(p.status == 500)
    }
}
