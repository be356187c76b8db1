import Foundation
import SiftCore

/// Where the time went: per-session timelines, the slowest requests with their dominant phase,
/// time per phase, and per-endpoint statistics.
public struct WaterfallSummary: Sendable {
    /// Tunables of the summary.
    public struct Options: Sendable {
        /// How many slowest requests to explain.
        public var slowest = 10
        /// An idle gap is a stretch with no request in flight at least this long.
        public var idleGapMs = 1000.0
        /// Idle gaps listed per session (the longest ones).
        public var maxIdleGaps = 20
        /// Endpoints listed (by total time).
        public var maxEndpoints = 200
        /// Requests summarised side by side at a time, about (a session is never split): the phases
        /// and endpoint keys of more are never held at once. The summary is the same for any window.
        public var window = 16_384
        /// The defaults.
        public init() {}
    }

    /// A stretch with no request in flight.
    public struct IdleGap: Sendable, Equatable {
        public var startOffsetMs: Double
        public var durationMs: Double
        public init(startOffsetMs: Double, durationMs: Double) {
            self.startOffsetMs = startOffsetMs
            self.durationMs = durationMs
        }
    }

    /// One session's requests on one axis from its origin.
    public struct Timeline: Sendable {
        public var sessionId: String?
        public var input: String
        public var file: String
        public var launchedAt: Double?
        /// `launchedAt`, `firstRecord`, `firstRequest` or `none`.
        public var originSource: String
        public var requestCount: Int
        /// Offset of the first request's start, ms.
        public var firstOffsetMs: Double?
        /// Offset of the last request's end, ms.
        public var endOffsetMs: Double?
        /// Time with at least one request in flight, ms.
        public var busyMs: Double
        public var maxConcurrency: Int
        /// When `maxConcurrency` was first reached, ms from the origin.
        public var maxConcurrencyAtMs: Double?
        /// Idle gaps of at least `Options.idleGapMs`, longest first (at most `maxIdleGaps`), then by offset.
        public var idleGaps: [IdleGap]
        /// All idle gaps over the threshold, before the list was cut.
        public var idleGapCount: Int
    }

    /// One request among the slowest, with the phase that dominated it.
    public struct Slow: Sendable {
        public var sessionId: String?
        public var seq: Int?
        public var recordId: String?
        public var requestId: String?
        /// `METHOD host/path`.
        public var title: String
        public var elapsedMs: Double
        public var dominant: WaterfallPhase?
        public var dominantMs: Double?
        /// One sentence: `TLS 1.2 s: a new connection for every request to cdn.acme.example`.
        public var explanation: String
    }

    /// Time spent in one phase across every transaction.
    public struct PhaseTotal: Sendable {
        public var phase: WaterfallPhase
        public var totalMs: Double
        /// Transactions in which the phase happened.
        public var count: Int
        public var maxMs: Double
    }

    /// Statistics of one endpoint: method + host + path with ids collapsed.
    public struct Endpoint: Sendable {
        public var key: String
        public var count: Int
        public var p50Ms: Double
        public var p95Ms: Double
        public var maxMs: Double
        public var totalMs: Double
    }

    public var requestCount: Int
    public var transactionCount: Int
    public var timelines: [Timeline]
    public var slowest: [Slow]
    public var phases: [PhaseTotal]
    public var endpoints: [Endpoint]
    /// Endpoints beyond `Options.maxEndpoints` that were not listed.
    public var endpointsOmitted: Int

