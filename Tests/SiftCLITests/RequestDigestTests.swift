import Foundation
import Testing
@testable import SiftReport
@_spi(Testing) import SiftCore
import SiftTestSupport
import SiftWaterfall

/// `report` in a format without the waterfall document takes the requests it shows as each session
/// ends (`RequestDigest`) and holds no session: what it takes is what `SupportReport` reads from
/// every session held to the end, for one session and for many, and the report says the same.
@Suite struct RequestDigestTests {
    /// `sessions` session files: requests of three hosts, new and reused connections, failures,
    /// pending ones, equal durations (ties broken by seq, then in record order), an empty session.
    static func export(sessions: Range<Int>, requests: Int) throws -> URL {
        let dir = Scratch.directory("request-digest")
        let folder = dir.appendingPathComponent("sessions")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func ts(_ ms: Int) -> String {
            String(format: "2026-11-29T12:%02d:%02d.%03dZ", (ms / 60_000) % 60, (ms / 1000) % 60, ms % 1000)
        }
        for s in sessions {
            let id = String(format: "ses_%08d-3b8d-4c52-9a41-0d6e2f7b9c13", s)
            var lines = [#"{"type":"session","seq":0,"ts":"\#(ts(0))","formatVersion":1,"sessionId":"\#(id)","launchedAt":"\#(ts(0))"}"#]
            let n = s == 1 ? 0 : (s * 7) % (requests + 1)
            for i in 0..<n {
                let at = 100 + 50 * i
                let k = s * 31 + i
                let dur = [120, 480, 120, 2300, 75, 480][k % 6] + (k % 4 == 0 ? 0 : k % 13)
                let state = k % 19 == 3 ? "pending" : (k % 7 == 2 ? "failure" : "success")
                let status = state == "success" ? (k % 11 == 4 ? 503 : 200) : nil
                let fresh = k % 3 == 0
                let tx =
                    fresh
                    ? #"{"fetchStart":"\#(ts(at))","domainLookupStart":"\#(ts(at + 1))","domainLookupEnd":"\#(ts(at + 5))","connectStart":"\#(ts(at + 5))","secureConnectionStart":"\#(ts(at + 9))","connectEnd":"\#(ts(at + 20))","requestStart":"\#(ts(at + 21))","responseStart":"\#(ts(at + dur - 10))","responseEnd":"\#(ts(at + dur))"}"#
                    : #"{"fetchStart":"\#(ts(at))","requestStart":"\#(ts(at + 1))","responseStart":"\#(ts(at + dur - 5))","responseEnd":"\#(ts(at + dur))"}"#
                var r = #"{"type":"network","seq":\#(i + 1),"ts":"\#(ts(at + dur))","id":"rec_\#(s)_\#(i)","kind":"http","method":"GET","#
                r += #""url":"https://api\#(k % 3).palbase.studio/v1/items/\#(i)","state":"\#(state)","#
                if state != "pending" { r += #""duration":\#(Double(dur) / 1000),"# }
                if let status { r += #""statusCode":\#(status),"# }
                r +=
                    #""requestId":"req_\#(s)_\#(i)","metrics":{"taskStart":"\#(ts(at))","taskEnd":"\#(ts(at + dur))","transactions":[\#(tx)]}}"#
                lines.append(r)
            }
            try (lines.joined(separator: "\n") + "\n").write(
                to: folder.appendingPathComponent(id + ".jsonl"), atomically: true, encoding: .utf8)
        }
        return dir
    }

    static func check(_ dir: URL, slowest: Int) {
        let held = WaterfallAnalysis()
        let digest = RequestDigest(slowest: slowest)
        let streamed = WaterfallAnalysis(sessionsTo: { digest.add($0) })
        _ = ExportReader().read(inputs: [dir.path], analyses: [held, streamed])
        #expect(streamed.sessions.isEmpty)
        let report = WaterfallReport(sessions: held.takeSessions(), findings: [], redactor: Redactor.identity())
        let expected = SupportReport.requests(of: report, slowest: slowest)
        #expect(expected.failedCount > 0)
        #expect(digest.failedCount == expected.failedCount)
        #expect(digest.failed.map(\.ref) == expected.failed.map(\.ref))
        #expect(digest.slowestFailed?.ref == expected.slowestFailed?.ref)
        #expect(digest.slowRequests.map(\.ref) == expected.slow.map(\.ref))
        #expect(digest.slowRequests.count == min(slowest, expected.slow.count))
        let ids = digest.sessionIds
        #expect((digest.manyIds || ids.dropFirst().contains { $0 != ids[0] }) == expected.otherSession)
        let stats = WaterfallSummary.hostStats(report.sessions, hosts: Set(digest.hosts.keys))
        #expect(stats.count == digest.hosts.count && !stats.isEmpty)
        for (h, c) in stats {
            #expect(digest.hosts[h]?.requests == c.requests && digest.hosts[h]?.opened == c.opened, "\(h)")
        }
    }

    /// One session of many requests (session 5 holds 35), many sessions (session 1 holds none).
    @Test(arguments: [(5..<6, 40, 5), (5..<6, 40, 0), (0..<60, 25, 5), (0..<60, 25, 1000), (0..<300, 9, 3)])
    func takesWhatTheHeldSessionsShow(_ sessions: Range<Int>, _ requests: Int, _ slowest: Int) throws {
        let dir = try Self.export(sessions: sessions, requests: requests)
        defer { try? FileManager.default.removeItem(at: dir) }
        Self.check(dir, slowest: slowest)
    }

    /// End to end: the text report (requests taken as the sessions end) says what the JSON report
    /// (every session held) says, verdict line for verdict line.
    @Test func theTextReportSaysWhatTheJSONReportSays() throws {
        let dir = try Self.export(sessions: 0..<40, requests: 25)
        defer { try? FileManager.default.removeItem(at: dir) }
        for slowest in ["0", "5"] {
            let text = runCLI(["report", "--slowest", slowest, dir.path])
            let json = runCLI(["report", "--slowest", slowest, "--json", dir.path])
            #expect(text.status == json.status)
            let verdict = try JSONDocument(string: json.out).root["verdict"]?.elements ?? []
            #expect(verdict.count >= 4)
            for v in verdict {
                let line = v["text"]?.string ?? "?"
                #expect(text.out.contains(line), "\(line)")
            }
        }
    }
}
