import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

extension SupportReport {
    // MARK: HTML

    /// One self-contained page (no scripts, no external resources): the Markdown sections as HTML
    /// and the session's waterfall as inline SVG. Every state has an icon as well as a colour.
    public func html() -> String {
        let x = { (s: String) in Escape.xml(Escape.terminal(s)) }
        let sevIcon: [Severity: String] = [.critical: "⛔", .high: "🔴", .medium: "🟠", .low: "🔵", .info: "ℹ️"]
        var o = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pbsift report</title>\n"
        o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
        o +=
            "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top;text-align:left}"
        o +=
            ".ok{color:#1a7f37}.bad{color:#cf222e}span.mark{display:inline-block;min-width:3.2em;font-weight:bold;font-size:12px}.ts,.nw{white-space:nowrap}tr.failed td{background:#fff0f0}tr.failed td.mark{font-weight:bold}pre{background:#f6f8fa;padding:8px;overflow:auto}</style></head><body>\n"
        o += "<h1>pbsift report</h1>\n<p>\(x(headline))</p>\n<h2>Verdict</h2>\n<ul>\n"
        for v in verdict {
            o +=
                "<li class=\"\(v.ok ? "ok" : "bad")\"><span class=\"mark\">\(v.ok ? "OK" : "FAIL")</span> <b>\(Escape.xml(v.key))</b>: \(x(v.text))</li>\n"
        }
        o += "</ul>\n<h2>Sessions</h2>\n"
        o += "<table><tr><th>session</th><th>app</th><th>device</th><th>user</th><th>launched</th><th>records</th></tr>\n"
        for s in outcome.sessions.prefix(50) {
            o += "<tr><td class=\"nw\">\(x(s.sessionId ?? "(unknown)"))</td><td>\(x(InspectReport.appText(s) ?? "—"))</td>"
            o +=
                "<td>\(x([s.device.model, s.device.system].compactMap { $0 }.joined(separator: ", ")))</td><td>\(x(SupportReport.userText(s)))</td>"
            o += "<td class=\"ts\">\(s.launchedAt.map { Timestamp.format($0) } ?? "—")</td><td>\(s.recordCount)</td></tr>\n"
        }
        o += "</table>\n"
        if outcome.totalSessions > 50 {
            o +=
                "<p>\(outcome.totalSessions - 50) more sessions: <code>pbsift inspect</code> lists \(x(SupportReport.inspectLists(outcome))).</p>\n"
        }
        o += "<h2>Inputs</h2>\n<table><tr><th>input</th><th>container</th><th>status</th><th>errors</th></tr>\n"
        for i in outcome.inputs {
            o +=
                "<tr><td>\(x(i.path))</td><td>\(i.container.rawValue)</td><td class=\"\(i.status == .ok ? "ok" : "bad")\">\(i.status.rawValue)</td>"
            o += "<td>\(i.errors.map(x).joined(separator: "<br>"))</td></tr>\n"
        }
        o += "</table>\n"
        for (title, list) in [("Failed requests", Array(failed.prefix(SupportReport.maxFailedShown))), ("Slowest requests", slow)] {
            o += "<h2>\(title)</h2>\n"
            if list.isEmpty { o += "<p>None.</p>\n"; continue }
            o +=
                "<table><tr>\(multiSession ? "<th>session</th>" : "")<th>seq</th><th>request</th><th>status</th><th>time</th><th>phases</th><th>where the time went</th></tr>\n"
            for r in list {
                let bad = r.failed
                o += "<tr\(bad ? " class=\"failed\"" : "")>"
                if multiSession { o += "<td class=\"nw\">\(x(SessionSelector.short(r.sessionId)))</td>" }
                o += "<td>\(r.seq.map(String.init) ?? "?")</td><td>\(x(r.shortTitle))</td>"
                o += "<td class=\"nw\(bad ? " bad mark" : "")\">\(bad ? "✖ " : "")\(x(SupportReport.statusText(r)))</td>"
                o +=
                    "<td class=\"nw\">\(Human.duration(ms: r.elapsedMs))</td><td>\(Escape.xml(SupportReport.phasesText(r)))</td><td>\(x(whyText(r)))</td></tr>\n"
            }
            o += "</table>\n"
        }
        o += "<h2>Waterfall</h2>\n"
        var svg = WaterfallRender.svg(waterfall)
        if let r = svg.range(of: "<svg") { svg = String(svg[r.lowerBound...]) } // drop the XML declaration
        o += svg + "\n"
        if !failureWindows.isEmpty {
            o +=
                "<h2>Around each failure</h2>\n<p>Device records within \(Int(timeline.context)) s of each failure (▶ marks a failed request), and the server's lines for it placed on the device clock"
            o += correlation?.clockSkew.seconds.map { " (" + ClockSkew.words($0) + ", applied)" } ?? ""
            o += ".</p>\n"
        }
        for w in failureWindows {
            o += "<h3>Around \(Escape.xml(windowTitle(w, escape: { Escape.terminal($0) })))</h3>\n<table>"
            for e in timelineEntries(w) {
                o +=
                    "<tr\(e.failed ? " class=\"failed\"" : "")><td class=\"ts\">\(Escape.xml(e.time ?? "—"))</td><td class=\"nw\">\(Escape.xml(e.side))</td><td>\(x(e.text))</td></tr>\n"
            }
            o += "</table>\n"
        }
        if timeline.dropped > 0 { o += "<p>\(timeline.dropped) more failures not shown.</p>\n" }
        if timeline.cutShort > 0 { o += "<p>\(timelineCutText).</p>\n" }
        if let f = serverFacts {
            o += "<h2>Server logs</h2>\n<ul>\n<li>" + SupportReport.plural(f.files.count + f.moreFiles, "file") + " scanned"
            if !f.files.isEmpty {
                o +=
                    ": " + f.files.map { "\(x($0.file)) as <code>\(x($0.format))</code>" }.joined(separator: ", ")
                    + (f.moreFiles > 0 ? ", …" : "")
            }
            o += "</li>\n"
            for e in f.errors { o += "<li class=\"bad\">\(x(e))</li>\n" }
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
                    o +=
                        "<tr><td class=\"nw\">\(sevIcon[sev] ?? "") \(sev.rawValue)</td><td class=\"nw\">\(Escape.xml(f.rule))</td><td>\(x(ReportEnvelope.whereText(f)))</td>"
                    o += "<td>\(x(f.message))</td><td>\(Escape.xml(f.preview ?? ""))</td></tr>\n"
                }
            }
            o += "</table>\n"
        }
        o += "</body></html>\n"
        return o
    }
}
