import Foundation
import SiftCore
import Testing
import SiftWaterfall
import SiftVerify

@Suite struct SummaryTests {
    @Test(arguments: [
        ("/v1/orders/ord_77", "/v1/orders/:id"),
        ("/v1/orders/12345/items", "/v1/orders/:id/items"),
        ("/v1/users/5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13", "/v1/users/:id"),
        ("/v1/sessions/ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13/records", "/v1/sessions/:id/records"),
        ("/v1/requests/req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b", "/v1/requests/:id"),
        ("/blobs/9f2c4e1a0b3d5f7e9f2c4e1a0b3d5f7e", "/blobs/:id"),
        ("/v1/auth/refresh_token", "/v1/auth/refresh_token"),
        ("/v1/flags", "/v1/flags"),
        ("/v2/items/abc", "/v2/items/abc"),
        ("/cafe", "/cafe"),
        ("/", "/")
    ])
    func endpointCollapsing(_ path: String, _ expected: String) {
        #expect(WaterfallURL.collapsePath(path) == expected)
    }

    @Test func endpointKeyDropsQueryAndUserinfo() {
        #expect(
            WaterfallURL.endpointKey(method: "post", url: "https://user:pw@API.acme.example:8443/v1/orders/ord_77?x=1#f")
                == "POST api.acme.example:8443/v1/orders/:id")
        #expect(WaterfallURL.endpointKey(method: nil, url: nil) == "? ?")
        #expect(WaterfallURL.endpointKey(method: "GET", url: "not a url/123") == "GET not a url/:id")
    }

    @Test func redactorMasksSecretsInUrls() {
        let jwt = "eyJ" + "hbGciOiJIUzI1NiJ9" + "." + "e30" + "." + "c2lnbmF0dXJl"
        let r = Redactor.verify()
        #expect(
            r.url(Untrusted("https://bob:hunter2@a.example/p?state=xyz&access_token=abc&Refresh-Token=q&code=***&x=\(jwt)#frag")).value
                == "https://a.example/p?state=xyz&access_token=***&Refresh-Token=***&code=***&x=***#frag")
        #expect(r.url(Untrusted("https://a.example/p")).value == "https://a.example/p")
        #expect(r.url(Untrusted("relative?token=1")).value == "relative?token=***")
        // A percent-encoded credential is masked as well.
        let pct =
            "https://a.example/p?q=" + "eyJ" + "hbGciOiJIUzI1NiJ9".map { "%" + String(format: "%02X", $0.asciiValue ?? 0) }.joined()
            + ".e30.c2lnbmF0dXJl"
        #expect(r.url(Untrusted(pct)).value == "https://a.example/p?q=***")
    }

    @Test func percentilesAreNearestRank() {
        let v = (1...20).map(Double.init)
        #expect(WaterfallSummary.percentile(v, 0.50) == 10)
        #expect(WaterfallSummary.percentile(v, 0.95) == 19)
        #expect(WaterfallSummary.percentile(v, 1.0) == 20)
        #expect(WaterfallSummary.percentile([7], 0.95) == 7)
        #expect(WaterfallSummary.percentile([], 0.5) == 0)
        #expect(WaterfallSummary.percentile([1, 2, 3], 0.5) == 2)
        #expect(WaterfallSummary.percentile([1, 2, 3, 4], 0.5) == 2)
    }

    /// Three new-connection requests to one CDN host (each pays TLS), overlapping requests, an idle gap.
    static func cdnSession() throws -> [WaterfallSession] {
        var lines = [Fx.header()]
        var seq = 1
        for (i, at) in [100.0, 150.0, 3000.0].enumerated() {
            // TLS dominates: slow handshake (secureConnectionStart → End = 600 ms).
            let t = Fx.tx(
                [
                    "fetchStart": at, "domainLookupStart": at + 1, "domainLookupEnd": at + 5, "connectStart": at + 5,
                    "secureConnectionStart": at + 40, "secureConnectionEnd": at + 640, "connectEnd": at + 640,
                    "requestStart": at + 640, "requestEnd": at + 641, "responseStart": at + 700, "responseEnd": at + 710
                ],
                ["reusedConnection": "false", "statusCode": "200", "responseBodyBytes": "4800000"])
            lines.append(
                Fx.network(
                    seq: seq, id: "rec_c\(i)", url: "https://cdn.acme.example/img/\(i + 1).png", durationMs: 710,
                    endMs: at + 710, txs: [t], taskStartMs: at, taskEndMs: at + 710, category: "app", source: "app"))
            seq += 1
        }
        // A slow API call: waiting dominates.
        lines.append(
            Fx.network(
                seq: seq, id: "rec_api", method: "POST", url: "https://api.acme.example/v1/orders/ord_77",
                durationMs: 2124, endMs: 2500, txs: [Fx.reused(at: 376, wait: 2100, dl: 20)],
                taskStartMs: 376, taskEndMs: 2500, requestId: "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"))
        return try Fx.collect(lines).sessions
    }

    @Test func timelineConcurrencyAndIdleGaps() throws {
        let sessions = try Self.cdnSession()
        let s = WaterfallSummary(sessions: sessions)
        let tl = try #require(s.timelines.first)
        #expect(tl.requestCount == 4)
        #expect(tl.firstOffsetMs == 100)
        #expect(tl.endOffsetMs == 3710)
        #expect(tl.maxConcurrency == 3) // 100–810, 150–860, 376–2500
        #expect(tl.maxConcurrencyAtMs == 376)
        #expect(tl.idleGaps == [WaterfallSummary.IdleGap(startOffsetMs: 2500, durationMs: 500)] || tl.idleGaps.isEmpty)
        // Default threshold is 1 s: the 500 ms gap (2500 → 3000) is not listed.
        #expect(tl.idleGapCount == 0)
        var o = WaterfallSummary.Options()
        o.idleGapMs = 400
        let s2 = WaterfallSummary(sessions: sessions, options: o)
        #expect(s2.timelines.first?.idleGaps == [WaterfallSummary.IdleGap(startOffsetMs: 2500, durationMs: 500)])
        let busy = try #require(s2.timelines.first?.busyMs)
        #expect(busy == 3110, "\(busy.bitPattern) \(Double(3110).bitPattern)")
    }

    @Test func dominantPhaseSentences() throws {
        let s = WaterfallSummary(sessions: try Self.cdnSession())
        #expect(s.slowest.first?.recordId == "rec_api")
        #expect(s.slowest.first?.dominant == .waiting)
        #expect(s.slowest.first?.explanation == "waiting 2.1 s: the server (or what's in front of it) was slow to answer")
        let cdn = s.slowest.first { $0.recordId == "rec_c0" }
        #expect(cdn?.dominant == .tls)
        #expect(cdn?.explanation == "TLS 600 ms: a new connection for every request to cdn.acme.example")
    }

    @Test func downloadSentenceNamesTheSize() {
        var t = WaterfallTransaction(
            index: 0,
            times: {
                var x = TransactionTimes()
                x.fetchStart = 0; x.requestStart = 1000; x.requestEnd = 2000; x.responseStart = 10_000; x.responseEnd = 910_000
                return x
            }(), reusedConnection: true)
        t.responseBodyBytes = 4_800_000
        var r = WaterfallRequest(input: "i", file: "f", line: 1)
        r.transactions = [t]
        r.url = "https://cdn.acme.example/a.bin"
        #expect(WaterfallSummary.explain(r, hosts: [:]).sentence == "download 900 ms for 4.6 MiB")
    }

    @Test func phaseTotalsAndEndpoints() throws {
        let s = WaterfallSummary(sessions: try Self.cdnSession())
        let tls = try #require(s.phases.first { $0.phase == .tls })
        #expect(tls.totalMs == 1800 && tls.count == 3 && tls.maxMs == 600)
        let dns = try #require(s.phases.first { $0.phase == .dns })
        #expect(dns.count == 3)
        #expect(
            s.endpoints.map(\.key) == [
                "GET cdn.acme.example/img/1.png", "POST api.acme.example/v1/orders/:id",
                "GET cdn.acme.example/img/2.png", "GET cdn.acme.example/img/3.png"
            ]
                || s.endpoints.first?.key == "POST api.acme.example/v1/orders/:id")
        let api = try #require(s.endpoints.first { $0.key == "POST api.acme.example/v1/orders/:id" })
        #expect(api.count == 1 && api.p50Ms == 2124 && api.p95Ms == 2124 && api.maxMs == 2124)
    }

    @Test func filters() throws {
        let sessions = try Self.cdnSession()
        func seqs(_ f: WaterfallFilter) -> [Int] { f.apply(sessions).flatMap(\.requests).compactMap(\.seq) }
        #expect(seqs(WaterfallFilter()) == [1, 2, 3, 4])
        #expect(seqs(WaterfallFilter(request: "2")) == [2])
        #expect(seqs(WaterfallFilter(request: "rec_c2")) == [3])
        #expect(seqs(WaterfallFilter(request: "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b")) == [4])
        #expect(seqs(WaterfallFilter(request: "nope")) == [])
        #expect(seqs(WaterfallFilter(slowest: 2)) == [1, 4]) // 4 is slowest; 1, 2, 3 tie at 710 → first wins; timeline order
        #expect(seqs(WaterfallFilter(minDurationMs: 1000)) == [4])
        #expect(seqs(WaterfallFilter(category: "app")) == [1, 2, 3])
        #expect(seqs(WaterfallFilter(source: "sdk")) == [4])
        #expect(seqs(WaterfallFilter(slowest: 1, category: "app")) == [1])
    }

    @Test func filterKeepsOnlyFindingsOfKeptRequests() throws {
        let lines = [
            Fx.header(),
            Fx.network(seq: 1, id: "rec_1", url: "https://a.example/x", durationMs: 50, endMs: 60, txs: [], metrics: false),
            Fx.network(seq: 2, id: "rec_2", url: "https://a.example/y", durationMs: 50, endMs: 90, txs: [], metrics: false)
        ]
        let (s, f) = try Fx.collect(lines)
        let report = WaterfallReport(sessions: s, findings: f, filter: WaterfallFilter(request: "rec_2"), redactor: .verify())
        #expect(report.findings.map(\.seq) == [2])
        #expect(WaterfallReport(sessions: s, findings: f, redactor: .verify()).findings.map(\.seq) == [1, 2])
    }
}

