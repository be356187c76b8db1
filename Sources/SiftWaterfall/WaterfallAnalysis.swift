import Foundation
import SiftCore

/// The core of the waterfall analysis, fed with plain values: `WaterfallAnalysis` forwards the
/// reader's calls here, and tests or benchmarks can drive it without a reader.
public final class WaterfallCollector {
    /// The bounds this collector keeps to.
    public let limits: WaterfallLimits
    /// Finished sessions, in the order they ended.
    package private(set) var sessions: [WaterfallSession] = []
    /// Findings of finished sessions (unsorted): per rule, the first `maxFindingsPerRule` of a session
    /// and the first `FindingTally.defaultKeepPerInput` of an input are listed, the rest counted.
    public var findings: [Finding] { tally.findings }
    private var tally = FindingTally(keep: Int.max)
    /// Network records seen but not kept because of `limits.maxRequests`.
    package private(set) var droppedRequests = 0
    /// Sessions past `limits.maxSessions`, read but not listed, and their network records.
    package private(set) var unlistedSessions = 0
    package private(set) var unlistedRequests = 0
    private var listedSessions = 0
    private var unlistedInput: String?
    private var kept = 0
    /// Memory the kept requests hold, about: their buffers and `WaterfallRequest.heapBytes`.
    package private(set) var heldBytes = 0
    private var droppedByCount = false
    private var current: Builder?
    /// Repeated texts (URLs, hosts, methods, states, errors) kept once for every request.
    private let pool = StringPool()
    private var limitInput: String?
    /// When set, each finished session is handed here as it ends instead of being kept in
    /// `sessions` (a caller that needs a few requests and some counts need not hold them all). The
    /// bounds are counted as if the sessions were kept, so every caller describes the same requests.
    public var sessionSink: (@Sendable (WaterfallSession) -> Void)?

    final class Builder {
        let input: String
        let file: String
        var sessionId: String?
        var launchedAt: Double?
        var firstTs: Double?
        var requests: [WaterfallRequest] = []
        var findings: [Finding] = []
        var ruleCounts: [String: Int] = [:]
        var suppressed: [RuleID: (severity: Severity, count: Int)] = [:]
        var pendingById: [String: Finding] = [:]
        var pendingWithoutId: [Finding] = []
        /// `requests.capacity` as counted in `heldBytes`.
        var countedCapacity = 0

        init(input: String, file: String, sessionId: String?) {
            self.input = input
            self.file = file
            self.sessionId = sessionId
        }

        /// Where a record read now stands, as its request and findings name it.
        var place: Place { Place(input: input, file: file, sessionId: sessionId) }
    }

    /// Where a network record stands: its input and file, and the session id known when it was read
    /// (the header's, once read). All that `parse` needs besides the record, so that records can be
    /// parsed on any thread while the requests are filed in order.
    public struct Place: Sendable {
        public var input: String
        public var file: String
        public var sessionId: String?

        public init(input: String, file: String, sessionId: String?) {
            self.input = input
            self.file = file
            self.sessionId = sessionId
        }
    }

    /// A network record parsed (`parse`), not yet filed: its request and the findings it raised
    /// (pending excepted). Its texts come from the parsing thread's pool; `add` moves them to the
    /// collector's.
    public struct Parsed: @unchecked Sendable {
        var request: WaterfallRequest
        var notes: [Finding]
    }

    /// The pool `add` parses with when no parsed form is handed in.
    private let scratch = StringPool()

    /// A collector with no session yet.
    public init(limits: WaterfallLimits = WaterfallLimits()) {
        self.limits = limits
    }

    /// Starts a session file. Ends the previous one if it was left open.
    public func beginSession(input: String, file: String, sessionId: String?) {
        if current != nil { endSession(sessionId: nil, launchedAt: nil) }
        current = Builder(input: input, file: file, sessionId: sessionId)
    }

