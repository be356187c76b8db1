import Foundation
import SiftCore

/// Rule ids and severities of the waterfall's findings.
public enum WaterfallRule {
    /// An end before its start, timestamps out of order, a transaction starting before the previous
    /// one ended (beyond `transactionOverlapToleranceMs`), a negative duration. The waterfall of that
    /// request cannot be trusted in full. Severity low.
    public static let clockAnomaly = "waterfall.clock-anomaly"
    /// The record's `duration` and the metrics' span disagree by more than
    /// max(`mismatchFloorMs`, `mismatchFraction` × the larger). Severity low.
    public static let durationMismatch = "waterfall.duration-mismatch"
    /// An `http`, `upload` or `download` record (or one without `kind`) that finished without
    /// metrics, or whose metrics hold no transaction. `custom` and pending records are exempt.
    /// Severity info.
    public static let missingMetrics = "waterfall.missing-metrics"
    /// A request still `pending` at the end of the session (no later record with the same id
    /// finished it): the app was killed, hung, or the session ended mid-flight. Severity medium.
    public static let pending = "waterfall.pending"
    /// Network records beyond `WaterfallLimits.maxRequests` were checked but not kept. Severity info.
    public static let limit = "waterfall.limit"

    /// A transaction may start this much before the previous one's end without a finding.
    public static let transactionOverlapToleranceMs = 1.0
    /// Duration mismatch tolerance: max(50 ms, 10 % of the larger value).
    public static let mismatchFloorMs = 50.0
    /// See `mismatchFloorMs`.
    public static let mismatchFraction = 0.10

    static func severity(_ rule: String) -> Severity {
        switch rule {
        case clockAnomaly, durationMismatch: .low
        case pending: .medium
        default: .info
        }
    }
}

/// The core of the waterfall analysis, fed with plain values: `WaterfallAnalysis` forwards the
/// reader's calls here, and tests or benchmarks can drive it without a reader.
public final class WaterfallCollector {
    /// The bounds this collector keeps to.
    public let limits: WaterfallLimits
    /// Finished sessions, in the order they ended.
    public private(set) var sessions: [WaterfallSession] = []
    /// Findings of finished sessions (unsorted): per rule, the first `maxFindingsPerRule` of a session
    /// and the first `FindingTally.defaultKeepPerInput` of an input are listed, the rest counted.
    public var findings: [Finding] { tally.findings }
    private var tally = FindingTally(keep: Int.max)
    /// Network records seen but not kept because of `limits.maxRequests`.
    public private(set) var droppedRequests = 0
    private var kept = 0
    /// Memory the kept requests hold, about: their buffers and `WaterfallRequest.heapBytes`.
    public private(set) var heldBytes = 0
    private var droppedByCount = false
    private var current: Builder?
    /// Repeated texts (URLs, hosts, methods, states, errors) kept once for every request.
    private let pool = StringPool()
    private var limitInput: String?

    final class Builder {
        let input: String
        let file: String
        var sessionId: String?
        var launchedAt: Double?
        var firstTs: Double?
        var requests: [WaterfallRequest] = []
        var findings: [Finding] = []
        var ruleCounts: [String: Int] = [:]
        var suppressed: [String: Int] = [:]
        var pendingById: [String: Finding] = [:]
        var pendingWithoutId: [Finding] = []
        /// `requests.capacity` as counted in `heldBytes`.
        var countedCapacity = 0

