import Foundation
import SiftCore
import Testing
import SiftWaterfall

@Suite struct PhaseTests {
    @Test func newConnectionPhasesAreExact() throws {
        let line = Fx.network(
            seq: 1, id: "rec_1", url: "https://api.palbase.studio/v1/auth/token?client=ios",
            durationMs: 221, endMs: 260, txs: [Fx.newConnection(at: 39)], taskStartMs: 39, taskEndMs: 260)
        let (r, findings) = try Fx.single(line)
        #expect(findings.isEmpty)
        #expect(r.transactions.count == 1)
        let p = r.transactions[0].phases
        #expect(p == WaterfallPhases(blocked: 2, dns: 18, tcp: 31, tls: 42, request: 3, waiting: 121, download: 4))
        #expect(r.transactions[0].totalMs == 221)
        #expect(r.transactions[0].reusedConnection == false)
        #expect(r.transactions[0].networkProtocol == "h2")
        #expect(r.transactions[0].remotePort == 443)
        #expect(r.offsetMs == 39)
        #expect(r.durationMs == 221)
        #expect(r.totalMs == 221)
        #expect(r.start == Fx.base + 0.039)
    }

    @Test func reusedConnectionHasNoDnsTcpTls() throws {
        let (r, _) = try Fx.single(
            Fx.network(
                seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 28, endMs: 30,
                txs: [Fx.reused(at: 2)]))
        let p = r.transactions[0].phases
        #expect(p == WaterfallPhases(blocked: 1, dns: nil, tcp: nil, tls: nil, request: 2, waiting: 20, download: 5))
    }

    @Test func reusedFlagWinsOverStrayConnectTimes() throws {
        let t = Fx.tx(
            [
                "fetchStart": 0, "domainLookupStart": 1, "domainLookupEnd": 4, "connectStart": 4, "connectEnd": 9,
                "requestStart": 9, "requestEnd": 10, "responseStart": 20, "responseEnd": 21
            ],
            ["reusedConnection": "true"])
        let (r, _) = try Fx.single(Fx.network(seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 21, endMs: 21, txs: [t]))
        let p = r.transactions[0].phases
        #expect(p.dns == nil && p.tcp == nil && p.tls == nil)
        #expect(p.blocked == 1)
        #expect(p.waiting == 10)
    }

    @Test func plainHttpHasTcpToConnectEndAndNoTls() throws {
        let t = Fx.tx(
            [
                "fetchStart": 0, "domainLookupStart": 0.5, "domainLookupEnd": 3, "connectStart": 3, "connectEnd": 10,
                "requestStart": 10, "requestEnd": 11, "responseStart": 30, "responseEnd": 31
            ],
            ["reusedConnection": "false"])
        let (r, _) = try Fx.single(Fx.network(seq: 1, id: "rec_1", url: "http://a.example/x", durationMs: 31, endMs: 31, txs: [t]))
        let p = r.transactions[0].phases
        #expect(p == WaterfallPhases(blocked: 0.5, dns: 2.5, tcp: 7, tls: nil, request: 1, waiting: 19, download: 1))
    }

    @Test func tlsWithoutSecureConnectionEndRunsToConnectEnd() throws {
        let t = Fx.tx([
            "fetchStart": 0, "connectStart": 1, "secureConnectionStart": 5, "connectEnd": 12,
            "requestStart": 12, "requestEnd": 13, "responseStart": 20, "responseEnd": 22
        ])
        let (r, _) = try Fx.single(Fx.network(seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 22, endMs: 22, txs: [t]))
        let p = r.transactions[0].phases
        #expect(p.blocked == 1) // fetchStart → connectStart (no DNS)
        #expect(p.dns == nil)
        #expect(p.tcp == 4)
        #expect(p.tls == 7)
    }

    @Test func cacheHitHasOnlyATotal() throws {
        let t = Fx.tx(["fetchStart": 10, "responseEnd": 10.75], ["fetchType": "\"localCache\"", "statusCode": "200"])
        let (r, findings) = try Fx.single(
            Fx.network(
                seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 1,
                endMs: 11, txs: [t]))
        let tx = r.transactions[0]
        #expect(tx.phases.isEmpty)
        #expect(tx.totalMs == 0.75)
        #expect(tx.isCacheHit)
        #expect(r.totalMs == 0.75)
        #expect(findings.isEmpty)
        let x = WaterfallSummary.explain(r, hosts: [:])
        #expect(x.phase == nil)
        #expect(x.sentence.contains("local cache"))
    }

