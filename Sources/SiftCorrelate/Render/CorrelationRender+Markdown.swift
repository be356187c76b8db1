import Foundation
import SiftCore

extension CorrelationRender {
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
        out +=
            "| requests | matched | client-only | id-mismatch | server-only | with user | clock skew (s) |\n|---:|---:|---:|---:|---:|---:|---:|\n"
        let s = r.clockSkew
        let skew = s.seconds.map { "\(num($0, 3)) ± \(num(s.uncertainty, 3)) (\(s.samples) samples)" } ?? "unknown"
        out +=
            "| \(r.requests.count) | \(r.count(.matched)) | \(r.count(.clientOnly)) | \(r.count(.idMismatch)) | \(r.serverOnly.ids.count) | \(r.serverOnly.withUserId.count) | \(skew) |\n\n"
        if !r.logs.files.isEmpty {
            out +=
                "Log files: "
                + r.logs.files.prefix(20).map { "\(m($0.file)) (\(m($0.format?.rawValue ?? "no matching line")))" }.joined(separator: ", ")
            out += r.logs.files.count > 20 ? ", … \(r.logs.files.count - 20) more\n\n" : "\n\n"
        }
        out += "| session | seq | method | url | status | request id | join | server lines | server ms | network ms |\n"
        out += "|---|---:|---|---|---:|---|---|---:|---:|---:|\n"
        for c in r.requests {
            let e = c.entry
            var id = m(e.requestId)
            if let echoed = e.echoedRequestId, echoed != e.requestId { id += "<br>echoed " + m(echoed) }
            out +=
                "| \(m(e.sessionId)) | \(e.seq.map(String.init) ?? "") | \(m(e.method)) | \(m(e.url)) | \(e.statusCode.map(String.init) ?? "") | \(id) | \(c.status.rawValue) | \(c.lines.count) | \(num(c.serverMs)) | \(num(c.networkMs)) |\n"
            spill(&out, emit)
        }
        if r.requests.contains(where: { !$0.lines.isEmpty }) {
            out +=
                "\n### Server lines\n\n| request id | file | line | ts | level | status | ms | message |\n|---|---|---:|---|---|---:|---:|---|\n"
            for c in r.requests {
                for p in c.lines {
                    let l = p.line
                    out +=
                        "| \(m(c.entry.requestId)) | \(m(l.file)) | \(l.line) | \(l.parsed.ts.map { Timestamp.format($0) } ?? "") | \(m(l.parsed.level)) | \(l.parsed.status.map(String.init) ?? "") | \(num(l.parsed.durationMs)) | \(m(l.parsed.message)) |\n"
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
}
