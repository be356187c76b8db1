import Foundation
import SiftCore
import Testing
import SiftWaterfall
import SiftVerify

/// A report redacts and writes its requests in pieces on every core: the bytes must be those of
/// one request after the other.
@Suite struct ParallelRenderTests {
    /// Sessions of many requests (more than one piece, more than one round), some holding a
    /// credential in the URL, the request id or the error.
    static func sessions() throws -> [WaterfallSession] {
        let jwt = ["eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiJ1c2VyLTQyIn0", "c2lnLXZhbHVlLWZvci10ZXN0"].joined(separator: ".")
        let c = WaterfallCollector()
        for (s, n) in [(0, 4100), (1, 200), (2, 3)] {
            c.beginSession(input: "export.zip", file: "sessions/s\(s).jsonl", sessionId: nil)
            c.add(try Fx.record(1, Fx.header(sessionId: "ses_\(s)")))
            for i in 0..<n {
                let url =
                    i % 7 == 0
                    ? "https://api.palbase.studio/v1/items/\(i % 50)?token=\(jwt)" : "https://api.palbase.studio/v1/items/\(i % 50)"
                let line = Fx.network(
                    seq: i + 1, id: "rec_\(s)_\(i)", url: url, durationMs: Double(20 + i % 300), endMs: Double(1000 + 40 * i),
                    txs: [i % 3 == 0 ? Fx.newConnection(at: Double(40 * i)) : Fx.reused(at: Double(40 * i), wait: 12, dl: 3)],
                    taskStartMs: Double(40 * i), taskEndMs: Double(40 * i + 19),
                    state: i % 11 == 0 ? "failure" : "success", status: i % 11 == 0 ? nil : 200,
                    requestId: i % 13 == 0 ? "req_\(jwt)" : "req_\(s)-\(i)",
                    extra: i % 11 == 0 ? #","error":{"description":"Bearer "# + jwt + #" rejected"}"# : "")
                c.add(try Fx.record(i + 2, line))
            }
            c.endSession(sessionId: nil, launchedAt: nil)
        }
        _ = c.finish()
        return c.sessions
    }

    @Test func redactedAndWrittenAsOneRequestAfterTheOther() throws {
        let raw = try ParallelRenderTests.sessions()
        let report = WaterfallReport(sessions: raw, findings: [], redactor: .verify())
        // One request at a time, the same redactor's checks.
        let serial = raw.map { $0.redacted(by: .verify()) }
        #expect(report.sessions.map(\.requests.count) == serial.map(\.requests.count))
        for pretty in [true, false] {
            var w = JSONWriter(pretty: pretty)
            w.beginObject()
            w.key("requests")
            w.beginArray()
            for s in serial {
                for r in s.requests {
                    w.element()
                    w.request(r)
                }
            }
            w.endArray()
            w.endObject()
            let expected = try JSONDocument(string: w.text).root["requests"]?.rawText
            let written = try JSONDocument(string: WaterfallRender.json(report, pretty: pretty)).root["requests"]?.rawText
            #expect(expected != nil)
            #expect(written == expected)
            #expect((written ?? "").contains("Bearer eyJh…("))
        }
    }

    /// Sessions redacted on workers as they end (`RedactingSessions`, the waterfall without a
    /// filter) make the very document the report makes by redacting them after the reading.
    @Test func redactedAsTheyEndIsTheSameDocument() throws {
        let raw = try ParallelRenderTests.sessions()
        let after = WaterfallReport(sessions: raw, findings: [], redactor: .verify())
        let early = RedactingSessions(.verify())
        for s in raw { early.add(s) }
        let asRead = WaterfallReport(sessions: early, findings: [])
        for pretty in [true, false] {
            let written = WaterfallRender.json(asRead, pretty: pretty)
            #expect(written == WaterfallRender.json(after, pretty: pretty))
            #expect(written.contains("Bearer eyJh…("))
            #expect(!written.contains("c2lnLXZhbHVlLWZvci10ZXN0"))
        }
        #expect(WaterfallRender.text(asRead) == WaterfallRender.text(after))
    }
}
