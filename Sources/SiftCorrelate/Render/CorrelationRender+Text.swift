import Foundation
import SiftCore

extension CorrelationRender {
    // MARK: Text

    static func num(_ d: Double?, _ digits: Int = 1) -> String { d.map { String(format: "%.\(digits)f", $0) } ?? "-" }

    /// For a terminal: every untrusted string goes through `Escape.terminal`.
    public static func text(_ report: Redacted<CorrelationReport>, colors: Colors = .off) -> String { text(report.value, colors: colors) }

    /// The text in pieces of about 64 KiB, each handed to `emit` as it is made (a hundred thousand
    /// requests are never held as one text).
    public static func text(_ report: Redacted<CorrelationReport>, colors: Colors = .off, emit: (String) -> Void) {
        text(report.value, colors: colors, emit: emit)
    }

    static func text(_ r: CorrelationReport, colors: Colors = .off) -> String {
        var whole = ""
        text(r, colors: colors) { whole += $0 }
        return whole
    }

    /// Hands `out` to `emit` once it holds 64 KiB or more.
    @inline(__always)
    static func spill(_ out: inout String, _ emit: (String) -> Void) {
        guard out.utf8.count >= 1 << 16 else { return }
        emit(out)
        out = ""
    }

    static func text(_ r: CorrelationReport, colors: Colors = .off, emit: (String) -> Void) {
        let t = { (s: String?) in Escape.terminal(s ?? "") }
        func n(_ count: Int, _ word: String, _ plural: String? = nil) -> String {
            "\(count) " + (count == 1 ? word : plural ?? word + "s")
        }
        var out =
            "correlate: \(n(r.requests.count, "request")): \(r.count(.matched)) matched, \(r.count(.clientOnly)) client-only, \(r.count(.idMismatch)) id-mismatch"
        if r.withoutRequestId > 0 { out += " (\(n(r.withoutRequestId, "record")) without a request id)" }
        out += "\n"
        let s = r.clockSkew
        if let sec = s.seconds {
            out += "clock skew: \(ClockSkew.words(sec))"
            if let u = s.uncertainty { out += " ± \(num(u, 3)) s" }
            out += " (\(n(s.samples, "sample")), \(n(s.outliers, "outlier")); from \(s.basis))\n"
        } else {
            out += "clock skew: unknown (no matched request with timings)\n"
        }
        out += "logs: \(n(r.logs.files.count, "file")), \(n(Int(clamping: r.logs.bytes), "byte")), \(n(r.logs.lineCount, "line"))\n"
        for f in r.logs.files.prefix(20) {
            var line =
                "  \(t(f.file)) (\(f.encoding)\(f.format.map { ", " + $0.rawValue } ?? "")): \(n(f.lines, "line")), \(f.matchedLines) matching"
            if f.longLines > 0 { line += ", \(f.longLines) too long" }
            if f.matchedLines > 0 {
                line +=
                    "; read: "
                    + (f.fieldsRead.isEmpty
                        ? "no time, status or duration" : f.fieldsRead.map { t(f.readUnits.describe($0)) }.joined(separator: ", "))
            }
            if f.readsAsLog == false && f.matchedLines == 0 { line += "; not a server log (no line of a known format among its first)" }
            if let u = f.durationUnitNote { line += "; " + t(u) }
            if let j = f.joinNote { line += "; " + t(j) }
            if let z = f.inferredOffset { line += "; times without a zone read as \(Correlator.zoneName(z)) (local time)" }
            out += line + "\n"
        }
        if r.logs.files.count > 20 { out += "  … and \(n(r.logs.files.count - 20, "more file"))\n" }
        for e in r.logs.allErrors { out += "  error: \(t(e))\n" }
        out += "\n"
        for c in r.requests {
            let e = c.entry
            var status = c.status.rawValue
            if c.status == .clientOnly, let cover = c.logsCover {
                status += cover ? ": the logs cover its time" : ": outside the logs' time span"
            }
            if c.status == .clientOnly && c.echoed { status += "; the server answered (its response echoed the id)" }
            if c.status == .matched, c.lines.contains(where: { $0.line.joinedBy == .requestLine }) {
                status += " by \(JoinBasis.requestLine.rawValue) (the log carries no id)"
            }
            let shown = c.status == .matched ? colors.green(status) : c.status == .clientOnly ? colors.red(status) : colors.yellow(status)
            var head = short(e.sessionId) + " #" + (e.seq.map(String.init) ?? "?") + " " + t(e.method ?? "?") + " " + t(e.url ?? "(no URL)")
            if let code = e.statusCode { head += " → \(code)" }
            out += head + "  [\(shown)]\n"
            out += "  id \(e.requestId.map { t($0) } ?? "(none)")"
            if let echoed = e.echoedRequestId, echoed != e.requestId { out += "  echoed \(t(echoed))" }
            out += "\n"
            if let wait = c.waitingMs, let server = c.serverMs, server > wait {
                // Never "server 2200 ms + network 0 ms" inside a 150 ms wait: say why the server's time is longer.
                let why = Correlator.outlastedClient(e, serverMs: server) ?? Correlator.longerThanWait(server: server, wait: wait)
                out += "  waiting \(num(wait)) ms, server \(num(server)) ms: \(why)\n"
            } else if let wait = c.waitingMs, let server = c.serverMs {
                out += "  waiting \(num(wait)) ms = server \(num(server)) ms + network \(num(c.networkMs ?? max(0, wait - server))) ms\n"
            } else if let server = c.serverMs {
                out += "  server \(num(server)) ms" + (Correlator.outlastedClient(e, serverMs: server).map { ": " + $0 } ?? "") + "\n"
            }
            for p in c.lines {
                let l = p.line
                // Only what the line has: no `-` placeholders for a missing time, level, status or duration.
                let parts = [
                    l.parsed.ts.map { Timestamp.format($0) }, l.parsed.level.map { t($0) }, l.parsed.status.map(String.init),
                    l.parsed.durationMs.map { num($0) + " ms" }, l.parsed.message.map { t($0) }
                ].compactMap { $0 }.filter { !$0.isEmpty }
                out += "  \(t(l.file)):\(l.line)" + (parts.isEmpty ? "" : " " + parts.joined(separator: " ")) + "\n"
                // A stack trace after the line: the line naming its cause.
                if let cause = l.parsed.cause { out += "    cause: \(t(cause))\n" }
            }
            if c.linesNotKept > 0 {
                out +=
                    "  … \(c.linesNotKept) more server line\(c.linesNotKept == 1 ? "" : "s") carry its id (not kept: at most \(c.lines.count) a request)\n"
            }
            spill(&out, emit)
        }
        out +=
            "\nserver-only ids in the session windows (±\(num(r.windowMargin, 0)) s): \(r.serverOnly.ids.count), with the session's user: \(r.serverOnly.withUserId.count)\n"
        for id in r.serverOnly.withUserId.prefix(50) { out += "  \(id)\n" }
        if !r.findings.isEmpty {
            out += "\nfindings:\n"
            for f in r.findings {
                var place = short(f.sessionId)
                if let seq = f.seq { place += " seq \(seq)" }
                out += "  \(colors.severity(f.severity, f.severity.rawValue)) \(f.rule) \(place): \(t(f.message))\n"
                spill(&out, emit)
            }
        }
        emit(out)
    }

    /// `ses_4fd58165…`: a session id shortened for a terminal line (the JSON and CSV keep it whole).
    static func short(_ id: String?) -> String {
        guard let id else { return "(unknown session)" }
        let clean = Escape.terminal(id)
        return clean.count > 16 ? String(clean.prefix(12)) + "…" : clean
    }
}