    /// Takes one record of the current session (any type; only the header and network records matter).
    /// `parsed`: the record's `parse` when it was parsed already (on another thread); else it is
    /// parsed here.
    public func add(_ record: Record, parsed: consuming Parsed? = nil) {
        let b: Builder
        if let c = current {
            b = c
        } else {
            b = Builder(input: "-", file: "-", sessionId: nil)
            current = b
        }
        if b.firstTs == nil, let ts = record.ts { b.firstTs = ts }
        if record.type == .session {
            if b.launchedAt == nil, let s = record.json["launchedAt"]?.string { b.launchedAt = Timestamp.parse(s) }
            if let id = record.heldText("sessionId") { b.sessionId = id }
            return
        }
        guard record.type == .network else { return }
        // Taken, not copied: the request's transactions are then this one's alone, and interning
        // their texts writes them in place.
        var p: Parsed
        if let q = consume parsed { p = q } else { p = WaterfallCollector.parse(record, at: b.place, limits: limits, pool: scratch) }
        // One copy of each repeated text for every request, whichever thread parsed it; a session
        // past `maxSessions` keeps no request, so its texts are not pooled.
        let listed = listedSessions < limits.maxSessions
        if listed { p.request.intern(into: pool) }
        for n in p.notes { emit(n, b) }
        let request = p.request.take()
        if !b.pendingById.isEmpty, let id = request.recordId, request.state != "pending", let at = b.pendingById.index(forKey: id) {
            b.pendingById.remove(at: at)
        }
        if request.state == "pending" {
            let f = WaterfallCollector.finding(
                WaterfallRule.pending, b.place, request, location: "state",
                message: "request still pending at the end of the session: the app was killed, hung, or the session ended mid-flight")
            if let id = request.recordId { b.pendingById[id] = f } else { b.pendingWithoutId.append(f) }
        }
        // The next append may move the session's requests to a buffer twice the size.
        let stride = MemoryLayout<WaterfallRequest>.stride
        let growth = b.requests.count == b.requests.capacity ? max(b.requests.capacity, 4) * 2 * stride : 0
        let cost = request.heapBytes
        if !listed {
            // This session will not be listed (`endSession`): its requests are only counted.
            unlistedRequests += 1
        } else if kept < limits.maxRequests && heldBytes + cost + growth + pool.unpooledBytes <= limits.maxBytes {
            kept += 1
            heldBytes += cost
            b.requests.append(request)
            countCapacity(b)
        } else {
            droppedRequests += 1
            if kept >= limits.maxRequests { droppedByCount = true }
            if limitInput == nil { limitInput = b.input }
        }
    }

    /// Ends the current session: fixes the origin and every offset, and files its findings.
    /// `sessionId` and `launchedAt` (from the reader's context) fill in what the header did not give.
    public func endSession(sessionId: String?, launchedAt: Double?) {
        guard let b = current else { return }
        current = nil
        if b.sessionId == nil { b.sessionId = sessionId }
        if b.launchedAt == nil { b.launchedAt = launchedAt }
        for f in b.pendingById.values.sorted(by: { ($0.line ?? 0) < ($1.line ?? 0) }) { emit(f, b) }
        for f in b.pendingWithoutId { emit(f, b) }

        var originUs: Micros?
        var source = "none"
        if let l = WaterfallJSON.micros(b.launchedAt) {
            originUs = l
            source = "launchedAt"
        } else if let first = WaterfallJSON.micros(b.firstTs) {
            let earliest = b.requests.compactMap(\.startUs).min()
            originUs = min(first, earliest ?? first)
            source = "firstRecord"
        } else if let earliest = b.requests.compactMap(\.startUs).min() {
            originUs = earliest
            source = "firstRequest"
        }
        if let o = originUs {
            for i in b.requests.indices {
                if let s = b.requests[i].startUs { b.requests[i].offsetMs = Double(s - o) / 1000 }
                for k in b.requests[i].transactions.indices {
                    if let s = b.requests[i].transactions[k].startUs {
                        b.requests[i].transactions[k].offsetMs = Double(s - o) / 1000
                    }
                }
            }
        }
        for i in b.findings.indices where b.findings[i].sessionId == nil { b.findings[i].sessionId = b.sessionId }
        for i in b.requests.indices where b.requests[i].sessionId == nil { b.requests[i].sessionId = b.sessionId }
        for f in b.findings { tally.append(f) }
        for (rule, (severity, n)) in b.suppressed.sorted(by: { $0.key.id < $1.key.id }) {
            tally.append(
                Finding(
                    rule: rule, severity: severity, input: b.input, file: b.file,
                    sessionId: b.sessionId,
                    message: "\(n) more \(rule.id) findings in this session were not listed"), counting: n)
        }
        // The finished session's requests at their size, not the growing buffer's.
        if b.requests.capacity > b.requests.count + b.requests.count / 16 {
            b.requests = b.requests.withUnsafeBufferPointer { Array($0) }
            countCapacity(b)
        }
        guard listedSessions < limits.maxSessions else {
            unlistedSessions += 1
            if unlistedInput == nil { unlistedInput = b.input }
            return
        }
        listedSessions += 1
        let session = WaterfallSession(
            input: b.input, file: b.file, sessionId: b.sessionId, launchedAt: b.launchedAt,
            originUs: originUs, originSource: source, requests: b.requests)
        if let sink = sessionSink { sink(session) } else { sessions.append(session) }
    }

