import Foundation
import SiftCore
import Testing
import SiftWaterfall
import SiftVerify

@Suite struct FindingTests {
    @Test func durationMismatchBeyondTolerance() throws {
        // metrics span 221 ms; tolerance max(50, 10 % of the larger).
        func run(_ durationMs: Double) throws -> [Finding] {
            try Fx.single(
                Fx.network(
                    seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: durationMs, endMs: 300,
                    txs: [Fx.newConnection(at: 39)], taskStartMs: 39, taskEndMs: 260)
            ).1
        }
        #expect(try run(221).isEmpty)
        #expect(try run(271).isEmpty) // off by 50: tolerance is max(50, 27.1) = 50 → not beyond
        let beyond = try run(272) // off by 51
        #expect(beyond.map(\.rule) == [WaterfallRule.durationMismatch.rawValue])
        #expect(beyond.first?.severity == .low)
        #expect(beyond.first?.location == "duration")
        #expect(beyond.first?.message == "record duration 272 ms but the metrics span 221 ms (off by 51 ms, tolerance 50 ms)")
        // Large values: 10 % dominates. Span 221 vs 2000: tolerance 200.
        #expect(try run(2000).map(\.rule) == [WaterfallRule.durationMismatch.rawValue])
    }

    @Test func durationMismatchUsesTransactionsWithoutTaskTimes() throws {
        let line = Fx.network(
            seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 900, endMs: 1000,
            txs: [Fx.newConnection(at: 39)])
        let (_, f) = try Fx.single(line)
        #expect(f.map(\.rule) == [WaterfallRule.durationMismatch.rawValue])
        #expect(f.first?.message.contains("metrics span 221 ms") == true)
    }

    @Test func tenPercentToleranceForLongRequests() throws {
        // span 1000 ms (task), duration 1090: tolerance 109 → fine; 1120 → finding.
        func run(_ d: Double) throws -> [String] {
            try Fx.single(
                Fx.network(
                    seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: d, endMs: 1200,
                    txs: [Fx.reused(at: 0, wait: 990, dl: 7)], taskStartMs: 0, taskEndMs: 1000)
            ).1.map(\.rule)
        }
        #expect(try run(1090).isEmpty)
        #expect(try run(1120) == [WaterfallRule.durationMismatch.rawValue])
    }

    @Test func missingMetrics() throws {
        let http = try Fx.single(
            Fx.network(
                seq: 4, id: "rec_4", url: "https://a.example/x", durationMs: 50, endMs: 60,
                txs: [], metrics: false)
        ).1
        #expect(http.map(\.rule) == [WaterfallRule.missingMetrics.rawValue])
        #expect(http.first?.severity == .info)
        #expect(http.first?.location == "metrics")
        let upload = try Fx.single(
            Fx.network(
                seq: 4, id: "rec_4", url: "https://a.example/x", durationMs: 50, endMs: 60,
                txs: [], metrics: false, kind: "upload")
        ).1
        #expect(upload.map(\.rule) == [WaterfallRule.missingMetrics.rawValue])
        let empty = try Fx.single(
            Fx.network(
                seq: 4, id: "rec_4", url: "https://a.example/x", durationMs: 50, endMs: 60,
                txs: [])
        ).1
        #expect(empty.map(\.rule) == [WaterfallRule.missingMetrics.rawValue])
        #expect(empty.first?.location == "metrics.transactions")
        let custom = try Fx.single(
            Fx.network(
                seq: 4, id: "rec_4", url: "grpc://a/x", durationMs: 50, endMs: 60,
                txs: [], metrics: false, kind: "custom")
        ).1
        #expect(custom.isEmpty)
    }

