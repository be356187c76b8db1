import Foundation
import SiftCore

/// One network record, as far as the join needs it: the shared `NetworkRecord` (its fields are
/// defined there, once) and the device times of its last transaction.
///
/// Held in one heap box, copied on write: the collected list, the join's `CorrelatedRequest` and the
/// redacted report all point at the same box (a hundred thousand records are not held two or three
/// times), and a redaction that changes nothing keeps it.
public struct NetworkEntry: NetworkRecordHolder, Sendable, Equatable {
    /// The fields, shared between copies until one of them writes.
    final class Storage: @unchecked Sendable {
        var record: NetworkRecord
        // Device times of the last transaction, seconds since 1970; NaN when absent.
        var times: (Double, Double, Double, Double) = (.nan, .nan, .nan, .nan)

        init(record: NetworkRecord) { self.record = record }

        init(copying other: Storage) {
            record = other.record
            times = other.times
        }
    }

    private var storage: Storage

    /// The box this entry's fields live in (tests check that copies share it).
    var storageIdentity: ObjectIdentifier { ObjectIdentifier(storage) }

    /// Makes the box this entry's own before a write.
    private mutating func unique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
    }

    /// The record as every analysis sees it.
    public var record: NetworkRecord {
        get { storage.record }
        _modify {
            unique()
            yield &storage.record
        }
    }

    public init(
        input: String, file: String, sessionId: String?, seq: Int?, line: Int, recordId: String? = nil,
        requestId: String? = nil, echoedRequestId: String? = nil, method: String? = nil, url: String? = nil,
        statusCode: Int? = nil, state: String? = nil, ts: Double? = nil, duration: Double? = nil,
        requestStart: Double? = nil, requestEnd: Double? = nil, responseStart: Double? = nil, responseEnd: Double? = nil
    ) {
        var record = NetworkRecord(ref: RecordRef(input: input, file: file, line: line), sessionId: sessionId)
        record.seq = seq
        record.recordId = recordId
        record.requestId = requestId
        record.echoedRequestId = echoedRequestId
        record.method = method
        record.url = url
        record.statusCode = statusCode
        record.state = state
        record.ts = ts
        record.duration = duration
        storage = Storage(record: record)
        self.requestStart = requestStart
        self.requestEnd = requestEnd
        self.responseStart = responseStart
        self.responseEnd = responseEnd
    }

    /// The join's view of `record`, without device times.
    public init(record: NetworkRecord) { storage = Storage(record: record) }

    private static func get(_ v: Double) -> Double? { v.isNaN ? nil : v }
    /// From the last transaction of `metrics` (device clock).
    public var requestStart: Double? {
        get { Self.get(storage.times.0) }
        set { unique(); storage.times.0 = newValue ?? .nan }
    }
    /// When the request was sent in full (device clock).
    public var requestEnd: Double? {
        get { Self.get(storage.times.1) }
        set { unique(); storage.times.1 = newValue ?? .nan }
    }
    /// When the first response byte arrived (device clock).
    public var responseStart: Double? {
        get { Self.get(storage.times.2) }
        set { unique(); storage.times.2 = newValue ?? .nan }
    }
    /// When the last response byte arrived (device clock).
    public var responseEnd: Double? {
        get { Self.get(storage.times.3) }
        set { unique(); storage.times.3 = newValue ?? .nan }
    }

    public static func == (a: NetworkEntry, b: NetworkEntry) -> Bool {
        if a.storage === b.storage { return true }
        return a.record == b.record && a.requestStart == b.requestStart && a.requestEnd == b.requestEnd
            && a.responseStart == b.responseStart && a.responseEnd == b.responseEnd
    }

    /// The minted id, parsed (nil when absent or malformed).
    public var mintedID: RequestID? { requestId.flatMap { RequestID(trimmingWhitespace($0)) } }
    /// The echoed id, parsed (nil when absent or malformed).
    public var echoedID: RequestID? { echoedRequestId.flatMap { RequestID(trimmingWhitespace($0)) } }

}

/// One session, as far as the join needs it.
public struct SessionEntry: Sendable, Equatable {
    /// The input path as given on the command line.
    public var input: String
    /// The session file inside the input.
    public var file: String
    /// The session the record belongs to (nil for stdin without a header).
    public var sessionId: String?
    /// The header's `userId`: absent when nobody was signed in at launch.
    public var userId: String?
    /// The header's `launchedAt` (device clock).
    public var launchedAt: Double?
    /// Earliest and latest record `ts` (header included).
    public var firstTs: Double?
    /// The latest record `ts`.
    public var lastTs: Double?