    /// The finished sessions, handed over: the collector keeps none of them after.
    public func takeSessions() -> [WaterfallSession] {
        let out = sessions
        sessions = []
        return WaterfallSession.inLaunchOrder(out)
    }

    /// Ends any open session and returns every finding, including the limit notice.
    public func finish() -> [Finding] {
        if current != nil { endSession(sessionId: nil, launchedAt: nil) }
        var out = findings
        if droppedRequests > 0 {
            let bound =
                droppedByCount
                ? "the limit of \(limits.maxRequests)"
                : "the waterfall's memory bound (\(Human.bytes(limits.maxBytes)) of requests)"
            out.append(
                Finding(
                    rule: WaterfallRule.limit.id, severity: .info, input: limitInput ?? "-",
                    message: "\(droppedRequests) network records beyond \(bound) were checked but not kept for the waterfall"))
        }
        if unlistedSessions > 0 {
            out.append(
                Finding(
                    rule: WaterfallRule.limit.id, severity: .info, input: unlistedInput ?? "-",
                    message:
                        "\(unlistedSessions) sessions beyond the limit of \(limits.maxSessions) (\(unlistedRequests) network records) were read and checked but not listed in the waterfall"
                ))
        }
        return out
    }

    /// Counts the session's request buffer at its size (`heldBytes`).
    private func countCapacity(_ b: Builder) {
        let cap = b.requests.capacity
        guard cap != b.countedCapacity else { return }
        heldBytes += (cap - b.countedCapacity) * MemoryLayout<WaterfallRequest>.stride
        b.countedCapacity = cap
    }

    private func emit(_ f: Finding, _ b: Builder) {
        let n = (b.ruleCounts[f.rule] ?? 0) + 1
        b.ruleCounts[f.rule] = n
        if n > limits.maxFindingsPerRule {
            b.suppressed[f.ruleID, default: (f.severity, 0)].count += 1
        } else {
            b.findings.append(f)
        }
    }

    /// What a network record's member name stands for: 0 nothing the waterfall reads, 1…9 the
    /// `NetworkRecord.Field` of raw value 0…8, 16…22 the waterfall's own (`source`, `category`,
    /// `kind`, `label`, `response`, `request`, `metrics`: bits 9…15). By length first, then one or
    /// two comparisons of short strings, rather than a comparison with every name.
    static func member(_ key: String) -> UInt8 {
        func f(_ x: NetworkRecord.Field) -> UInt8 { x.rawValue + 1 }
        switch key.utf8.count {
        case 2: return key == "id" ? f(.id) : 0
        case 3: return key == "url" ? f(.url) : 0
        case 4: return key == "kind" ? 18 : 0
        case 5: return key == "state" ? f(.state) : key == "label" ? 19 : key == "error" ? f(.error) : 0
        case 6: return key == "method" ? f(.method) : key == "source" ? 16 : 0
        case 7: return key == "request" ? 21 : key == "metrics" ? 22 : 0
        case 8: return key == "duration" ? f(.duration) : key == "category" ? 17 : key == "response" ? 20 : 0
        case 9: return key == "requestId" ? f(.requestId) : 0
        case 10: return key == "statusCode" ? f(.statusCode) : 0
        case 15: return key == "echoedRequestId" ? f(.echoedRequestId) : 0
        default: return 0
        }
    }

