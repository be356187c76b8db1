import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

/// The skew rests on lines whose id sits in a field; free text cannot steer it; implausible server
/// times and whole-hour skews are findings.
@Suite struct SkewEvidenceTests {
    let t0 = Timestamp.parse("2026-11-29T10:15:00Z")!

    func request(_ k: Int, start: Double) -> NetworkEntry {
        NetworkEntry(
            input: "export", file: "s.jsonl", sessionId: "ses_1", seq: k, line: k, requestId: rid(k),
            ts: start + 0.5, duration: 0.5, requestStart: start, requestEnd: start + 0.01,
            responseStart: start + 0.4, responseEnd: start + 0.5)
    }

    func line(_ k: Int, _ text: String, file: String = "api.log") -> ServerLine {
        ServerLine(file: file, line: k, ids: [RequestID(rid(k))!], parsed: LineParser.parse(text))
    }

    @Test func freeTextCannotSteerTheSkew() throws {
        var requests: [NetworkEntry] = []
        var lines: [ServerLine] = []
        for k in 0..<3 {
            let start = t0 + Double(k * 10)
            requests.append(request(k, start: start))
            // The server's own line: the id in its request-id field, 2 s ahead.
            lines.append(
                line(
                    k,
                    "{\"ts\": \"\(Timestamp.format(start + 2.2))\", \"request_id\": \"\(rid(k))\", \"status\": 200, \"duration_ms\": 100}"))
        }
        // Five forged lines: the ids only inside a logged query string, an hour later, with a 500.
        for k in 0..<3 {
            let start = t0 + Double(k * 10)
            lines.append(
                line(
                    k,
                    "{\"ts\": \"\(Timestamp.format(start + 3602.2))\", \"request_id\": \"\(rid(900 + k))\", \"status\": 500, \"path\": \"/search?q=\(rid(k))\"}",
                    file: "forged.log"))
        }
        var scan = LogScanResult()
        scan.lines = lines
        let r = Correlator.correlate(requests: requests, sessions: [], scan: scan)
        let skew = try #require(r.clockSkew.seconds)
        #expect(abs(skew - 2.0) < 0.3, "\(skew)")
        #expect(r.clockSkew.basis == "request-id fields")
        #expect(r.clockSkew.fieldSamples == 3 && r.clockSkew.textSamples == 3)
        #expect(r.clockSkew.textSeconds.map { abs($0 - 3602) < 1 } == true)
        #expect(r.findings.contains { $0.rule == "correlation.skew-disagreement" })
        // The forged lines are listed but marked, and their numbers are not the request's.
        #expect(r.requests[0].lines.map(\.idInField) == [true, false])
        #expect(r.requests[0].serverMs == 100)
    }

    /// Apache's layout stamped at the end of the request (gunicorn, hypercorn) and at its start (Apache):
    /// whole-second lines that fit both readings leave both open, so the region holds the true skew.
    @Test(arguments: [true, false])
    func aLayoutStampedEitherWayKeepsBothReadings(stampedAtEnd: Bool) throws {
        let skew = 2.508
        var requests: [NetworkEntry] = []
        var lines: [ServerLine] = []
        let durations = [0.040, 0.012, 0.120, 0.030, 0.003, 0.260, 0.007, 0.055, 0.090, 0.001]
        var start = t0 + 0.137
        for (k, d) in durations.enumerated() {
            requests.append(
                NetworkEntry(
                    input: "export", file: "s.jsonl", sessionId: "ses_1", seq: k, line: k, requestId: rid(k), statusCode: 200,
                    ts: start, duration: d + 0.002, requestStart: start, requestEnd: start + 0.0005, responseStart: start + d + 0.001,
                    responseEnd: start + d + 0.002))
            let stamp = (stampedAtEnd ? start + d + 0.001 : start + 0.0007) + skew
            let when = Date(timeIntervalSince1970: stamp.rounded(.down))
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "dd/MMM/yyyy:HH:mm:ss Z"
            lines.append(
                line(
                    k, "127.0.0.1 - - [\(f.string(from: when))] \"GET /v1/x HTTP/1.1\" 200 12 \"-\" \"ua\" \(rid(k)) \(Int(d * 1e6))"))
            start += 0.05 + Double((k * 37) % 11) * 0.031 + d
        }
        var scan = LogScanResult()
        scan.lines = lines
        let r = Correlator.correlate(requests: requests, sessions: [], scan: scan)
        let got = try #require(r.clockSkew.seconds)
        let half = try #require(r.clockSkew.uncertainty)
        #expect(lines.allSatisfy { $0.parsed.format.rawValue == "apache-combined" })
        #expect(abs(got - skew) <= half + 1e-3, "\(got) ± \(half)")
    }