        init(input: String, file: String, sessionId: String?) {
            self.input = input
            self.file = file
            self.sessionId = sessionId
        }
    }

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
    public func add(_ record: Record) {
        let b: Builder
        if let c = current { b = c } else {
            b = Builder(input: "-", file: "-", sessionId: nil)
            current = b
        }
        if b.firstTs == nil, let ts = record.ts { b.firstTs = ts }
        if record.type == .session {
            if b.launchedAt == nil, let s = record.json["launchedAt"]?.string { b.launchedAt = Timestamp.parse(s) }
            if let id = record.json["sessionId"]?.string { b.sessionId = id }
            return
        }
        guard record.type == .network else { return }
        let (request, notes) = parse(record, b)
        for n in notes { emit(n, b) }
        if let id = request.recordId, request.state != "pending", b.pendingById[id] != nil {
            b.pendingById[id] = nil
        }
        if request.state == "pending" {
            let f = finding(WaterfallRule.pending, b, request, location: "state",
                            message: "request still pending at the end of the session: the app was killed, hung, or the session ended mid-flight")
            if let id = request.recordId { b.pendingById[id] = f } else { b.pendingWithoutId.append(f) }
        }
        // The next append may move the session's requests to a buffer twice the size.
        let stride = MemoryLayout<WaterfallRequest>.stride
        let growth = b.requests.count == b.requests.capacity ? max(b.requests.capacity, 4) * 2 * stride : 0
        let cost = request.heapBytes
        if kept < limits.maxRequests && heldBytes + cost + growth + pool.unpooledBytes <= limits.maxBytes {
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
        for (rule, n) in b.suppressed.sorted(by: { $0.key < $1.key }) {
            tally.append(Finding(rule: WaterfallRule.catalogue[rule], severity: WaterfallRule.severity(rule), input: b.input, file: b.file,
                                 sessionId: b.sessionId,
                                 message: "\(n) more \(rule) findings in this session were not listed"), counting: n)
        }
        // The finished session's requests at their size, not the growing buffer's.
        if b.requests.capacity > b.requests.count + b.requests.count / 16 {
            b.requests = b.requests.withUnsafeBufferPointer { Array($0) }
            countCapacity(b)
        }
        sessions.append(WaterfallSession(input: b.input, file: b.file, sessionId: b.sessionId, launchedAt: b.launchedAt,
                                         originUs: originUs, originSource: source, requests: b.requests))
    }

    /// The finished sessions, handed over: the collector keeps none of them after.
    public func takeSessions() -> [WaterfallSession] {
        let out = sessions
        sessions = []
        return out
    }

    /// Ends any open session and returns every finding, including the limit notice.
    public func finish() -> [Finding] {
        if current != nil { endSession(sessionId: nil, launchedAt: nil) }
        var out = findings
        if droppedRequests > 0 {
            let bound = droppedByCount ? "the limit of \(limits.maxRequests)"
                : "the waterfall's memory bound (\(Human.bytes(limits.maxBytes)) of requests)"
            out.append(Finding(rule: WaterfallRule.catalogue[WaterfallRule.limit], severity: .info, input: limitInput ?? "-",
                               message: "\(droppedRequests) network records beyond \(bound) were checked but not kept for the waterfall"))
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
            b.suppressed[f.rule, default: 0] += 1
        } else {
            b.findings.append(f)
        }
    }

    private func finding(_ rule: String, _ b: Builder, _ r: WaterfallRequest, location: String?, message: String) -> Finding {
        Finding(rule: WaterfallRule.catalogue[rule], severity: WaterfallRule.severity(rule), input: b.input, file: b.file, sessionId: b.sessionId,
                seq: r.seq, line: r.line, recordId: r.recordId, location: location, message: message)
    }

    /// Rebuilds one network record; returns it with the findings it raised (pending excepted).
    private func parse(_ record: Record, _ b: Builder) -> (WaterfallRequest, [Finding]) {
        let j = record.json
        let maxLen = limits.maxStringLength
        var r = WaterfallRequest(input: b.input, file: b.file, line: record.line)
        r.sessionId = b.sessionId
        r.seq = record.seq
        r.record.ts = record.ts
        // One pass over the record's members (names are short: no allocation); the first of a
        // repeated name wins, as with `JSONValue`'s subscript. The shared fields are read by
        // `NetworkRecord` (bits 0…8), the waterfall's own here.
        let textLimits = NetworkRecord.TextLimits(long: maxLen)
        var seen: UInt16 = 0
        var metricsValue: JSONValue?
        j.forEachMember { key, v in
            if let f = NetworkRecord.Field(key) {
                guard seen & f.bit == 0 else { return }
                seen |= f.bit
                r.record.set(f, from: v, limits: textLimits, pool: pool)
                return
            }
            let bit: UInt16
            switch key {
            case "source": bit = 1 << 9
            case "category": bit = 1 << 10
            case "kind": bit = 1 << 11
            case "label": bit = 1 << 12
            case "response": bit = 1 << 13
            case "request": bit = 1 << 14
            case "metrics": bit = 1 << 15
            default: return
            }
            guard seen & bit == 0 else { return }
            seen |= bit
            switch bit {
            case 1 << 9: r.source = WaterfallJSON.string(v, max: 64, pool: pool)
            case 1 << 10: r.category = WaterfallJSON.string(v, max: 128, pool: pool)
            case 1 << 11: r.kind = WaterfallJSON.string(v, max: 64, pool: pool)
            case 1 << 12: r.label = WaterfallJSON.string(v, max: 256, pool: pool)
            case 1 << 13: r.responseBytes = v["body", "size"]?.int
            case 1 << 14: r.requestBytes = v["body", "size"]?.int
            default: metricsValue = v
            }
        }
        r.record.shareIds()
        r.cachedHost = r.url.flatMap(WaterfallURL.host).map(pool.intern)

        var anomalies: [String] = []
        var anomalyLocation = "metrics"
        if let d = r.record.duration, d.isFinite, abs(d) < 1.0e9 {
            let ms = (d * 1_000_000).rounded() / 1000
            if ms < 0 {
                anomalies.append("duration is negative (\(Human.duration(ms: ms)))")
                anomalyLocation = "duration"
            } else {
                r.durationMs = ms
            }
        }

        var taskStart: Micros?
        var taskEnd: Micros?
        var metricsSpanMs: Double?
        if let m = metricsValue, m.isObject {
            r.hasMetrics = true
            switch WaterfallJSON.stamp(m["taskStart"]) {
            case .value(let v): taskStart = v
            case .invalid: anomalies.append("taskStart is not a timestamp")
            case .absent: break
            }
            switch WaterfallJSON.stamp(m["taskEnd"]) {
            case .value(let v): taskEnd = v
            case .invalid: anomalies.append("taskEnd is not a timestamp")
            case .absent: break
            }
            var index = 0
            var txLocations: Set<Int> = []
            m["transactions"]?.forEachElement { tx in
                defer { index += 1 }
                guard index < limits.maxTransactions else { r.droppedTransactions += 1; return }
                guard tx.isObject else {
                    anomalies.append("transaction \(index + 1) is not an object")
                    txLocations.insert(index)
                    return
                }
                var t = TransactionReader.read(tx, index: index, maxLen: maxLen, pool: pool)
                if let prev = r.transactions.last, let pe = prev.endUs, let s = t.startUs,
                   Double(pe - s) / 1000 > WaterfallRule.transactionOverlapToleranceMs {
                    t.anomalies.append("transaction \(index + 1) starts \(Human.duration(ms: Double(pe - s) / 1000)) before transaction \(index) ends")
                }
                if !t.anomalies.isEmpty {
                    txLocations.insert(index)
                    anomalies += t.anomalies.map { "transaction \(index + 1): \($0)" }
                }
                r.transactions.append(t)
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
               let e = r.transactions.compactMap(\.endUs).max(), e >= s {
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
            notes.append(finding(WaterfallRule.clockAnomaly, b, r, location: anomalyLocation,
                                 message: "timing cannot be trusted: \(shown)\(more)"))
        }
        if let d = r.durationMs, let m = metricsSpanMs, r.state != "pending" {
            let tolerance = max(WaterfallRule.mismatchFloorMs, WaterfallRule.mismatchFraction * max(d, m))
            if abs(d - m) > tolerance {
                notes.append(finding(WaterfallRule.durationMismatch, b, r, location: "duration",
                                     message: "record duration \(Human.duration(ms: d)) but the metrics span \(Human.duration(ms: m)) (off by \(Human.duration(ms: abs(d - m))), tolerance \(Human.duration(ms: tolerance)))"))
            }
        }
        let needsMetrics = r.kind == nil || r.kind == "http" || r.kind == "upload" || r.kind == "download"
        if needsMetrics && r.state != "pending" {
            if !r.hasMetrics {
                notes.append(finding(WaterfallRule.missingMetrics, b, r, location: "metrics",
                                     message: "\(r.kind ?? "network") record without metrics: only its total duration is known"))
            } else if r.transactions.isEmpty {
                notes.append(finding(WaterfallRule.missingMetrics, b, r, location: "metrics.transactions",
                                     message: "metrics without any transaction: no phase can be rebuilt"))
            }
        }
        return (r, notes)
    }
}

/// The waterfall as a listener on the reader's one pass: collects every network record, rebuilds
/// its phases, and reports `waterfall.*` findings.
public final class WaterfallAnalysis: Analysis {
    /// Where the requests and findings accumulate.
    public let collector: WaterfallCollector

    /// An analysis to hand to `ExportReader.read(inputs:analyses:)`.
    public init(limits: WaterfallLimits = WaterfallLimits()) {
        collector = WaterfallCollector(limits: limits)
    }

    /// Sessions finished so far, with their requests.
    public var sessions: [WaterfallSession] { collector.sessions }

    /// The finished sessions, handed over (`WaterfallReport` redacts them in place).
    public func takeSessions() -> [WaterfallSession] { collector.takeSessions() }

    /// Starts collecting a session.
    public func beginSession(_ session: SessionContext) {
        collector.beginSession(input: session.input.path, file: session.file, sessionId: session.sessionId)
    }

    /// Takes one record (network records and the header matter).
    public func record(_ record: Record, session: SessionContext) {
        collector.add(record)
    }

    /// Ends the session: origin, offsets, findings.
    public func endSession(_ session: SessionContext) {
        collector.endSession(sessionId: session.sessionId, launchedAt: session.launchedAt)
    }

    /// Every `waterfall.*` finding.
    public func finish() -> [Finding] { collector.finish() }
}