    /// `member(_:)` of a name's bytes (unescaped), compared where they lie.
    static func member(_ key: UnsafeBufferPointer<UInt8>) -> UInt8 {
        func f(_ x: NetworkRecord.Field) -> UInt8 { x.rawValue + 1 }
        let n = key.count
        @inline(__always) func eq(_ s: StaticString) -> Bool { memcmp(s.utf8Start, key.baseAddress!, n) == 0 }
        switch n {
        case 2: return eq("id") ? f(.id) : 0
        case 3: return eq("url") ? f(.url) : 0
        case 4: return eq("kind") ? 18 : 0
        case 5: return eq("state") ? f(.state) : eq("label") ? 19 : eq("error") ? f(.error) : 0
        case 6: return eq("method") ? f(.method) : eq("source") ? 16 : 0
        case 7: return eq("request") ? 21 : eq("metrics") ? 22 : 0
        case 8: return eq("duration") ? f(.duration) : eq("category") ? 17 : eq("response") ? 20 : 0
        case 9: return eq("requestId") ? f(.requestId) : 0
        case 10: return eq("statusCode") ? f(.statusCode) : 0
        case 15: return eq("echoedRequestId") ? f(.echoedRequestId) : 0
        default: return 0
        }
    }

    private static func finding(_ rule: WaterfallRule, _ b: Place, _ r: WaterfallRequest, location: String?, message: String) -> Finding {
        Finding(
            rule: rule.id, severity: rule.severity, input: b.input, file: b.file, sessionId: b.sessionId,
            seq: r.seq, line: r.line, recordId: r.recordId, location: location, message: message)
    }

