import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

@Suite struct CorrelatorTests {
    @Test func exampleExportJoinsItsLogs() throws {
        let lines = try #require(exampleSession())
        let (requests, sessions) = load(sessionLines: lines)
        let report = Correlator.run(requests: requests, sessions: sessions, logs: [exampleLogsDir() + "/logs/api.log"])
        #expect(report.requests.count == 5)
        #expect(report.withoutRequestId == 1)
        #expect(report.logs.allErrors.isEmpty)
        #expect(report.findings.isEmpty)
        let matched = report.requests.filter { $0.status == .matched }
        #expect(matched.count == 4)
        for m in matched {
            #expect(m.lines.count == 1)
            #expect(m.serverMs != nil)
            #expect(m.networkMs != nil)
        }
        // The example's server clock is about 2.5 s ahead of the device.
        let skew = try #require(report.clockSkew.seconds)
        #expect(skew > 2.3 && skew < 2.7, "\(skew)")
        #expect(report.clockSkew.samples == 4)
        #expect(report.clockSkew.outliers == 0)
    }

    /// A session whose requests the server logged with its clock `offset` seconds ahead.
    func skewedSession(offset: Double, count: Int = 40, rewrite: Set<Int> = []) -> (lines: [String], log: String) {
        let t0 = Timestamp.parse("2026-11-29T10:00:00Z")!
        var lines = [
            "{\"type\":\"session\",\"seq\":0,\"ts\":\"\(Timestamp.format(t0, micro: true))\",\"sessionId\":\"ses_00000000-0000-4000-8000-000000000001\",\"launchedAt\":\"\(Timestamp.format(t0, micro: true))\",\"userId\":\"usr_9\"}"
        ]
        var log = ""
        for k in 0..<count {
            let start = t0 + 1 + Double(k) * 2.0
            // Waiting varies from 40 to 240 ms; the server handles it in the middle of the wait.
            let wait = 0.04 + Double(k % 5) * 0.05
            let reqEnd = start + 0.002
            let respStart = reqEnd + wait
            let serverTs = reqEnd + wait * (0.3 + Double(k % 3) * 0.2) + offset
            let id = rid(k + 1)
            let echoed = rewrite.contains(k) ? rid(k + 5000) : id
            func f(_ t: Double) -> String { Timestamp.format(t, micro: true) }
            lines.append(
                "{\"type\":\"network\",\"seq\":\(k + 1),\"ts\":\"\(f(respStart + 0.01))\",\"id\":\"rec_\(k)\",\"method\":\"GET\",\"url\":\"https://api.example/v1/x/\(k)\",\"statusCode\":200,\"duration\":\(wait),\"requestId\":\"\(id)\",\"echoedRequestId\":\"\(echoed)\",\"metrics\":{\"transactions\":[{\"requestStart\":\"\(f(start))\",\"requestEnd\":\"\(f(reqEnd))\",\"responseStart\":\"\(f(respStart))\",\"responseEnd\":\"\(f(respStart + 0.005))\"}]}}"
            )
            let logged = rewrite.contains(k) ? echoed : id
            log +=
                "{\"ts\":\"\(f(serverTs))\",\"level\":\"info\",\"request_id\":\"\(logged)\",\"status\":200,\"duration_ms\":\(String(format: "%.1f", wait * 500)),\"user_id\":\"usr_9\",\"msg\":\"request completed\"}\n"
        }
        // Server-only traffic in the window: one of this user's, one of another's; one far outside.
        log += "{\"ts\":\"\(Timestamp.format(t0 + 30 + offset))\",\"request_id\":\"\(rid(9001))\",\"user_id\":\"usr_9\",\"msg\":\"x\"}\n"
        log += "{\"ts\":\"\(Timestamp.format(t0 + 31 + offset))\",\"request_id\":\"\(rid(9002))\",\"user_id\":\"usr_90\",\"msg\":\"x\"}\n"
        log += "{\"ts\":\"\(Timestamp.format(t0 + 86400))\",\"request_id\":\"\(rid(9003))\",\"user_id\":\"usr_9\",\"msg\":\"x\"}\n"
        return (lines, log)
    }

