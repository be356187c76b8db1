import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

@Suite struct RenderTests {
    func report() -> CorrelationReport {
        let id = RequestID(rid(1))!
        let line = ServerLine(
            file: "api.log", line: 812, ids: [id],
            parsed: ParsedLine(
                format: .platform, ts: 1_795_947_304.79, level: "info", status: 200, durationMs: 38.2,
                message: "=cmd|' /C calc'!A0 \u{1b}[31m | *bold*\nnext"))
        let entry = NetworkEntry(
            input: "x.zip", file: "sessions/s.jsonl", sessionId: "ses_1", seq: 14, line: 15, recordId: "rec_1",
            requestId: rid(1), echoedRequestId: rid(1), method: "POST", url: "https://a/b?c=1,2", statusCode: 200,
            requestStart: 1_795_947_302.2, requestEnd: 1_795_947_302.3, responseStart: 1_795_947_302.4212)
        let c = CorrelatedRequest(
            entry: entry, status: .matched, lines: [PlacedLine(line: line, deviceTs: 1_795_947_302.3)],
            serverMs: 38.2, waitingMs: 121.2, networkMs: 83.0)
        var scan = LogScanResult()
        scan.files = [LogFileSummary(file: "api.log", encoding: "plain", format: .platform, bytes: 100, lines: 3, matchedLines: 1)]
        return CorrelationReport(
            requests: [c], sessions: [],
            serverOnly: ServerOnlyIDs(ids: [RequestID(rid(2))!, RequestID(rid(3))!], withUserId: [RequestID(rid(3))!]),
            serverOnlyTruncated: false,
            clockSkew: ClockSkew(seconds: 2.49, samples: 61, uncertainty: 0.01, outliers: 0), logs: scan,
            withoutRequestId: 0, windowMargin: 60, findings: [])
    }

    @Test func jsonShape() throws {
        let text = CorrelationRender.json(report()).render(pretty: true) + "\n"
        let doc = try JSONDocument(string: text)
        let r = doc.root
        #expect(r["requests"]?.elements.first?["status"]?.string == "matched")
        #expect(r["requests"]?.elements.first?["serverLines"]?.elements.first?["line"]?.int == 812)
        #expect(r["requests"]?.elements.first?["serverLines"]?.elements.first?["durationMs"]?.double == 38.2)
        #expect(r["requests"]?.elements.first?["networkMs"]?.double == 83.0)
        #expect(r["serverOnly", "count"]?.int == 2)
        #expect(r["serverOnly", "withUserId", "requestIds"]?.elements.map { $0.string } == [rid(3)])
        #expect(r["clockSkew", "seconds"]?.double == 2.49)
        #expect(r["clockSkew", "samples"]?.int == 61)
        #expect(r["logs", "filesScanned"]?.int == 1)
        #expect(r["findings"]?.count == 0)
    }

    @Test func csvIsRFC4180AndDefusesFormulas() {
        let csv = CorrelationRender.csv(report())
        let rows = csv.components(separatedBy: "\r\n")
        #expect(rows[0].hasPrefix("sessionId,seq,recordId,requestId"))
        #expect(rows[1].contains("\"https://a/b?c=1,2\""))
        #expect(rows[1].contains("\"'=cmd|' /C calc'!A0"))
    }

    @Test func markdownAndTextEscapeLogText() {
        let md = CorrelationRender.markdown(report())
        #expect(md.contains("\\| \\*bold\\*<br>next"))
        #expect(!md.contains("\u{1b}"))
        let text = CorrelationRender.text(report())
        #expect(!text.contains("\u{1b}"))
        #expect(text.contains("\\x1b[31m"))
        #expect(text.contains("server clock 2.49 s ahead of the device"))
    }

    /// A server time longer than the device's wait is explained, never split into "network 0 ms".
    @Test(arguments: [
        (200 as Int?, "success", "is longer than the wait the device saw"),
        (nil, "failure", "the device stopped waiting after")
    ])
    func serverLongerThanWaitIsExplained(status: Int?, state: String, says: String) {
        var r = report()
        let e = NetworkEntry(
            input: "x.zip", file: "sessions/s.jsonl", sessionId: "ses_1", seq: 14, line: 15, requestId: rid(1),
            method: "GET", url: "https://a/b", statusCode: status, state: state, requestStart: 1_795_947_302.2,
            requestEnd: 1_795_947_302.3, responseStart: 1_795_947_302.4212, responseEnd: 1_795_947_302.45)
        r.requests[0] = CorrelatedRequest(
            entry: e, status: .matched, lines: r.requests[0].lines, serverMs: 300, waitingMs: 121.2, networkMs: 0)
        let text = CorrelationRender.text(r)
        #expect(text.contains("waiting 121.2 ms, server 300.0 ms: "))
        #expect(text.contains(says))
        #expect(!text.contains("network 0.0 ms"))
    }
}
