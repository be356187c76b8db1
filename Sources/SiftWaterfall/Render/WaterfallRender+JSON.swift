import Foundation
import SiftCore

/// The output formats of the waterfall.
public enum WaterfallOutputFormat: String, CaseIterable, Sendable {
    case text, json, csv, markdown, svg
}

/// Renderers: pure functions from a report to the text of one format.
public enum WaterfallRender {
    /// Renders `report` in `format`. `columns` and `color` only matter for `text`.
    public static func render(_ report: WaterfallReport, as format: WaterfallOutputFormat, columns: Int = 100,
                              color: Bool = false) -> String {
        switch format {
        case .text: text(report, columns: columns, color: color)
        case .json: json(report)
        case .csv: csv(report)
        case .markdown: markdown(report)
        case .svg: svg(report)
        }
    }

    /// Milliseconds rounded to the microsecond, as JSON (null when unknown).
    static func ms(_ v: Double?) -> JSONOut {
        guard let v, v.isFinite else { return .null }
        return .double((v * 1000).rounded() / 1000)
    }

    /// The JSON document:
    /// `{"requests": [...], "summary": {...}, "findings": [...]}`; a phase that did not happen is null.
    ///
    /// Written piece by piece (every value through `JSONOut`, keys in sorted order, exactly as
    /// `JSONOut.render` would print the whole object) so a large export never holds the whole tree.
    public static func json(_ report: WaterfallReport, pretty: Bool = true) -> String {
        var out = ""
        out.reserveCapacity(4096 + report.summary.requestCount * (pretty ? 1600 : 900))
        let nl = pretty ? "\n" : ""
        let sep = pretty ? ": " : ":"
        out += "{" + nl
        if pretty { out += "  " }
        out += "\"findings\"" + sep
        JSONOut.array(report.findings.map(\.json)).write(into: &out, pretty: pretty, indent: 2)
        out += "," + nl
        if pretty { out += "  " }
        out += "\"requests\"" + sep
        if report.summary.requestCount == 0 {
            out += "[]"
        } else {
            out += "["
            var first = true
            for s in report.sessions {
                for r in s.requests {
                    if !first { out += "," }
                    first = false
                    if pretty { out += "\n    " }
                    requestJSON(r).write(into: &out, pretty: pretty, indent: 4)
                }
            }
            out += nl + (pretty ? "  " : "") + "]"
        }
        out += "," + nl
        if pretty { out += "  " }
        out += "\"summary\"" + sep
        summaryJSON(report.summary).write(into: &out, pretty: pretty, indent: 2)
        out += nl + "}\n"
        return out
    }

    /// One request as JSON.
    public static func requestJSON(_ r: WaterfallRequest) -> JSONOut {
        .object([
            "sessionId": .opt(r.sessionId), "seq": .opt(r.seq), "recordId": .opt(r.recordId),
            "requestId": .opt(r.requestId), "method": .opt(r.method), "url": .opt(r.url),
            "statusCode": .opt(r.statusCode), "state": .opt(r.state), "source": .opt(r.source),
            "category": .opt(r.category), "kind": .opt(r.kind), "label": .opt(r.label),
            "start": .opt(r.start.map { Timestamp.format($0, micro: true) }),
            "offsetMs": ms(r.offsetMs), "durationMs": ms(r.durationMs), "totalMs": ms(r.totalMs),
            "hasMetrics": .bool(r.hasMetrics),
            "transactions": .array(r.transactions.map(transactionJSON)),
        ])
    }

    /// One transaction as JSON.
    public static func transactionJSON(_ t: WaterfallTransaction) -> JSONOut {
        var phases: [String: JSONOut] = [:]
        for p in WaterfallPhase.allCases { phases[p.rawValue] = ms(t.phases[p]) }
        return .object([
            "index": .int(t.index), "phases": .object(phases), "offsetMs": ms(t.offsetMs), "totalMs": ms(t.totalMs),
            "reusedConnection": .opt(t.reusedConnection), "networkProtocol": .opt(t.networkProtocol),
            "remoteAddress": .opt(t.remoteAddress), "remotePort": .opt(t.remotePort), "tlsVersion": .opt(t.tlsVersion),
            "statusCode": .opt(t.statusCode), "url": .opt(t.url), "fetchType": .opt(t.fetchType),
            "anomalies": .array(t.anomalies.map { .string($0) }),
        ])
    }

    static func summaryJSON(_ s: WaterfallSummary) -> JSONOut {
        var phases: [String: JSONOut] = [:]
        for p in s.phases {
            phases[p.phase.rawValue] = .object(["totalMs": ms(p.totalMs), "count": .int(p.count), "maxMs": ms(p.maxMs)])
        }
        return .object([
            "requests": .int(s.requestCount),
            "transactions": .int(s.transactionCount),
            "sessions": .array(s.timelines.map { t in
                .object([
                    "sessionId": .opt(t.sessionId), "input": .string(t.input), "file": .string(t.file),
                    "launchedAt": .opt(t.launchedAt.map { Timestamp.format($0, micro: true) }),
                    "origin": .string(t.originSource), "requests": .int(t.requestCount),
                    "firstOffsetMs": ms(t.firstOffsetMs), "endOffsetMs": ms(t.endOffsetMs), "busyMs": ms(t.busyMs),
                    "maxConcurrency": .int(t.maxConcurrency), "maxConcurrencyAtMs": ms(t.maxConcurrencyAtMs),
                    "idleGapCount": .int(t.idleGapCount),
                    "idleGaps": .array(t.idleGaps.map { .object(["startOffsetMs": ms($0.startOffsetMs), "durationMs": ms($0.durationMs)]) }),
                ])
            }),
            "slowest": .array(s.slowest.map { x in
                .object([
                    "sessionId": .opt(x.sessionId), "seq": .opt(x.seq), "recordId": .opt(x.recordId),
                    "requestId": .opt(x.requestId), "title": .string(x.title), "elapsedMs": ms(x.elapsedMs),
                    "dominantPhase": .opt(x.dominant?.rawValue), "dominantMs": ms(x.dominantMs),
                    "explanation": .string(x.explanation),
                ])
            }),
            "phases": .object(phases),
            "endpoints": .array(s.endpoints.map { e in
                .object(["endpoint": .string(e.key), "count": .int(e.count), "p50Ms": ms(e.p50Ms), "p95Ms": ms(e.p95Ms),
                         "maxMs": ms(e.maxMs), "totalMs": ms(e.totalMs)])
            }),
            "endpointsOmitted": .int(s.endpointsOmitted),
        ])
    }
}