    /// Summarises `sessions` (usually already filtered).
    public init(sessions: [WaterfallSession], options: Options = Options()) {
        var requestCount = 0
        var transactionCount = 0
        // Requests by place, not copied (a request copied whole retains every text it holds).
        for s in sessions {
            requestCount += s.requests.count
            s.requests.withUnsafeBufferPointer { rs in
                guard let base = rs.baseAddress else { return }
                for i in rs.indices { transactionCount += (base + i).pointee.transactions.count }
            }
        }
        self.requestCount = requestCount
        self.transactionCount = transactionCount
        // Per session, side by side: its timeline, each transaction's phases and each request's
        // endpoint key (the costly parts). They are summed and grouped below in session order, as
        // one loop over every request would. A window of sessions at a time (`options.window`).
        var timelines: [Timeline] = []
        timelines.reserveCapacity(sessions.count)
        // Per phase (by `order`): total, count, max. Arrays, not a dictionary: this loop sees every transaction.
        var sum = [Double](repeating: 0, count: 7)
        var count = [Int](repeating: 0, count: 7)
        var most = [Double](repeating: 0, count: 7)
        var byKey: [String: [Double]] = [:]
        var from = 0
        while from < sessions.count {
            var to = from
            var n = 0
            while to < sessions.count && (to == from || n + sessions[to].requests.count <= options.window) {
                n += sessions[to].requests.count
                to += 1
            }
            let parts = Parallel.map(Array(sessions[from..<to])) {
                s -> (timeline: Timeline, phases: [WaterfallPhases], groups: [(key: String, values: [Double])]) in
                var phases: [WaterfallPhases] = []
                // The session's times per endpoint, each endpoint's in request order (grouped here, on
                // the worker, rather than request by request below). A session calls a few endpoints
                // many times: each URL's key is worked out once per method.
                var groups: [(key: String, values: [Double])] = []
                var slotOf: [String: Int] = [:]
                var known: [String: [(method: String?, slot: Int)]] = [:]
                s.requests.withUnsafeBufferPointer { rs in
                    guard let base = rs.baseAddress else { return }
                    for i in rs.indices {
                        let r = base + i
                        for t in r.pointee.transactions { phases.append(t.phases) }
                        guard let ms = WaterfallRequest.knownElapsedMs(r) else { continue }
                        let method = r.pointee.record.method, url = r.pointee.record.url
                        if let url, let hit = known[url]?.first(where: { $0.method == method }) {
                            groups[hit.slot].values.append(ms)
                            continue
                        }
                        let key = WaterfallURL.endpointKey(method: method, url: url)
                        let slot: Int
                        if let found = slotOf[key] {
                            slot = found
                        } else {
                            slot = groups.count
                            slotOf[key] = slot
                            groups.append((key, []))
                        }
                        if let url { known[url, default: []].append((method, slot)) }
                        groups[slot].values.append(ms)
                    }
                }
                return (WaterfallSummary.timeline(s, options), phases, groups)
            }
            from = to
            for part in parts {
                timelines.append(part.timeline)
                for p in part.phases {
                    func add(_ k: Int, _ v: Double?) {
                        guard let v else { return }
                        sum[k] += v
                        count[k] += 1
                        if v > most[k] { most[k] = v }
                    }
                    add(0, p.blocked); add(1, p.dns); add(2, p.tcp); add(3, p.tls)
                    add(4, p.request); add(5, p.waiting); add(6, p.download)
                }
                // Each endpoint's times in session order, then request order, as one loop would add them.
                for g in part.groups { byKey[g.key, default: []] += g.values }
            }
        }
        self.timelines = timelines
        phases = WaterfallPhase.allCases.map { p in
            PhaseTotal(phase: p, totalMs: sum[p.order], count: count[p.order], maxMs: most[p.order])
        }

        // Each endpoint's times sorted side by side (every request's time, on a large export).
        var eps = Parallel.map(Array(byKey)) { key, values -> Endpoint in
            let sorted = values.sorted()
            return Endpoint(
                key: key, count: sorted.count, p50Ms: WaterfallSummary.percentile(sorted, 0.50),
                p95Ms: WaterfallSummary.percentile(sorted, 0.95), maxMs: sorted.last ?? 0,
                totalMs: sorted.reduce(0, +))
        }
        eps.sort { a, b in a.totalMs != b.totalMs ? a.totalMs > b.totalMs : a.key < b.key }
        endpointsOmitted = max(0, eps.count - options.maxEndpoints)
        endpoints = Array(eps.prefix(options.maxEndpoints))

        // Rank by index: sorting the request structs themselves would copy every string they hold.
        // Slowest first, then in session and request order: a total order, so the first `top` are
        // the same whether every request is sorted or only the first `top` are kept on the way.
        @inline(__always) func before(_ a: (ms: Double, s: Int, r: Int), _ b: (ms: Double, s: Int, r: Int)) -> Bool {
            if a.ms != b.ms { return a.ms > b.ms }
            return a.s != b.s ? a.s < b.s : a.r < b.r
        }
        let top = max(0, options.slowest)
        var ranked: [(ms: Double, s: Int, r: Int)] = []
        if top <= 64 {
            // A few asked for (ten by default): kept in order as the requests go by.
            ranked.reserveCapacity(top + 1)
            for (si, s) in sessions.enumerated() {
                s.requests.withUnsafeBufferPointer { rs in
                    guard let base = rs.baseAddress else { return }
                    for ri in rs.indices where top > 0 {
                        let x = (ms: WaterfallRequest.elapsedMs(base + ri), s: si, r: ri)
                        if ranked.count == top {
                            guard before(x, ranked[top - 1]) else { continue }
                            ranked.removeLast()
                        }
                        ranked.insert(x, at: ranked.firstIndex { before(x, $0) } ?? ranked.count)
                    }
                }
            }
        } else {
            ranked.reserveCapacity(requestCount)
            for (si, s) in sessions.enumerated() {
                s.requests.withUnsafeBufferPointer { rs in
                    guard let base = rs.baseAddress else { return }
                    for ri in rs.indices { ranked.append((WaterfallRequest.elapsedMs(base + ri), si, ri)) }
                }
            }
            ranked.sort(by: before)
        }
        let chosen = ranked.prefix(top).map { sessions[$0.s].requests[$0.r] }
        let hosts = chosen.isEmpty ? [:] : WaterfallSummary.hostStats(sessions, hosts: Set(chosen.compactMap(\.host)))
        slowest = chosen.map { req in
            let x = WaterfallSummary.explain(req, hosts: hosts)
            return Slow(
                sessionId: req.sessionId, seq: req.seq, recordId: req.recordId, requestId: req.requestId,
                title: req.shortTitle, elapsedMs: req.elapsedMs, dominant: x.phase, dominantMs: x.ms,
                explanation: x.sentence)
        }
    }