    public init(
        input: String, file: String, sessionId: String?, userId: String? = nil, launchedAt: Double? = nil,
        firstTs: Double? = nil, lastTs: Double? = nil
    ) {
        self.input = input
        self.file = file
        self.sessionId = sessionId
        self.userId = userId
        self.launchedAt = launchedAt
        self.firstTs = firstTs
        self.lastTs = lastTs
    }

    /// The session's time span on the device clock: from the earlier of launch and first record to the last record.
    public var window: (from: Double, to: Double)? {
        let starts = [launchedAt, firstTs].compactMap { $0 }
        guard let from = starts.min() else { return nil }
        return (from, max(from, lastTs ?? from))
    }
}

/// Collects, during the one pass of the reader, every network record and session the join needs.
public final class CorrelationAnalysis: Analysis {
    /// Every network record, in reading order.
    package private(set) var requests: [NetworkEntry] = []
    /// Every session, in reading order.
    package private(set) var sessions: [SessionEntry] = []
    private var current: [ObjectIdentifier: Int] = [:]
    /// Records kept at most (a hostile export cannot make the join unbounded).
    public let maxRequests: Int
    /// Memory the kept records and sessions may hold, about: each record's box, its place in the
    /// lists and in the join's result, and the texts of its own (repeated texts are pooled and bounded
    /// apart), and each session's entries (`sessionFixedBytes`) and texts. The default, 160 MiB, keeps
    /// 100,000 sessions and their 170,000 records, or about 500,000 records of one session.
    public let maxBytes: Int
    /// Memory the kept records hold, about (what `maxBytes` bounds).
    package private(set) var heldBytes = 0
    /// Network records past `maxRequests` or `maxBytes`, not kept.
    package private(set) var droppedRequests = 0
    /// Sessions begun once the join had left something out (a record, or a session past `maxBytes`):
    /// not kept either, so the join covers a prefix of the export and memory stays bounded whatever
    /// the number of sessions.
    package private(set) var droppedSessions = 0
    /// Whether the first record not kept was left out for `maxRequests` (else for `maxBytes`).
    private var droppedByCount = false
    /// The input where the first record was not kept.
    private var limitInput: String?
    /// Repeated texts (URLs, methods, states) shared between the records.
    private let pool = StringPool()
    /// Texts are cut as the waterfall cuts them: a URL or id of megabytes is not held whole.
    public static let textLimits = NetworkRecord.TextLimits(long: 2048)
    /// What one kept record costs besides its own texts: its box, its slot in the collected list and
    /// its `CorrelatedRequest` in the join's result.
    static let fixedBytes =
        48 + MemoryLayout<NetworkRecord>.stride + MemoryLayout<NetworkEntry>.stride
        + MemoryLayout<CorrelatedRequest>.stride

    /// What the join may hold beside a waterfall (`report --logs`, `show --logs`): the waterfall's
    /// 112 MiB and this stay under 256 MiB with the reader's and verify's share.
    public static let besideWaterfallBytes = 80 << 20

    /// `maxRequests`: records kept at most; 0 collects the sessions only (a report without logs).
    /// `maxBytes`: memory they may hold, about.
    public init(maxRequests: Int = 1_000_000, maxBytes: Int = 160 << 20) {
        self.maxRequests = maxRequests
        self.maxBytes = maxBytes
    }

    /// What keeping a session costs, about: its entry, its place in the join's result (`CorrelatedSession`)
    /// and in the report's redacted copy, and its texts of its own.
    static let sessionFixedBytes = 2 * MemoryLayout<SessionEntry>.stride + 2 * MemoryLayout<CorrelatedSession>.stride + 64

    /// Starts collecting a session, unless the join has left something out already (`droppedSessions`).
    public func beginSession(_ session: SessionContext) {
        let entry = SessionEntry(input: session.input.path, file: session.file, sessionId: session.sessionId)
        let cost = CorrelationAnalysis.sessionFixedBytes + StringPool.heapBytes(entry.file) + StringPool.heapBytes(entry.sessionId)
        guard droppedRequests == 0 && droppedSessions == 0 && heldBytes + cost + pool.unpooledBytes <= maxBytes else {
            droppedSessions += 1
            if limitInput == nil { limitInput = session.input.path }
            return
        }
        heldBytes += cost
        current[ObjectIdentifier(session)] = sessions.count
        sessions.append(entry)
    }

