import Foundation
import SiftArchive

/// Whether an input was read in full.
package enum InputStatus: String, Sendable {
    case ok, partial, unreadable
}

/// One input as the report lists it.
package struct InputSummary: Sendable {
    package var path: String
    package var container: ContainerKind
    package var status: InputStatus
    /// Lowercase messages naming the place: `sessions/ses_….jsonl: gzip stream cut short at byte 812`.
    package var errors: [String]

    package var json: JSONOut {
        .object([
            "path": .string(path), "container": .string(container.rawValue), "status": .string(status.rawValue),
            "errors": .array(errors.map { .string($0) })
        ])
    }
}

/// Facts of one session for `inspect` and `report`.
package struct SessionSummary: Sendable {
    package var sessionId: String?
    package var input: String
    package var file: String
    package var app: (bundleId: String?, version: String?, build: String?)
    package var sdk: (name: String?, version: String?)
    package var device: (model: String?, system: String?, locale: String?, timeZone: String?)
    package var environmentRef: String?
    package var userId: String?
    package var launchedAt: Double?
    package var firstTs: Double?
    package var lastTs: Double?
    package var recordCount: Int
    package var records: [String: Int]
    package var damagedLines: Int
    package var hasHeader: Bool
}

/// Blob totals of one input.
package struct BlobSummary: Sendable {
    package var count = 0
    package var bytes: Int64 = 0
    /// Body bytes the references point at, counting each reference (what storing every body would cost).
    package var referencedBytes: Int64 = 0
    package var references = 0
    /// What deduplication saved: referenced bytes minus the stored bytes of the distinct referenced blobs.
    package var savedBytes: Int64 = 0
}

/// Everything one pass over the inputs produced.
package struct ReadOutcome: Sendable {
    package var inputs: [InputSummary] = []
    /// The sessions listed: the first `maxListedSessions` read (of those the reader was asked to keep).
    package var sessions: [SessionSummary] = []
    /// Every session read (of those the reader was asked to keep), listed or not.
    package var sessionCount = 0
    /// Records (after the header) of every session counted in `sessionCount`.
    package var recordCount = 0
    /// The ids of the first few sessions read, whether kept or not (to name them when `--session`
    /// matches none).
    package var firstSessionIds: [String] = []
    package var blobs: [String: BlobSummary] = [:]
    /// Reader findings (integrity, limits, archive, policy) and every analysis's findings, sorted.
    package var findings: [Finding] = []

    /// Sessions listed in full at most: past this, a session is counted (`sessionCount`,
    /// `recordCount`) but not listed, and a `limits.sessions-not-listed` finding says so.
    package static let maxListedSessions = 10_000
    /// How many of the sessions read are not in `sessions`.
    package var sessionsNotListed: Int { max(0, sessionCount - sessions.count) }
    /// Every session read, listed or not.
    package var totalSessions: Int { max(sessionCount, sessions.count) }
    /// The records of every session read, listed or not.
    package var totalRecords: Int {
        sessionsNotListed > 0 ? recordCount : sessions.reduce(0) { $0 + $1.recordCount }
    }
    /// `(the first 10000 of 100000 sessions are listed)`, or nothing when every session is.
    package var sessionsNotListedNote: String? {
        sessionsNotListed == 0
            ? nil
            : "\(sessionsNotListed) more session\(sessionsNotListed == 1 ? "" : "s") not listed: the first \(sessions.count) of \(totalSessions) are (a bound of the report; every session was read and checked)"
    }

    /// True when some input was not read in full (exit status 2).
    package var anyIncomplete: Bool { inputs.contains { $0.status != .ok } }

    /// Nothing read yet.
    package init() {}
}
