import Foundation

/// Where a record is: the input as given on the command line, the session file inside it, and the
/// line. The join key between analyses: every view of one record (waterfall, correlate, show,
/// report) carries the same reference.
public struct RecordRef: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var input: String
    public var file: String
    /// 1-based line in `file`.
    public var line: Int

    public init(input: String, file: String, line: Int) {
        self.input = input
        self.file = file
        self.line = line
    }

    /// The record `record` of `session`.
    public init(_ record: Record, in session: SessionContext) {
        self.init(input: session.input.path, file: session.file, line: record.line)
    }

    /// Whether `other` lies in the same session file of the same input.
    public func sameFile(_ other: RecordRef) -> Bool { input == other.input && file == other.file }

    public static func < (a: RecordRef, b: RecordRef) -> Bool {
        (a.input, a.file, a.line) < (b.input, b.file, b.line)
    }

    /// `input:file:line`.
    public var description: String { "\(input):\(file):\(line)" }
}

/// What every view of a network record shares: where it is and how it ended, and so the one
/// definition of a failed request.
public protocol NetworkRecordView {
    /// Where the record is (the join key).
    var ref: RecordRef { get }
    /// `success`, `failure`, `pending` or `cancelled`, as the record wrote it.
    var state: String? { get }
    /// The response status, absent when no response arrived.
    var statusCode: Int? { get }
}

extension NetworkRecordView {
    /// Failed: state `failure` or `cancelled`, or an HTTP status of 400 or more (`NetworkRecord.failed`).
    public var failed: Bool { NetworkRecord.failed(state: state, statusCode: statusCode) }
}

/// The typed view of a network record as the export holds it: the fields the analyses read.
public struct NetworkRecord: NetworkRecordView, Sendable {
    public var ref: RecordRef
    public var sessionId: String?
    public var seq: Int?
    /// The record's `id`.
    public var recordId: String?
    /// The minted and the echoed `X-Request-Id`, as written.
    public var requestId: String?
    public var echoedRequestId: String?
    public var method: String?
    public var url: String?
    public var statusCode: Int?
    public var state: String?
    /// The error the request ended with, when it did.
    public var error: String?
    /// The record's `ts` (device clock, seconds since 1970).
    public var ts: Double?
    /// The record's `duration`, seconds.
    public var duration: Double?

    /// The view of `record`, or nil when it is not a network record.
    public init?(_ record: Record, in session: SessionContext) {
        guard record.type == .network else { return nil }
        self.init(network: record, input: session.input.path, file: session.file, sessionId: session.sessionId)
    }

    /// The view of `record`, known to be a network record, at line `record.line` of `file` in `input`.
    public init(network record: Record, input: String, file: String, sessionId: String?) {
        let j = record.json
        ref = RecordRef(input: input, file: file, line: record.line)
        self.sessionId = sessionId
        seq = record.seq
        recordId = record.id
        requestId = j["requestId"]?.string
        echoedRequestId = j["echoedRequestId"]?.string
        method = j["method"]?.string
        url = j["url"]?.string
        statusCode = j["statusCode"]?.int
        state = j["state"]?.string
        error = j["error"]?.string
        ts = record.ts
        duration = j["duration"]?.double
    }

    /// The one definition of a failed request: it ended in `failure` or was `cancelled`, or the
    /// server answered with a status of 400 or more.
    public static func failed(state: String?, statusCode: Int?) -> Bool {
        endedWithoutResponse(state: state) || (statusCode ?? 0) >= 400
    }

    /// Whether `record` is a network record that failed (without building the whole view).
    public static func failed(_ record: Record) -> Bool {
        record.type == .network && failed(state: record.json["state"]?.string, statusCode: record.json["statusCode"]?.int)
    }

    /// The states of a request that did not complete: `failure` and `cancelled`.
    public static func endedWithoutResponse(state: String?) -> Bool {
        state == "failure" || state == "cancelled"
    }
}