    @Test(arguments: [2.49, -37.25, 0.0, 600.5])
    func skewedServerClockIsRecovered(_ offset: Double) throws {
        let (lines, log) = skewedSession(offset: offset)
        let dir = tempDir()
        write(dir + "/api.log", log)
        let (requests, sessions) = load(sessionLines: lines)
        let report = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/api.log"])
        let skew = try #require(report.clockSkew.seconds)
        #expect(abs(skew - offset) < 0.02, "offset \(offset): estimated \(skew) ± \(report.clockSkew.uncertainty ?? -1)")
        #expect(report.clockSkew.samples == 40)
        #expect((report.clockSkew.uncertainty ?? 1) < 0.02)
        // Lines land inside their request on the device timeline.
        for r in report.requests {
            let d = try #require(r.lines.first?.deviceTs)
            #expect(d >= r.entry.requestStart! - 0.02 && d <= r.entry.responseStart! + 0.02)
            #expect(r.serverMs != nil && r.networkMs != nil)
            #expect(abs((r.serverMs ?? 0) + (r.networkMs ?? 0) - (r.waitingMs ?? 0)) < 0.2)
        }
        #expect(report.serverOnly.ids.map(\.description) == [rid(9001), rid(9002)])
        #expect(report.serverOnly.withUserId.map(\.description) == [rid(9001)])
    }

    @Test func proxyRewrittenIdIsAMismatchAndStillJoined() throws {
        let (lines, log) = skewedSession(offset: 1.0, count: 10, rewrite: [3, 7])
        let dir = tempDir()
        write(dir + "/api.log", log)
        let (requests, sessions) = load(sessionLines: lines)
        let report = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/api.log"])
        #expect(report.count(.idMismatch) == 2)
        #expect(report.count(.matched) == 8)
        let mismatched = report.requests.filter { $0.status == .idMismatch }
        #expect(mismatched.map(\.entry.seq) == [4, 8])
        // Searched under the echoed id too: the server logged the rewritten one.
        #expect(mismatched.allSatisfy { $0.lines.count == 1 })
        #expect(report.findings.map(\.rule) == ["correlation.echo-mismatch", "correlation.echo-mismatch"])
        #expect(report.findings[0].seq == 4)
        #expect(report.findings[0].severity == .medium)
    }

    @Test func clientOnlyWhenNoLine() throws {
        let (lines, _) = skewedSession(offset: 0, count: 3)
        let dir = tempDir()
        write(dir + "/api.log", "nothing here\n")
        let (requests, sessions) = load(sessionLines: lines)
        let report = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/api.log"])
        #expect(report.requests.map(\.status) == [.clientOnly, .clientOnly, .clientOnly])
        #expect(report.requests.map(\.logsCover) == [nil, nil, nil])
        #expect(report.clockSkew.seconds == nil)
        // Logs of another day: they don't cover these requests; logs of that hour do.
        write(dir + "/other.log", "{\"ts\": \"2026-11-30T10:00:00Z\", \"request_id\": \"\(rid(4242))\"}\n")
        write(dir + "/same.log", "{\"ts\": \"2026-11-29T10:00:03Z\", \"request_id\": \"\(rid(4243))\"}\n")
        let other = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/other.log"])
        #expect(other.requests.map(\.logsCover) == [false, false, false])
        let same = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/same.log"])
        #expect(same.requests.map(\.logsCover) == [true, true, true])
        #expect(report.clockSkew.samples == 0)
    }

    @Test func marzulloIgnoresOutliers() {
        var intervals: [(Double, Double)] = []
        for k in 0..<9 {
            let lo: Double = 2.0 + Double(k) * 0.001
            intervals.append((lo, lo + 0.1))
        }
        intervals.append((50, 50.1)) // another server's clock
        let s = Correlator.marzullo(intervals)
        #expect(s.outliers == 1)
        #expect(abs(s.seconds! - 2.054) < 1e-9)
        #expect(abs(s.uncertainty! - 0.046) < 1e-9)
    }
}

@Suite struct AnalysisTests {
    @Test func readerPassFeedsTheJoin() throws {
        guard FileManager.default.fileExists(atPath: examples + "/PalbeConsole") else { return }
        let analysis = CorrelationAnalysis()
        _ = ExportReader().read(inputs: [examples + "/PalbeConsole"], analyses: [analysis])
        #expect(analysis.sessions.count == 1)
        #expect(analysis.sessions[0].userId == "usr_123")
        #expect(analysis.sessions[0].sessionId?.hasPrefix("ses_") == true)
        #expect(analysis.requests.count == 6)
        let first = try #require(analysis.requests.first)
        #expect(first.requestStart != nil && first.responseStart != nil)
        let report = Correlator.run(requests: analysis.requests, sessions: analysis.sessions, logs: [exampleLogsDir() + "/logs"])
        #expect(report.count(.matched) == 4)
    }