    /// Rebuilds one network record read at `b`, its texts through `pool` (one per thread); returns
    /// it with the findings it raised (pending excepted). Pure but for the pool: any thread may run it.
    public static func parse(_ record: Record, at b: Place, limits: WaterfallLimits, pool: StringPool) -> Parsed {
        let j = record.json
        let maxLen = limits.maxStringLength
        var r = WaterfallRequest(input: b.input, file: b.file, line: record.line, ordinal: record.ordinal)
        r.sessionId = b.sessionId
        r.seq = record.seq
        r.record.ts = record.ts
        // One pass over the record's members (names are short: no allocation); the first of a
        // repeated name wins, as with `JSONValue`'s subscript. The shared fields are read by
        // `NetworkRecord` (bits 0…8), the waterfall's own here.
        let textLimits = NetworkRecord.TextLimits(long: maxLen)
        var anomalies: [String] = []
        var anomalyLocation = "metrics"
        var taskStart: Micros?
        var taskEnd: Micros?
        var metricsSpanMs: Double?
        // Read off the tape: member names compared as bytes where they lie, bodies never touched.
        let root = j.tapeIndex
        j.doc.withTape { t in
            var seen: UInt16 = 0
            var metrics: Int?
            t.forEachMember(root) { k, v in
                let m = t.isEscaped(k) ? WaterfallCollector.member(t.value(k).string ?? "") : WaterfallCollector.member(t.raw(k))
                guard m != 0 else { return }
                if m < 16, let f = NetworkRecord.Field(rawValue: m - 1) {
                    guard seen & f.bit == 0 else { return }
                    seen |= f.bit
                    r.record.set(f, t, v, limits: textLimits, pool: pool)
                    return
                }
                let bit: UInt16 = 1 << UInt16(m - 16 + 9)
                guard seen & bit == 0 else { return }
                seen |= bit
                switch bit {
                case 1 << 9: r.source = StringPool.text(t, v, max: 64, pool: pool)
                case 1 << 10: r.category = StringPool.text(t, v, max: 128, pool: pool)
                case 1 << 11: r.kind = StringPool.text(t, v, max: 64, pool: pool)
                case 1 << 12: r.label = StringPool.text(t, v, max: 256, pool: pool)
                case 1 << 13: r.responseBytes = t.member(v, "body").flatMap { t.member($0, "size") }.flatMap(t.int)
                case 1 << 14: r.requestBytes = t.member(v, "body").flatMap { t.member($0, "size") }.flatMap(t.int)
                default: metrics = v
                }
            }
            r.record.shareIds()
            r.cachedHost = r.url.flatMap(WaterfallURL.host).map(pool.intern)

            if let d = r.record.duration, d.isFinite, abs(d) < 1.0e9 {
                let ms = (d * 1_000_000).rounded() / 1000
                if ms < 0 {
                    anomalies.append("duration is negative (\(Human.duration(ms: ms)))")
                    anomalyLocation = "duration"
                } else {
                    r.durationMs = ms
                }
            }

            guard let m = metrics, t.kind(m) == .object else { return }
            r.hasMetrics = true
            switch WaterfallJSON.stamp(t, t.member(m, "taskStart")) {
            case .value(let v): taskStart = v
            case .invalid: anomalies.append("taskStart is not a timestamp")
            case .absent: break
            }
            switch WaterfallJSON.stamp(t, t.member(m, "taskEnd")) {
            case .value(let v): taskEnd = v
            case .invalid: anomalies.append("taskEnd is not a timestamp")
            case .absent: break
            }
            var index = 0
            var txLocations: Set<Int> = []
            if let txs = t.member(m, "transactions") {
                r.transactions.reserveCapacity(min(t.count(txs), limits.maxTransactions))
                t.forEachElement(txs) { tx in
                    defer { index += 1 }
                    guard index < limits.maxTransactions else { r.droppedTransactions += 1; return }
                    guard t.kind(tx) == .object else {
                        anomalies.append("transaction \(index + 1) is not an object")
                        txLocations.insert(index)
                        return
                    }
                    var x = TransactionReader.read(t, tx, index: index, maxLen: maxLen, pool: pool)
                    if let prev = r.transactions.last, let pe = prev.endUs, let s = x.startUs,
                        Double(pe - s) / 1000 > WaterfallRule.transactionOverlapToleranceMs
                    {
                        x.anomalies.append(
                            "transaction \(index + 1) starts \(Human.duration(ms: Double(pe - s) / 1000)) before transaction \(index) ends")
                    }
                    if !x.anomalies.isEmpty {
                        txLocations.insert(index)
                        anomalies += x.anomalies.map { "transaction \(index + 1): \($0)" }
                    }
                    r.transactions.append(x)
                }
            }
            if txLocations.count == 1, let only = txLocations.first, anomalyLocation == "metrics" {
                anomalyLocation = "metrics.transactions[\(only)]"
            }
            if let s = taskStart, let e = taskEnd {
                if e < s {
                    anomalies.append("taskEnd is \(Human.duration(ms: Double(s - e) / 1000)) before taskStart")
                    anomalyLocation = "metrics"
                } else {
                    metricsSpanMs = Double(e - s) / 1000
                }
            }
            if metricsSpanMs == nil, let s = r.transactions.compactMap(\.startUs).min(),
                let e = r.transactions.compactMap(\.endUs).max(), e >= s
            {
                metricsSpanMs = Double(e - s) / 1000
            }
            r.totalMs = metricsSpanMs
        }

        // Start: taskStart, else the first transaction, else ts − duration, else ts.
        if let s = taskStart {
            r.startUs = s
        } else if let s = r.transactions.compactMap(\.startUs).min() {
            r.startUs = s
        } else if let ts = WaterfallJSON.micros(record.ts) {
            r.startUs = ts - Micros(((r.durationMs ?? 0) * 1000).rounded())
        }

        var notes: [Finding] = []
        if !anomalies.isEmpty {
            let shown = anomalies.prefix(3).joined(separator: "; ")
            let more = anomalies.count > 3 ? " (and \(anomalies.count - 3) more)" : ""
            notes.append(
                WaterfallCollector.finding(
                    WaterfallRule.clockAnomaly, b, r, location: anomalyLocation,
                    message: "timing cannot be trusted: \(shown)\(more)"))
        }
        if let d = r.durationMs, let m = metricsSpanMs, r.state != "pending" {
            let tolerance = max(WaterfallRule.mismatchFloorMs, WaterfallRule.mismatchFraction * max(d, m))
            if abs(d - m) > tolerance {
                notes.append(
                    WaterfallCollector.finding(
                        WaterfallRule.durationMismatch, b, r, location: "duration",
                        message:
                            "record duration \(Human.duration(ms: d)) but the metrics span \(Human.duration(ms: m)) (off by \(Human.duration(ms: abs(d - m))), tolerance \(Human.duration(ms: tolerance)))"
                    ))
            }
        }
        let needsMetrics = r.kind == nil || r.kind == "http" || r.kind == "upload" || r.kind == "download"
        if needsMetrics && r.state != "pending" {
            if !r.hasMetrics {
                notes.append(
                    WaterfallCollector.finding(
                        WaterfallRule.missingMetrics, b, r, location: "metrics",
                        message: "\(r.kind ?? "network") record without metrics: only its total duration is known"))
            } else if r.transactions.isEmpty {
                notes.append(
                    WaterfallCollector.finding(
                        WaterfallRule.missingMetrics, b, r, location: "metrics.transactions",
                        message: "metrics without any transaction: no phase can be rebuilt"))
            }
        }
        // Moved out, not copied (`r` is captured by the reading closures above).
        return Parsed(request: r.take(), notes: notes)
    }
}

