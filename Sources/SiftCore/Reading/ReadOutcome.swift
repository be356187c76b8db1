import Foundation
import SiftArchive

/// Whether an input was read in full.
public enum InputStatus: String, Sendable {
    case ok, partial, unreadable
}

/// One input as the report lists it.
public struct InputSummary: Sendable {
    public var path: String
    public var container: ContainerKind
    public var status: InputStatus
    /// Lowercase messages naming the place: `sessions/ses_….jsonl: gzip stream cut short at byte 812`.
    public var errors: [String]

    public var json: JSONOut {
        .object([
            "path": .string(path), "container": .string(container.rawValue), "status": .string(status.rawValue),
            "errors": .array(errors.map { .string($0) })
        ])
    }
}

/// Facts of one session for `inspect` and `report`.
public struct SessionSummary: Sendable {
    public var sessionId: String?
    public var input: String
    public var file: String
    public var app: (bundleId: String?, version: String?, build: String?)
    public var sdk: (name: String?, version: String?)
    public var device: (model: String?, system: String?, locale: String?, timeZone: String?)
    public var environmentRef: String?
    public var userId: String?
    public var launchedAt: Double?
    public var firstTs: Double?
    public var lastTs: Double?
    public var recordCount: Int
    public var records: [String: Int]
    public var damagedLines: Int
    public var hasHeader: Bool
    /// The session was mapped from a HAR file, which names no user: its user is unknown, not signed out.
    public var fromHAR = false

    /// The sessions of one input in the order they were launched (`launchedAt`, else their first
    /// record's time), those with neither last, ties in the order read: every command lists an
    /// input's sessions in this order.
    public static func inLaunchOrder(_ sessions: [SessionSummary]) -> [SessionSummary] {
        guard sessions.count > 1 else { return sessions }
        return sessions.enumerated().sorted { a, b in
            let x = a.element.launchedAt ?? a.element.firstTs ?? .infinity
            let y = b.element.launchedAt ?? b.element.firstTs ?? .infinity
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
    }

    /// `usr_123`, `(signed out)` (a header without one), or why the user is unknown.
    public var userText: String {
        userId ?? (fromHAR ? "(unknown: a HAR names no user)" : hasHeader ? "(signed out)" : "(unknown: no session header)")
    }
}

/// Blob totals of one input.
public struct BlobSummary: Sendable {
    public var count = 0
    public var bytes: Int64 = 0
    /// Body bytes the references point at, counting each reference (what storing every body would cost).
    public var referencedBytes: Int64 = 0
    public var references = 0
    /// What deduplication saved: referenced bytes minus the stored bytes of the distinct referenced blobs.
    public var savedBytes: Int64 = 0
}

/// Everything one pass over the inputs produced.
public struct ReadOutcome: Sendable {
    public var inputs: [InputSummary] = []
    /// The sessions listed: the first `maxListedSessions` read (of those the reader was asked to keep).
    public var sessions: [SessionSummary] = []
    /// Every session read (of those the reader was asked to keep), listed or not.
    public var sessionCount = 0
    /// Records (after the header) of every session counted in `sessionCount`.
    public var recordCount = 0
    /// The ids of the first few sessions read, whether kept or not (to name them when `--session`
    /// matches none).
    public var firstSessionIds: [String] = []
    public var blobs: [String: BlobSummary] = [:]
    /// Reader findings (integrity, limits, archive, policy) and every analysis's findings, sorted.
    public var findings: [Finding] = []

    /// Sessions listed in full at most: past this, a session is counted (`sessionCount`,
    /// `recordCount`) but not listed, and a `limits.sessions-not-listed` finding says so.
    public static let maxListedSessions = 10_000
    /// How many of the sessions read are not in `sessions`.
    public var sessionsNotListed: Int { max(0, sessionCount - sessions.count) }
    /// Every session read, listed or not.
    public var totalSessions: Int { max(sessionCount, sessions.count) }
    /// The records of every session read, listed or not.
    public var totalRecords: Int {
        sessionsNotListed > 0 ? recordCount : sessions.reduce(0) { $0 + $1.recordCount }
    }
    /// `(the first 10000 of 100000 sessions are listed)`, or nothing when every session is.
    public var sessionsNotListedNote: String? {
        sessionsNotListed == 0
            ? nil
            : "\(sessionsNotListed) more session\(sessionsNotListed == 1 ? "" : "s") not listed: the first \(sessions.count) of \(totalSessions) are (a bound of the report; every session was read and checked)"
    }

    /// True when some input was not read in full (exit status 2).
    public var anyIncomplete: Bool { inputs.contains { $0.status != .ok } }

    /// Nothing read yet.
    public init() {}
}