    /// A join that leaves records out says so (`correlation.limit`); one that collects sessions only does not.
    @Test func aRecordLeftOutOfTheJoinIsAFinding() throws {
        guard FileManager.default.fileExists(atPath: examples + "/PalbeConsole") else { return }
        let bounded = CorrelationAnalysis(maxRequests: 2)
        let outcome = ExportReader().read(inputs: [examples + "/PalbeConsole"], analyses: [bounded])
        #expect(bounded.requests.count == 2 && bounded.droppedRequests == 4)
        let limit = outcome.findings.filter { $0.rule == "correlation.limit" }
        #expect(limit.count == 1)
        #expect(limit.first?.message.hasPrefix("4 network records beyond the limit of 2 records") == true)
        let sessionsOnly = CorrelationAnalysis(maxRequests: 0)
        let quiet = ExportReader().read(inputs: [examples + "/PalbeConsole"], analyses: [sessionsOnly])
        #expect(!quiet.findings.contains { $0.rule == "correlation.limit" })
        #expect(sessionsOnly.sessions.count == 1)
    }

    /// The join's records are bounded in memory too: texts are cut as the waterfall cuts them (a URL of
    /// megabytes is not held whole), and past `maxBytes` the rest of the export is left out and said so.
    @Test func theJoinIsBoundedInBytes() throws {
        let dir = tempDir()
        let header = #"{"type":"session","seq":0,"ts":"2026-11-29T12:55:01.000Z","formatVersion":1,"sessionId":"ses_big"}"#
        func net(_ n: Int, url: String) -> String {
            #"{"type":"network","seq":\#(n),"ts":"2026-11-29T12:55:02.000Z","id":"rec_\#(n)","method":"GET","url":"\#(url)","#
                + #""state":"success","statusCode":200,"requestId":"\#(rid(n))","echoedRequestId":"\#(rid(n))"}"#
        }
        let long = "https://api.example.test/v1/x?q=" + String(repeating: "a", count: 100_000)
        var lines = [header]
        for n in 1...40 { lines.append(net(n, url: long + String(n))) }
        write(dir + "/ses_big.jsonl", lines.joined(separator: "\n") + "\n")

        let whole = CorrelationAnalysis()
        _ = ExportReader().read(inputs: [dir + "/ses_big.jsonl"], analyses: [whole])
        #expect(whole.requests.count == 40 && whole.droppedRequests == 0)
        let url = try #require(whole.requests.first?.url)
        #expect(url.count == CorrelationAnalysis.textLimits.long + 1 && url.hasSuffix("…"))
        #expect(whole.heldBytes < 40 * 8192)

        let one = CorrelationAnalysis.heapBytes(whole.requests[0].record)
        // The session is counted too: what `whole` holds besides its records.
        let session = whole.heldBytes - whole.requests.reduce(0) { $0 + CorrelationAnalysis.heapBytes($1.record) }
        #expect(session >= CorrelationAnalysis.sessionFixedBytes)
        let bounded = CorrelationAnalysis(maxBytes: session + 10 * one + one / 2)
        let outcome = ExportReader().read(inputs: [dir + "/ses_big.jsonl"], analyses: [bounded])
        #expect(bounded.requests.count == 10 && bounded.droppedRequests == 30)
        #expect(bounded.requests.map(\.seq) == Array(1...10))
        let limit = outcome.findings.filter { $0.rule == CorrelationRule.limit.rawValue }
        #expect(limit.count == 1)
        #expect(limit.first?.message.hasPrefix("30 network records beyond \(Human.bytes(bounded.maxBytes)) of records held") == true)
    }

