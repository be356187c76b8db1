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
        var o = "# pbsift report\n\n## Verdict\n\n"
        for v in verdict {
            o += "- \(v.ok ? "✅" : "❌") **\(v.key)**: \(Escape.markdown(v.text))\n"
        }
        o += "\n## Sessions\n\n"
        let rows = outcome.sessions.map { s -> [String] in
            [Escape.markdownCode(s.sessionId ?? "(unknown)"), Escape.markdown(InspectReport.appText(s) ?? "—"),
             Escape.markdown([s.device.model, s.device.system].compactMap { $0 }.joined(separator: ", ")),
             Escape.markdown(s.userId ?? "—"), Escape.markdown(s.launchedAt.map { Timestamp.format($0) } ?? "—"),
             String(s.recordCount)]
        }
        o += ReportEnvelope.markdownTable(["session", "app", "device", "user", "launched", "records"], rows) + "\n"
        o += ReportEnvelope.inputsMarkdown(outcome.inputs) + "\n"
        o += requestsMarkdown("Failed requests", Array(failed.prefix(SupportReport.maxFailedShown)), empty: "No request failed.")
        if failed.count > SupportReport.maxFailedShown {
            o += "_\(failed.count - SupportReport.maxFailedShown) more failed requests: `pbsift waterfall` or `pbsift records --status 4xx --status 5xx` list them all._\n\n"
        }
        o += requestsMarkdown("Slowest requests", slow, empty: "No request finished.")
        if !timeline.windows.isEmpty {
            o += "## Around each failure\n\n"
            o += "Device records within \(Int(timeline.context)) s of each failure, and the server's lines for it placed on the device clock"
            o += correlation?.clockSkew.seconds.map { String(format: " (skew %+.3f s applied)", $0) } ?? ""
            o += ".\n\n"
            for w in timeline.windows {
                o += "### #\(w.failed.seq.map(String.init) ?? "?") \(Escape.markdown(masked(SupportReport.summary(of: w.failed, redactor: redactor))))\n\n"
                let rows = timelineEntries(w).map { e in
                    [e.ts.map { Timestamp.format($0) } ?? "—", e.side, Escape.markdown(e.text)]
                }
                o += ReportEnvelope.markdownTable(["device time", "side", "what"], rows) + "\n"
            }
            if timeline.dropped > 0 { o += "_\(timeline.dropped) more failures not shown._\n\n" }
        }
        if let c = correlation {
            o += "## Server logs\n\n"
            o += "- \(c.logs.files.count) file\(c.logs.files.count == 1 ? "" : "s") scanned"
            let formats = c.logs.files.prefix(20).map { "\(Escape.markdown($0.file)) as \(Escape.markdownCode($0.format?.rawValue ?? "no matching line"))" }
            if !formats.isEmpty { o += " (" + formats.joined(separator: ", ") + (c.logs.files.count > 20 ? ", …" : "") + ")" }
            if !c.logs.allErrors.isEmpty { o += "; errors: " + c.logs.allErrors.map { Escape.markdown($0) }.joined(separator: "; ") }
            o += "\n- server-only request ids in the session window: \(c.serverOnly.ids.count)"
            if !c.serverOnly.withUserId.isEmpty {
                o += " (with this user: " + c.serverOnly.withUserId.prefix(10).map { Escape.markdownCode($0.description) }.joined(separator: ", ")
                o += c.serverOnly.withUserId.count > 10 ? ", …)" : ")"
            }
            o += "\n\n"
        }
        o += "## Findings\n\n" + ReportEnvelope.findingsMarkdown(findings)
        return o
    }

    func requestsMarkdown(_ title: String, _ requests: [WaterfallRequest], empty: String) -> String {
        var o = "## \(title)\n\n"
        guard !requests.isEmpty else { return o + empty + "\n\n" }
        let rows = requests.map { r -> [String] in
            let c = correlated(r)
            return ["#\(r.seq.map(String.init) ?? "?")", Escape.markdown(r.shortTitle),
                    Escape.markdown(r.statusCode.map(String.init) ?? (r.state ?? "—")), SupportReport.duration(r.elapsedMs),
                    Escape.markdown(c.map { $0.status.rawValue } ?? "—"), Escape.markdown(whyText(r))]
        }
        o += ReportEnvelope.markdownTable(["seq", "request", "status", "time", "server", "where the time went"], rows) + "\n"
        o += "```\n"
        for r in requests {
            let label = Escape.terminal("#\(r.seq.map(String.init) ?? "?") \(r.shortTitle)").replacingOccurrences(of: "`", with: "'")
            o += label.padding(toLength: 44, withPad: " ", startingAt: 0) + " " + SupportReport.bar(r) + "  " + SupportReport.duration(r.elapsedMs) + "\n"
            o += "    " + SupportReport.phasesText(r) + "\n"
            if let c = correlated(r) {
                for pl in c.lines.prefix(5) {
                    let t = SupportReport.serverText(pl, max: 160, redactor: redactor)
                    o += "    server \(Escape.terminal(pl.line.file)):\(pl.line.line) \(Escape.terminal(t).replacingOccurrences(of: "`", with: "'"))\n"
                }
            }
        }
        o += "```\nlegend: - blocked  d DNS  t TCP  s TLS  ^ request  = waiting  # download\n\n"
        return o
    }

    // MARK: Text

    public func text(colors: Colors = .off) -> String {
        var o = "pbsift report\n\n"
        for v in verdict {
            o += "  \(v.ok ? "ok  " : "FAIL") \(v.key.padding(toLength: 12, withPad: " ", startingAt: 0)) \(Escape.terminal(v.text))\n"
        }
        o += "\n" + InspectReport.overview(redactedOutcome, colors: colors) + "\n"
        for (title, list) in [("failed requests", Array(failed.prefix(SupportReport.maxFailedShown))), ("slowest requests", slow)] where !list.isEmpty {
            o += "\(title)\n"
            for r in list {
                o += "  #\(r.seq.map(String.init) ?? "?") \(Escape.terminal(r.shortTitle))  \(Escape.terminal(r.statusCode.map(String.init) ?? (r.state ?? "")))  \(SupportReport.duration(r.elapsedMs))\n"
                o += "    \(SupportReport.bar(r))  \(SupportReport.phasesText(r))\n"
                o += "    \(Escape.terminal(whyText(r)))\n"
                for pl in correlated(r)?.lines.prefix(5) ?? [] {
                    let t = SupportReport.serverText(pl, max: 160, redactor: redactor)
                    o += "    server \(Escape.terminal(pl.line.file)):\(pl.line.line) \(Escape.terminal(t))\n"
                }
            }
            o += "\n"
        }
        for w in timeline.windows {
            o += "around #\(w.failed.seq.map(String.init) ?? "?") \(Escape.terminal(masked(SupportReport.summary(of: w.failed, redactor: redactor))))\n"
            for e in timelineEntries(w) {
                o += "  \(e.ts.map { Timestamp.format($0) } ?? "—".padding(toLength: 24, withPad: " ", startingAt: 0))  \(e.side.padding(toLength: 8, withPad: " ", startingAt: 0))  \(Escape.terminal(e.text))\n"
            }
            o += "\n"
        }
        o += "Findings\n" + ReportEnvelope.findingsText(findings, colors: colors)
        return o
    }

    // MARK: JSON

    /// The union of the other commands' documents under one envelope (`docs/schema/report.schema.json`).
    public func json() -> String {
        var w = JSONWriter(pretty: true)
        json(into: &w)
        return w.text
    }

    /// Writes the JSON document through `w`: the envelope's members, then the waterfall document
    /// (without its findings) as the `waterfall` member, written by its own writer at this depth.
    public func json(into w: inout JSONWriter) {
        // The envelope `inspect` writes (tool, inputs, sessions, blobs), over every analysis's findings.
        guard case .object(var doc) = ReportEnvelope.document(
            inputs: outcome.inputs, findings: findings, blobs: outcome.blobs,
            sections: ["sessions": .array(outcome.sessions.map(InspectReport.sessionJSON)),
                       "blobs": ReportEnvelope.blobJSON(ReportEnvelope.blobTotals(outcome.blobs))]) else { return }
        doc["verdict"] = .array(verdict.map { .object(["key": .string($0.key), "ok": .bool($0.ok), "text": .string($0.text)]) })
        doc["verify"] = verifySummary.json
        if let c = redactedCorrelation {
            var sections = CorrelationRender.sections(c)
            sections["findings"] = nil
            doc["correlation"] = .object(sections)
        } else {
            doc["correlation"] = .null
        }
        doc["failures"] = .array(timeline.windows.map { w in
            .object(["sessionId": .opt(redactor.text(w.sessionId)), "seq": .opt(w.failed.seq), "recordId": .opt(redactor.text(w.failed.id)),
                     "timeline": .array(timelineEntries(w).map { e in
                         .object(["ts": .opt(e.ts.map { Timestamp.format($0) }), "side": .string(e.side.hasPrefix("device") ? "device" : "server"),
                                  "text": .string(e.text)])
                     })])
        })
        doc["waterfall"] = nil
        w.beginObject()
        for key in doc.keys.sorted() {
            w.key(key)
            w.value(doc[key] ?? .null)
        }
        // `waterfall` sorts last among the keys.
        w.key("waterfall")
        WaterfallRender.json(waterfall, into: &w, findings: false)
        w.endObject()
        w.newline()
    }

    // MARK: CSV

    /// One row per finding, the columns of every other command's CSV of findings.
    public func csv() -> String { ReportEnvelope.findingsCSV(findings) }

    // MARK: HTML

    /// One self-contained page (no scripts, no external resources): the Markdown sections as HTML
    /// and the session's waterfall as inline SVG.
    public func html() -> String {
        var o = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pbsift report</title>\n"
        o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
        o += "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top;text-align:left}.ok{color:#1a7f37}.bad{color:#cf222e}pre{background:#f6f8fa;padding:8px;overflow:auto}</style></head><body>\n"
        o += "<h1>pbsift report</h1>\n<h2>Verdict</h2>\n<ul>\n"
        for v in verdict {
            o += "<li class=\"\(v.ok ? "ok" : "bad")\"><b>\(Escape.xml(v.key))</b>: \(Escape.xml(v.text))</li>\n"
        }
        o += "</ul>\n"
        for (title, list) in [("Failed requests", Array(failed.prefix(SupportReport.maxFailedShown))), ("Slowest requests", slow)] {
            o += "<h2>\(title)</h2>\n"
            if list.isEmpty { o += "<p>None.</p>\n"; continue }
            o += "<table><tr><th>seq</th><th>request</th><th>status</th><th>time</th><th>phases</th><th>where the time went</th></tr>\n"
            for r in list {
                o += "<tr><td>\(r.seq.map(String.init) ?? "?")</td><td>\(Escape.xml(Escape.terminal(r.shortTitle)))</td><td>\(Escape.xml(r.statusCode.map(String.init) ?? (r.state ?? "")))</td>"
                o += "<td>\(SupportReport.duration(r.elapsedMs))</td><td>\(Escape.xml(SupportReport.phasesText(r)))</td><td>\(Escape.xml(Escape.terminal(whyText(r))))</td></tr>\n"
            }
            o += "</table>\n"
        }
        o += "<h2>Waterfall</h2>\n"
        var svg = WaterfallRender.svg(waterfall)
        if let r = svg.range(of: "<svg") { svg = String(svg[r.lowerBound...]) }   // drop the XML declaration
        o += svg + "\n"
        for w in timeline.windows {
            o += "<h3>Around #\(w.failed.seq.map(String.init) ?? "?") \(Escape.xml(Escape.terminal(masked(SupportReport.summary(of: w.failed, redactor: redactor)))))</h3>\n<table>"
            for e in timelineEntries(w) {
                o += "<tr><td>\(Escape.xml(e.ts.map { Timestamp.format($0) } ?? "—"))</td><td>\(Escape.xml(e.side))</td><td>\(Escape.xml(Escape.terminal(e.text)))</td></tr>\n"
            }
            o += "</table>\n"
        }
        o += "<h2>Findings</h2>\n<table><tr><th>severity</th><th>rule</th><th>where</th><th>message</th><th>value</th></tr>\n"
        for f in findings {
            o += "<tr><td>\(f.severity.rawValue)</td><td>\(Escape.xml(f.rule))</td><td>\(Escape.xml(Escape.terminal(ReportEnvelope.whereText(f))))</td>"
            o += "<td>\(Escape.xml(Escape.terminal(f.message)))</td><td>\(Escape.xml(f.preview ?? ""))</td></tr>\n"
        }
        o += "</table>\n</body></html>\n"
        return o
    }
}