    @Test func pendingAtEndOfSession() throws {
        let pending = Fx.network(
            seq: 9, id: "rec_9", method: "POST", url: "https://a.example/v1/orders", durationMs: nil,
            endMs: 500, txs: [], metrics: false, state: "pending", status: nil)
        let (_, f) = try Fx.collect([Fx.header(), pending])
        #expect(f.map(\.rule) == [WaterfallRule.pending.rawValue]) // no missing-metrics for a pending record
        #expect(f.first?.severity == .medium)
        #expect(f.first?.seq == 9)
        #expect(f.first?.recordId == "rec_9")
        #expect(f.first?.sessionId == Fx.sessionId)

        // A later record with the same id that finished resolves it.
        let done = Fx.network(
            seq: 10, id: "rec_9", method: "POST", url: "https://a.example/v1/orders", durationMs: 30,
            endMs: 530, txs: [Fx.reused(at: 500)], taskStartMs: 500, taskEndMs: 528)
        let (_, f2) = try Fx.collect([Fx.header(), pending, done])
        #expect(f2.isEmpty)
    }

    @Test func findingsPerRuleAreBounded() throws {
        var limits = WaterfallLimits()
        limits.maxFindingsPerRule = 3
        let c = WaterfallCollector(limits: limits)
        c.beginSession(input: "in", file: "f", sessionId: "ses_x")
        for i in 1...10 {
            c.add(
                try Fx.record(
                    i,
                    Fx.network(
                        seq: i, id: "rec_\(i)", url: "https://a.example/x", durationMs: 5,
                        endMs: Double(i) * 10, txs: [], metrics: false)))
        }
        c.endSession(sessionId: "ses_x", launchedAt: nil)
        let f = c.finish()
        #expect(f.count == 4)
        #expect(f.last?.message == "7 more waterfall.missing-metrics findings in this session were not listed")
    }

    /// A collector fed `count` sessions, each holding the one record `line`.
    static func sessions(_ count: Int, _ line: String) throws -> WaterfallCollector {
        let c = WaterfallCollector()
        for i in 0..<count {
            c.beginSession(input: "in", file: "f\(i)", sessionId: "ses_\(i)")
            c.add(try Fx.record(1, line))
            c.endSession(sessionId: "ses_\(i)", launchedAt: nil)
        }
        return c
    }

    @Test func findingsPerRuleAreBoundedPerInputAcrossSessions() throws {
        // One finding in each of many sessions: past the input's bound they are counted, not kept.
        let c = try Self.sessions(
            FindingTally.defaultKeepPerInput + 50,
            Fx.network(seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 5, endMs: 10, txs: [], metrics: false))
        let f = c.finish().filter { $0.rule == WaterfallRule.missingMetrics.rawValue }
        #expect(f.count == FindingTally.defaultKeepPerInput + 1)
        #expect(f.last?.message.hasPrefix("50 more findings of this rule in this input") == true, "\(String(describing: f.last?.message))")
    }

    @Test func svgStopsDrawingSessionsPastItsRowBound() throws {
        // More sessions than the SVG draws rows: the rest are counted in the note, not drawn.
        let sessions = WaterfallRender.svgMaxRows + 100
        let c = try Self.sessions(
            sessions,
            Fx.network(seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 28, endMs: 100, txs: [Fx.reused(at: 72)]))
        let report = WaterfallReport(sessions: c.takeSessions(), findings: c.finish(), redactor: Redactor.verify())
        let svg = WaterfallRender.svg(report)
        #expect(svg.contains("100 more rows not drawn (limit \(WaterfallRender.svgMaxRows)), 99 more sessions not drawn;"))
        #expect(!svg.contains("session ses_\(sessions - 1)<"))
    }

    @Test func requestsBeyondTheLimitAreCountedNotKept() throws {
        var limits = WaterfallLimits()
        limits.maxRequests = 2
        let c = WaterfallCollector(limits: limits)
        c.beginSession(input: "in", file: "f", sessionId: "ses_x")
        for i in 1...5 {
            c.add(
                try Fx.record(
                    i,
                    Fx.network(
                        seq: i, id: "rec_\(i)", url: "https://a.example/x", durationMs: 28,
                        endMs: Double(i) * 100, txs: [Fx.reused(at: Double(i) * 100 - 28)])))
        }
        let f = c.finish()
        #expect(c.sessions.first?.requests.count == 2)
        #expect(c.droppedRequests == 3)
        #expect(f.map(\.rule) == [WaterfallRule.limit.rawValue])
    }