    /// Takes the header (user, launch) and every network record.
    public func record(_ record: Record, session: SessionContext) {
        let k: Int
        if let i = current[ObjectIdentifier(session)] {
            k = i
        } else if droppedSessions == 0 && droppedRequests == 0 {
            beginSession(session)
            guard let i = current[ObjectIdentifier(session)] else { return dropped(record, session) }
            k = i
        } else {
            // A session begun after the join left something out: none of it is kept.
            return dropped(record, session)
        }
        if let t = record.ts {
            sessions[k].firstTs = min(sessions[k].firstTs ?? t, t)
            sessions[k].lastTs = max(sessions[k].lastTs ?? t, t)
        }
        if record.type == .session {
            if let id = record.heldText("sessionId") { sessions[k].sessionId = id }
            sessions[k].userId = record.heldText("userId")
            heldBytes += StringPool.heapBytes(sessions[k].userId)
            sessions[k].launchedAt = record.json["launchedAt"]?.string.flatMap(Timestamp.parse)
            return
        }
        if sessions[k].sessionId == nil { sessions[k].sessionId = session.sessionId }
        guard record.type == .network else { return }
        guard maxRequests > 0 else { return } // sessions only: no join, nothing left out of one
        if droppedRequests == 0 && requests.count < maxRequests {
            let e = CorrelationAnalysis.entry(
                record, input: session.input.path, file: session.file,
                sessionId: sessions[k].sessionId ?? session.sessionId, pool: pool)
            let cost = CorrelationAnalysis.heapBytes(e.record)
            if heldBytes + cost + pool.unpooledBytes <= maxBytes {
                heldBytes += cost
                requests.append(e)
                return
            }
        }
        // Once one record is left out, so is every later one: the join covers a prefix of the
        // export, and the finding says where it stops.
        if droppedRequests == 0 { droppedByCount = requests.count >= maxRequests }
        droppedRequests += 1
        if limitInput == nil { limitInput = session.input.path }
    }

    /// A record of a session not kept: a network record is counted as left out.
    private func dropped(_ record: Record, _ session: SessionContext) {
        guard record.type == .network, maxRequests > 0 else { return }
        droppedRequests += 1
        if limitInput == nil { limitInput = session.input.path }
    }

    /// What keeping `r` costs, about: the fixed part and the texts of its own.
    static func heapBytes(_ r: NetworkRecord) -> Int {
        var n =
            fixedBytes + StringPool.heapBytes(r.recordId) + StringPool.heapBytes(r.requestId)
            + StringPool.heapBytes(r.error)
        if r.echoedRequestId != r.requestId { n += StringPool.heapBytes(r.echoedRequestId) }
        return n
    }

    /// Fills what only the reader knew (a session id from the file name).
    public func endSession(_ session: SessionContext) {
        guard let k = current.removeValue(forKey: ObjectIdentifier(session)) else { return }
        if sessions[k].sessionId == nil { sessions[k].sessionId = session.sessionId }
        if sessions[k].userId == nil { sessions[k].userId = session.userId }
    }

    /// The join's view of one network record: its typed view, and the device times of its last transaction.
    public static func entry(_ record: Record, input: String, file: String, sessionId: String?, pool: StringPool? = nil) -> NetworkEntry {
        var e = NetworkEntry(
            record: NetworkRecord(
                network: record, input: input, file: file, sessionId: sessionId,
                limits: textLimits, pool: pool))
        if let last = record.json["metrics", "transactions"]?.elements.last {
            func t(_ k: String) -> Double? { last[k]?.string.flatMap(Timestamp.parse) }
            e.requestStart = t("requestStart")
            e.requestEnd = t("requestEnd")
            e.responseStart = t("responseStart")
            e.responseEnd = t("responseEnd")
        }
        return e
    }

    /// Says how many network records the join did not keep (`correlation.limit`): a bound reached is never silent.
    public func finish() -> [Finding] {
        guard droppedRequests > 0 || droppedSessions > 0 else { return [] }
        let what =
            droppedSessions == 0
            ? "\(droppedRequests) network records"
            : "\(droppedSessions) sessions (\(droppedRequests) network records)"
        let held = droppedSessions == 0 ? "records" : "records and sessions"
        return [
            Finding(
                rule: CorrelationRule.limit.id, severity: .medium, input: limitInput ?? "-",
                message: "\(what) beyond "
                    + (droppedByCount ? "the limit of \(maxRequests) records" : "\(Human.bytes(maxBytes)) of \(held) held")
                    + " were not kept for the join: "
                    + "their server lines were not looked for")
        ]
    }

    /// Hands the network records over and keeps none: the join's copy is then the only one (a hundred
    /// thousand records are not held twice).
    public func takeRequests() -> [NetworkEntry] {
        defer { requests = [] }
        return requests
    }

    /// Hands the sessions over and keeps none (the join's copy is then the only one).
    public func takeSessions() -> [SessionEntry] {
        defer { sessions = [] }
        return sessions
    }

    /// Hands the collected records and sessions over (for tests and callers that build them by hand).
    public func add(session: SessionEntry) { sessions.append(session) }
    /// Adds a network record built by hand.
    public func add(request: NetworkEntry) { requests.append(request) }
}
