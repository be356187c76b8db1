// SiftWaterfall: rebuilds every request's timing waterfall from the network records of a Palbe
// console export (SESSION-FORMAT.md §2.2, §2.4), explains where the time went, and renders the
// result as text, Markdown, JSON, CSV or SVG. Imports SiftCore (and Foundation) only; it never
// prints and never reads files: the reader hands it records through the `Analysis` protocol.

import Foundation
import SiftCore

/// Microseconds since 1970 (UTC). Timestamps are kept as integers so phase arithmetic is exact.
public typealias Micros = Int64

/// One phase of an HTTP transaction, in waterfall order.
public enum WaterfallPhase: String, CaseIterable, Sendable, Comparable {
    case blocked, dns, tcp, tls, request, waiting, download

    /// Human name for sentences and legends: `blocked`, `DNS`, `TCP`, `TLS`, `request`, `waiting`, `download`.
    public var title: String {
        switch self {
        case .blocked: "blocked"
        case .dns: "DNS"
        case .tcp: "TCP"
        case .tls: "TLS"
        case .request: "request"
        case .waiting: "waiting"
        case .download: "download"
        }
    }

    /// Position in waterfall order (that of `allCases`), without searching `allCases`: every read or
    /// write of a phase duration asks it.
    public var order: Int {
        switch self {
        case .blocked: 0
        case .dns: 1
        case .tcp: 2
        case .tls: 3
        case .request: 4
        case .waiting: 5
        case .download: 6
        }
    }

    /// Waterfall order.
    public static func < (a: WaterfallPhase, b: WaterfallPhase) -> Bool { a.order < b.order }
}

/// The seven phase durations of one transaction, in milliseconds. `nil` means the phase did not
/// happen or cannot be computed (a reused connection has no DNS/TCP/TLS; a cache hit has almost
/// nothing; a missing or reversed timestamp) — never 0 for "unknown".
public struct WaterfallPhases: Sendable, Equatable {
    /// Seven doubles, NaN for "did not happen" (a span is never NaN): half the size of seven
    /// optionals, which counts with hundreds of thousands of transactions in memory.
    private var raw: (Double, Double, Double, Double, Double, Double, Double) = (.nan, .nan, .nan, .nan, .nan, .nan, .nan)

    public var blocked: Double? {
        get { self[.blocked] }
        set { self[.blocked] = newValue }
    }
    public var dns: Double? {
        get { self[.dns] }
        set { self[.dns] = newValue }
    }
    public var tcp: Double? {
        get { self[.tcp] }
        set { self[.tcp] = newValue }
    }
    public var tls: Double? {
        get { self[.tls] }
        set { self[.tls] = newValue }
    }
    public var request: Double? {
        get { self[.request] }
        set { self[.request] = newValue }
    }
    public var waiting: Double? {
        get { self[.waiting] }
        set { self[.waiting] = newValue }
    }
    public var download: Double? {
        get { self[.download] }
        set { self[.download] = newValue }
    }

    /// Phases in milliseconds; nil for one that did not happen.
    public init(
        blocked: Double? = nil, dns: Double? = nil, tcp: Double? = nil, tls: Double? = nil,
        request: Double? = nil, waiting: Double? = nil, download: Double? = nil
    ) {
        self.blocked = blocked
        self.dns = dns
        self.tcp = tcp
        self.tls = tls
        self.request = request
        self.waiting = waiting
        self.download = download
    }

    /// The duration of `phase`, in milliseconds.
    public subscript(_ phase: WaterfallPhase) -> Double? {
        get {
            let v = withUnsafeBytes(of: raw) { $0.load(fromByteOffset: phase.order * 8, as: Double.self) }
            return v.isNaN ? nil : v
        }
        set {
            let v = newValue.flatMap { $0.isNaN ? nil : $0 } ?? .nan
            withUnsafeMutableBytes(of: &raw) { $0.storeBytes(of: v, toByteOffset: phase.order * 8, as: Double.self) }
        }
    }

