import Foundation
import SiftCore

extension CorrelationRender {
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
        var out = Escape.csvRow([
            "sessionId", "seq", "recordId", "requestId", "echoedRequestId", "status", "method", "url",
            "statusCode", "serverMs", "waitingMs", "networkMs", "file", "line", "ts", "deviceTs", "level",
            "lineStatus", "durationMs", "message", "format"
        ])
        func f(_ d: Double?) -> String { d.map { JSONOut.format(($0 * 1000).rounded() / 1000) } ?? "" }
        for c in r.requests {
            let e = c.entry
            let head = [
                e.sessionId ?? "", e.seq.map(String.init) ?? "", e.recordId ?? "", e.requestId ?? "",
                e.echoedRequestId ?? "", c.status.rawValue, e.method ?? "", e.url ?? "",
                e.statusCode.map(String.init) ?? "", f(c.serverMs), f(c.waitingMs), f(c.networkMs)
            ]
            if c.lines.isEmpty {
                out += Escape.csvRow(head + Array(repeating: "", count: 9))
            }
            for p in c.lines {
                let l = p.line
                out += Escape.csvRow(
                    head + [
                        l.file, String(l.line), l.parsed.ts.map { Timestamp.format($0, micro: true) } ?? "",
                        p.deviceTs.map { Timestamp.format($0, micro: true) } ?? "", l.parsed.level ?? "",
                        l.parsed.status.map(String.init) ?? "", f(l.parsed.durationMs), l.parsed.message ?? "",
                        l.parsed.format.rawValue
                    ])
            }
            spill(&out, emit)
        }
        emit(out)
    }
}