    /// Sessions count against the same bound: past it, later sessions are left out whole (a prefix of
    /// the export is joined), so memory does not grow with the number of sessions, and it is said.
    @Test func theJoinsSessionsAreBoundedInBytes() throws {
        let dir = tempDir()
        for k in 1...8 {
            let header = #"{"type":"session","seq":0,"ts":"2026-11-29T12:55:01.000Z","formatVersion":1,"sessionId":"ses_\#(k)"}"#
            let net =
                #"{"type":"network","seq":1,"ts":"2026-11-29T12:55:02.000Z","id":"rec_1","method":"GET","url":"https://a.example.test/x","#
                + #""state":"success","statusCode":200,"requestId":"\#(rid(k))","echoedRequestId":"\#(rid(k))"}"#
            write(dir + "/ses_\(k).jsonl", header + "\n" + net + "\n")
        }
        let whole = CorrelationAnalysis()
        _ = ExportReader().read(inputs: [dir], analyses: [whole])
        #expect(whole.sessions.count == 8 && whole.requests.count == 8 && whole.droppedSessions == 0)
        // Room for three sessions and their records, not four.
        let each = whole.heldBytes / 8
        let bounded = CorrelationAnalysis(maxBytes: 3 * each + each / 2)
        let outcome = ExportReader().read(inputs: [dir], analyses: [bounded])
        #expect(bounded.sessions.map(\.sessionId) == ["ses_1", "ses_2", "ses_3"])
        #expect(bounded.requests.count == 3)
        #expect(bounded.droppedSessions == 5 && bounded.droppedRequests == 5)
        #expect(bounded.heldBytes <= bounded.maxBytes)
        let limit = outcome.findings.filter { $0.rule == CorrelationRule.limit.rawValue }
        #expect(
            limit.map(\.message) == [
                "5 sessions (5 network records) beyond \(Human.bytes(bounded.maxBytes)) of records and sessions held were not kept for the join: their server lines were not looked for"
            ])
    }
}

/// The repository's samples (`samples/`, written by `samples/generate.py`) and what they are known to hold.
@Suite struct SamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples").path

    @Test func incidentExportAgainstItsLogs() throws {
        let expectedPath = Self.root + "/EXPECTED-LEAKS.json"
        guard let data = FileManager.default.contents(atPath: expectedPath) else { return }
        let expected = try JSONDocument(bytes: Array(data)).root
        let incident = try #require(expected["incident"])
        let analysis = CorrelationAnalysis()
        _ = ExportReader().read(inputs: [Self.root + "/export-incident.zip"], analyses: [analysis])
        let report = Correlator.run(requests: analysis.requests, sessions: analysis.sessions, logs: [Self.root + "/logs"])
        #expect(report.logs.allErrors.isEmpty)
        #expect(
            report.requests.filter { $0.status == .clientOnly }.map { $0.entry.requestId ?? "" }
                == incident["clientOnlyRequestIds"]?.elements.compactMap(\.string))
        // The timed-out order: the logs cover its time, so it never reached the server.
        #expect(report.requests.filter { $0.status == .clientOnly }.map(\.logsCover) == [true])
        let mismatch = report.requests.filter { $0.status == .idMismatch }
        #expect(mismatch.map { $0.entry.seq } == incident["echoMismatch"]?.elements.map { $0["seq"]?.int })
        #expect(mismatch.map { $0.entry.echoedRequestId } == incident["echoMismatch"]?.elements.map { $0["echoedRequestId"]?.string })
        #expect(report.serverOnly.withUserId.map(\.description) == incident["serverOnlyWithUser"]?.elements.compactMap(\.string))
        let truth = try #require(incident["clockSkewSeconds"]?.double)
        let skew = try #require(report.clockSkew.seconds)
        let uncertainty = try #require(report.clockSkew.uncertainty)
        #expect(abs(skew - truth) <= max(uncertainty, 0.005), "\(skew) ± \(uncertainty) vs \(truth)")
        // The near miss `req-<uuid>` in app.txt is no id.
        let near = try #require(incident["nearMissUuid"]?.string)
        #expect(!report.requests.contains { r in r.lines.contains { $0.line.ids.contains { $0.description.hasSuffix(near) } } })
        #expect(report.serverOnly.ids.allSatisfy { !$0.description.hasSuffix(near) })
        // Every log format of the samples was recognised.
        #expect(Set(report.logs.files.compactMap { $0.format?.rawValue }) == ["palbase-json", "python-logging", "access-log", "logfmt"])
    }
}

