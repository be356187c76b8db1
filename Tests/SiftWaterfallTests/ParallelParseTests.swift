import Foundation
import SiftCore
import SiftTestSupport
import Testing
@testable import SiftWaterfall
import SiftVerify

/// Network records are parsed on the worker threads and filed in order: the requests, their
/// findings and every output are those of one thread reading them one after the other.
@Suite struct ParallelParseTests {
    /// A folder of session files: many requests (more batches than workers, several rounds),
    /// pending ones finished later or never, failures, clock anomalies, a header that comes after
    /// a network record, and a session without a header.
    static func export() throws -> URL {
        let dir = Scratch.directory("parallel-parse")
        let folder = dir.appendingPathComponent("sessions")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (s, n) in [(0, 1500), (1, 7), (2, 700), (3, 0)] {
            let id = "ses_0000000\(s)-3b8d-4c52-9a41-0d6e2f7b9c13"
            var lines: [String] = []
            if s != 2 { lines.append(Fx.header(launchMs: Double(s), sessionId: id)) }
            for i in 0..<n {
                let at = Double(40 * i)
                let pending = i % 17 == 5
                let line = Fx.network(
                    seq: i + 1, id: "rec_\(s)_\(i % 400)", url: "https://api\(i % 3).palbase.studio/v1/items/\(i % 50)?page=\(i)",
                    durationMs: pending ? nil : Double(20 + i % 300), endMs: at + 1000,
                    txs: [i % 3 == 0 ? Fx.newConnection(at: at) : Fx.reused(at: at, wait: 12, dl: 3)],
                    taskStartMs: at, taskEndMs: i % 29 == 0 ? at - 5 : at + 19,
                    kind: i % 23 == 0 ? "custom" : "http", state: pending ? "pending" : (i % 11 == 0 ? "failure" : "success"),
                    status: i % 11 == 0 || pending ? nil : 200, label: "items.list.page.\(i % 9)",
                    requestId: "req_\(s)-\(i)")
                lines.append(line)
                if s == 2 && i == 10 { lines.append(Fx.header(launchMs: 3, sessionId: id)) }
            }
            try (lines.joined(separator: "\n") + "\n").write(
                to: folder.appendingPathComponent(id + ".jsonl"), atomically: true, encoding: .utf8)
        }
        return dir
    }

    static func read(_ dir: URL, parallel: Bool) -> (json: String, findings: [String]) {
        let analysis = WaterfallAnalysis(parallel: parallel)
        let outcome = ExportReader().read(inputs: [dir.path], analyses: [analysis])
        let findings = outcome.findings.filter { $0.rule.hasPrefix("waterfall.") }
        let report = WaterfallReport(sessions: analysis.takeSessions(), findings: findings, redactor: .verify())
        return (WaterfallRender.json(report), findings.map { "\($0.rule) \($0.sessionId ?? "-") \($0.line ?? 0) \($0.message)" })
    }

    @Test func parsedOnTheWorkersAsOnTheReadersThread() throws {
        let dir = try Self.export()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serial = Self.read(dir, parallel: false)
        let parallel = Self.read(dir, parallel: true)
        #expect(serial.json.contains("\"requests\""))
        #expect(serial.findings.count > 100)
        #expect(parallel.findings == serial.findings)
        #expect(parallel.json == serial.json)
    }

    /// The summary is made a window of sessions at a time (`Options.window`): the same summary
    /// whatever the window, one session at a time or every session at once.
    @Test func theSummaryIsTheSameForAnyWindow() throws {
        let dir = try Self.export()
        defer { try? FileManager.default.removeItem(at: dir) }
        let analysis = WaterfallAnalysis()
        _ = ExportReader().read(inputs: [dir.path], analyses: [analysis])
        let sessions = analysis.takeSessions()
        func summary(_ window: Int) -> String {
            var o = WaterfallSummary.Options()
            o.window = window
            return WaterfallRender.summaryJSON(WaterfallSummary(sessions: sessions, options: o)).render(pretty: true)
        }
        let whole = summary(1 << 40)
        #expect(whole.contains("\"endpoints\""))
        for w in [1, 700, 1500, 2200, WaterfallSummary.Options().window] { #expect(summary(w) == whole, "window \(w)") }
    }
}