    @Test func subMillisecondTimestampsKeepMicroseconds() throws {
        let t = Fx.tx([
            "fetchStart": 0.001, "domainLookupStart": 0.124, "domainLookupEnd": 0.581, "connectStart": 0.581,
            "connectEnd": 1.002, "requestStart": 1.002, "requestEnd": 1.0021, "responseStart": 2.5,
            "responseEnd": 2.500999
        ])
        let (r, _) = try Fx.single(Fx.network(seq: 1, id: "rec_1", url: "http://a.example/x", durationMs: 2.5, endMs: 3, txs: [t]))
        let p = r.transactions[0].phases
        #expect(p.blocked == 0.123)
        #expect(p.dns == 0.457)
        #expect(p.tcp == 0.421)
        #expect(p.request == 0.0) // 1.0021 rounds to the same microsecond as 1.002
        #expect(p.waiting == 1.498)
        #expect(p.download == 0.001)
        // Exact µs from a hand-written string (not via the test's formatter).
        let raw =
            "{\"fetchStart\":\"2026-11-29T10:15:04.469123Z\",\"requestStart\":\"2026-11-29T10:15:04.469124Z\",\"requestEnd\":\"2026-11-29T10:15:04.470000Z\",\"responseStart\":\"2026-11-29T10:15:04.470000Z\",\"responseEnd\":\"2026-11-29T10:15:04.470001Z\"}"
        let (r2, _) = try Fx.single(Fx.network(seq: 1, id: "rec_1", url: "http://a.example/x", durationMs: 1, endMs: 3, txs: [raw]))
        #expect(r2.transactions[0].phases.blocked == 0.001)
        #expect(r2.transactions[0].phases.request == 0.876)
        #expect(r2.transactions[0].phases.waiting == 0)
        #expect(r2.transactions[0].phases.download == 0.001)
    }

    @Test func missingFieldsLeavePhasesNil() throws {
        // No requestEnd: request and waiting unknown, download known; no fetchStart: blocked unknown.
        let t = Fx.tx(["requestStart": 5, "responseStart": 40, "responseEnd": 45])
        let (r, _) = try Fx.single(Fx.network(seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 40, endMs: 45, txs: [t]))
        let p = r.transactions[0].phases
        #expect(p == WaterfallPhases(blocked: nil, dns: nil, tcp: nil, tls: nil, request: nil, waiting: nil, download: 5))
        #expect(r.transactions[0].startUs != nil) // earliest present timestamp
        #expect(r.transactions[0].totalMs == 40)
    }

    @Test func unreadableTimestampIsAnAnomalyNotAPhase() throws {
        let t =
            "{\"fetchStart\":\"yesterday\",\"requestStart\":\"\(Fx.ts(1))\",\"requestEnd\":\"\(Fx.ts(2))\",\"responseStart\":\"\(Fx.ts(3))\",\"responseEnd\":\"\(Fx.ts(4))\"}"
        let (r, findings) = try Fx.single(Fx.network(seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 3, endMs: 4, txs: [t]))
        #expect(r.transactions[0].phases.blocked == nil)
        #expect(r.transactions[0].phases.request == 1)
        #expect(findings.map(\.rule) == [WaterfallRule.clockAnomaly.rawValue])
        #expect(findings.first?.message.contains("fetchStart is not a timestamp") == true)
    }

    @Test func reversedClockIsNilAndReported() throws {
        let t = Fx.tx([
            "fetchStart": 0, "domainLookupStart": 10, "domainLookupEnd": 6, "connectStart": 12, "connectEnd": 20,
            "requestStart": 20, "requestEnd": 21, "responseStart": 30, "responseEnd": 31
        ])
        let (r, findings) = try Fx.single(Fx.network(seq: 7, id: "rec_7", url: "http://a.example/x", durationMs: 31, endMs: 31, txs: [t]))
        let p = r.transactions[0].phases
        #expect(p.dns == nil)
        #expect(p.blocked == 10)
        #expect(p.tcp == 8)
        #expect(r.transactions[0].anomalies == ["domainLookupEnd is 4.0 ms before domainLookupStart"])
        #expect(findings.count == 1)
        let f = try #require(findings.first)
        #expect(f.rule == "waterfall.clock-anomaly")
        #expect(f.severity == .low)
        #expect(f.seq == 7 && f.recordId == "rec_7" && f.line == 2)
        #expect(f.location == "metrics.transactions[0]")
        #expect(f.sessionId == Fx.sessionId)
        #expect(f.file == "sessions/ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13.jsonl")
    }