/// A log whose every line carries every id, and a hundred thousand requests for `--emit-query`.
@Suite struct CorrelationBoundTests {
    @Test func linesPerRequestAreCappedErrorsFirstAndCounted() throws {
        let t0 = Timestamp.parse("2026-11-29T10:00:00Z")!
        var lines = [
            "{\"type\":\"session\",\"seq\":0,\"ts\":\"\(Timestamp.format(t0, micro: true))\",\"sessionId\":\"ses_00000000-0000-4000-8000-000000000001\",\"launchedAt\":\"\(Timestamp.format(t0, micro: true))\"}"
        ]
        let ids = (1...20).map { rid($0) }
        for (k, id) in ids.enumerated() {
            lines.append(
                "{\"type\":\"network\",\"seq\":\(k + 1),\"ts\":\"\(Timestamp.format(t0 + Double(k), micro: true))\",\"id\":\"rec_\(k)\",\"requestId\":\"\(id)\"}"
            )
        }
        let (requests, sessions) = load(sessionLines: lines)
        let dir = tempDir()
        var log = ""
        for k in 0..<300 {
            let level = k == 250 ? "error" : "info"
            log +=
                "{\"ts\":\"\(Timestamp.format(t0 + Double(k % 20)))\",\"level\":\"\(level)\",\"msg\":\"m\(k)\",\"ids\":\"\(ids.joined(separator: " "))\"}\n"
        }
        write(dir + "/amp.log", log)
        let report = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/amp.log"])
        for r in report.requests {
            #expect(r.lines.count == CorrelationOptions().maxLinesPerRequest)
            #expect(r.linesNotKept == 300 - r.lines.count)
            #expect(r.lines.contains { $0.line.line == 251 }, "the error line is kept")
        }
    }

    @Test func scopesForAHundredThousandRequestsAreLinear() throws {
        let t0 = Timestamp.parse("2026-11-29T10:00:00Z")!
        var lines = [
            "{\"type\":\"session\",\"seq\":0,\"ts\":\"\(Timestamp.format(t0, micro: true))\",\"sessionId\":\"ses_00000000-0000-4000-8000-000000000001\",\"launchedAt\":\"\(Timestamp.format(t0, micro: true))\"}"
        ]
        for k in 0..<100_000 {
            lines.append(
                "{\"type\":\"network\",\"seq\":\(k + 1),\"ts\":\"\(Timestamp.format(t0 + Double(k) * 0.01, micro: true))\",\"id\":\"rec_\(k)\",\"requestId\":\"\(rid(k + 1))\"}"
            )
        }
        let (requests, sessions) = load(sessionLines: lines)
        let started = Date()
        let scopes = QueryEmitter.scopes(requests: requests, sessions: sessions, margin: 60)
        // Quadratic, this took minutes; linear, well under a second even in a debug build.
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(scopes.count == 1 && scopes[0].ids.count == 100_000)
    }
}

@Suite struct SkewOutlierTests {
    @Test func idsReusedAnHourLaterAreNamedAndLeftOut() throws {
        let t0 = Timestamp.parse("2026-11-29T10:00:00Z")!
        var lines = [
            "{\"type\":\"session\",\"seq\":0,\"ts\":\"\(Timestamp.format(t0, micro: true))\",\"sessionId\":\"ses_00000000-0000-4000-8000-000000000001\",\"launchedAt\":\"\(Timestamp.format(t0, micro: true))\"}"
        ]
        var log = ""
        func f(_ t: Double) -> String { Timestamp.format(t, micro: true) }
        for k in 0..<10 {
            let start = t0 + 1 + Double(k) * 2
            lines.append(
                "{\"type\":\"network\",\"seq\":\(k + 1),\"ts\":\"\(f(start + 0.2))\",\"id\":\"rec_\(k)\",\"requestId\":\"\(rid(k + 1))\",\"metrics\":{\"transactions\":[{\"requestStart\":\"\(f(start))\",\"requestEnd\":\"\(f(start + 0.01))\",\"responseStart\":\"\(f(start + 0.1))\",\"responseEnd\":\"\(f(start + 0.12))\"}]}}"
            )
            for later in [0.0, 3600] {
                log +=
                    "{\"ts\":\"\(f(start + 0.05 + 2.5 + later))\",\"level\":\"info\",\"request_id\":\"\(rid(k + 1))\",\"status\":200,\"msg\":\"done\"}\n"
            }
        }
        let (requests, sessions) = load(sessionLines: lines)
        let dir = tempDir()
        write(dir + "/reuse.log", log)
        let report = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/reuse.log"])
        let skew = try #require(report.clockSkew.seconds)
        #expect(abs(skew - 2.5) < 0.1, "\(skew)")
        #expect(
            report.findings.contains { $0.ruleID == CorrelationRule.skewOutlier.id && $0.message.hasPrefix("10 server lines") },
            "\(report.findings.map(\.message))")
    }
}