    public static func == (a: WaterfallPhases, b: WaterfallPhases) -> Bool {
        WaterfallPhase.allCases.allSatisfy { a[$0] == b[$0] }
    }

    /// Whether any phase is known.
    public var isEmpty: Bool { WaterfallPhase.allCases.allSatisfy { self[$0] == nil } }
}

/// The eleven timestamps of one transaction (§2.4), in microseconds since 1970; nil when absent
/// or unreadable.
public struct TransactionTimes: Sendable, Equatable {
    /// Eleven integers, `Int64.min` for "absent" (parsed times stay within ±9e15 µs): half the
    /// size of eleven optionals.
    private var raw: (Micros, Micros, Micros, Micros, Micros, Micros, Micros, Micros, Micros, Micros, Micros) =
        (.min, .min, .min, .min, .min, .min, .min, .min, .min, .min, .min)

    public var fetchStart: Micros? {
        get { get(0) }
        set { set(0, newValue) }
    }
    public var domainLookupStart: Micros? {
        get { get(1) }
        set { set(1, newValue) }
    }
    public var domainLookupEnd: Micros? {
        get { get(2) }
        set { set(2, newValue) }
    }
    public var connectStart: Micros? {
        get { get(3) }
        set { set(3, newValue) }
    }
    public var secureConnectionStart: Micros? {
        get { get(4) }
        set { set(4, newValue) }
    }
    public var secureConnectionEnd: Micros? {
        get { get(5) }
        set { set(5, newValue) }
    }
    public var connectEnd: Micros? {
        get { get(6) }
        set { set(6, newValue) }
    }
    public var requestStart: Micros? {
        get { get(7) }
        set { set(7, newValue) }
    }
    public var requestEnd: Micros? {
        get { get(8) }
        set { set(8, newValue) }
    }
    public var responseStart: Micros? {
        get { get(9) }
        set { set(9, newValue) }
    }
    public var responseEnd: Micros? {
        get { get(10) }
        set { set(10, newValue) }
    }

    /// No timestamp.
    public init() {}

    /// The field names in the order a well-behaved clock produces them.
    public static let fieldNames: [String] = [
        "fetchStart", "domainLookupStart", "domainLookupEnd", "connectStart", "secureConnectionStart",
        "secureConnectionEnd", "connectEnd", "requestStart", "requestEnd", "responseStart", "responseEnd"
    ]

    /// The field at `index` of `fieldNames`.
    public func get(_ index: Int) -> Micros? {
        guard (0..<11).contains(index) else { return nil }
        let v = withUnsafeBytes(of: raw) { $0.load(fromByteOffset: index * 8, as: Micros.self) }
        return v == .min ? nil : v
    }

    /// Sets the field at `index` of `fieldNames`.
    public mutating func set(_ index: Int, _ value: Micros?) {
        guard (0..<11).contains(index) else { return }
        withUnsafeMutableBytes(of: &raw) { $0.storeBytes(of: value ?? .min, toByteOffset: index * 8, as: Micros.self) }
    }

    /// The timestamps in `fieldNames` order.
    public var ordered: [Micros?] { (0..<11).map { get($0) } }

    public static func == (a: TransactionTimes, b: TransactionTimes) -> Bool {
        (0..<11).allSatisfy { a.get($0) == b.get($0) }
    }

    /// The earliest timestamp present.
    public var earliest: Micros? {
        var m: Micros?
        for v in ordered { if let v, v < (m ?? .max) { m = v } }
        return m
    }
    /// The latest timestamp present.
    public var latest: Micros? {
        var m: Micros?
        for v in ordered { if let v, v > (m ?? .min) { m = v } }
        return m
    }
}

/// One drawn piece of a waterfall bar: a phase between two absolute times.
public struct WaterfallSegment: Sendable, Equatable {
    public var phase: WaterfallPhase
    public var startUs: Micros
    public var endUs: Micros
}