    @Test func taskEndBeforeTaskStartAndNegativeDuration() throws {
        let line = Fx.network(
            seq: 3, id: "rec_3", url: "https://a.example/x", durationMs: -5, endMs: 30,
            txs: [Fx.reused(at: 2)], taskStartMs: 30, taskEndMs: 2)
        let (r, findings) = try Fx.single(line)
        #expect(r.durationMs == nil)
        #expect(findings.map(\.rule) == [WaterfallRule.clockAnomaly.rawValue])
        let msg = findings.first?.message ?? ""
        #expect(msg.contains("duration is negative"))
        #expect(msg.contains("taskEnd is 28 ms before taskStart"))
        // Without a usable task span, the total comes from the transactions.
        #expect(r.totalMs == 28)
    }

    @Test func redirectChainKeepsEveryTransaction() throws {
        let t1 = Fx.reused(at: 100, wait: 40, dl: 1, status: 302, url: "https://api.example/v1/oauth/start?state=xyz")
        let t2 = Fx.reused(at: 144, wait: 55, dl: 2, status: 200, url: "https://api.example/v1/oauth/callback?code=***&state=xyz")
        let line = Fx.network(
            seq: 5, id: "rec_5", url: "https://api.example/v1/oauth/callback?code=***&state=xyz",
            durationMs: 104, endMs: 210, txs: [t1, t2], taskStartMs: 100, taskEndMs: 204)
        let (r, findings) = try Fx.single(line)
        #expect(findings.isEmpty)
        #expect(r.transactions.count == 2)
        #expect(r.transactions.map(\.statusCode) == [302, 200])
        #expect(r.transactions.map(\.offsetMs) == [100, 144])
        #expect(r.transactions[0].phases.waiting == 40)
        #expect(r.transactions[1].phases.waiting == 55)
        #expect(r.phaseSums.waiting == 95)
        #expect(r.totalMs == 104)
        let x = WaterfallSummary.explain(r, hosts: [:])
        #expect(x.phase == .waiting)
        #expect(
            x.sentence
                == "waiting 95 ms: the server (or what's in front of it) was slow to answer (over 2 transactions: redirects or retries)")
    }

    @Test func overlappingTransactionsAreAClockAnomaly() throws {
        let t1 = Fx.reused(at: 100, wait: 40, dl: 1, status: 302)
        let t2 = Fx.reused(at: 139, wait: 5, dl: 1) // 5 ms before t1's end (144): beyond the 1 ms tolerance
        let t3 = Fx.reused(at: 152.5, wait: 5, dl: 1) // 0.5 ms before t2's end (153): tolerated
        let (_, findings) = try Fx.single(
            Fx.network(
                seq: 5, id: "rec_5", url: "https://a.example/x", durationMs: 61.5,
                endMs: 170, txs: [t1, t2, t3]))
        #expect(findings.map(\.rule) == [WaterfallRule.clockAnomaly.rawValue])
        #expect(findings.first?.message == "timing cannot be trusted: transaction 2: transaction 2 starts 5.0 ms before transaction 1 ends")
        #expect(findings.first?.location == "metrics.transactions[1]")
    }

    @Test func phasesOutOfOrderAcrossPhases() throws {
        // requestStart before connectEnd: every phase is non-negative on its own, the order is not.
        let t = Fx.tx([
            "fetchStart": 0, "connectStart": 1, "connectEnd": 10, "requestStart": 8, "requestEnd": 9,
            "responseStart": 20, "responseEnd": 21
        ])
        let (r, findings) = try Fx.single(Fx.network(seq: 1, id: "rec_1", url: "http://a.example/x", durationMs: 21, endMs: 21, txs: [t]))
        #expect(r.transactions[0].phases.tcp == 9)
        #expect(r.transactions[0].anomalies == ["requestStart is 2.0 ms before connectEnd"])
        #expect(findings.count == 1)
    }

    @Test func customRecordHasOnlyATotal() throws {
        let line = Fx.network(
            seq: 2, id: "rec_2", method: "POST", url: "grpc://orders.acme.example/Orders/Create",
            durationMs: 812, endMs: 900, txs: [], metrics: false, kind: "custom", category: "app", source: "app")
        let (r, findings) = try Fx.single(line)
        #expect(findings.isEmpty)
        #expect(r.transactions.isEmpty)
        #expect(!r.hasMetrics)
        #expect(r.durationMs == 812)
        #expect(r.totalMs == nil)
        #expect(r.offsetMs == 88) // ts − duration
        #expect(WaterfallSummary.explain(r, hosts: [:]).sentence == "812 ms: a custom record has only its total, no phases")
    }
}

