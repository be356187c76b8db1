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
    public static func json(_ report: WaterfallReport, pretty: Bool = true) -> String {
        var out = ""
        out.reserveCapacity(4096 + report.summary.requestCount * (pretty ? 1600 : 900))
        json(report, pretty: pretty) { out += $0 }
        return out
    }

    /// The JSON document, handed to `sink` in pieces of about 1 MiB so a large export is never held
    /// as one string. Byte for byte what `JSONOut.render` prints for the whole tree (keys sorted):
    /// requests are written by `writeRequest`, which a test holds equal to `requestJSON`.
    public static func json(_ report: WaterfallReport, pretty: Bool = true, sink: (String) -> Void) {
        var out = ""
        out.reserveCapacity(1 << 20 + 65536)
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
                    writeRequest(r, into: &out, pretty: pretty, indent: 4)
                    if out.utf8.count >= 1 << 20 {
                        sink(out)
                        out.removeAll(keepingCapacity: true)
                    }
                }
            }
            out += nl + (pretty ? "  " : "") + "]"
        }
        out += "," + nl
        if pretty { out += "  " }
        out += "\"summary\"" + sep
        summaryJSON(report.summary).write(into: &out, pretty: pretty, indent: 2)
        out += nl + "}\n"
        sink(out)
    }

    /// A small writer producing exactly JSONOut's layout, without building the tree.
    struct Writer {
        var pretty: Bool
        /// Members written so far in each open container.
        var counts: [Int] = []

        mutating func open(_ c: String, into out: inout String) {
            out += c
            counts.append(0)
        }

        /// Before a member or element: the comma, the newline and the indentation.
        mutating func next(into out: inout String) {
            let n = counts[counts.count - 1]
            if n > 0 { out += "," }
            counts[counts.count - 1] = n + 1
            if pretty {
                out += "\n"
                JSONOut.indent(counts.count * 2 + base, into: &out)
            }
        }

        var base = 0

        mutating func key(_ k: String, into out: inout String) {
            next(into: &out)
            out += "\""
            out += k
            out += pretty ? "\": " : "\":"
        }

        mutating func close(_ c: String, into out: inout String) {
            let n = counts.removeLast()
            if n == 0 {
                out += c
                return
            }
            if pretty {
                out += "\n"
                JSONOut.indent(counts.count * 2 + base, into: &out)
            }
            out += c
        }
    }

    static func put(_ s: String?, into out: inout String) {
        if let s { JSONOut.quote(s, into: &out) } else { out += "null" }
    }

    static func put(_ i: Int?, into out: inout String) {
        if let i { out += String(i) } else { out += "null" }
    }

    static func put(_ b: Bool?, into out: inout String) {
        if let b { out += b ? "true" : "false" } else { out += "null" }
    }

    static func putMs(_ v: Double?, into out: inout String) {
        guard let v, v.isFinite else { out += "null"; return }
        out += JSONOut.format((v * 1000).rounded() / 1000)
    }

    /// Writes `requestJSON(r)` as JSONOut would print it at `indent`, without building it.
    public static func writeRequest(_ r: WaterfallRequest, into out: inout String, pretty: Bool, indent: Int) {
        // Keys in sorted order (String `<`), as JSONOut prints them.
        var w = Writer(pretty: pretty)
        w.base = indent
        w.open("{", into: &out)
        w.key("category", into: &out); put(r.category, into: &out)
        w.key("durationMs", into: &out); putMs(r.durationMs, into: &out)
        w.key("hasMetrics", into: &out); put(r.hasMetrics, into: &out)
        w.key("kind", into: &out); put(r.kind, into: &out)
        w.key("label", into: &out); put(r.label, into: &out)
        w.key("method", into: &out); put(r.method, into: &out)
        w.key("offsetMs", into: &out); putMs(r.offsetMs, into: &out)
        w.key("recordId", into: &out); put(r.recordId, into: &out)
        w.key("requestId", into: &out); put(r.requestId, into: &out)
        w.key("seq", into: &out); put(r.seq, into: &out)
        w.key("sessionId", into: &out); put(r.sessionId, into: &out)
        w.key("source", into: &out); put(r.source, into: &out)
        w.key("start", into: &out); put(r.start.map { Timestamp.format($0, micro: true) }, into: &out)
        w.key("state", into: &out); put(r.state, into: &out)
        w.key("statusCode", into: &out); put(r.statusCode, into: &out)
        w.key("totalMs", into: &out); putMs(r.totalMs, into: &out)
        w.key("transactions", into: &out)
        w.open("[", into: &out)
        for t in r.transactions {
            w.next(into: &out)
            w.open("{", into: &out)
            w.key("anomalies", into: &out)
            w.open("[", into: &out)
            for a in t.anomalies { w.next(into: &out); put(a, into: &out) }
            w.close("]", into: &out)
            w.key("fetchType", into: &out); put(t.fetchType, into: &out)
            w.key("index", into: &out); put(t.index, into: &out)
            w.key("networkProtocol", into: &out); put(t.networkProtocol, into: &out)
            w.key("offsetMs", into: &out); putMs(t.offsetMs, into: &out)
            w.key("phases", into: &out)
            w.open("{", into: &out)
            w.key("blocked", into: &out); putMs(t.phases.blocked, into: &out)
            w.key("dns", into: &out); putMs(t.phases.dns, into: &out)
            w.key("download", into: &out); putMs(t.phases.download, into: &out)
            w.key("request", into: &out); putMs(t.phases.request, into: &out)
            w.key("tcp", into: &out); putMs(t.phases.tcp, into: &out)
            w.key("tls", into: &out); putMs(t.phases.tls, into: &out)
            w.key("waiting", into: &out); putMs(t.phases.waiting, into: &out)
            w.close("}", into: &out)
            w.key("remoteAddress", into: &out); put(t.remoteAddress, into: &out)
            w.key("remotePort", into: &out); put(t.remotePort, into: &out)
            w.key("reusedConnection", into: &out); put(t.reusedConnection, into: &out)
            w.key("statusCode", into: &out); put(t.statusCode, into: &out)
            w.key("tlsVersion", into: &out); put(t.tlsVersion, into: &out)
            w.key("totalMs", into: &out); putMs(t.totalMs, into: &out)
            w.key("url", into: &out); put(t.url, into: &out)
            w.close("}", into: &out)
        }
        w.close("]", into: &out)
        w.key("url", into: &out); put(r.url, into: &out)
        w.close("}", into: &out)
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