/// One HTTP transaction of a request: the first attempt, a redirect or a retry.
///
/// Stored compactly (a large export keeps hundreds of thousands): the phases, start, end and total
/// are computed from the timestamps when asked, numbers are fixed-width with a sentinel for
/// "absent", and texts are shared through the collector's `StringPool`.
public struct WaterfallTransaction: Sendable {
    /// 0-based position in `metrics.transactions`.
    public var index: Int
    public var times: TransactionTimes
    private var offsetRaw = Double.nan
    private var ints: (Int, Int, Int, Int) = (.min, .min, .min, .min)
    /// 0 absent, 1 false, 2 true.
    private var reusedRaw: UInt8 = 0
    public var networkProtocol: String?
    public var remoteAddress: String?
    public var tlsVersion: String?
    /// The transaction's URL (userinfo removed, secret query values masked).
    public var url: String?
    /// `network`, `localCache`, `serverPush`, `unknown`.
    public var fetchType: String?
    /// Clock problems seen inside this transaction, one lowercase phrase each.
    public var anomalies: [String]

    /// The phase durations (§2.4), from the timestamps.
    public var phases: WaterfallPhases { WaterfallTransaction.phases(times, reusedConnection: reusedConnection) }
    /// fetchStart (or the earliest timestamp when fetchStart is missing).
    public var startUs: Micros? { times.fetchStart ?? times.earliest }
    /// responseEnd (or the latest timestamp when responseEnd is missing).
    public var endUs: Micros? { times.responseEnd ?? times.latest }
    /// fetchStart → responseEnd, or earliest → latest timestamp, in milliseconds.
    public var totalMs: Double? {
        guard let s = startUs, let e = endUs, e >= s else { return nil }
        return Double(e - s) / 1000
    }
    /// Start offset from the session's origin, in milliseconds (set when the session ends).
    public var offsetMs: Double? {
        get { offsetRaw.isNaN ? nil : offsetRaw }
        set { offsetRaw = newValue ?? .nan }
    }
    public var reusedConnection: Bool? {
        get { reusedRaw == 0 ? nil : reusedRaw == 2 }
        set { reusedRaw = newValue.map { $0 ? 2 : 1 } ?? 0 }
    }
    public var remotePort: Int? {
        get { ints.0 == .min ? nil : ints.0 }
        set { ints.0 = newValue ?? .min }
    }
    public var statusCode: Int? {
        get { ints.1 == .min ? nil : ints.1 }
        set { ints.1 = newValue ?? .min }
    }
    public var requestBodyBytes: Int? {
        get { ints.2 == .min ? nil : ints.2 }
        set { ints.2 = newValue ?? .min }
    }
    public var responseBodyBytes: Int? {
        get { ints.3 == .min ? nil : ints.3 }
        set { ints.3 = newValue ?? .min }
    }

    /// A transaction from its timestamps: computes phases, anomalies, start, end and total.
    public init(index: Int, times: TransactionTimes, reusedConnection: Bool? = nil, fetchType: String? = nil) {
        self.index = index
        self.times = times
        self.fetchType = fetchType
        self.anomalies = WaterfallTransaction.anomalies(times)
        self.reusedConnection = reusedConnection
    }

    /// Whether the response came from the local cache.
    public var isCacheHit: Bool { fetchType == "localCache" }

    /// Whether this transaction paid for a new connection (a known TCP, TLS or DNS phase): the test
    /// `phases` would make for those three, on the timestamps alone (no phase is computed).
    public var openedConnection: Bool {
        guard reusedConnection != true else { return false }
        let t = times
        func spans(_ a: Micros?, _ b: Micros?) -> Bool {
            guard let a, let b else { return false }
            return b >= a
        }
        if spans(t.domainLookupStart, t.domainLookupEnd) { return true }
        if spans(t.connectStart, t.secureConnectionStart ?? t.connectEnd) { return true }
        if let s = t.secureConnectionStart, spans(s, t.secureConnectionEnd ?? t.connectEnd) { return true }
        return false
    }