/// The waterfall as a listener on the reader's one pass: collects every network record, rebuilds
/// its phases, and reports `waterfall.*` findings.
///
/// With more than one worker (`ReadWorkers.count`), network records are parsed off the reader's
/// thread: the reader's calls are batched as they come (a session's start and end, its header, its
/// network records), each batch is dealt to a worker (one serial queue each, with a string pool of
/// its own) that parses its network records, and the batches are filed into the collector in batch
/// order, whichever worker finishes first. The collector sees the same calls in the same order as
/// when it is fed on the reader's thread, so the requests and findings are the same whatever the
/// number of workers. At most `budgetLimit` bytes of records are in flight (counted as held: text
/// and tape).
public final class WaterfallAnalysis: Analysis {
    /// Where the requests and findings accumulate (read it after `finish()`).
    public let collector: WaterfallCollector
    /// Network records parsed on the worker lanes (each with a string pool of its own), filed into
    /// the collector in batch order; nil when every call is filed on the reader's thread.
    private let workers: OrderedWorkers<Event, StringPool, Filed>?
    /// Where the next network record stands, as the collector will see it (kept on the reader's thread).
    private var place = WaterfallCollector.Place(input: "-", file: "-", sessionId: nil)
    /// Whether a record with a `ts` was handed over in this session (only the first one's counts).
    private var sentTs = false

    /// Bytes of records in flight between the reader and the workers at most.
    static let budgetLimit = 8 << 20
    private static let batchBytesLimit = 1 << 20
    private static let batchCountLimit = 256
    /// What an event costs in flight beyond its record.
    private static let eventCost = 256
    /// Workers of a parallel run at most.
    static let maxWorkers = 4

    /// One reader call, as the collector takes it.
    enum Event: @unchecked Sendable {
        case begin(input: String, file: String, sessionId: String?)
        /// A header, or the session's first record with a `ts`.
        case record(Record)
        case network(Record, WaterfallCollector.Place)
        case end(sessionId: String?, launchedAt: Double?)
    }

    /// A batch's events and what the lane parsed of them, as the collector files them (a class: the
    /// parsed requests are taken out where they stand, never copied on the way).
    final class Filed {
        let events: [Event]
        var parsed: [WaterfallCollector.Parsed?]
        init(events: [Event], parsed: [WaterfallCollector.Parsed?]) {
            self.events = events
            self.parsed = parsed
        }
    }

    /// An analysis to hand to `ExportReader.read(inputs:analyses:)`; `parallel: false` keeps every
    /// record on the reader's thread.
    /// `sessionsTo`: each finished session is handed to it, in order, as it ends (on whichever
    /// thread files it, one call at a time), and none is kept (`WaterfallCollector.sessionSink`).
    public init(
        limits: WaterfallLimits = WaterfallLimits(), parallel: Bool = true,
        sessionsTo sink: (@Sendable (WaterfallSession) -> Void)? = nil
    ) {
        collector = WaterfallCollector(limits: limits)
        collector.sessionSink = sink
        let n = parallel ? min(WaterfallAnalysis.maxWorkers, ReadWorkers.count) : 1
        let collector = collector, limits = limits
        workers =
            n < 2
            ? nil
            : OrderedWorkers(
                lanes: n, label: "pbsift.waterfall", budget: ByteBudget(limit: WaterfallAnalysis.budgetLimit),
                batchBytes: WaterfallAnalysis.batchBytesLimit, batchCount: WaterfallAnalysis.batchCountLimit,
                release: .whenApplied, makeState: { _ in StringPool() },
                work: { events, pool in
                    var parsed = [WaterfallCollector.Parsed?](repeating: nil, count: events.count)
                    for (k, e) in events.enumerated() {
                        if case .network(let r, let at) = e { parsed[k] = WaterfallCollector.parse(r, at: at, limits: limits, pool: pool) }
                    }
                    return Filed(events: events, parsed: parsed)
                },
                apply: { filed in WaterfallAnalysis.file(filed.events, &filed.parsed, into: collector) })
    }

