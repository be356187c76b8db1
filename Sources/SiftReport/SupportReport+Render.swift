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
            + ReportEnvelope.findingsSummaryLine(findings)
    }

    /// What `pbsift inspect` lists of these sessions: `them all`, or `the first 10000` when the list is bounded.
    static func inspectLists(_ outcome: ReadOutcome) -> String {
        outcome.sessionsNotListed > 0 ? "the first \(outcome.sessions.count)" : "them all"
    }

    /// The user of a session: its id, `signed out` (a header without one), or unknown (no header).
    static func userText(_ s: SessionSummary) -> String {
        s.userId ?? (s.hasHeader ? "(signed out)" : "(unknown: no session header)")
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
        return ServerFacts(files: c.logs.files.prefix(20).map { ($0.file, $0.format?.rawValue ?? "no matching line") },
                           moreFiles: max(0, c.logs.files.count - 20), errors: c.logs.allErrors,
                           serverOnly: c.serverOnly.ids.count, truncated: c.serverOnlyTruncated,
                           withUser: c.serverOnly.withUserId.prefix(50).map(\.description))
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

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
            [Escape.markdownCode(s.sessionId ?? "(unknown)"), Escape.markdown(InspectReport.appText(s) ?? "—"),
             Escape.markdown([s.device.model, s.device.system].compactMap { $0 }.joined(separator: ", ")),
             Escape.markdown(SupportReport.userText(s)), Escape.markdown(s.launchedAt.map { Timestamp.format($0) } ?? "—"),
             String(s.recordCount)]
        }
        o += ReportEnvelope.markdownTable(["session", "app", "device", "user", "launched", "records"], rows) + "\n"
        if outcome.totalSessions > shown.count {
            o += "_\(outcome.totalSessions - shown.count) more sessions: `pbsift inspect` lists \(SupportReport.inspectLists(outcome))._\n\n"
        }
        o += ReportEnvelope.inputsMarkdown(outcome.inputs) + "\n"
        o += requestsMarkdown("Failed requests", Array(failed.prefix(SupportReport.maxFailedShown)), empty: "No request failed.")
        if failedCount > SupportReport.maxFailedShown {
            o += "_\(failedCount - SupportReport.maxFailedShown) more failed requests: `pbsift waterfall` or `pbsift records --status 4xx --status 5xx` list them all._\n\n"
        }
        o += requestsMarkdown("Slowest requests", slow, empty: "No request finished.")
        if !failureWindows.isEmpty {
            o += "## Around each failure\n\n"
            o += "Device records within \(Int(timeline.context)) s of each failure (▶ marks a failed request), and the server's lines for it placed on the device clock"
            o += correlation?.clockSkew.seconds.map { " (" + ClockSkew.words($0) + ", applied)" } ?? ""
            o += "; failures whose records overlap share one timeline.\n\n"
            for w in failureWindows {
                o += "### " + windowTitle(w, escape: Escape.markdown) + "\n\n"
                let rows = timelineEntries(w).map { e in
                    [e.ts.map { Timestamp.format($0) } ?? "—", e.side, e.failed ? "**" + Escape.markdown(e.text) + "**" : Escape.markdown(e.text)]
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
            return escape(session + "#\(f.seq.map(String.init) ?? "?") " + masked(SupportReport.summary(of: f, redactor: redactor).untrusted))
        }
        return escape(session + w.seqs + " (\(w.failures.count) failures within \(Int(timeline.context)) s of each other)")
    }

    func requestsMarkdown(_ title: String, _ requests: [WaterfallRequest], empty: String) -> String {
        var o = "## \(title)\n\n"
        guard !requests.isEmpty else { return o + empty + "\n\n" }
        let rows = requests.map { r -> [String] in
            let c = correlated(r)
            var row = ["#\(r.seq.map(String.init) ?? "?")", Escape.markdown(r.shortTitle),
                       Escape.markdown(SupportReport.statusText(r)), Human.duration(ms: r.elapsedMs),
                       Escape.markdown(c.map { $0.status.rawValue } ?? "—"), Escape.markdown(whyText(r))]
            if multiSession { row.insert(Escape.markdownCode(SessionSelector.short(r.sessionId)), at: 0) }
            return row
        }
        o += ReportEnvelope.markdownTable((multiSession ? ["session"] : []) + ["seq", "request", "status", "time", "server", "where the time went"], rows) + "\n"
        o += "```\n"
        for r in requests {
            let label = Escape.terminal(rowTitle(r, width: 44)).replacingOccurrences(of: "`", with: "'")
            o += WaterfallFormat.pad(label, multiSession ? 58 : 44) + " " + SupportReport.bar(r) + "  " + Human.duration(ms: r.elapsedMs) + "\n"
            o += "    " + SupportReport.phasesText(r) + "\n"
            if let c = correlated(r) {
                for pl in c.lines.prefix(5) {
                    let t = SupportReport.serverText(pl, max: 160, redactor: redactor)
                    o += "    server \(Escape.terminal(pl.line.file)):\(pl.line.line) \(Escape.terminal(t).replacingOccurrences(of: "`", with: "'"))\n"
                }
            }
        }
        o += SupportReport.legend + "\n```\n\n"
        return o
    }

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
            o += colors.bold("Inputs") + ": \(outcome.inputs.count), " + (bad.isEmpty ? "every one read in full\n" : "\(bad.count) not read in full\n")
            if !bad.isEmpty { o += ReportEnvelope.inputsText(bad, colors: colors) }
            o += colors.bold("Sessions") + ": \(outcome.totalSessions)\n"
            for s in outcome.sessions.prefix(SupportReport.maxSessionLines) {
                o += "  " + colors.bold(Escape.terminal(SessionSelector.short(s.sessionId))) + "  " + Escape.terminal(SupportReport.sessionLine(s)) + "\n"
            }
            if outcome.totalSessions > SupportReport.maxSessionLines {
                o += "  " + colors.dim("… \(outcome.totalSessions - SupportReport.maxSessionLines) more (pbsift inspect lists \(outcome.sessionsNotListed > 0 ? SupportReport.inspectLists(outcome) : "every session"))") + "\n"
            }
        }
        o += "\n"
        var drewBars = false
        for (title, list) in [("failed requests", Array(failed.prefix(SupportReport.maxFailedShown))), ("slowest requests", slow)] where !list.isEmpty {
            o += colors.bold(title) + "\n"
            for r in list {
                let status = SupportReport.statusText(r)
                let shownStatus = r.failed ? colors.red(Escape.terminal(status)) : Escape.terminal(status)
                o += "  \(Escape.terminal(rowTitle(r)))  \(shownStatus)  \(Human.duration(ms: r.elapsedMs))\n"
                o += "    \(SupportReport.bar(r))  \(SupportReport.phasesText(r))\n"
                o += "    \(Escape.terminal(whyText(r)))\n"
                for pl in correlated(r)?.lines.prefix(5) ?? [] {
                    let t = SupportReport.serverText(pl, max: 160, redactor: redactor)
                    o += "    server \(Escape.terminal(pl.line.file)):\(pl.line.line) \(Escape.terminal(t))\n"
                }
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
                let ts = e.ts.map { Timestamp.format($0) } ?? "—".padding(toLength: 24, withPad: " ", startingAt: 0)
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
                o += ": " + f.files.map { "\(Escape.terminal($0.file)) (\($0.format))" }.joined(separator: ", ") + (f.moreFiles > 0 ? ", …" : "")
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

    // MARK: JSON

    /// The union of the other commands' documents under one envelope (`docs/schema/report.schema.json`).
    public func json() -> String {
        var w = JSONWriter(pretty: true)
        json(into: &w)
        w.newline()
        return w.text
    }

    /// Writes the JSON document through `w`: the envelope's members, then the waterfall document
    /// (without its findings) as the `waterfall` member, written by its own writer at this depth.
    /// Members are written as they are made: the sessions and findings one element at a time, so the
    /// document is never held as one tree (the failures, a bounded few, are made side by side first).
    public func json(into w: inout JSONWriter) {
        // The envelope `inspect` writes (tool, inputs, sessions, blobs), over every analysis's findings.
        var doc = ReportEnvelope.members(inputs: outcome.inputs, findings: findings, blobs: outcome.blobs,
                                         sections: InspectReport.sections(outcome))
        doc["verdict"] = .array(verdict.map { .object(["key": .string($0.key), "ok": .bool($0.ok), "text": .string($0.text)]) })
        doc["verify"] = verifySummary.json
        if let c = redactedCorrelation {
            // The correlate document's sections, its requests and sessions written one at a time (a
            // hundred thousand requests are never held as one JSON value).
            let summary = JSONOut.object(CorrelationRender.summarySections(c))
            doc.stream("correlation") { w in CorrelationRender.write(summary, listing: c, to: &w) }
        } else {
            doc["correlation"] = .null
        }
        let redactor = redactor
        // Each window's timeline made side by side (its texts redacted), then written in order: a few
        // windows (at most `FailureTimeline.maxWindows`) of a few records each.
        let failures = Parallel.map(failureWindows) { w -> JSONOut in
            let first = w.failures.first
            return .object(["sessionId": .opt(redactor.text(w.sessionId.untrusted).value), "seq": .opt(first?.seq), "recordId": .opt(redactor.text(first?.id.untrusted).value),
                            "failures": .array(w.failures.map { f in .object(["seq": .opt(f.seq), "recordId": .opt(redactor.text(f.id.untrusted).value)]) }),
                            "timeline": .array(self.timelineEntries(w).map { e in
                                .object(["ts": .opt(e.ts.map { Timestamp.format($0) }), "side": .string(e.side.hasPrefix("device") ? "device" : "server"),
                                         "text": .string(e.text), "failed": .bool(e.failed)])
                            })])
        }
        doc.array("failures", failures) { $0 }
        // Present only when a bound was reached, so ordinary reports keep their shape.
        if timeline.dropped > 0 { doc["failuresNotShown"] = .int(timeline.dropped) }
        if timeline.cutShort > 0 { doc["timelinesCutShort"] = .int(timeline.cutShort) }
        w.beginObject()
        doc.writeMembers(into: &w)
        // `waterfall` sorts last among the keys.
        w.key("waterfall")
        WaterfallRender.json(waterfall, into: &w, findings: false)
        w.endObject()
    }

    // MARK: CSV

    /// One row per finding, the columns of every other command's CSV of findings.
    public func csv() -> String { ReportEnvelope.findingsCSV(findings) }

    // MARK: HTML

    /// One self-contained page (no scripts, no external resources): the Markdown sections as HTML
    /// and the session's waterfall as inline SVG. Every state has an icon as well as a colour.
    public func html() -> String {
        let x = { (s: String) in Escape.xml(Escape.terminal(s)) }
        let sevIcon: [Severity: String] = [.critical: "⛔", .high: "🔴", .medium: "🟠", .low: "🔵", .info: "ℹ️"]
        var o = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pbsift report</title>\n"
        o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
        o += "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top;text-align:left}"
        o += ".ok{color:#1a7f37}.bad{color:#cf222e}.ts,.nw{white-space:nowrap}tr.failed td{background:#fff0f0}tr.failed td.mark{font-weight:bold}pre{background:#f6f8fa;padding:8px;overflow:auto}</style></head><body>\n"
        o += "<h1>pbsift report</h1>\n<p>\(x(headline))</p>\n<h2>Verdict</h2>\n<ul>\n"
        for v in verdict {
            o += "<li class=\"\(v.ok ? "ok" : "bad")\">\(v.ok ? "✅" : "❌") <b>\(Escape.xml(v.key))</b>: \(x(v.text))</li>\n"
        }
        o += "</ul>\n<h2>Sessions</h2>\n"
        o += "<table><tr><th>session</th><th>app</th><th>device</th><th>user</th><th>launched</th><th>records</th></tr>\n"
        for s in outcome.sessions.prefix(50) {
            o += "<tr><td class=\"nw\">\(x(s.sessionId ?? "(unknown)"))</td><td>\(x(InspectReport.appText(s) ?? "—"))</td>"
            o += "<td>\(x([s.device.model, s.device.system].compactMap { $0 }.joined(separator: ", ")))</td><td>\(x(SupportReport.userText(s)))</td>"
            o += "<td class=\"ts\">\(s.launchedAt.map { Timestamp.format($0) } ?? "—")</td><td>\(s.recordCount)</td></tr>\n"
        }
        o += "</table>\n"
        if outcome.totalSessions > 50 { o += "<p>\(outcome.totalSessions - 50) more sessions: <code>pbsift inspect</code> lists \(x(SupportReport.inspectLists(outcome))).</p>\n" }
        o += "<h2>Inputs</h2>\n<table><tr><th>input</th><th>container</th><th>status</th><th>errors</th></tr>\n"
        for i in outcome.inputs {
            o += "<tr><td>\(x(i.path))</td><td>\(i.container.rawValue)</td><td class=\"\(i.status == .ok ? "ok" : "bad")\">\(i.status == .ok ? "✅" : "❌") \(i.status.rawValue)</td>"
            o += "<td>\(i.errors.map(x).joined(separator: "<br>"))</td></tr>\n"
        }
        o += "</table>\n"
        for (title, list) in [("Failed requests", Array(failed.prefix(SupportReport.maxFailedShown))), ("Slowest requests", slow)] {
            o += "<h2>\(title)</h2>\n"
            if list.isEmpty { o += "<p>None.</p>\n"; continue }
            o += "<table><tr>\(multiSession ? "<th>session</th>" : "")<th>seq</th><th>request</th><th>status</th><th>time</th><th>phases</th><th>where the time went</th></tr>\n"
            for r in list {
                let bad = r.failed
                o += "<tr\(bad ? " class=\"failed\"" : "")>"
                if multiSession { o += "<td class=\"nw\">\(x(SessionSelector.short(r.sessionId)))</td>" }
                o += "<td>\(r.seq.map(String.init) ?? "?")</td><td>\(x(r.shortTitle))</td>"
                o += "<td class=\"nw\(bad ? " bad mark" : "")\">\(bad ? "✖ " : "")\(x(SupportReport.statusText(r)))</td>"
                o += "<td class=\"nw\">\(Human.duration(ms: r.elapsedMs))</td><td>\(Escape.xml(SupportReport.phasesText(r)))</td><td>\(x(whyText(r)))</td></tr>\n"
            }
            o += "</table>\n"
        }
        o += "<h2>Waterfall</h2>\n"
        var svg = WaterfallRender.svg(waterfall)
        if let r = svg.range(of: "<svg") { svg = String(svg[r.lowerBound...]) }   // drop the XML declaration
        o += svg + "\n"
        if !failureWindows.isEmpty {
            o += "<h2>Around each failure</h2>\n<p>Device records within \(Int(timeline.context)) s of each failure (▶ marks a failed request), and the server's lines for it placed on the device clock"
            o += correlation?.clockSkew.seconds.map { " (" + ClockSkew.words($0) + ", applied)" } ?? ""
            o += ".</p>\n"
        }
        for w in failureWindows {
            o += "<h3>Around \(Escape.xml(windowTitle(w, escape: { Escape.terminal($0) })))</h3>\n<table>"
            for e in timelineEntries(w) {
                o += "<tr\(e.failed ? " class=\"failed\"" : "")><td class=\"ts\">\(Escape.xml(e.ts.map { Timestamp.format($0) } ?? "—"))</td><td class=\"nw\">\(Escape.xml(e.side))</td><td>\(x(e.text))</td></tr>\n"
            }
            o += "</table>\n"
        }
        if timeline.dropped > 0 { o += "<p>\(timeline.dropped) more failures not shown.</p>\n" }
        if timeline.cutShort > 0 { o += "<p>\(timelineCutText).</p>\n" }
        if let f = serverFacts {
            o += "<h2>Server logs</h2>\n<ul>\n<li>" + SupportReport.plural(f.files.count + f.moreFiles, "file") + " scanned"
            if !f.files.isEmpty { o += ": " + f.files.map { "\(x($0.file)) as <code>\(x($0.format))</code>" }.joined(separator: ", ") + (f.moreFiles > 0 ? ", …" : "") }
            o += "</li>\n"
            for e in f.errors { o += "<li class=\"bad\">❌ \(x(e))</li>\n" }
            o += "<li>server-only request ids in the session window: \(f.serverOnly)\(f.truncated ? " (at least)" : "")</li>\n"
            if !f.withUser.isEmpty {
                o += "<li>" + SupportReport.plural(f.withUser.count, "other request") + " of this user reached the server: "
                o += f.withUser.map { "<code>\(x($0))</code>" }.joined(separator: ", ") + "</li>\n"
            }
            o += "</ul>\n"
        }
        o += "<h2>Findings</h2>\n<p>\(x(ReportEnvelope.findingsSummaryLine(findings)))</p>\n"
        if !findings.isEmpty {
            o += "<table><tr><th>severity</th><th>rule</th><th>where</th><th>message</th><th>value</th></tr>\n"
            for (sev, group) in ReportEnvelope.bySeverity(findings) {
                for f in group {
                    o += "<tr><td class=\"nw\">\(sevIcon[sev] ?? "") \(sev.rawValue)</td><td class=\"nw\">\(Escape.xml(f.rule))</td><td>\(x(ReportEnvelope.whereText(f)))</td>"
                    o += "<td>\(x(f.message))</td><td>\(Escape.xml(f.preview ?? ""))</td></tr>\n"
                }
            }
            o += "</table>\n"
        }
        o += "</body></html>\n"
        return o
    }
}
