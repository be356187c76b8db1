import Foundation
import SiftCore

/// Renders a `CorrelationReport` that went through the `Redactor`. Pure functions: report in, text out.
public enum CorrelationRender {
    static func ts(_ t: Double?) -> JSONOut { t.map { .string(Timestamp.format($0, micro: true)) } ?? .null }
    static func ms(_ d: Double?) -> JSONOut { d.map { .double(($0 * 1000).rounded() / 1000) } ?? .null }

    // MARK: JSON

    /// The JSON document (keys sorted when printed): `sections(_:)` and `findings`.
    public static func json(_ report: Redacted<CorrelationReport>) -> JSONOut { json(report.value) }

    static func json(_ r: CorrelationReport) -> JSONOut {
        var o = sections(r)
        o["findings"] = .array(r.findings.map(\.json))
        return .object(o)
    }

    /// The correlate sections of the JSON report: `requests`, `sessions`, `serverOnly`, `clockSkew`,
    /// `correlation` (counts), `logs`. A command adds the shared envelope (`tool`, `inputs`, `findings`, `summary`).
    public static func sections(_ report: Redacted<CorrelationReport>) -> [String: JSONOut] { sections(report.value) }

    /// `sections(_:)` without `requests` and `sessions` (one entry per request and per session): what
    /// `write(_:listing:to:)` completes as it writes.
    public static func summarySections(_ report: Redacted<CorrelationReport>) -> [String: JSONOut] {
        var o = sections(report.value, listing: false)
        o["requests"] = nil
        o["sessions"] = nil
        return o
    }

    /// Writes `document` (an object) with its keys sorted, as `JSONWriter.value` would, and with the
    /// `requests` and `sessions` of `report` made and written one entry at a time (a hundred thousand
    /// requests are never held as one JSON value): the same bytes as `w.value` of the document with
    /// `sections(_:)`, in a fraction of the memory.
    public static func write(_ document: JSONOut, listing report: Redacted<CorrelationReport>, to w: inout JSONWriter) {
        guard case .object(var o) = document else { return w.value(document) }
        let r = report.value
        o["requests"] = .null
        o["sessions"] = .null
        w.beginObject()
        for k in o.keys.sorted() {
            w.key(k)
            switch k {
            case "requests":
                w.beginArray()
                for c in r.requests {
                    w.element()
                    w.value(requestJSON(c))
                }
                w.endArray()
            case "sessions":
                w.beginArray()
                for s in r.sessions {
                    w.element()
                    w.value(sessionJSON(s))
                }
                w.endArray()
            default:
                w.value(o[k] ?? .null)
            }
        }
        w.endObject()
    }

    static func requestJSON(_ c: CorrelatedRequest) -> JSONOut {
        let e = c.entry
        return .object([
            "sessionId": .opt(e.sessionId), "seq": .opt(e.seq), "recordId": .opt(e.recordId),
            "requestId": .opt(e.requestId), "echoedRequestId": .opt(e.echoedRequestId),
            "method": .opt(e.method), "url": .opt(e.url), "statusCode": .opt(e.statusCode),
            "ts": ts(e.ts), "status": .string(c.status.rawValue),
            "serverLines": .array(c.lines.map(lineJSON)),
            "serverMs": ms(c.serverMs), "waitingMs": ms(c.waitingMs), "networkMs": ms(c.networkMs),
            "logsCover": .opt(c.logsCover),
        ])
    }

    static func sessionJSON(_ s: CorrelatedSession) -> JSONOut {
        .object([
            "sessionId": .opt(s.entry.sessionId), "userId": .opt(s.entry.userId),
            "window": .object(["from": ts(s.windowFrom), "to": ts(s.windowTo)]),
            "serverOnly": .object(["count": .int(s.serverOnly.count),
                                   "withUserId": .int(s.serverOnly.withUserId)]),
        ])
    }

