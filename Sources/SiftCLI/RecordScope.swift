import Foundation
import SiftCore
import SiftReport

/// `--session`, `--since`, `--until`: which sessions and which stretch of time a command reads.
struct RecordScope: Sendable {
    /// A session id, or the start of one (with or without `ses_`).
    var session: String?
    var since: Double?
    var until: Double?

    var isEmpty: Bool { session == nil && since == nil && until == nil }

    /// What the scope keeps, in words (`session ses_4fd5, records from 2026-11-29T10:15:50.000Z`); nil
    /// when it keeps everything. The session is given as written (an id or its start).
    var description: String? {
        var parts: [String] = []
        if let s = session { parts.append("session " + Escape.terminal(String(s.prefix(64)))) }
        switch (since, until) {
        case let (a?, b?): parts.append("records from \(Timestamp.format(a)) to \(Timestamp.format(b))")
        case let (a?, nil): parts.append("records from \(Timestamp.format(a))")
        case let (nil, b?): parts.append("records until \(Timestamp.format(b))")
        default: break
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    static let sessionOption = OptionSpec("session", value: "id", help: "Only this session: its id or the start of it.")
    static let sinceOption = OptionSpec("since", value: "time", help: "Keep records at or after this RFC 3339 time.", kind: .time)
    static let untilOption = OptionSpec("until", value: "time", help: "Keep records at or before this RFC 3339 time.", kind: .time)
    /// The three options, for a command's table.
    static let options = [sessionOption, sinceOption, untilOption]

    init(session: String?, since: Double? = nil, until: Double? = nil) {
        self.session = session.flatMap { $0.isEmpty ? nil : $0 }
        self.since = since
        self.until = until
    }

    /// Reads the options (the parser checked the times).
    init(_ options: ParsedOptions) {
        session = options.value("session").flatMap { $0.isEmpty ? nil : $0 }
        since = options.time("since")
        until = options.time("until")
    }

    /// Whether a record (not a header) falls in the time range; a record without a time does not
    /// when a range is set.
    func keeps(_ r: Record) -> Bool {
        if since == nil && until == nil { return true }
        guard let t = r.ts else { return false }
        if let since, t < since { return false }
        if let until, t > until { return false }
        return true
    }

    /// Which sessions the reader lists and counts (by id): nil, every one, without `--session`.
    var keepsSession: (@Sendable (String?) -> Bool)? {
        guard let wanted = session else { return nil }
        return { SessionSelector.matches(wanted, $0) }
    }

    /// The analyses, each seeing only the chosen sessions and the records in range (headers always).
    func wrap(_ analyses: [any Analysis]) -> [any Analysis] {
        isEmpty ? analyses : analyses.map { ScopedAnalysis(inner: $0, scope: self) }
    }

    /// The reader's findings that belong to a chosen session (findings of no session are kept).
    func keeps(_ f: Finding) -> Bool {
        guard session != nil, f.sessionId != nil else { return true }
        return SessionSelector.matches(session, f.sessionId)
    }

    /// A usage error when `--session` matched none of the sessions read (the reader counted only the
    /// matching ones, and kept the first ids it met to name them).
    func checkSessionMatched(_ outcome: ReadOutcome) throws {
        guard let wanted = session, outcome.sessionCount == 0 else { return }
        // The ids come from the export: masked like any other text of it.
        let known = Redactor.verify().apply(outcome).value.firstSessionIds.prefix(5).joined(separator: ", ")
        throw UsageError("no session matches '\(wanted)' in this export" + (known.isEmpty ? "" : "; it holds \(known)"), about: "--session")
    }
}

/// Hands an analysis only what a `RecordScope` keeps: a session is begun when its first record (the
/// header, when it has one) shows that its id matches.
final class ScopedAnalysis: Analysis {
    let inner: any Analysis
    let scope: RecordScope
    private var decided: [ObjectIdentifier: Bool] = [:]

    init(inner: any Analysis, scope: RecordScope) {
        self.inner = inner
        self.scope = scope
    }

    func beginInput(_ input: InputContext) { inner.beginInput(input) }

    func record(_ record: Record, session: SessionContext) {
        let key = ObjectIdentifier(session)
        let chosen: Bool
        if let d = decided[key] {
            chosen = d
        } else {
            chosen = SessionSelector.matches(scope.session, session.sessionId)
            decided[key] = chosen
            if chosen { inner.beginSession(session) }
        }
        guard chosen, record.type == .session || scope.keeps(record) else { return }
        inner.record(record, session: session)
    }

    func endSession(_ session: SessionContext) {
        if decided.removeValue(forKey: ObjectIdentifier(session)) == true { inner.endSession(session) }
    }

    func blob(_ blob: BlobContent) { inner.blob(blob) }
    var needsBlobHash: Bool { inner.needsBlobHash }
    func endInput(_ input: InputContext) { inner.endInput(input) }
    func finish() -> [Finding] { inner.finish().filter(scope.keeps) }
}
