import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

extension SupportReport {
    // MARK: Text

    public func text(colors: Colors = .off) -> String {
        var o = colors.bold("pbsift report") + ": " + Escape.terminal(headline) + "\n\n"
        for v in verdict {
            let mark = v.ok ? colors.green("ok  ") : colors.red("FAIL")
            o += "  \(mark) \(colors.bold(v.key.padding(toLength: 12, withPad: " ", startingAt: 0))) \(Escape.terminal(v.text))\n"
        }
        o += "\n"
        if outcome.sessions.count <= 1 {
            // One session: the inspect overview, without its own count line.
            o += InspectReport.overviewBody(redactedOutcome, colors: colors)
        } else {
            let bad = outcome.inputs.filter { $0.status != .ok }
            o +=
                colors.bold("Inputs") + ": \(outcome.inputs.count), "
                + (bad.isEmpty ? "every one read in full\n" : "\(bad.count) not read in full\n")
            if !bad.isEmpty { o += ReportEnvelope.inputsText(bad, colors: colors) }
            o += colors.bold("Sessions") + ": \(outcome.totalSessions)\n"
            for s in outcome.sessions.prefix(SupportReport.maxSessionLines) {
                o +=
                    "  " + colors.bold(Escape.terminal(SessionSelector.short(s.sessionId))) + "  "
                    + Escape.terminal(SupportReport.sessionLine(s)) + "\n"
            }
            if outcome.totalSessions > SupportReport.maxSessionLines {
                o +=
                    "  "
                    + colors.dim(
                        "… \(outcome.totalSessions - SupportReport.maxSessionLines) more (pbsift inspect lists \(outcome.sessionsNotListed > 0 ? SupportReport.inspectLists(outcome) : "every session"))"
                    ) + "\n"
            }
        }
        o += "\n"
        var drewBars = false
        for (title, list) in [("failed requests", Array(failed.prefix(SupportReport.maxFailedShown))), ("slowest requests", slow)]
        where !list.isEmpty {
            o += colors.bold(title) + "\n"
            for r in list {
                let status = SupportReport.statusText(r)
                let shownStatus = r.failed ? colors.red(Escape.terminal(status)) : Escape.terminal(status)
                o += "  \(Escape.terminal(rowTitle(r)))  \(shownStatus)  \(Human.duration(ms: r.elapsedMs))\n"
                o += "    \(SupportReport.bar(r))  \(SupportReport.phasesText(r))\n"
                o += "    \(Escape.terminal(whyText(r)))\n"
                let shown = SupportReport.shownLines(correlated(r))
                for pl in shown.lines {
                    let t = SupportReport.serverText(pl, max: 160, redactor: redactor)
                    o += "    server \(Escape.terminal(pl.line.file)):\(pl.line.line) \(Escape.terminal(t))\n"
                }
                if let more = SupportReport.moreLinesText(shown.more) { o += "    " + colors.dim(more) + "\n" }
            }
            if failedCount > SupportReport.maxFailedShown && title == "failed requests" {
                o += "  " + colors.dim("… \(failedCount - SupportReport.maxFailedShown) more (pbsift waterfall lists them all)") + "\n"
            }
            o += "\n"
            drewBars = true
        }
        if drewBars { o += colors.dim(SupportReport.legend) + "\n\n" }
        for w in failureWindows {
            o += colors.bold("around " + windowTitle(w, escape: { Escape.terminal($0) })) + "\n"
            for e in timelineEntries(w) {
                let ts = (e.time ?? "—").padding(toLength: 24, withPad: " ", startingAt: 0)
                let line = "\(e.side.padding(toLength: 8, withPad: " ", startingAt: 0))  \(Escape.terminal(e.text))"
                o += "  \(ts)  " + (e.failed ? colors.red(line) : line) + "\n"
            }
            o += "\n"
        }
        if timeline.dropped > 0 { o += colors.dim("\(timeline.dropped) more failures not shown.") + "\n\n" }
        if timeline.cutShort > 0 { o += colors.dim("\(timelineCutText).") + "\n\n" }
        if let f = serverFacts {
            o += colors.bold("server logs") + "\n"
            o += "  " + SupportReport.plural(f.files.count + f.moreFiles, "file") + " scanned"
            if !f.files.isEmpty {
                o +=
                    ": " + f.files.map { "\(Escape.terminal($0.file)) (\($0.format))" }.joined(separator: ", ")
                    + (f.moreFiles > 0 ? ", …" : "")
            }
            o += "\n"
            for e in f.errors.prefix(10) { o += "  " + colors.yellow("error") + " " + Escape.terminal(e) + "\n" }
            o += "  server-only request ids in the session window: \(f.serverOnly)\(f.truncated ? " (at least)" : "")\n"
            if !f.withUser.isEmpty {
                o += "  " + SupportReport.plural(f.withUser.count, "other request") + " of this user reached the server:\n"
                for id in f.withUser { o += "    " + Escape.terminal(id) + "\n" }
            }
            o += "\n"
        }
        o += ReportEnvelope.findingsText(findings, colors: colors)
        return o
    }
}