    @Test func sessionsBeyondTheLimitAreCheckedNotListed() throws {
        var limits = WaterfallLimits()
        limits.maxSessions = 2
        let c = WaterfallCollector(limits: limits)
        for s in 1...5 {
            c.beginSession(input: s < 4 ? "a" : "b", file: "f\(s)", sessionId: "ses_\(s)")
            for i in 1...2 {
                // The second request of each session has no metrics: a finding of every session.
                let txs = i == 1 ? [Fx.reused(at: Double(i) * 100 - 28)] : []
                c.add(
                    try Fx.record(
                        i,
                        Fx.network(
                            seq: i, id: "rec_\(i)", url: "https://a.example/x", durationMs: 28,
                            endMs: Double(i) * 100, txs: txs)))
            }
            c.endSession(sessionId: nil, launchedAt: nil)
        }
        let f = c.finish()
        #expect(c.sessions.map(\.sessionId) == ["ses_1", "ses_2"])
        #expect(c.sessions.allSatisfy { $0.requests.count == 2 })
        #expect(c.unlistedSessions == 3 && c.unlistedRequests == 6 && c.droppedRequests == 0)
        // The unlisted sessions were checked all the same.
        #expect(
            Set(f.filter { $0.rule == WaterfallRule.missingMetrics.rawValue }.compactMap(\.sessionId)) == [
                "ses_1", "ses_2", "ses_3", "ses_4", "ses_5"
            ])
        let limit = f.filter { $0.rule == WaterfallRule.limit.rawValue }
        #expect(
            limit.map(\.message) == [
                "3 sessions beyond the limit of 2 (6 network records) were read and checked but not listed in the waterfall"
            ])
        #expect(limit.first?.input == "a")
        // The headings say the counts are of what is listed.
        let report = WaterfallReport(sessions: c.takeSessions(), findings: f, redactor: Redactor.verify())
        #expect(report.isLimited)
        var text = ""
        WaterfallRender.text(report) { text += $0 }
        #expect(
            text.hasPrefix(
                "waterfall: 2 sessions, 4 requests, 2 transactions listed; more were read and checked but not listed (waterfall.limit)\n"))
        #expect(
            WaterfallRender.markdown(report).contains(
                "2 sessions, 4 requests, 2 transactions listed; more were read and checked but not listed (`waterfall.limit`).\n"))
    }

    @Test func requestsBeyondTheMemoryBoundAreCountedNotKept() throws {
        // Each request holds 64 transactions, each with its own unique 1 KiB URL (never pooled alike):
        // the bound, not the count, stops them, and what is kept stays under it.
        var limits = WaterfallLimits()
        limits.maxBytes = 256 << 10
        let c = WaterfallCollector(limits: limits)
        c.beginSession(input: "in", file: "f", sessionId: "ses_x")
        for i in 1...40 {
            let txs = (0..<64).map { k in
                Fx.reused(at: Double(i) * 100 - 28, url: "https://a.example/\(i)/\(k)/" + String(repeating: "x", count: 1024))
            }
            c.add(
                try Fx.record(
                    i,
                    Fx.network(
                        seq: i, id: "rec_\(i)", url: "https://a.example/x", durationMs: 28,
                        endMs: Double(i) * 100, txs: txs)))
        }
        let f = c.finish()
        let kept = c.sessions.first?.requests.count ?? 0
        #expect(kept > 0 && kept < 40)
        #expect(c.droppedRequests == 40 - kept)
        #expect(c.heldBytes <= limits.maxBytes)
        let limit = f.filter { $0.rule == WaterfallRule.limit.rawValue }
        #expect(limit.count == 1)
        #expect(
            limit.first?.message
                == "\(40 - kept) network records beyond the waterfall's memory bound (256 KiB of requests) were checked but not kept for the waterfall"
        )
    }

    @Test func originIsLaunchOrFirstRecord() throws {
        // With a header: offsets from launchedAt.
        let line = Fx.network(
            seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 28, endMs: 1031,
            txs: [Fx.reused(at: 1003)], taskStartMs: 1003, taskEndMs: 1031)
        let (s, _) = try Fx.collect([Fx.header(launchMs: 3), line])
        #expect(s.first?.originSource == "launchedAt")
        #expect(s.first?.requests.first?.offsetMs == 1000)
        #expect(s.first?.sessionId == Fx.sessionId)
        // Without a header: from the first record's ts, moved back to the earliest request start.
        let event = "{\"type\":\"event\",\"seq\":1,\"ts\":\"\(Fx.ts(1020))\",\"name\":\"app.foreground\"}"
        let (s2, _) = try Fx.collect([event, line])
        #expect(s2.first?.originSource == "firstRecord")
        #expect(s2.first?.requests.first?.offsetMs == 0)
        let (s3, _) = try Fx.collect(["{\"type\":\"event\",\"seq\":1,\"ts\":\"\(Fx.ts(900))\",\"name\":\"x\"}", line])
        #expect(s3.first?.requests.first?.offsetMs == 103)
    }

    @Test func analysisForwardsTheReaderProtocol() throws {
        // Drive the Analysis conformance end to end through SessionContext (internal init: @testable SiftCore is not
        // needed because the collector is what the analysis forwards to; this checks the forwarding).
        let a = WaterfallAnalysis()
        a.collector.beginSession(input: "in", file: "f", sessionId: nil)
        a.collector.add(try Fx.record(1, Fx.header()))
        a.collector.add(
            try Fx.record(
                2,
                Fx.network(
                    seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 50,
                    endMs: 60, txs: [], metrics: false)))
        let f = a.finish()
        #expect(a.sessions.count == 1)
        #expect(f.first?.sessionId == Fx.sessionId)
    }
}