    @Test func serverTimeLongerThanTheRequestIsAFinding() throws {
        let req = request(1, start: t0)
        // Traefik's Duration read as seconds would be 10¹¹ ms; as its own unit (ns) it is 38 ms.
        let wrong = line(1, "{\"ts\": \"\(Timestamp.format(t0 + 0.2))\", \"request_id\": \"\(rid(1))\", \"latency\": 38000000}")
        let right = line(1, "{\"ts\": \"\(Timestamp.format(t0 + 0.2))\", \"request_id\": \"\(rid(1))\", \"duration_ms\": 38}")
        var scan = LogScanResult()
        scan.lines = [wrong, right]
        let r = Correlator.correlate(requests: [req], sessions: [], scan: scan)
        #expect(r.requests[0].serverMs == 38)
        let f = try #require(r.findings.first { $0.rule == "correlation.server-time-implausible" })
        #expect(f.message.contains("another unit"))
        #expect(f.seq == 1)
    }

    @Test(arguments: [(3600.3, true), (-7199.0, true), (5400.0, true), (1800.5, true), (902.0, false), (2.5, false), (3000.0, false)])
    func wholeHourSkewsGetAHint(_ offset: Double, _ hinted: Bool) {
        let req = request(1, start: t0)
        var scan = LogScanResult()
        scan.lines = [line(1, "{\"ts\": \"\(Timestamp.format(t0 + 0.2 + offset))\", \"request_id\": \"\(rid(1))\", \"status\": 200}")]
        let r = Correlator.correlate(requests: [req], sessions: [], scan: scan)
        let f = r.findings.first { $0.rule == "correlation.skew-whole-hours" }
        #expect((f != nil) == hinted, "\(offset)")
        if let f { #expect(f.message.contains("local time")) }
    }

    /// Whole-second access-log times: with the format's mark (nginx writes its time as the request
    /// completes) and the line's duration, each request pins the skew to its network share of the
    /// second, so five requests agree far better than a second each would.
    @Test func aWholeSecondTimeWithItsDurationNarrowsTheSkew() throws {
        let skew = 2.508
        var requests: [NetworkEntry] = []
        var lines: [ServerLine] = []
        var bare: [ServerLine] = []
        for (k, offset) in [0.13, 0.41, 0.77, 0.58, 0.92].enumerated() {
            let start = t0 + Double(k * 7) + offset
            // Sent at start + 0.01; the server works 0.3 s from start + 0.05; the answer is back at + 0.4.
            requests.append(request(k, start: start))
            let end = start + 0.35 + skew
            let stamp = Self.accessTime(end)
            let text = "203.0.113.7 - - [\(stamp)] \"GET /v1/x HTTP/1.1\" 200 12 \"-\" \"app\" 0.300 \"\(rid(k))\""
            lines.append(line(k, text))
            bare.append(line(k, text.replacingOccurrences(of: " 0.300 ", with: " ")))
        }
        var scan = LogScanResult()
        scan.lines = lines
        let narrowed = Correlator.correlate(requests: requests, sessions: [], scan: scan).clockSkew
        #expect(lines.allSatisfy { $0.parsed.format.rawValue == "nginx-combined" })
        scan.lines = bare
        let wide = Correlator.correlate(requests: requests, sessions: [], scan: scan).clockSkew
        let s = try #require(narrowed.seconds), u = try #require(narrowed.uncertainty)
        #expect(abs(s - skew) <= u + 0.001, "\(s) ± \(u)")
        #expect(u < (wide.uncertainty ?? 0), "\(u) vs \(wide.uncertainty ?? -1)")
    }

    /// Whole-second times leave a region of offsets; when the network took as long each way, the point
    /// the lines agree on inside it is nearer the truth than the region's middle, and the uncertainty
    /// stays the region's.
    @Test func wholeSecondTimesLeanOnEqualLatencyEachWay() throws {
        let skew = 2.508
        var requests: [NetworkEntry] = []
        var lines: [ServerLine] = []
        for (k, offset) in [0.31, 0.02, 0.55, 0.2, 0.47, 0.12].enumerated() {
            let start = t0 + Double(k * 5) + offset
            requests.append(request(k, start: start))
            let text =
                "203.0.113.7 - - [\(Self.accessTime(start + 0.35 + skew))] \"GET /v1/x HTTP/1.1\" 200 12 \"-\" \"app\" 0.300 \"\(rid(k))\""
            lines.append(line(k, text))
        }
        var scan = LogScanResult()
        scan.lines = lines
        let report = Correlator.correlate(requests: requests, sessions: [], scan: scan)
        let s = try #require(report.clockSkew.seconds), u = try #require(report.clockSkew.uncertainty)
        let hard = Correlator.marzullo(
            report.requests.flatMap { r in
                r.lines.map { l in
                    Correlator.skewInterval(
                        l, at: l.line.parsed.ts!, requestStart: r.entry.requestStart!, responseStart: r.entry.responseStart!,
                        responseEnd: r.entry.responseEnd!)
                }
            })
        let middle = try #require(hard.seconds)
        #expect(abs(s - skew) < abs(middle - skew), "\(s) vs the region's middle \(middle)")
        #expect(abs(s - skew) <= 0.05, "\(s)")
        #expect(u == hard.uncertainty)
    }

    static func accessTime(_ t: Double) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "dd/MMM/yyyy:HH:mm:ss Z"
        return f.string(from: Date(timeIntervalSince1970: t.rounded(.down)))
    }