    /// The phase arithmetic of SESSION-FORMAT.md §2.4, in milliseconds with microsecond precision.
    ///
    /// - blocked: fetchStart → the first present of domainLookupStart, connectStart, requestStart
    /// - dns: domainLookupStart → domainLookupEnd
    /// - tcp: connectStart → secureConnectionStart, or connectEnd without TLS
    /// - tls: secureConnectionStart → secureConnectionEnd, or connectEnd
    /// - request: requestStart → requestEnd; waiting: requestEnd → responseStart;
    ///   download: responseStart → responseEnd
    ///
    /// A reused connection has no dns/tcp/tls (nil even if timestamps are present). A phase missing
    /// either end, or whose end is before its start, is nil. `anomalies` lists every pair of present
    /// timestamps out of order (consecutive in §2.4 order; each inversion is named once).
    public static func compute(_ t: TransactionTimes, reusedConnection: Bool?) -> (phases: WaterfallPhases, anomalies: [String]) {
        (phases(t, reusedConnection: reusedConnection), anomalies(t))
    }

    /// The phases of `compute`.
    public static func phases(_ t: TransactionTimes, reusedConnection: Bool?) -> WaterfallPhases {
        func span(_ a: Micros?, _ b: Micros?) -> Double? {
            guard let a, let b, b >= a else { return nil }
            return Double(b - a) / 1000
        }
        var p = WaterfallPhases()
        p.blocked = span(t.fetchStart, t.domainLookupStart ?? t.connectStart ?? t.requestStart)
        if reusedConnection != true {
            p.dns = span(t.domainLookupStart, t.domainLookupEnd)
            p.tcp = span(t.connectStart, t.secureConnectionStart ?? t.connectEnd)
            if t.secureConnectionStart != nil {
                p.tls = span(t.secureConnectionStart, t.secureConnectionEnd ?? t.connectEnd)
            }
        }
        p.request = span(t.requestStart, t.requestEnd)
        p.waiting = span(t.requestEnd, t.responseStart)
        p.download = span(t.responseStart, t.responseEnd)
        return p
    }

    /// The anomalies of `compute`: every pair of present timestamps out of order.
    public static func anomalies(_ t: TransactionTimes) -> [String] {
        var anomalies: [String] = []
        var prev: (index: Int, value: Micros)?
        for k in 0..<11 {
            guard let v = t.get(k) else { continue }
            if let pr = prev, v < pr.value {
                anomalies.append(
                    "\(TransactionTimes.fieldNames[k]) is \(Human.duration(ms: Double(pr.value - v) / 1000)) before \(TransactionTimes.fieldNames[pr.index])"
                )
            }
            prev = (k, v)
        }
        return anomalies
    }

    /// The phases as absolute segments for drawing, in waterfall order (only phases that happened).
    public var segments: [WaterfallSegment] {
        let t = times
        var out: [WaterfallSegment] = []
        func add(_ phase: WaterfallPhase, _ start: Micros?) {
            guard let ms = phases[phase], let start else { return }
            out.append(WaterfallSegment(phase: phase, startUs: start, endUs: start + Micros((ms * 1000).rounded())))
        }
        add(.blocked, t.fetchStart)
        add(.dns, t.domainLookupStart)
        add(.tcp, t.connectStart)
        add(.tls, t.secureConnectionStart)
        add(.request, t.requestStart)
        add(.waiting, t.requestEnd)
        add(.download, t.responseStart)
        return out
    }
}