    /// Sessions finished so far, with their requests.
    public var sessions: [WaterfallSession] { drain(); return collector.sessions }

    /// The finished sessions, handed over (`WaterfallReport` redacts them in place).
    public func takeSessions() -> [WaterfallSession] { drain(); return collector.takeSessions() }

    /// Starts collecting a session.
    public func beginSession(_ session: SessionContext) {
        place = WaterfallCollector.Place(input: session.input.path, file: session.file, sessionId: session.sessionId)
        sentTs = false
        hand(.begin(input: session.input.path, file: session.file, sessionId: session.sessionId), bytes: 0)
    }

    /// Takes one record (network records and the header matter).
    public func record(_ record: Record, session: SessionContext) {
        switch record.type {
        case .network:
            sentTs = sentTs || record.ts != nil
            hand(.network(record, place), bytes: record.json.doc.heldBytes)
        case .session:
            // The header names the session for the records after it (as the collector reads it).
            if let id = record.heldText("sessionId") { place.sessionId = id }
            sentTs = sentTs || record.ts != nil
            hand(.record(record), bytes: record.json.doc.heldBytes)
        default:
            guard !sentTs, record.ts != nil else { return }
            sentTs = true
            hand(.record(record), bytes: record.json.doc.heldBytes)
        }
    }

    /// Ends the session: origin, offsets, findings.
    public func endSession(_ session: SessionContext) {
        hand(.end(sessionId: session.sessionId, launchedAt: session.launchedAt), bytes: 0)
        // As the collector: a record after the end opens a session of its own.
        place = WaterfallCollector.Place(input: "-", file: "-", sessionId: nil)
        sentTs = false
    }

    /// The waterfall reads no blob: the reader may hash blobs on a worker.
    public var needsBlobHash: Bool { false }

    /// Every `waterfall.*` finding.
    public func finish() -> [Finding] {
        drain()
        return collector.finish()
    }

    private func hand(_ event: Event, bytes: Int) {
        guard let workers else {
            var none: [WaterfallCollector.Parsed?] = [nil]
            WaterfallAnalysis.file([event], &none, into: collector)
            return
        }
        workers.submit(event, bytes: bytes + WaterfallAnalysis.eventCost)
    }

    /// Hands over what is batched and waits until every batch is filed.
    private func drain() { workers?.drain() }

    /// The collector's calls for `events` (with their parsed forms, taken out of `parsed`), in order.
    static func file(_ events: [Event], _ parsed: inout [WaterfallCollector.Parsed?], into c: WaterfallCollector) {
        for (k, e) in events.enumerated() {
            switch e {
            case .begin(let input, let file, let sessionId): c.beginSession(input: input, file: file, sessionId: sessionId)
            case .record(let r): c.add(r)
            case .network(let r, _):
                c.add(r, parsed: parsed[k].take())
            case .end(let sessionId, let launchedAt): c.endSession(sessionId: sessionId, launchedAt: launchedAt)
            }
        }
    }
}

extension WaterfallRequest {
    /// Its repeated texts (those `WaterfallCollector.parse` reads through a pool) replaced by
    /// `pool`'s copies: requests parsed on several threads, each with a pool of its own, share one
    /// copy of each text once filed, and the collector's pool counts them as one pool would.
    mutating func intern(into pool: StringPool) {
        func i(_ s: inout String?) { if let t = s, t.utf8.count > 15 { s = pool.internCopy(t) } }
        i(&record.method)
        i(&record.url)
        i(&record.state)
        i(&record.error)
        i(&source)
        i(&category)
        i(&kind)
        i(&label)
        i(&cachedHost)
        for k in transactions.indices {
            i(&transactions[k].fetchType)
            i(&transactions[k].networkProtocol)
            i(&transactions[k].remoteAddress)
            i(&transactions[k].tlsVersion)
            i(&transactions[k].url)
        }
    }
}