    /// Nearest-rank percentile of ascending `sorted` values (`q` in 0…1): the value at rank ⌈q·n⌉.
    /// 0 for no values.
    public static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    static func timeline(_ s: WaterfallSession, _ o: Options) -> Timeline {
        var intervals: [(Micros, Micros)] = []
        intervals.reserveCapacity(s.requests.count)
        // Read where each request stands (`rs[i].endUs` copied the request whole, every text retained).
        s.requests.withUnsafeBufferPointer { rs in
            guard let base = rs.baseAddress else { return }
            for i in rs.indices {
                if let a = WaterfallRequest.startUs(base + i), let b = WaterfallRequest.endUs(base + i) { intervals.append((a, max(a, b))) }
            }
        }
        intervals.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        let origin = s.originUs ?? intervals.first?.0 ?? 0
        func off(_ us: Micros) -> Double { Double(us - origin) / 1000 }

        // Concurrency: ends before starts at the same instant, so back-to-back is not overlap.
        var events: [(Micros, Int)] = []
        events.reserveCapacity(intervals.count * 2)
        for (a, b) in intervals { events.append((a, 1)); events.append((b, -1)) }
        events.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var level = 0, best = 0
        var bestAt: Micros?
        for (t, d) in events {
            level += d
            if level > best { best = level; bestAt = t }
        }

        var gaps: [IdleGap] = []
        var busy: Micros = 0
        var cur: (Micros, Micros)?
        for iv in intervals {
            if let c = cur {
                if iv.0 > c.1 {
                    busy += c.1 - c.0
                    let g = Double(iv.0 - c.1) / 1000
                    if g >= o.idleGapMs { gaps.append(IdleGap(startOffsetMs: off(c.1), durationMs: g)) }
                    cur = iv
                } else {
                    cur = (c.0, max(c.1, iv.1))
                }
            } else {
                cur = iv
            }
        }
        if let c = cur { busy += c.1 - c.0 }
        let gapCount = gaps.count
        gaps.sort { $0.durationMs != $1.durationMs ? $0.durationMs > $1.durationMs : $0.startOffsetMs < $1.startOffsetMs }
        gaps = Array(gaps.prefix(o.maxIdleGaps))
        gaps.sort { $0.startOffsetMs < $1.startOffsetMs }

        return Timeline(
            sessionId: s.sessionId, input: s.input, file: s.file, launchedAt: s.launchedAt,
            originSource: s.originSource, requestCount: s.requests.count,
            firstOffsetMs: intervals.first.map { off($0.0) },
            endOffsetMs: intervals.map(\.1).max().map(off),
            busyMs: Double(busy) / 1000, maxConcurrency: best, maxConcurrencyAtMs: bestAt.map(off),
            idleGaps: gaps, idleGapCount: gapCount)
    }