/// One network record's request, rebuilt: identity, timing, and its transactions. The fields every
/// analysis reads are the shared `NetworkRecord` (`record`), defined there once; this adds the
/// waterfall's own. Numbers are fixed-width with a sentinel for "absent".
public struct WaterfallRequest: Sendable {
    /// The record as every analysis sees it (its URL with userinfo removed, secret query values masked).
    public var record: NetworkRecord
    /// `sdk` or `app`.
    public var source: String?
    public var category: String?
    /// `http`, `upload`, `download`, `custom`.
    public var kind: String?
    public var label: String?
    public var transactions: [WaterfallTransaction]
    /// `host`, computed once when the collector reads the record.
    var cachedHost: String?
    private var startRaw = Micros.min
    private var doubles: (Double, Double, Double) = (.nan, .nan, .nan)
    private var ints: (Int, Int) = (.min, .min)
    private var droppedRaw: Int32 = 0
    /// Whether the record carried a `metrics` object.
    public var hasMetrics: Bool

    /// An empty request read at `line` of `file` in `input`.
    public init(input: String, file: String, line: Int, ordinal: Int = 0) {
        self.record = NetworkRecord(ref: RecordRef(input: input, file: file, line: line, ordinal: ordinal))
        self.transactions = []
        self.hasMetrics = false
    }

    /// When the request started: metrics taskStart, else the first transaction's start, else
    /// `ts` − `duration`, else `ts`.
    public var startUs: Micros? {
        get { startRaw == .min ? nil : startRaw }
        set { startRaw = newValue ?? .min }
    }
    /// Start offset from the session's origin (launchedAt, or the first record), in ms.
    public var offsetMs: Double? {
        get { doubles.0.isNaN ? nil : doubles.0 }
        set { doubles.0 = newValue ?? .nan }
    }
    /// The record's `duration` × 1000.
    public var durationMs: Double? {
        get { doubles.1.isNaN ? nil : doubles.1 }
        set { doubles.1 = newValue ?? .nan }
    }
    /// From the metrics: taskEnd − taskStart, else first transaction start → last transaction end.
    public var totalMs: Double? {
        get { doubles.2.isNaN ? nil : doubles.2 }
        set { doubles.2 = newValue ?? .nan }
    }
    /// `response.body.size`.
    public var responseBytes: Int? {
        get { ints.0 == .min ? nil : ints.0 }
        set { ints.0 = newValue ?? .min }
    }
    /// `request.body.size`.
    public var requestBytes: Int? {
        get { ints.1 == .min ? nil : ints.1 }
        set { ints.1 = newValue ?? .min }
    }
    /// What this request holds on the heap, about, beyond its fixed part: its transactions and the
    /// texts of its own (pooled texts are counted by the pool).
    public var heapBytes: Int {
        var n = StringPool.heapBytes(recordId) + StringPool.heapBytes(requestId)
        if record.echoedRequestId != requestId { n += StringPool.heapBytes(record.echoedRequestId) }
        if !transactions.isEmpty { n += 32 + transactions.count * MemoryLayout<WaterfallTransaction>.stride }
        for t in transactions {
            for a in t.anomalies { n += 16 + StringPool.heapBytes(a) }
        }
        return n
    }

    /// This request, moved out: an empty one is left in its place (taking a request out of a value
    /// that holds it, or out of a variable a closure captured, would copy it whole otherwise: every
    /// text it holds retained, then released with the holder).
    mutating func take() -> WaterfallRequest {
        var out = WaterfallRequest(input: "", file: "", line: 0)
        swap(&self, &out)
        return out
    }

    /// Transactions beyond `WaterfallLimits.maxTransactions` that were not kept.
    public var droppedTransactions: Int {
        get { Int(droppedRaw) }
        set { droppedRaw = Int32(clamping: newValue) }
    }

    /// Seconds since 1970.
    public var start: Double? { startUs.map { Double($0) / 1_000_000 } }

    /// The time this request took: the record's `duration`, else the metrics total, else 0.
    public var elapsedMs: Double { durationMs ?? totalMs ?? 0 }