    static func sections(_ r: CorrelationReport, listing: Bool = true) -> [String: JSONOut] {
        let requests: [JSONOut] = listing ? r.requests.map(requestJSON) : []
        let sessions: [JSONOut] = listing ? r.sessions.map(sessionJSON) : []
        let files: [JSONOut] = r.logs.files.map { f in
            .object([
                "file": .string(f.file), "encoding": .string(f.encoding), "format": .opt(f.format?.rawValue),
                "bytes": .int(Int(f.bytes)), "lines": .int(f.lines), "matchedLines": .int(f.matchedLines),
                "longLines": .int(f.longLines), "error": .opt(f.error), "from": ts(f.firstTs), "to": ts(f.lastTs),
            ])
        }
        let skew = r.clockSkew
        return [
            "requests": .array(requests),
            "sessions": .array(sessions),
            "serverOnly": .object([
                "count": .int(r.serverOnly.ids.count),
                "requestIds": .array(r.serverOnly.ids.prefix(10_000).map { .string($0.description) }),
                "withUserId": .object(["count": .int(r.serverOnly.withUserId.count),
                                       "requestIds": .array(r.serverOnly.withUserId.prefix(10_000).map { .string($0.description) })]),
                "truncated": .bool(r.serverOnlyTruncated),
            ]),
            "clockSkew": .object([
                "seconds": skew.seconds.map { .double(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null,
                "samples": .int(skew.samples),
                "uncertainty": skew.uncertainty.map { .double(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null,
                "outliers": .int(skew.outliers),
                "method": .string("marzullo"),
                "basis": .string(skew.basis), "fieldSamples": .int(skew.fieldSamples), "textSamples": .int(skew.textSamples),
                "textSeconds": skew.textSeconds.map { .double(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null,
            ]),
            "correlation": .object([
                "requests": .int(r.requests.count), "matched": .int(r.count(.matched)),
                "clientOnly": .int(r.count(.clientOnly)), "idMismatch": .int(r.count(.idMismatch)),
                "withoutRequestId": .int(r.withoutRequestId), "windowMarginSeconds": .double(r.windowMargin),
            ]),
            "logs": .object([
                "files": .array(files), "filesScanned": .int(r.logs.files.count),
                "bytes": .int(Int(r.logs.bytes)), "lines": .int(r.logs.lineCount),
                "matchedLines": .int(r.logs.files.reduce(0) { $0 + $1.matchedLines }),
                "droppedLines": .int(r.logs.droppedLines), "droppedWindowIds": .int(r.logs.droppedSeen),
                "errors": .array(r.logs.allErrors.map { .string($0) }),
            ]),
        ]
    }

    static func lineJSON(_ p: PlacedLine) -> JSONOut {
        let l = p.line
        return .object([
            "file": .string(l.file), "line": .int(l.line), "ts": ts(l.parsed.ts), "deviceTs": ts(p.deviceTs),
            "level": .opt(l.parsed.level), "status": .opt(l.parsed.status), "durationMs": ms(l.parsed.durationMs),
            "message": .opt(l.parsed.message), "format": .string(l.parsed.format.rawValue),
            "method": .opt(l.parsed.method), "path": .opt(l.parsed.path), "idInField": .bool(p.idInField),
            "requestIds": .array(l.ids.map { .string($0.description) }),
        ])
    }

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
        var out = "correlate: \(n(r.requests.count, "request")): \(r.count(.matched)) matched, \(r.count(.clientOnly)) client-only, \(r.count(.idMismatch)) id-mismatch"
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
            var line = "  \(t(f.file)) (\(f.encoding)\(f.format.map { ", " + $0.rawValue } ?? "")): \(n(f.lines, "line")), \(f.matchedLines) matching"
            if f.longLines > 0 { line += ", \(f.longLines) too long" }
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
            let shown = c.status == .matched ? colors.green(status) : c.status == .clientOnly ? colors.red(status) : colors.yellow(status)
            var head = short(e.sessionId) + " #" + (e.seq.map(String.init) ?? "?") + " " + t(e.method ?? "?") + " " + t(e.url ?? "(no URL)")
            if let code = e.statusCode { head += " → \(code)" }
            out += head + "  [\(shown)]\n"
            out += "  id \(e.requestId.map { t($0) } ?? "(none)")"
            if let echoed = e.echoedRequestId, echoed != e.requestId { out += "  echoed \(t(echoed))" }
            out += "\n"
            if let wait = c.waitingMs, let server = c.serverMs {
                out += "  waiting \(num(wait)) ms = server \(num(server)) ms + network \(num(c.networkMs ?? max(0, wait - server))) ms\n"
            } else if let server = c.serverMs {
                out += "  server \(num(server)) ms\n"
            }
            for p in c.lines {
                let l = p.line
                // Only what the line has: no `-` placeholders for a missing time, level, status or duration.
                let parts = [l.parsed.ts.map { Timestamp.format($0) }, l.parsed.level.map { t($0) }, l.parsed.status.map(String.init),
                             l.parsed.durationMs.map { num($0) + " ms" }, l.parsed.message.map { t($0) }].compactMap { $0 }.filter { !$0.isEmpty }
                out += "  \(t(l.file)):\(l.line)" + (parts.isEmpty ? "" : " " + parts.joined(separator: " ")) + "\n"
            }
            spill(&out, emit)
        }
        out += "\nserver-only ids in the session windows (±\(num(r.windowMargin, 0)) s): \(r.serverOnly.ids.count), with the session's user: \(r.serverOnly.withUserId.count)\n"
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

    // MARK: Markdown

    /// For a ticket: every untrusted string goes through `Escape.markdown`.
    public static func markdown(_ report: Redacted<CorrelationReport>) -> String { markdown(report.value) }

    /// The Markdown in pieces of about 64 KiB, each handed to `emit` as it is made.
    public static func markdown(_ report: Redacted<CorrelationReport>, emit: (String) -> Void) { markdown(report.value, emit: emit) }

    static func markdown(_ r: CorrelationReport) -> String {
        var whole = ""
        markdown(r) { whole += $0 }
        return whole
    }

    static func markdown(_ r: CorrelationReport, emit: (String) -> Void) {
        let m = { (s: String?) in Escape.markdown(s ?? "") }
        var out = "## Correlation\n\n"
        out += "| requests | matched | client-only | id-mismatch | server-only | with user | clock skew (s) |\n|---:|---:|---:|---:|---:|---:|---:|\n"
        let s = r.clockSkew
        let skew = s.seconds.map { "\(num($0, 3)) ± \(num(s.uncertainty, 3)) (\(s.samples) samples)" } ?? "unknown"
        out += "| \(r.requests.count) | \(r.count(.matched)) | \(r.count(.clientOnly)) | \(r.count(.idMismatch)) | \(r.serverOnly.ids.count) | \(r.serverOnly.withUserId.count) | \(skew) |\n\n"
        if !r.logs.files.isEmpty {
            out += "Log files: " + r.logs.files.prefix(20).map { "\(m($0.file)) (\(m($0.format?.rawValue ?? "no matching line")))" }.joined(separator: ", ")
            out += r.logs.files.count > 20 ? ", … \(r.logs.files.count - 20) more\n\n" : "\n\n"
        }
        out += "| session | seq | method | url | status | request id | join | server lines | server ms | network ms |\n"
        out += "|---|---:|---|---|---:|---|---|---:|---:|---:|\n"
        for c in r.requests {
            let e = c.entry
            var id = m(e.requestId)
            if let echoed = e.echoedRequestId, echoed != e.requestId { id += "<br>echoed " + m(echoed) }
            out += "| \(m(e.sessionId)) | \(e.seq.map(String.init) ?? "") | \(m(e.method)) | \(m(e.url)) | \(e.statusCode.map(String.init) ?? "") | \(id) | \(c.status.rawValue) | \(c.lines.count) | \(num(c.serverMs)) | \(num(c.networkMs)) |\n"
            spill(&out, emit)
        }
        if r.requests.contains(where: { !$0.lines.isEmpty }) {
            out += "\n### Server lines\n\n| request id | file | line | ts | level | status | ms | message |\n|---|---|---:|---|---|---:|---:|---|\n"
            for c in r.requests {
                for p in c.lines {
                    let l = p.line
                    out += "| \(m(c.entry.requestId)) | \(m(l.file)) | \(l.line) | \(l.parsed.ts.map { Timestamp.format($0) } ?? "") | \(m(l.parsed.level)) | \(l.parsed.status.map(String.init) ?? "") | \(num(l.parsed.durationMs)) | \(m(l.parsed.message)) |\n"
                }
                spill(&out, emit)
            }
        }
        if !r.logs.allErrors.isEmpty {
            out += "\n### Log errors\n\n"
            for e in r.logs.allErrors { out += "- \(m(e))\n" }
        }
        if !r.findings.isEmpty {
            out += "\n### Findings\n\n| severity | rule | session | seq | message |\n|---|---|---|---:|---|\n"
            for f in r.findings {
                out += "| \(f.severity.rawValue) | \(m(f.rule)) | \(m(f.sessionId)) | \(f.seq.map(String.init) ?? "") | \(m(f.message)) |\n"
                spill(&out, emit)
            }
        }
        emit(out)
    }

    // MARK: CSV

    /// One row per request and server line (a request without lines has one row with empty line fields).
    public static func csv(_ report: Redacted<CorrelationReport>) -> String { csv(report.value) }

    /// The CSV in pieces of about 64 KiB, each handed to `emit` as it is made.
    public static func csv(_ report: Redacted<CorrelationReport>, emit: (String) -> Void) { csv(report.value, emit: emit) }

    static func csv(_ r: CorrelationReport) -> String {
        var whole = ""
        csv(r) { whole += $0 }
        return whole
    }

    static func csv(_ r: CorrelationReport, emit: (String) -> Void) {
        var out = Escape.csvRow(["sessionId", "seq", "recordId", "requestId", "echoedRequestId", "status", "method", "url",
                                 "statusCode", "serverMs", "waitingMs", "networkMs", "file", "line", "ts", "deviceTs", "level",
                                 "lineStatus", "durationMs", "message", "format"])
        func f(_ d: Double?) -> String { d.map { JSONOut.format(($0 * 1000).rounded() / 1000) } ?? "" }
        for c in r.requests {
            let e = c.entry
            let head = [e.sessionId ?? "", e.seq.map(String.init) ?? "", e.recordId ?? "", e.requestId ?? "",
                        e.echoedRequestId ?? "", c.status.rawValue, e.method ?? "", e.url ?? "",
                        e.statusCode.map(String.init) ?? "", f(c.serverMs), f(c.waitingMs), f(c.networkMs)]
            if c.lines.isEmpty {
                out += Escape.csvRow(head + Array(repeating: "", count: 9))
            }
            for p in c.lines {
                let l = p.line
                out += Escape.csvRow(head + [l.file, String(l.line), l.parsed.ts.map { Timestamp.format($0, micro: true) } ?? "",
                                             p.deviceTs.map { Timestamp.format($0, micro: true) } ?? "", l.parsed.level ?? "",
                                             l.parsed.status.map(String.init) ?? "", f(l.parsed.durationMs), l.parsed.message ?? "",
                                             l.parsed.format.rawValue])
            }
            spill(&out, emit)
        }
        emit(out)
    }
}

extension ClockSkew {
    /// The skew in words: `server clock 2.49 s ahead of the device`, `4 h 7 min behind the device`.
    public static func words(_ s: Double) -> String {
        guard s.isFinite else { return "server clock offset unknown" }
        let a = abs(s)
        let side = s >= 0 ? "ahead of" : "behind"
        let amount: String
        if a < 0.001 {
            amount = String(format: "%.2f ms", a * 1000)
        } else if a < 0.01 {
            amount = String(format: "%.1f ms", a * 1000)
        } else if a < 0.9995 {
            amount = String(format: "%.0f ms", a * 1000)
        } else if a < 120 {
            amount = String(format: "%.2f s", a)
        } else if a < 7200 {
            amount = "\(Int(a / 60)) min \(Int(a.truncatingRemainder(dividingBy: 60))) s"
        } else if a < 1e9 {
            amount = "\(Int(a / 3600)) h \(Int(a.truncatingRemainder(dividingBy: 3600) / 60)) min"
        } else {
            amount = "more than 30 years"
        }
        return "server clock \(amount) \(side) the device"
    }
}
