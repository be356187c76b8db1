import Foundation

extension InspectReport {
    /// Ticket-ready Markdown: summary, inputs, sessions, blobs, findings; every export string escaped.
    public static func markdown(_ redacted: Redacted<ReadOutcome>) -> String {
        let o = redacted.value
        let records = o.totalRecords, sessions = o.totalSessions
        var out = "# pbsift inspect\n\n"
        out += "\(o.inputs.count) input\(o.inputs.count == 1 ? "" : "s"), \(sessions) session\(sessions == 1 ? "" : "s"), "
        out += "\(records) record\(records == 1 ? "" : "s"), " + ReportEnvelope.findingsSummaryLine(o.findings) + "\n\n"
        out += ReportEnvelope.inputsMarkdown(o.inputs) + "\n"
        out += "## Sessions\n\n"
        if o.sessions.isEmpty {
            out += "No sessions.\n"
        } else {
            let rows = o.sessions.map { s -> [String] in
                let md: (String?) -> String = { $0.map(Escape.markdown) ?? "" }
                return [
                    md(s.sessionId ?? "(unknown)"), md(s.file), md(appText(s)), md(sdkText(s)), md(deviceText(s)),
                    md(s.environmentRef), md(s.userId), s.launchedAt.map { Timestamp.format($0) } ?? "",
                    spanText(s) ?? "", String(s.recordCount)
                ]
                    + recordKeys.map { String(s.records[$0] ?? 0) } + [String(s.damagedLines)]
            }
            out += ReportEnvelope.markdownTable(
                ["Session", "File", "App", "SDK", "Device", "Environment", "User", "Launched", "Time span", "Records"]
                    + recordKeys + ["Damaged lines"], rows)
            if let note = o.sessionsNotListedNote { out += "\n_" + note + "._\n" }
        }
        let blobInputs = o.inputs.filter { (o.blobs[$0.path]?.count ?? 0) > 0 }
        if !blobInputs.isEmpty {
            out += "\n## Blobs\n\n"
            let rows = blobInputs.compactMap { i -> [String]? in
                guard let b = o.blobs[i.path] else { return nil }
                return [
                    Escape.markdown(i.path), String(b.count), String(b.bytes), String(b.references),
                    String(b.referencedBytes), String(b.savedBytes)
                ]
            }
            out += ReportEnvelope.markdownTable(["Input", "Blobs", "Stored bytes", "References", "Referenced bytes", "Saved bytes"], rows)
        }
        out += "\n" + ReportEnvelope.findingsMarkdown(o.findings)
        return out
    }
}
