import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

extension SupportReport {
    // MARK: Markdown

    /// Ticket-ready Markdown (GitHub, and Jira-style trackers that take Markdown): every string from
    /// the export or the logs is escaped; code blocks hold only pbsift's own bars and masked text.
    public func markdown() -> String {
        var o = "# pbsift report\n\n" + Escape.markdown(headline) + "\n\n## Verdict\n\n"
        for v in verdict {
            o += "- \(v.ok ? "✅" : "❌") **\(v.key)**: \(Escape.markdown(v.text))\n"
        }
        o += "\n## Sessions\n\n"
        let shown = outcome.sessions.prefix(50)
        let rows = shown.map { s -> [String] in
            [
                Escape.markdownCode(s.sessionId ?? "(unknown)"), Escape.markdown(InspectReport.appText(s) ?? "—"),
                Escape.markdown([s.device.model, s.device.system].compactMap { $0 }.joined(separator: ", ")),
                Escape.markdown(SupportReport.userText(s)), Escape.markdown(s.launchedAt.map { Timestamp.format($0) } ?? "—"),
                String(s.recordCount)
            ]
        }
        o += ReportEnvelope.markdownTable(["session", "app", "device", "user", "launched", "records"], rows) + "\n"
        if outcome.totalSessions > shown.count {
            o +=
                "_\(outcome.totalSessions - shown.count) more sessions: `pbsift inspect` lists \(SupportReport.inspectLists(outcome))._\n\n"
        }
        o += ReportEnvelope.inputsMarkdown(outcome.inputs) + "\n"
        o += requestsMarkdown("Failed requests", Array(failed.prefix(SupportReport.maxFailedShown)), empty: "No request failed.")
        if failedCount > SupportReport.maxFailedShown {
            o +=
                "_\(failedCount - SupportReport.maxFailedShown) more failed requests: `pbsift waterfall` or `pbsift records --status 4xx --status 5xx` list them all._\n\n"
        }
        o += requestsMarkdown("Slowest requests", slow, empty: "No request finished.")
        if !failureWindows.isEmpty {
            o += "## Around each failure\n\n"
            o +=
                "Device records within \(Int(timeline.context)) s of each failure (▶ marks a failed request), and the server's lines for it placed on the device clock"
            o += correlation?.clockSkew.seconds.map { " (" + ClockSkew.words($0) + ", applied)" } ?? ""
            o += "; failures whose records overlap share one timeline.\n\n"
            for w in failureWindows {
                o += "### " + windowTitle(w, escape: Escape.markdown) + "\n\n"
                let rows = timelineEntries(w).map { e in
                    [
                        e.time ?? "—", e.side,
                        e.failed ? "**" + Escape.markdown(e.text) + "**" : Escape.markdown(e.text)
                    ]
                }
                o += ReportEnvelope.markdownTable(["device time", "side", "what"], rows) + "\n"
            }
            if timeline.dropped > 0 { o += "_\(timeline.dropped) more failures not shown._\n\n" }
            if timeline.cutShort > 0 { o += "_\(timelineCutText)._\n\n" }
        }
        if let f = serverFacts {
            o += "## Server logs\n\n"
            o += "- " + SupportReport.plural(f.files.count + f.moreFiles, "file") + " scanned"
            let formats = f.files.map { "\(Escape.markdown($0.file)) as \(Escape.markdownCode($0.format))" }
            if !formats.isEmpty { o += " (" + formats.joined(separator: ", ") + (f.moreFiles > 0 ? ", …" : "") + ")" }
            if !f.errors.isEmpty { o += "; errors: " + f.errors.map { Escape.markdown($0) }.joined(separator: "; ") }
            o += "\n- server-only request ids in the session window: \(f.serverOnly)\(f.truncated ? " (at least)" : "")"
            if !f.withUser.isEmpty {
                o += "\n- " + SupportReport.plural(f.withUser.count, "other request") + " of this user reached the server: "
                o += f.withUser.map { Escape.markdownCode($0) }.joined(separator: ", ")
            }
            o += "\n\n"
        }
        o += ReportEnvelope.findingsMarkdown(findings)
        return o
    }

    /// `#31, #38 and #42 POST …/v1/orders (3 failures)` or `#38 POST … → 503`.
    func windowTitle(_ w: FailureWindow, escape: (String) -> String) -> String {
        let session = multiSession ? SessionSelector.short(w.sessionId) + " " : ""
        if w.failures.count == 1, let f = w.failures.first {
            return escape(
                session + "#\(f.seq.map(String.init) ?? "?") " + masked(SupportReport.summary(of: f, redactor: redactor).untrusted))
        }
        return escape(session + w.seqs + " (\(w.failures.count) failures within \(Int(timeline.context)) s of each other)")
    }

    func requestsMarkdown(_ title: String, _ requests: [WaterfallRequest], empty: String) -> String {
        var o = "## \(title)\n\n"
        guard !requests.isEmpty else { return o + empty + "\n\n" }
        let rows = requests.map { r -> [String] in
            let c = correlated(r)
            var row = [
                "#\(r.seq.map(String.init) ?? "?")", Escape.markdown(r.shortTitle),
                Escape.markdown(SupportReport.statusText(r)), Human.duration(ms: r.elapsedMs),
                Escape.markdown(c.map { $0.status.rawValue } ?? "—"), Escape.markdown(whyText(r))
            ]
            if multiSession { row.insert(Escape.markdownCode(SessionSelector.short(r.sessionId)), at: 0) }
            return row
        }
        o +=
            ReportEnvelope.markdownTable(
                (multiSession ? ["session"] : []) + ["seq", "request", "status", "time", "server", "where the time went"], rows) + "\n"
        o += "```\n"
        for r in requests {
            let label = Escape.terminal(rowTitle(r, width: 44)).replacingOccurrences(of: "`", with: "'")
            o +=
                WaterfallFormat.pad(label, multiSession ? 58 : 44) + " " + SupportReport.bar(r) + "  " + Human.duration(ms: r.elapsedMs)
                + "\n"
            o += "    " + SupportReport.phasesText(r) + "\n"
            let shown = SupportReport.shownLines(correlated(r))
            for pl in shown.lines {
                let t = SupportReport.serverText(pl, max: 160, redactor: redactor)
                o +=
                    "    server \(Escape.terminal(pl.line.file)):\(pl.line.line) \(Escape.terminal(t).replacingOccurrences(of: "`", with: "'"))\n"
            }
            if let more = SupportReport.moreLinesText(shown.more) { o += "    " + more + "\n" }
        }
        o += SupportReport.legend + "\n```\n\n"
        return o
    }
}