@Suite struct HostileShapeTests {
    /// Records of every wrong shape: nothing crashes, every network record becomes a request, and
    /// every renderer copes.
    @Test func wrongShapesDoNotCrash() throws {
        let shapes = [
            #"{"type":"network","seq":1}"#,
            #"{"type":"network","seq":"x","ts":5,"id":7,"method":[],"url":{},"duration":"fast","statusCode":"200"}"#,
            #"{"type":"network","seq":2,"metrics":[]}"#,
            #"{"type":"network","seq":3,"metrics":{"transactions":{}}}"#,
            #"{"type":"network","seq":4,"metrics":{"transactions":[1,"a",null,[],{}]}}"#,
            #"{"type":"network","seq":5,"metrics":{"taskStart":12,"taskEnd":"2026-13-45T99:99:99Z","transactions":[{"fetchStart":true,"responseEnd":{"a":1}}]}}"#,
            #"{"type":"network","seq":6,"duration":1e308,"metrics":{"transactions":[{"fetchStart":"0001-01-01T00:00:00Z","responseEnd":"9999-12-31T23:59:59.999999Z"}]}}"#,
            #"{"type":"network","seq":7,"duration":-1e-300,"url":"://","method":"","state":"pending"}"#,
            #"{"type":"network","seq":8,"url":"https://@/?=&=&a=b=c&token","error":{"code":"x","description":5}}"#,
            #"{"type":"network","seq":9,"url":"https://h/\#(String(repeating: "a/", count: 5000))","label":"\#(String(repeating: "é", count: 5000))"}"#,
            #"{"type":"session","seq":0,"launchedAt":"not a time","sessionId":42}"#,
            #"{"type":"network","seq":10,"ts":"2026-11-29T10:15:01Z","duration":0.001,"metrics":{"transactions":[{"fetchStart":"2026-11-29T10:15:01Z","fetchStart":"x","requestStart":"2026-11-29T10:14:01Z","responseEnd":"2026-11-29T10:16:01Z"}]}}"#
        ]
        let (sessions, findings) = try Fx.collect(shapes)
        #expect(sessions.first?.requests.count == 11)
        #expect(!findings.isEmpty)
        let report = WaterfallReport(sessions: sessions, findings: findings, redactor: .verify())
        for f in WaterfallOutputFormat.allCases {
            let out = WaterfallRender.render(report, as: f, columns: 80, color: true)
            #expect(!out.isEmpty)
        }
        #expect((try? JSONDocument(string: WaterfallRender.json(report))) != nil)
    }
}
