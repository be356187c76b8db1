import Foundation
import SiftCore

extension WaterfallRender {
    /// Width of the bars in the Markdown code block.
    static let markdownBarWidth = 60

    /// Paste-ready Markdown for a ticket: per session a table of requests (sub-rows for redirects
    /// and retries) and the bars in a code block keyed by row number (the code block holds no text
    /// from the export), then the summaries and findings. Every export string goes through
    /// `Escape.markdown`.
    public static func markdown(_ report: WaterfallReport) -> String {
        var all = ""
        markdown(report) { all += $0 }
        return all
    }

    /// `markdown`, handed to `emit` in pieces of about 64 KiB as it is made.
    public static func markdown(_ report: WaterfallReport, into emit: (String) -> Void) {
        let m: (String) -> String = { Escape.markdown($0) }
        let d = Human.duration(ms:)
        func opt(_ v: Double?) -> String { v.map(d) ?? "—" }
        let s = report.summary
        var out = "## Waterfall\n\n"
        out +=
            "\(report.sessions.count) session\(report.sessions.count == 1 ? "" : "s"), \(s.requestCount) request\(s.requestCount == 1 ? "" : "s"), \(s.transactionCount) transaction\(s.transactionCount == 1 ? "" : "s")"
            + (report.isLimited ? " listed; more were read and checked but not listed (`waterfall.limit`).\n" : ".\n")

        for (si, session) in report.sessions.enumerated() {
            let tl = s.timelines[si]
            out += "\n### Session \(m(session.sessionId ?? "(unknown)"))\n\n"
            var facts: [String] = []
            if let l = session.launchedAt { facts.append("launched \(Timestamp.format(l))") }
            facts.append("\(tl.requestCount) request\(tl.requestCount == 1 ? "" : "s")")
            if let e = tl.endOffsetMs { facts.append("last ends \(d(e)) after \(originName(tl.originSource))") }
            facts.append("busy \(d(tl.busyMs))")
            facts.append("max concurrency \(tl.maxConcurrency)")
            if !tl.idleGaps.isEmpty {
                facts.append("idle: " + tl.idleGaps.map { "\(d($0.durationMs)) from +\(d($0.startOffsetMs))" }.joined(separator: ", "))
            }
            out += facts.joined(separator: " · ") + "\n"
            if out.utf8.count >= chunkBytes {
                emit(out)
                out = ""
            }
            guard !session.requests.isEmpty else { continue }
            out += "\n| # | seq | request | status | start | time | blocked | DNS | TCP | TLS | request | waiting | download |\n"
            out += "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            var bars: [(String, [BarStyle?])] = []
            let axis = WaterfallReport.axis(session)
            for (ri, index) in session.timelineOrder.enumerated() {
                let r = session.requests[index]
                let n = "\(ri + 1)"
                let sums = r.phaseSums
                var row = "| \(n) | \(r.seq.map(String.init) ?? "?") | \(m(r.shortTitle)) | "
                row +=
                    "\(r.statusCode.map(String.init) ?? (r.state.map(m) ?? "—")) | \(r.offsetMs.map { "+" + d($0) } ?? "—") | \(opt(r.knownElapsedMs)) |"
                for p in WaterfallPhase.allCases { row += " \(opt(sums[p])) |" }
                out += row + "\n"
                if let axis { bars.append((n, cells(r.barPieces, axis: axis, width: markdownBarWidth))) }
                if r.transactions.count > 1 {
                    for tx in r.transactions {
                        let k = "\(n).\(tx.index + 1)"
                        var sub = "| \(k) | | \(m(tx.subTitle)) | \(tx.statusCode.map(String.init) ?? "—") | "
                        sub += "\(tx.offsetMs.map { "+" + d($0) } ?? "—") | \(opt(tx.totalMs)) |"
                        for p in WaterfallPhase.allCases { sub += " \(opt(tx.phases[p])) |" }
                        out += sub + "\n"
                        if let axis { bars.append((k, cells(tx.barPieces, axis: axis, width: markdownBarWidth))) }
                    }
                }
            }
            if let axis {
                let w = bars.map(\.0.count).max() ?? 1
                let span = d(Double(axis.end - axis.start) / 1000)
                out += "\n```text\n"
                out +=
                    String(repeating: " ", count: w + 2) + "0"
                    + String(repeating: " ", count: max(1, markdownBarWidth - 1 - span.count)) + span + "\n"
                for (k, c) in bars {
                    out += WaterfallFormat.pad(k, w, right: true) + " |" + barText(c, color: false) + "|\n"
                }
                out += "```\n"
            }
        }
        out += "\nLegend: " + BarStyle.allCases.map { "`\($0.glyph)` \($0.name)" }.joined(separator: " · ") + "\n"

        if !s.slowest.isEmpty {
            out += "\n#### Slowest requests\n\n"
            for (i, x) in s.slowest.enumerated() {
                out += "\(i + 1). **\(d(x.elapsedMs))** seq \(x.seq.map(String.init) ?? "?") \(m(x.title)): \(m(x.explanation))\n"
            }
        }
        if s.transactionCount > 0 {
            out += "\n#### Time per phase\n\n| phase | total | transactions | max |\n|---|---:|---:|---:|\n"
            for p in s.phases {
                out += "| \(p.phase.title) | \(d(p.totalMs)) | \(p.count) | \(p.count > 0 ? d(p.maxMs) : "—") |\n"
            }
        }
        if !s.endpoints.isEmpty {
            out += "\n#### Endpoints\n\n| endpoint | count | p50 | p95 | max |\n|---|---:|---:|---:|---:|\n"
            for e in s.endpoints.prefix(50) {
                out += "| \(m(e.key)) | \(e.count) | \(d(e.p50Ms)) | \(d(e.p95Ms)) | \(d(e.maxMs)) |\n"
            }
            let more = s.endpoints.count - min(50, s.endpoints.count) + s.endpointsOmitted
            if more > 0 { out += "\n\(more) more endpoints not listed.\n" }
        }
        if !report.findings.isEmpty {
            out += "\n#### Findings\n\n| severity | rule | seq | record | message |\n|---|---|---:|---|---|\n"
            for f in report.findings {
                out +=
                    "| \(f.severity.rawValue) | \(f.rule) | \(f.seq.map(String.init) ?? "") | \(m(f.recordId ?? "")) | \(m(f.message)) |\n"
                if out.utf8.count >= chunkBytes {
                    emit(out)
                    out = ""
                }
            }
        }
        emit(out)
    }
}