    /// The record's `duration`, else the metrics total; nil when neither is known (e.g. pending).
    public var knownElapsedMs: Double? { durationMs ?? totalMs }

    /// When the request ended (start + elapsed), in µs.
    public var endUs: Micros? {
        guard let s = startUs else { return nil }
        var lastTx: Micros?
        for t in transactions { if let e = t.endUs, e > (lastTx ?? .min) { lastTx = e } }
        let byDuration = s + Micros((elapsedMs * 1000).rounded())
        return max(lastTx ?? byDuration, byDuration)
    }

    /// Host of the URL (lowercased, no userinfo), when it has one.
    /// (`record.url`, not the holder's `url`: read in place, without a copy of the request.)
    public var host: String? { cachedHost ?? record.url.flatMap(WaterfallURL.host) }

    /// `METHOD host/path` without the query, for labels.
    public var shortTitle: String {
        let m = method ?? "?"
        guard let u = url else { return m + " " + (label ?? "?") }
        return m + " " + (WaterfallURL.hostAndPath(u) ?? u)
    }

    /// Whether some transaction of the request paid for a new connection (`WaterfallTransaction.openedConnection`).
    public var openedConnection: Bool {
        transactions.withUnsafeBufferPointer { ts in ts.contains { $0.openedConnection } }
    }

    // `startUs`, `endUs`, `elapsedMs`, `host` and `openedConnection` of the request at `p`, read field by field where it
    // stands (a loop over many requests: a getter called on `p.pointee` copies the request whole,
    // every text it holds retained and released).
    @inline(__always) static func elapsedMs(_ p: UnsafePointer<WaterfallRequest>) -> Double {
        let d = p.pointee.doubles
        return d.1.isNaN ? (d.2.isNaN ? 0 : d.2) : d.1
    }

    @inline(__always) static func knownElapsedMs(_ p: UnsafePointer<WaterfallRequest>) -> Double? {
        let d = p.pointee.doubles
        return d.1.isNaN ? (d.2.isNaN ? nil : d.2) : d.1
    }

    @inline(__always) static func startUs(_ p: UnsafePointer<WaterfallRequest>) -> Micros? {
        let s = p.pointee.startRaw
        return s == .min ? nil : s
    }

    /// `endUs` of the request at `p`.
    @inline(__always) static func endUs(_ p: UnsafePointer<WaterfallRequest>) -> Micros? {
        guard let s = startUs(p) else { return nil }
        let lastTx: Micros? = p.pointee.transactions.withUnsafeBufferPointer { ts in
            guard let t = ts.baseAddress else { return nil }
            var last: Micros?
            for k in ts.indices {
                let times = (t + k).pointee.times
                if let e = times.responseEnd ?? times.latest, e > (last ?? .min) { last = e }
            }
            return last
        }
        let byDuration = s + Micros((elapsedMs(p) * 1000).rounded())
        return max(lastTx ?? byDuration, byDuration)
    }

    @inline(__always) static func host(_ p: UnsafePointer<WaterfallRequest>) -> String? {
        p.pointee.cachedHost ?? p.pointee.record.url.flatMap(WaterfallURL.host)
    }

    @inline(__always) static func openedConnection(_ p: UnsafePointer<WaterfallRequest>) -> Bool {
        p.pointee.transactions.withUnsafeBufferPointer { ts in
            guard let t = ts.baseAddress else { return false }
            for k in ts.indices where (t + k).pointee.openedConnection { return true }
            return false
        }
    }

    /// Phase totals over all transactions (a phase is nil when no transaction had it).
    public var phaseSums: WaterfallPhases {
        var s = WaterfallPhases()
        for t in transactions {
            let phases = t.phases
            for p in WaterfallPhase.allCases {
                if let v = phases[p] { s[p] = (s[p] ?? 0) + v }
            }
        }
        return s
    }
}

