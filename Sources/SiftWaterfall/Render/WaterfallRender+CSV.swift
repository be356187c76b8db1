import Foundation
import SiftCore

extension WaterfallRender {
    /// One CSV row per transaction (a request without transactions gets one row with the
    /// transaction columns empty), RFC 4180 with CRLF line ends, formula-safe fields.
    public static func csv(_ report: WaterfallReport) -> String {
        var all = ""
        csv(report) { all += $0 }
        return all
    }

    /// `csv`, handed to `emit` in pieces of about 64 KiB as it is made.
    public static func csv(_ report: WaterfallReport, into emit: (String) -> Void) {
        var out = Escape.csvRow([
            "sessionId", "seq", "recordId", "requestId", "method", "url", "requestStatusCode", "state", "source",
            "category", "kind", "requestOffsetMs", "durationMs", "totalMs", "transaction", "transactionOffsetMs",
            "blockedMs", "dnsMs", "tcpMs", "tlsMs", "requestMs", "waitingMs", "downloadMs", "transactionTotalMs",
            "reusedConnection", "networkProtocol", "fetchType", "remoteAddress", "remotePort", "tlsVersion",
            "statusCode", "transactionUrl"
        ])
        let n = WaterfallFormat.number
        func b(_ v: Bool?) -> String { v.map { $0 ? "true" : "false" } ?? "" }
        for s in report.sessions {
            for r in s.requests {
                let head = [
                    r.sessionId ?? "", r.seq.map(String.init) ?? "", r.recordId ?? "", r.requestId ?? "",
                    r.method ?? "", r.url ?? "", r.statusCode.map(String.init) ?? "", r.state ?? "",
                    r.source ?? "", r.category ?? "", r.kind ?? "", n(r.offsetMs), n(r.durationMs), n(r.totalMs)
                ]
                if r.transactions.isEmpty {
                    out += Escape.csvRow(head + Array(repeating: "", count: 18))
                    continue
                }
                for t in r.transactions {
                    var row = head
                    row += [String(t.index + 1), n(t.offsetMs)]
                    row += WaterfallPhase.allCases.map { n(t.phases[$0]) }
                    row += [
                        n(t.totalMs), b(t.reusedConnection), t.networkProtocol ?? "", t.fetchType ?? "",
                        t.remoteAddress ?? "", t.remotePort.map(String.init) ?? "", t.tlsVersion ?? "",
                        t.statusCode.map(String.init) ?? "", t.url ?? ""
                    ]
                    out += Escape.csvRow(row)
                }
            }
            if out.utf8.count >= chunkBytes {
                emit(out)
                out = ""
            }
        }
        emit(out)
    }
}