    /// Per host (of those in `hosts`): requests, and how many of them opened a new connection.
    /// One pass, on one thread: a request costs a comparison of its host with the last one and a
    /// look at its transactions' timestamps, less than handing sessions to other threads would.
    public static func hostStats(_ sessions: [WaterfallSession], hosts: Set<String>) -> [String: (requests: Int, opened: Int)] {
        var out: [String: (requests: Int, opened: Int)] = [:]
        guard !hosts.isEmpty else { return out }
        // Requests come in runs of one host (one shared text): a run is counted, then added once,
        // instead of hashing every request's host. Through the array's buffer: a request copied
        // whole retains every text it holds.
        var run: String? = nil
        var kept = false
        var count = (requests: 0, opened: 0)
        func flush() {
            guard kept, let h = run, count.requests > 0 else { return }
            out[h, default: (0, 0)].requests += count.requests
            out[h, default: (0, 0)].opened += count.opened
        }
        for s in sessions {
            s.requests.withUnsafeBufferPointer { requests in
                guard let base = requests.baseAddress else { return }
                for i in requests.indices {
                    let h = WaterfallRequest.host(base + i)
                    if h != run {
                        flush()
                        run = h
                        kept = h.map(hosts.contains) ?? false
                        count = (0, 0)
                    }
                    guard kept else { continue }
                    count.requests += 1
                    if WaterfallRequest.openedConnection(base + i) { count.opened += 1 }
                }
            }
        }
        flush()
        return out
    }

    /// The dominant phase of a request (largest summed over its transactions) and a sentence on it.
    public static func explain(_ r: WaterfallRequest, hosts: [String: (requests: Int, opened: Int)])
        -> (phase: WaterfallPhase?, ms: Double?, sentence: String)
    {
        let total = Human.duration(ms: r.elapsedMs)
        if r.transactions.isEmpty {
            if r.kind == "custom" { return (nil, nil, "\(total): a custom record has only its total, no phases") }
            if r.state == "pending" { return (nil, nil, "\(total) so far: still pending at the end of the session, no metrics") }
            return (nil, nil, "\(total): no timing metrics, only the total is known")
        }
        if let last = r.transactions.last, last.times.responseStart == nil, last.times.responseEnd == nil,
            r.error != nil || NetworkRecord.endedWithoutResponse(state: r.state)
        {
            let why = r.error ?? r.state ?? "no response"
            return (nil, nil, "\(total) without a response: \(why)")
        }
        let sums = r.phaseSums
        var best: (WaterfallPhase, Double)?
        for p in WaterfallPhase.allCases {
            if let v = sums[p], v > (best?.1 ?? -1) { best = (p, v) }
        }
        let extra = r.transactions.count > 1 ? " (over \(r.transactions.count) transactions: redirects or retries)" : ""
        guard let (phase, ms) = best else {
            if r.transactions.allSatisfy(\.isCacheHit) { return (nil, nil, "\(total): served from the local cache") }
            return (nil, nil, "\(total): no phase could be rebuilt from the metrics")
        }
        let head = "\(phase.title) \(Human.duration(ms: ms))"
        let host = r.host ?? "the server"
        let stat = hosts[host] ?? (1, 1)
        let sentence: String
        switch phase {
        case .blocked:
            sentence = "\(head): queued before it could start (a busy connection or the app's own queue)"
        case .dns:
            if stat.opened >= 2 && stat.opened == stat.requests {
                sentence = "\(head): a fresh name lookup for every request to \(host)"
            } else {
                sentence = "\(head): a slow name lookup for \(host)"
            }
        case .tcp, .tls:
            if stat.opened >= 2 && stat.opened == stat.requests {
                sentence = "\(head): a new connection for every request to \(host)"
            } else if stat.opened >= 2 {
                sentence = "\(head): a new connection for \(stat.opened) of \(stat.requests) requests to \(host)"
            } else if phase == .tls {
                sentence = "\(head): a slow TLS handshake with \(host)"
            } else {
                sentence = "\(head): a slow connection to \(host)"
            }
        case .request:
            let bytes = r.transactions.compactMap(\.requestBodyBytes).max() ?? r.requestBytes
            if let b = bytes, b > 0 {
                sentence = "\(head) to send \(Human.bytes(b))"
            } else {
                sentence = "\(head): sending the request was slow"
            }
        case .waiting:
            sentence = "\(head): the server (or what's in front of it) was slow to answer"
        case .download:
            let bytes = r.transactions.compactMap(\.responseBodyBytes).max() ?? r.responseBytes
            if let b = bytes, b > 0 {
                sentence = "\(head) for \(Human.bytes(b))"
            } else {
                sentence = "\(head): the response was slow to arrive"
            }
        }
        var outside = ""
        if let d = r.durationMs, let m = r.totalMs {
            let tolerance = max(WaterfallRule.mismatchFloorMs, WaterfallRule.mismatchFraction * max(d, m))
            if d - m > tolerance { outside = "; \(Human.duration(ms: d - m)) of the record's duration lies outside the metrics" }
        }
        return (phase, ms, sentence + extra + outside)
    }
}