/// One session's requests and the origin their offsets are measured from.
public struct WaterfallSession: Sendable {
    public var input: String
    public var file: String
    public var sessionId: String?
    /// The header's `launchedAt`, seconds since 1970.
    public var launchedAt: Double?
    /// The time offsets count from, in µs: launchedAt, else the first record's `ts` (moved earlier
    /// when a request started before it).
    public var originUs: Micros?
    /// `launchedAt`, `firstRecord`, or `none`.
    public var originSource: String
    /// Requests in record order.
    public var requests: [WaterfallRequest]

    /// What a report reads of every request (`RequestFacts`), request by request in record order,
    /// each read where it stands: a request copied whole (as a call from another module through a
    /// getter copies it) retains and releases every text it holds. `hosts` nil: no host is read;
    /// else the host of each request, and whether it opened a connection when its host is in `hosts`
    /// (or for every request when `hosts` is empty).
    public func forEachRequest(hosts: Set<String>? = nil, _ body: (_ index: Int, _ facts: RequestFacts) -> Void) {
        requests.withUnsafeBufferPointer { requests in
            guard let base = requests.baseAddress else { return }
            for i in requests.indices { body(i, RequestFacts(base + i, hosts: hosts)) }
        }
    }

    /// Requests by start time (as a network panel draws them; record order breaks ties, requests
    /// without a start come last). Text, Markdown and SVG use this order; JSON and CSV record order.
    /// Indices into `requests` (no copies: a large session holds many).
    public var timelineOrder: [Int] {
        let starts = requests.map { $0.startUs ?? .max }
        return requests.indices.sorted { a, b in starts[a] != starts[b] ? starts[a] < starts[b] : a < b }
    }

    /// A session with its requests.
    public init(
        input: String, file: String, sessionId: String?, launchedAt: Double?, originUs: Micros?,
        originSource: String, requests: [WaterfallRequest]
    ) {
        self.input = input
        self.file = file
        self.sessionId = sessionId
        self.launchedAt = launchedAt
        self.originUs = originUs
        self.originSource = originSource
        self.requests = requests
    }
}

/// The few facts of a request a report ranks and counts by (`WaterfallSession.forEachRequest`).
public struct RequestFacts {
    public let sessionId: String?
    public let seq: Int?
    /// `WaterfallRequest.failed`.
    public let failed: Bool
    /// State `pending`.
    public let pending: Bool
    /// `WaterfallRequest.elapsedMs`.
    public let elapsedMs: Double
    /// `WaterfallRequest.host`, when hosts were asked for.
    public let host: String?
    /// `WaterfallRequest.openedConnection`, when asked for this request's host (else false).
    public let openedConnection: Bool

    /// Read through `p`, field by field (a getter called on `p.pointee` would copy the request).
    @inline(__always) init(_ p: UnsafePointer<WaterfallRequest>, hosts: Set<String>?) {
        sessionId = p.pointee.record.sessionId
        seq = p.pointee.record.seq
        let state = p.pointee.record.state
        failed = NetworkRecord.failed(state: state, statusCode: p.pointee.record.statusCode)
        pending = state == "pending"
        elapsedMs = WaterfallRequest.elapsedMs(p)
        if let hosts {
            let h = WaterfallRequest.host(p)
            host = h
            openedConnection = (hosts.isEmpty || h.map(hosts.contains) == true) && WaterfallRequest.openedConnection(p)
        } else {
            host = nil
            openedConnection = false
        }
    }
}