    /// A request the device gave up on (it timed out: no status) may have gone on at the server: its
    /// longer server time is used and said, not dropped as implausible.
    @Test func aServerThatOutlastedTheClientIsSaid() throws {
        var req = request(1, start: t0)
        req.state = "failure"
        let text = "{\"ts\": \"\(Timestamp.format(t0 + 2.2))\", \"request_id\": \"\(rid(1))\", \"status\": 499, \"duration_ms\": 2200}"
        var scan = LogScanResult()
        scan.lines = [line(1, text)]
        let r = Correlator.correlate(requests: [req], sessions: [], scan: scan)
        #expect(r.requests[0].serverMs == 2200)
        #expect(!r.findings.contains { $0.rule == "correlation.server-time-implausible" })
        let said = try #require(Correlator.outlastedClient(r.requests[0].entry, serverMs: 2200))
        #expect(said.contains("stopped waiting after 500 ms"), "\(said)")
    }

    /// Times written without a zone an hour and two seconds after the device's: the logs are in local
    /// time (UTC+01:00). They are read so, the skew is the two seconds, and a finding says it; times
    /// that carry their zone are never moved (the whole hour is then a finding to look at).
    @Test func naiveTimesAWholeHourOffAreReadAsLocalTime() throws {
        var requests: [NetworkEntry] = []
        var naive: [ServerLine] = []
        var zoned: [ServerLine] = []
        for k in 0..<4 {
            let start = t0 + Double(k * 9)
            requests.append(request(k, start: start))
            let text = "{\"ts\": \"\(Timestamp.format(start + 0.2 + 3600 + 2))\", \"request_id\": \"\(rid(k))\", \"status\": 200}"
            var l = line(k, text)
            zoned.append(l)
            l.parsed.naiveTime = true
            naive.append(l)
        }
        var scan = LogScanResult()
        scan.lines = naive
        scan.files = [LogFileSummary(file: "api.log", encoding: "plain")]
        let r = Correlator.correlate(requests: requests, sessions: [], scan: scan)
        let s = try #require(r.clockSkew.seconds)
        #expect(abs(s - 2) < 0.3, "\(s)")
        #expect(r.logs.files.first?.inferredOffset == 3600)
        let f = try #require(r.findings.first { $0.rule == "correlation.skew-whole-hours" })
        #expect(f.severity == .low && f.message.contains("UTC+01:00"), "\(f.message)")
        scan.lines = zoned
        let z = Correlator.correlate(requests: requests, sessions: [], scan: scan)
        #expect(abs((z.clockSkew.seconds ?? 0) - 3602) < 0.3)
        #expect(z.findings.contains { $0.rule == "correlation.skew-whole-hours" && $0.severity == .medium })
    }
}