@Suite struct TransactionReaderTests {
    func same(_ a: WaterfallTransaction, _ b: WaterfallTransaction) -> Bool {
        a.times == b.times && a.phases == b.phases && a.anomalies == b.anomalies && a.reusedConnection == b.reusedConnection
            && a.fetchType == b.fetchType && a.networkProtocol == b.networkProtocol && a.remoteAddress == b.remoteAddress
            && a.remotePort == b.remotePort && a.tlsVersion == b.tlsVersion && a.statusCode == b.statusCode && a.url == b.url
            && a.requestBodyBytes == b.requestBodyBytes && a.responseBodyBytes == b.responseBodyBytes
    }

    @Test(arguments: [
        Fx.newConnection(at: 39, url: "https://a.example/x?token=abc", extra: ["responseBodyBytes": "4800000", "requestBodyBytes": "61"]),
        Fx.reused(at: 2),
        "{}",
        #"{"fetchStart":"2026-11-29T10:15:01.000Z","fetchStart":"2026-11-29T10:15:09.000Z","responseEnd":"2026-11-29T10:15:01.500Z"}"#,
        #"{"fetchStart":"\u0032026-11-29T10:15:01.000Z","responseEnd":"nope","requestStart":17,"requestEnd":null,"url":"https:\/\/a.example\/p"}"#,
        #"{"fetch\u0053tart":"2026-11-29T10:15:01.000Z","responseEnd":"2026-11-29T10:15:01.500Z"}"#,
        #"{"remotePort":443.0,"statusCode":2e2,"requestBodyBytes":-0,"responseBodyBytes":"12","reusedConnection":"yes","tlsVersion":1.3}"#,
        #"{"extra":{"nested":["}",{"a":"\"]"}]},"networkProtocol":"h3","fetchType" : "localCache" , "remoteAddress":"2001:db8::1"}"#,
        #"{"remotePort":1234567890123456789,"statusCode":-200,"url":"\u00e9\u2028"}"#,
        #"{ "fetchStart" : "2026-11-29T10:15:01.000123Z" , "responseEnd" : "2026-11-29T10:15:01.000Z" }"#,
        // Every member the reader knows, each with a value of its own.
        #"{"fetchStart":"2026-11-29T10:15:01.000Z","domainLookupStart":"2026-11-29T10:15:01.001Z","domainLookupEnd":"2026-11-29T10:15:01.003Z","#
            + #""connectStart":"2026-11-29T10:15:01.006Z","secureConnectionStart":"2026-11-29T10:15:01.010Z","#
            + #""secureConnectionEnd":"2026-11-29T10:15:01.015Z","connectEnd":"2026-11-29T10:15:01.021Z","requestStart":"2026-11-29T10:15:01.028Z","#
            + #""requestEnd":"2026-11-29T10:15:01.036Z","responseStart":"2026-11-29T10:15:01.045Z","responseEnd":"2026-11-29T10:15:01.055Z","#
            + #""reusedConnection":false,"fetchType":"network","networkProtocol":"h2","remoteAddress":"203.0.113.9","remotePort":8443,"#
            + #""tlsVersion":"TLSv1.3","statusCode":301,"url":"https://a.example/r","requestBodyBytes":7,"responseBodyBytes":9}"#
    ])
    func fastPathEqualsSlowPath(_ json: String) throws {
        let v = try JSONDocument(string: json).root
        let slow = TransactionReader.slow(v, index: 0, maxLen: 2048)
        let read = TransactionReader.read(v, index: 0, maxLen: 2048)
        #expect(same(slow, read), "\(json)")
        if !json.contains("fetch\\u0053tart") { #expect(TransactionReader.fast(v, index: 0, maxLen: 2048) != nil) }
    }
}

@Suite struct TimeoutTests {
    @Test func timeoutIsExplainedAsNoResponse() throws {
        let line = Fx.network(
            seq: 31, id: "rec_31", method: "POST", url: "https://a.example/v1/orders", durationMs: 30000,
            endMs: 30100, txs: [Fx.tx(["fetchStart": 100, "requestStart": 100.4, "requestEnd": 130])],
            taskStartMs: 100, taskEndMs: 30100, state: "failure", status: nil,
            extra: #","error":{"domain":"NSURLErrorDomain","code":-1001,"description":"The request timed out."}"#)
        let (r, findings) = try Fx.single(line)
        #expect(findings.isEmpty)
        #expect(r.error == "The request timed out. (NSURLErrorDomain -1001)")
        #expect(r.transactions[0].phases.waiting == nil)
        let x = WaterfallSummary.explain(r, hosts: [:])
        #expect(x.phase == nil)
        #expect(x.sentence == "30.0 s without a response: The request timed out. (NSURLErrorDomain -1001)")
    }
}

@Suite struct OpenedConnectionTests {
    /// `openedConnection` answers from the timestamps what the phases would: a known DNS, TCP or TLS
    /// phase. Every presence and order of the six connection timestamps (absent, or at 0, 5 or 9),
    /// each reuse flag.
    @Test func equalsAKnownConnectionPhase() {
        let fields = [1, 2, 3, 4, 5, 6] // domainLookupStart … connectEnd in `TransactionTimes.fieldNames`
        let values: [Micros?] = [nil, 0, 5_000, 9_000]
        var checked = 0
        for code in 0..<Int(pow(Double(values.count), Double(fields.count))) {
            var times = TransactionTimes()
            var c = code
            for f in fields {
                times.set(f, values[c % values.count])
                c /= values.count
            }
            for reused in [nil, false, true] as [Bool?] {
                let t = WaterfallTransaction(index: 0, times: times, reusedConnection: reused)
                let p = t.phases
                #expect(
                    t.openedConnection == (p.dns != nil || p.tcp != nil || p.tls != nil), "\(times.ordered) \(String(describing: reused))")
                checked += 1
            }
        }
        #expect(checked == 4096 * 3)
    }