/// Bounds on the work one export can cause.
public struct WaterfallLimits: Sendable {
    /// Requests kept across all sessions; more are counted in a `waterfall.limit` finding, not kept.
    public var maxRequests = 150_000
    /// Memory the kept requests may hold, about (each request's fixed part, its transactions and the
    /// texts of its own; repeated texts are pooled and bounded apart): 150 000 requests of one
    /// transaction each take about 100 MiB. Past it, requests are counted in `waterfall.limit`, not kept.
    public var maxBytes = 112 << 20
    /// Sessions listed across all inputs; the sessions after them are read and checked (their
    /// findings are kept) but neither they nor their requests are listed, and one `waterfall.limit`
    /// finding counts them. What a listed session holds besides its requests (its entry, its
    /// timeline, its texts) is then bounded too, whatever the number of inputs.
    public var maxSessions = 25_000
    /// Transactions kept per request.
    public var maxTransactions = 64
    /// Findings per rule per session; the rest are summed up in one more finding.
    public var maxFindingsPerRule = 1000
    /// Characters kept of a URL, label or other string.
    public var maxStringLength = 2048

    /// The default bounds.
    public init() {}
}

/// Reading a timestamp member without building a String when it is plain.
enum WaterfallJSON {
    /// Parses an RFC 3339 string value to microseconds since 1970.
    /// `.absent` when the member is missing or null, `.invalid` when it is not a timestamp.
    enum Stamp { case absent, invalid, value(Micros) }

    static func stamp(_ v: JSONValue?) -> Stamp {
        guard let v, !v.isNull else { return .absent }
        guard v.isString else { return .invalid }
        let raw = v.rawBytes
        var parsed: Double? = nil
        if raw.count >= 2 {
            parsed = raw.withUnsafeBufferPointer { b in
                Timestamp.parse(bytes: UnsafeBufferPointer(rebasing: b[1..<(b.count - 1)]))
            }
        }
        if parsed == nil, raw.contains(0x5C), let s = v.string { parsed = Timestamp.parse(s) }
        guard let t = parsed else { return .invalid }
        let us = (t * 1_000_000).rounded()
        guard us.isFinite, abs(us) < 9.0e15 else { return .invalid }
        return .value(Micros(us))
    }

    /// `stamp(_:)` of the value at tape index `i` (nil: absent).
    static func stamp(_ t: JSONTapeView, _ i: Int?) -> Stamp {
        guard let i else { return .absent }
        switch t.kind(i) {
        case .null: return .absent
        case .string: break
        default: return .invalid
        }
        var parsed = Timestamp.parse(bytes: t.raw(i))
        if parsed == nil, t.isEscaped(i), let s = t.value(i).string { parsed = Timestamp.parse(s) }
        guard let p = parsed, let us = micros(p) else { return .invalid }
        return .value(us)
    }

    static func micros(_ seconds: Double?) -> Micros? {
        guard let s = seconds else { return nil }
        let us = (s * 1_000_000).rounded()
        guard us.isFinite, abs(us) < 9.0e15 else { return nil }
        return Micros(us)
    }

    static func string(_ v: JSONValue?, max: Int, pool: StringPool? = nil) -> String? {
        StringPool.text(v, max: max, pool: pool)
    }
}

/// The record's fields (`input`, `url`, `state`…) come through `NetworkRecordHolder`.
extension WaterfallRequest: NetworkRecordHolder {}

extension WaterfallSession {
    /// Each input's sessions in the order they were launched (`launchedAt`, else their origin), as
    /// every command lists them, ties in the order read; the inputs stay in the order read (an
    /// input's sessions end one after the other).
    public static func inLaunchOrder(_ sessions: [WaterfallSession]) -> [WaterfallSession] {
        var out = sessions
        let launched = { (s: WaterfallSession) -> Double in s.launchedAt ?? s.originUs.map { Double($0) / 1e6 } ?? .infinity }
        var start = 0
        while start < out.count {
            var end = start + 1
            while end < out.count && out[end].input == out[start].input { end += 1 }
            if end - start > 1 {
                let group = out[start..<end].enumerated().sorted { a, b in
                    launched(a.element) != launched(b.element) ? launched(a.element) < launched(b.element) : a.offset < b.offset
                }.map(\.element)
                out.replaceSubrange(start..<end, with: group)
            }
            start = end
        }
        return out
    }
}
