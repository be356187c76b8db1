import Foundation
import SiftCore

/// One network record, as far as the join needs it.
public struct NetworkEntry: NetworkRecordView, Sendable, Equatable {
    /// The input path as given on the command line.
    public var input: String
    /// The session file inside the input.
    public var file: String
    /// The session the record belongs to (nil for stdin without a header).
    public var sessionId: String?
    /// The record's `seq`.
    public var seq: Int?
    /// Line in the session file.
    public var line: Int
    /// The record's `id`.
    public var recordId: String?
    /// The minted `X-Request-Id` as written.
    public var requestId: String?
    /// The echoed `X-Request-Id` as written.
    public var echoedRequestId: String?
    /// The HTTP method.
    public var method: String?
    /// The URL as recorded (query values already redacted by the SDK).
    public var url: String?
    /// The response status, absent when no response arrived.
    public var statusCode: Int?
    /// `success`, `failure`, `pending` or `cancelled`.
    public var state: String?
    /// The record's `ts` (device clock, seconds since 1970).
    public var ts: Double?
    /// The record's `duration`, seconds.
    public var duration: Double?
    /// From the last transaction of `metrics` (device clock).
    public var requestStart: Double?
    /// When the request was sent in full (device clock).
    public var requestEnd: Double?
    /// When the first response byte arrived (device clock).
    public var responseStart: Double?
    /// When the last response byte arrived (device clock).
    public var responseEnd: Double?

    public init(input: String, file: String, sessionId: String?, seq: Int?, line: Int, recordId: String? = nil,
                requestId: String? = nil, echoedRequestId: String? = nil, method: String? = nil, url: String? = nil,
                statusCode: Int? = nil, state: String? = nil, ts: Double? = nil, duration: Double? = nil,
                requestStart: Double? = nil, requestEnd: Double? = nil, responseStart: Double? = nil, responseEnd: Double? = nil) {
        self.input = input
        self.file = file
        self.sessionId = sessionId
        self.seq = seq
        self.line = line
        self.recordId = recordId
        self.requestId = requestId
        self.echoedRequestId = echoedRequestId
        self.method = method
        self.url = url
        self.statusCode = statusCode
        self.state = state
        self.ts = ts
        self.duration = duration
        self.requestStart = requestStart
        self.requestEnd = requestEnd
        self.responseStart = responseStart
        self.responseEnd = responseEnd
    }

    /// The minted id, parsed (nil when absent or malformed).
    public var mintedID: RequestID? { requestId.flatMap { RequestID($0.trimmingCharacters(in: .whitespaces)) } }
    /// The echoed id, parsed (nil when absent or malformed).
    public var echoedID: RequestID? { echoedRequestId.flatMap { RequestID($0.trimmingCharacters(in: .whitespaces)) } }

    /// Where the record is (the join key with the waterfall, `show` and `report`).
    public var ref: RecordRef { RecordRef(input: input, file: file, line: line) }
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

    public init(input: String, file: String, sessionId: String?, userId: String? = nil, launchedAt: Double? = nil,
                firstTs: Double? = nil, lastTs: Double? = nil) {
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
    public private(set) var requests: [NetworkEntry] = []
    /// Every session, in reading order.
    public private(set) var sessions: [SessionEntry] = []
    private var current: [ObjectIdentifier: Int] = [:]
    /// Records kept at most (a hostile export cannot make the join unbounded).
    public let maxRequests: Int
    /// Network records past `maxRequests`, not kept.
    public private(set) var droppedRequests = 0

    public init(maxRequests: Int = 1_000_000) { self.maxRequests = maxRequests }

    /// Starts collecting a session.
    public func beginSession(_ session: SessionContext) {
        current[ObjectIdentifier(session)] = sessions.count
        sessions.append(SessionEntry(input: session.input.path, file: session.file, sessionId: session.sessionId))
    }

    /// Takes the header (user, launch) and every network record.
    public func record(_ record: Record, session: SessionContext) {
        let k: Int
        if let i = current[ObjectIdentifier(session)] {
            k = i
        } else {
            beginSession(session)
            k = sessions.count - 1
        }
        if let t = record.ts {
            sessions[k].firstTs = min(sessions[k].firstTs ?? t, t)
            sessions[k].lastTs = max(sessions[k].lastTs ?? t, t)
        }
        if record.type == .session {
            let h = record.json
            if let id = h["sessionId"]?.string { sessions[k].sessionId = id }
            sessions[k].userId = h["userId"]?.string
            sessions[k].launchedAt = h["launchedAt"]?.string.flatMap(Timestamp.parse)
            return
        }
        if sessions[k].sessionId == nil { sessions[k].sessionId = session.sessionId }
        guard record.type == .network else { return }
        guard requests.count < maxRequests else { droppedRequests += 1; return }
        requests.append(CorrelationAnalysis.entry(record, input: session.input.path, file: session.file,
                                                  sessionId: sessions[k].sessionId ?? session.sessionId))
    }

    /// Fills what only the reader knew (a session id from the file name).
    public func endSession(_ session: SessionContext) {
        guard let k = current.removeValue(forKey: ObjectIdentifier(session)) else { return }
        if sessions[k].sessionId == nil { sessions[k].sessionId = session.sessionId }
        if sessions[k].userId == nil { sessions[k].userId = session.userId }
    }

    /// The join's view of one network record: its typed view, and the device times of its last transaction.
    public static func entry(_ record: Record, input: String, file: String, sessionId: String?) -> NetworkEntry {
        let n = NetworkRecord(network: record, input: input, file: file, sessionId: sessionId)
        var e = NetworkEntry(input: n.ref.input, file: n.ref.file, sessionId: sessionId, seq: n.seq, line: n.ref.line,
                             recordId: n.recordId, requestId: n.requestId, echoedRequestId: n.echoedRequestId,
                             method: n.method, url: n.url, statusCode: n.statusCode, state: n.state, ts: n.ts, duration: n.duration)
        if let last = record.json["metrics", "transactions"]?.elements.last {
            func t(_ k: String) -> Double? { last[k]?.string.flatMap(Timestamp.parse) }
            e.requestStart = t("requestStart")
            e.requestEnd = t("requestEnd")
            e.responseStart = t("responseStart")
            e.responseEnd = t("responseEnd")
        }
        return e
    }

    /// Hands the collected records and sessions over (for tests and callers that build them by hand).
    public func add(session: SessionEntry) { sessions.append(session) }
    /// Adds a network record built by hand.
    public func add(request: NetworkEntry) { requests.append(request) }
}