/// Everything a renderer needs: the (filtered) sessions, their summary, and the sorted findings.
public struct WaterfallReport: Sendable {
    package private(set) var sessions: [WaterfallSession]
    package private(set) var summary: WaterfallSummary
    /// Sorted by `Finding.reportOrder`.
    package private(set) var findings: [Finding]

    /// Whether sessions or requests were read but not kept (a `waterfall.limit` finding says how
    /// many): the counts printed are then of what is listed, and the headings say so.
    public var isLimited: Bool { findings.contains { $0.ruleID == WaterfallRule.limit.id } }

    /// Builds a report; `filter` chooses the requests and the findings that concern them.
    /// Every text of the requests and findings kept goes through `redactor` (a report is what
    /// renderers print, so it can't be made of raw export text). The requests are redacted in place:
    /// hand over sessions nothing else holds (`WaterfallAnalysis.takeSessions()`) and the export's
    /// texts are let go as they are replaced, instead of being held twice.
    public init(
        sessions: consuming [WaterfallSession], findings: [Finding], filter: WaterfallFilter = WaterfallFilter(),
        options: WaterfallSummary.Options = WaterfallSummary.Options(), redactor: Redactor
    ) {
        // `slowest` chooses what is shown; the statistics still describe every request the other
        // criteria keep.
        var every = filter
        every.slowest = nil
        var o = options
        if let n = filter.slowest { o.slowest = n }
        var described: [WaterfallSession]? = nil
        if filter.slowest != nil {
            var all = every.apply(sessions)
            WaterfallSession.redact(&all, by: redactor)
            described = all
        }
        var kept = filter.apply(sessions)
        _ = consume sessions
        self.findings = filter.apply(findings, kept: kept).map { $0.redacted(by: redactor) }.sorted(by: Finding.reportOrder)
        WaterfallSession.redact(&kept, by: redactor)
        self.summary = WaterfallSummary(sessions: described ?? kept, options: o)
        self.sessions = kept
    }

    /// A report of every request of `sessions`, which redacted them as they were read; `findings`
    /// go through the same redactor.
    public init(sessions: RedactingSessions, findings: [Finding], options: WaterfallSummary.Options = WaterfallSummary.Options()) {
        self.findings = findings.map { $0.redacted(by: sessions.redactor) }.sorted(by: Finding.reportOrder)
        self.sessions = sessions.take()
        self.summary = WaterfallSummary(sessions: self.sessions, options: options)
    }

    /// The same report without its findings (for a document that lists them elsewhere).
    public func withoutFindings() -> WaterfallReport {
        var r = self
        r.findings = []
        return r
    }

    /// The axis of one session: from its origin (or its first request, when earlier) to its last end, in µs.
    public static func axis(_ s: WaterfallSession) -> (start: Micros, end: Micros)? {
        let starts = s.requests.compactMap(\.startUs)
        guard let first = starts.min() else { return nil }
        let start = min(s.originUs ?? first, first)
        let end = s.requests.compactMap(\.endUs).max() ?? first
        return (start, max(end, start + 1))
    }
}
