import Foundation

extension InspectReport {
    static func joined(_ parts: [String?], _ sep: String = " ") -> String? {
        let p = parts.compactMap { $0 }.filter { !$0.isEmpty }
        return p.isEmpty ? nil : p.joined(separator: sep)
    }

    /// `com.acme.shop 4.2.0 (512)`.
    public static func appText(_ s: SessionSummary) -> String? {
        joined([s.app.bundleId, s.app.version, s.app.build.map { "(\($0))" }])
    }

    /// `palbe-swift 3.1.0`.
    public static func sdkText(_ s: SessionSummary) -> String? { joined([s.sdk.name, s.sdk.version]) }

    /// `iPhone16,1, iOS 18.1.1, en_GB, Europe/London`.
    public static func deviceText(_ s: SessionSummary) -> String? {
        joined([s.device.model, s.device.system, s.device.locale, s.device.timeZone], ", ")
    }

    /// `2026-11-29T10:15:01.004Z → 2026-11-29T10:20:11.900Z (5m 10.896s)`.
    public static func spanText(_ s: SessionSummary) -> String? {
        guard let a = s.firstTs, let b = s.lastTs else { return nil }
        return Timestamp.format(a) + " → " + Timestamp.format(b) + " (" + Human.duration(seconds: b - a) + ")"
    }

    /// `5 records: 3 network, 1 log, 1 event, 0 frame, 0 unknown`.
    public static func recordsText(_ s: SessionSummary) -> String {
        "\(s.recordCount): " + recordKeys.map { "\(s.records[$0] ?? 0) \($0)" }.joined(separator: ", ")
    }

    /// For people: the inputs, each session's facts, blobs, and the findings worst first.
    /// Every string from the export is escaped for the terminal; colour only when `colors` is on.
    public static func text(_ redacted: Redacted<ReadOutcome>, colors: Colors = .off) -> String {
        overview(redacted, colors: colors) + "\n" + ReportEnvelope.findingsText(redacted.value.findings, colors: colors)
    }

    /// `text` without its findings: the inputs, each session's facts, blobs (`report` shows it).
    public static func overview(_ redacted: Redacted<ReadOutcome>, colors: Colors = .off) -> String {
        let o = redacted.value
        let records = o.totalRecords, sessions = o.totalSessions
        var out = colors.bold("pbsift inspect") + ": \(o.inputs.count) input\(o.inputs.count == 1 ? "" : "s"), "
        out += "\(sessions) session\(sessions == 1 ? "" : "s"), \(records) record\(records == 1 ? "" : "s"), "
        out += ReportEnvelope.findingsSummaryLine(o.findings) + "\n\n"
        return out + overviewBody(redacted, colors: colors)
    }

    /// The overview without its count line: inputs, each session's facts, blobs (`report` puts its
    /// own count line, over every analysis's findings, above it).
    public static func overviewBody(_ redacted: Redacted<ReadOutcome>, colors: Colors = .off) -> String {
        let o = redacted.value
        var out = ReportEnvelope.inputsText(o.inputs, colors: colors)
        for s in o.sessions {
            out += "\n" + colors.bold("Session " + Escape.terminal(s.sessionId ?? "(unknown)")) + "\n"
            var rows: [(String, String)] = [
                (
                    "input",
                    Escape.terminal(s.input) + (ReportEnvelope.sameFile(input: s.input, file: s.file) ? "" : ": " + Escape.terminal(s.file))
                )
            ]
            if !s.hasHeader { rows.append(("header", colors.yellow("missing"))) }
            if let v = appText(s) { rows.append(("app", Escape.terminal(v))) }
            if let v = sdkText(s) { rows.append(("sdk", Escape.terminal(v))) }
            if let v = deviceText(s) { rows.append(("device", Escape.terminal(v))) }
            if let v = s.environmentRef { rows.append(("environment", Escape.terminal(v))) }
            rows.append(
                ("user", s.userId.map { Escape.terminal($0) } ?? colors.dim(s.userText)))
            if let v = s.launchedAt { rows.append(("launched", Timestamp.format(v))) }
            if let v = spanText(s) { rows.append(("time span", v)) }
            rows.append(("records", recordsText(s)))
            if s.damagedLines > 0 { rows.append(("damaged", colors.yellow("\(s.damagedLines) line\(s.damagedLines == 1 ? "" : "s")"))) }
            for (k, v) in rows { out += "  " + colors.dim(k.padding(toLength: 13, withPad: " ", startingAt: 0)) + v + "\n" }
        }
        if let note = o.sessionsNotListedNote { out += "\n" + colors.dim("… " + note) + "\n" }
        let blobInputs = o.inputs.filter { (o.blobs[$0.path]?.count ?? 0) > 0 }
        if !blobInputs.isEmpty {
            out += "\n" + colors.bold("Blobs") + "\n"
            for i in blobInputs {
                guard let b = o.blobs[i.path] else { continue }
                out += "  " + Escape.terminal(i.path) + ": \(b.count) blob\(b.count == 1 ? "" : "s"), "
                out += Human.bytes(b.bytes) + " stored, \(b.references) reference\(b.references == 1 ? "" : "s") to "
                out += Human.bytes(b.referencedBytes) + ", deduplication saved " + Human.bytes(b.savedBytes) + "\n"
            }
        }
        return out
    }
}