@Suite struct TimestampFormatTests {
    /// `Timestamp.format` was rewritten without String(format:) for the renderers' speed.
    @Test func formatsLikeBefore() {
        #expect(Timestamp.format(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(0, micro: true) == "1970-01-01T00:00:00.000000Z")
        let t = Timestamp.parse("2026-11-29T10:15:04.469123Z") ?? 0
        #expect(Timestamp.format(t, micro: true) == "2026-11-29T10:15:04.469123Z")
        #expect(Timestamp.format(t) == "2026-11-29T10:15:04.469Z")
        #expect(Timestamp.format(-0.5) == "1969-12-31T23:59:59.500Z")
        #expect(Timestamp.format(Timestamp.parse("9999-12-31T23:59:59.999Z") ?? 0) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.format(.nan) == "")
    }
}

@Suite struct FixedFormatTests {
    @Test func fixedMatchesPrintf() {
        var values: [Double] = [0, 0.005, 0.015, 0.125, 0.5, 1.05, 2.5, 2.675, 1.005, 9.95, 10.5, 999.5, 1234.5678, 59949.9]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            values.append(Double(Int.random(in: 0...10_000_000, using: &rng)) / 1000)
            values.append(Double.random(in: 0...100_000, using: &rng))
        }
        for v in values {
            for d in 0...2 {
                #expect(Human.fixed(v, d) == String(format: "%.\(d)f", v), "\(v) \(d)")
            }
        }
    }
}
