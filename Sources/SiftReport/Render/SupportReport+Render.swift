import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

extension SupportReport {
    /// Says that some timelines hold less than their time span, and the bounds that cut them.
    var timelineCutText: String {
        let n = timeline.cutShort
        return "\(n) timeline\(n == 1 ? "" : "s") cut short: one keeps at most \(timeline.maxPerWindow) records "
            + "(\(timeline.maxPerWindow / 2) before its failure), all together at most \(timeline.maxBytes >> 20) MiB"
    }

    // MARK: Shared facts

    /// `1 input, 1 session, 53 records, 13 findings (8 high, 2 medium, 3 low)`: the one count of findings.
    public var headline: String {
        let records = outcome.totalRecords
        let n = outcome.inputs.count, m = outcome.totalSessions
        return "\(n) input\(n == 1 ? "" : "s"), \(m) session\(m == 1 ? "" : "s"), \(records) record\(records == 1 ? "" : "s"), "
            + ReportEnvelope.findingsSummaryLine(findings) + (scope.map { " (only \($0))" } ?? "")
    }

    /// What `pbsift inspect` lists of these sessions: `them all`, or `the first 10000` when the list is bounded.
    static func inspectLists(_ outcome: ReadOutcome) -> String {
        outcome.sessionsNotListed > 0 ? "the first \(outcome.sessions.count)" : "them all"
    }

    /// The user of a session: its id, `signed out` (a header without one), or unknown (no header).
    static func userText(_ s: SessionSummary) -> String {
        s.userText
    }

    /// One line a session: `com.acme.shop 4.2.0 (512) · iPhone16,1, iOS 18.1.1 · user usr_123 · 53 records · …`.
    static func sessionLine(_ s: SessionSummary) -> String {
        var parts: [String] = []
        if let a = InspectReport.appText(s) { parts.append(a) }
        let device = [s.device.model, s.device.system].compactMap { $0 }.joined(separator: ", ")
        if !device.isEmpty { parts.append(device) }
        parts.append("user " + userText(s))
        parts.append("\(s.recordCount) record\(s.recordCount == 1 ? "" : "s")")
        if let span = InspectReport.spanText(s) { parts.append(span) }
        if s.damagedLines > 0 { parts.append("\(s.damagedLines) damaged line\(s.damagedLines == 1 ? "" : "s")") }
        return parts.joined(separator: " · ")
    }

    /// Sessions listed one line each in a report of several (the rest counted).
    public static let maxSessionLines = 20

    /// The server logs in a few facts: files and formats, errors, ids only the server saw.
    struct ServerFacts {
        var files: [(file: String, format: String)]
        var moreFiles: Int
        var errors: [String]
        var serverOnly: Int
        var truncated: Bool
        var withUser: [String]
    }

    var serverFacts: ServerFacts? {
        guard let c = correlation else { return nil }
        return ServerFacts(
            files: c.logs.files.prefix(20).map { ($0.file, $0.format?.rawValue ?? "no matching line") },
            moreFiles: max(0, c.logs.files.count - 20), errors: c.logs.allErrors,
            serverOnly: c.serverOnly.ids.count, truncated: c.serverOnlyTruncated,
            withUser: c.serverOnly.withUserId.prefix(50).map(\.description))
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

}