    @Test func orderIsThePlaceInAllCases() {
        for (i, p) in WaterfallPhase.allCases.enumerated() { #expect(p.order == i) }
    }
}

@Suite struct HostStatsTests {
    /// Hosts in runs, interleaved, across sessions: the counts are those of a plain count per request.
    @Test func countsEveryRequestOfTheAskedHosts() throws {
        let hosts = ["a.example", "b.example", "a.example", "a.example", "c.example", "b.example"]
        var sessions: [WaterfallSession] = []
        for part in [Array(hosts.prefix(4)), Array(hosts.dropFirst(2))] {
            var lines = [Fx.header()]
            for (i, h) in part.enumerated() {
                let tx = i % 2 == 0 ? Fx.newConnection(at: Double(i * 10)) : Fx.reused(at: Double(i * 10))
                lines.append(
                    Fx.network(
                        seq: i + 1, id: "rec_\(i + 1)", url: "https://\(h)/v1/x", durationMs: 5,
                        endMs: Double(i * 10 + 300), txs: [tx]))
            }
            sessions += try Fx.collect(lines).sessions
        }
        let asked: Set<String> = ["a.example", "b.example"]
        var expected: [String: (requests: Int, opened: Int)] = [:]
        for s in sessions {
            for r in s.requests {
                guard let h = r.host, asked.contains(h) else { continue }
                expected[h, default: (0, 0)].requests += 1
                if r.transactions.contains(where: { $0.phases.dns != nil || $0.phases.tcp != nil || $0.phases.tls != nil }) {
                    expected[h, default: (0, 0)].opened += 1
                }
            }
        }
        let stats = WaterfallSummary.hostStats(sessions, hosts: asked)
        #expect(Set(stats.keys) == asked)
        for h in asked {
            #expect(stats[h]?.requests == expected[h]?.requests && stats[h]?.opened == expected[h]?.opened, "\(h)")
        }
        #expect(stats["a.example"]?.requests == 5)
        #expect(WaterfallSummary.hostStats(sessions, hosts: []).isEmpty)
    }
}
