import Foundation
import SiftCore
import SiftCorrelate
import SiftWaterfall

extension SupportReport {
    // MARK: Summary

    /// The few lines a support engineer pastes into a ticket (`report --summary`): the verdict, the
    /// failing request (or the slowest), the server line that failed, where the time went, the clock
    /// skew, and the credentials. Plain text, every string from the export or the logs redacted;
    /// renderers escape it.
    public var summaryLines: [(key: String, text: String)] {
        var out: [(String, String)] = []
        let verdict = self.verdict
        let failing = verdict.filter { !$0.ok }.map(\.key)
        out.append(("verdict", failing.isEmpty ? "ok: " + headline : "FAIL (\(failing.joined(separator: ", "))): " + headline))
        // The failure the server explains first: one with an error or warning line, then one with any line.
        let explained =
            failed.first { r in correlated(r)?.lines.contains { $0.line.parsed.isErrorOrWarning } ?? false }
            ?? failed.first { r in !(correlated(r)?.lines.isEmpty ?? true) }
        let subject = explained ?? failed.first ?? slowestFailed ?? slow.first
        if let r = subject {
            var t = "\(rowTitle(r)) "
            t += r.failed ? "\(outcomeText(r)) after \(Human.duration(ms: r.elapsedMs))" : "took \(Human.duration(ms: r.elapsedMs))"
            if failedCount > 1 && r.failed { t += " (1 of \(failedCount) failed requests)" }
            out.append((r.failed ? "failed" : "slowest", t))
            let shown = SupportReport.shownLines(correlated(r))
            if let pl = shown.lines.first {
                let text = SupportReport.serverText(pl, max: 200, redactor: redactor)
                out.append(("server", "\(pl.line.file):\(pl.line.line) \(text)"))
            } else if let c = correlated(r), c.status == .clientOnly, logsComplete {
                let said = c.echoed ? "answered (it echoed the request id) with no log line" : "never saw it (no log line carries its id)"
                out.append(("server", said))
            }
            out.append(("time", whyText(r)))
        } else {
            out.append(("requests", "No request failed or was slow."))
        }
        if let c = correlation {
            if let s = c.clockSkew.seconds {
                var t = ClockSkew.words(s)
                if let u = c.clockSkew.uncertainty { t += " ± \(Human.duration(ms: u * 1000))" }
                t += " (\(c.clockSkew.samples) request\(c.clockSkew.samples == 1 ? "" : "s"))"
                out.append(("clock", t))
            } else {
                out.append(("clock", "skew unknown (no request with timings matched a log line)"))
            }
        }
        if let cred = verdict.first(where: { $0.key == "credentials" }) { out.append(("credentials", cred.text)) }
        return out
    }

    /// `summaryLines` as text: one line each.
    public func summaryText(colors: Colors = .off) -> String {
        summaryLines.map { colors.bold($0.key.padding(toLength: 12, withPad: " ", startingAt: 0)) + " " + Escape.terminal($0.text) }
            .joined(separator: "\n") + "\n"
    }

    /// `summaryLines` as a Markdown list, ready to paste.
    public func summaryMarkdown() -> String {
        summaryLines.map { "- **\($0.key)**: \(Escape.markdown($0.text))" }.joined(separator: "\n") + "\n"
    }

    /// `summaryLines` as one JSON object: `{"summary": [{"key", "text"}]}`.
    public func summaryJSON() -> String {
        let lines: [JSONOut] = summaryLines.map { .object(["key": .string($0.key), "text": .string($0.text)]) }
        return JSONOut.object(["summary": .array(lines)]).render(pretty: true) + "\n"
    }
}
