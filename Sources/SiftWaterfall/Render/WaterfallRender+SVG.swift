import Foundation
import SiftCore

extension WaterfallRender {
    /// Rows drawn in one SVG at most (requests plus sub-rows); the rest are counted in a note.
    public static let svgMaxRows = 4000

    /// A "nice" tick step (1, 2 or 5 × 10^k ms) giving about `target` ticks over `spanMs`.
    static func tickStep(_ spanMs: Double, target: Double = 8) -> Double {
        guard spanMs > 0, spanMs.isFinite else { return 1 }
        let raw = spanMs / target
        let p = pow(10, (log10(raw)).rounded(.down))
        for m in [1.0, 2.0, 5.0, 10.0] where m * p >= raw { return m * p }
        return 10 * p
    }

    /// One self-contained SVG file drawing each session's waterfall like a browser's network panel:
    /// a row per request (sub-rows for redirects and retries), one colour per phase, a time axis
    /// with ticks, request labels, a legend. No scripts, no external fonts, links or images; every
    /// text from the export goes through `Escape.xml`.
    public static func svg(_ report: WaterfallReport) -> String {
        let x = Escape.xml
        let d = Human.duration(ms:)
        func f(_ v: Double) -> String { String(format: "%.2f", v) }
        let width = 1200.0
        let labelW = 440.0
        let chartX = labelW + 10
        let chartW = width - chartX - 20
        let rowH = 18.0
        // Columns: the request (shortened in the middle), its status, its duration.
        let maxLabel = 45
        let statusX = 322.0
        let timeX = labelW

        var body = ""
        var y = 30.0
        let s = report.summary
        body +=
            "<text class=\"title\" x=\"10\" y=\"\(f(y))\">pbsift waterfall · \(report.sessions.count) session\(report.sessions.count == 1 ? "" : "s") · \(s.requestCount) request\(s.requestCount == 1 ? "" : "s")</text>\n"
        y += 14
        var rowsDrawn = 0
        var rowsSkipped = 0
        var sessionsSkipped = 0

        for (si, session) in report.sessions.enumerated() {
            let tl = s.timelines[si]
            if rowsDrawn >= svgMaxRows && rowsSkipped > 0 {
                // No room left: the session is counted, not drawn (a hundred thousand session headers
                // and axes would make the file, and the memory, grow with the export).
                sessionsSkipped += 1
                rowsSkipped += session.requests.reduce(0) { $0 + 1 + ($1.transactions.count > 1 ? $1.transactions.count : 0) }
                continue
            }
            y += 24
            body += "<text class=\"session\" x=\"10\" y=\"\(f(y))\">session \(x(session.sessionId ?? "(unknown)"))</text>\n"
            y += 16
            var facts = "\(tl.requestCount) requests · busy \(d(tl.busyMs)) · max concurrency \(tl.maxConcurrency)"
            if let l = session.launchedAt { facts = "launched \(Timestamp.format(l)) · " + facts }
            if tl.idleGapCount > 0 { facts += " · \(tl.idleGapCount) idle gap\(tl.idleGapCount == 1 ? "" : "s")" }
            body += "<text class=\"facts\" x=\"10\" y=\"\(f(y))\">\(x(facts))</text>\n"
            guard let axis = WaterfallReport.axis(session) else { continue }
            let spanUs = Double(max(1, axis.end - axis.start))
            func px(_ us: Micros) -> Double { chartX + Double(us - axis.start) / spanUs * chartW }

            // Rows of this block (bounded).
            var rows: [(label: String, tip: String, pieces: [BarPiece], sub: Bool, status: String, time: String, failed: Bool)] = []
            for index in session.timelineOrder {
                let r = session.requests[index]
                var tip =
                    "\(r.shortTitle) · \(r.statusCode.map(String.init) ?? r.state ?? "no status") · start +\(r.offsetMs.map(d) ?? "?") · \(r.knownElapsedMs.map(d) ?? "no duration")"
                let sums = r.phaseSums
                let known = WaterfallPhase.allCases.compactMap { p in sums[p].map { "\(p.title) \(d($0))" } }
                if !known.isEmpty { tip += " · " + known.joined(separator: ", ") }
                let label = "\(r.seq.map(String.init) ?? "?") \(r.shortTitle)"
                let failed = r.failed
                rows.append((label, tip, r.barPieces, false, svgStatus(r), r.knownElapsedMs.map(d) ?? "?", failed))
                if r.transactions.count > 1 {
                    for t in r.transactions {
                        let tk = WaterfallPhase.allCases.compactMap { p in t.phases[p].map { "\(p.title) \(d($0))" } }
                        rows.append(
                            (
                                "   " + t.subTitle, t.subTitle + (tk.isEmpty ? "" : " · " + tk.joined(separator: ", ")),
                                t.barPieces, true, t.statusCode.map(String.init) ?? "", t.totalMs.map(d) ?? "", false
                            ))
                    }
                }
            }
            let room = max(0, svgMaxRows - rowsDrawn)
            if rows.count > room {
                rowsSkipped += rows.count - room
                rows = Array(rows.prefix(room))
            }
            rowsDrawn += rows.count

            // Axis: tick labels above, tick lines through the rows.
            y += 22
            let top = y + 4
            let bottom = top + Double(rows.count) * rowH
            let spanMs = spanUs / 1000
            let step = tickStep(spanMs)
            var tick = 0.0
            var ticks = 0
            while tick <= spanMs + step * 0.001 && ticks < 40 {
                let tx = chartX + tick / spanMs * chartW
                body += "<line class=\"tick\" x1=\"\(f(tx))\" y1=\"\(f(top - 4))\" x2=\"\(f(tx))\" y2=\"\(f(bottom))\"/>"
                // The first label starts at the axis, away from the time column's title before it.
                body += "<text class=\"axis\(ticks == 0 ? " first" : "")\" x=\"\(f(tx))\" y=\"\(f(y - 2))\">\(x(d(tick)))</text>\n"
                tick += step
                ticks += 1
            }
            body += "<text class=\"axis-title\" x=\"10\" y=\"\(f(y - 2))\">request</text>"
            body += "<text class=\"axis-title\" x=\"\(f(statusX))\" y=\"\(f(y - 2))\">status</text>"
            body += "<text class=\"axis-title num\" x=\"\(f(timeX))\" y=\"\(f(y - 2))\">time</text>"
            body +=
                "<text class=\"axis-title num\" x=\"\(f(width - 20))\" y=\"\(f(y - 14))\">time from \(x(originName(tl.originSource)))</text>\n"

            for (i, row) in rows.enumerated() {
                let ry = top + Double(i) * rowH
                body += row.failed ? "<g class=\"failed\">" : "<g>"
                body += "<title>\(x((row.failed ? "failed: " : "") + row.tip))</title>"
                if row.failed {
                    body += "<rect class=\"band-failed\" x=\"4\" y=\"\(f(ry))\" width=\"\(f(width - 8))\" height=\"\(f(rowH))\"/>"
                } else if i % 2 == 0 {
                    body += "<rect class=\"band\" x=\"4\" y=\"\(f(ry))\" width=\"\(f(width - 8))\" height=\"\(f(rowH))\"/>"
                }
                body +=
                    "<text class=\"\(row.sub ? "sub" : "label")\" x=\"10\" y=\"\(f(ry + 13))\">\(x(WaterfallFormat.fitMiddle(row.label, maxLabel)))</text>"
                body +=
                    "<text class=\"\(row.failed ? "bad" : row.sub ? "sub" : "label")\" x=\"\(f(statusX))\" y=\"\(f(ry + 13))\">\(row.failed ? "✖ " : "")\(x(WaterfallFormat.fit(row.status, 10)))</text>"
                body += "<text class=\"\(row.sub ? "sub" : "label") num\" x=\"\(f(timeX))\" y=\"\(f(ry + 13))\">\(x(row.time))</text>"
                for p in row.pieces {
                    let a = px(p.startUs), b = px(p.endUs)
                    let h = row.sub ? 8.0 : 12.0
                    body +=
                        "<rect class=\"p\(p.style.rawValue)\" x=\"\(f(a))\" y=\"\(f(ry + (rowH - h) / 2))\" width=\"\(f(max(1, b - a)))\" height=\"\(f(h))\"/>"
                }
                body += "</g>\n"
            }
            y = bottom
        }
        if rowsSkipped > 0 {
            y += 20
            let sessions = sessionsSkipped == 0 ? "" : ", \(sessionsSkipped) more session\(sessionsSkipped == 1 ? "" : "s") not drawn"
            body +=
                "<text class=\"facts\" x=\"10\" y=\"\(f(y))\">\(rowsSkipped) more rows not drawn (limit \(svgMaxRows))\(sessions); use --slowest or --min-duration to narrow.</text>\n"
        }
        // Legend.
        y += 30
        var lx = 10.0
        for st in BarStyle.allCases {
            body += "<rect class=\"p\(st.rawValue)\" x=\"\(f(lx))\" y=\"\(f(y - 10))\" width=\"12\" height=\"12\"/>"
            body += "<text class=\"facts\" x=\"\(f(lx + 16))\" y=\"\(f(y))\">\(x(st.name))</text>\n"
            lx += 16 + Double(st.name.count) * 7 + 18
        }
        y += 16
        let height = (y + 10).rounded(.up)

        var style = "text{fill:#212121}.title{font-size:15px;font-weight:bold}.session{font-size:13px;font-weight:bold}"
        style +=
            ".facts{fill:#555}.axis{fill:#666;font-size:10px;text-anchor:middle}.axis.first{text-anchor:start}.axis-title{fill:#666;font-size:10px}"
        style += ".tick{stroke:#e0e0e0;stroke-width:1}.band{fill:#f6f6f6}.sub{fill:#666}.num{text-anchor:end}"
        style += ".band-failed{fill:#fdecea}.bad{fill:#b3261e;font-weight:bold}"
        for st in BarStyle.allCases { style += ".p\(st.rawValue){fill:\(st.fill)}" }

        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"ui-monospace, Menlo, Consolas, monospace\" font-size=\"11\">\n"
        out += "<style>\(style)</style>\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"#ffffff\"/>\n"
        out += body
        out += "</svg>\n"
        return out
    }

    /// The status column: the HTTP status, `timed out`, `failed`, `cancelled`, `pending` or `—`.
    static func svgStatus(_ r: WaterfallRequest) -> String {
        if let code = r.statusCode { return String(code) }
        if r.timedOut { return "timed out" }
        switch r.state {
        case "failure": return "failed"
        case let s?: return s
        case nil: return "—"
        }
    }
}
