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
    /// requests are written by `JSONBytes`, which a test holds equal to `requestJSON`.
    public static func json(_ report: WaterfallReport, pretty: Bool = true, sink: (String) -> Void) {
        var out = ""
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
            sink(out)
            out = ""
            var w = JSONBytes(pretty: pretty, indent: 4)
            w.buf.reserveCapacity(1 << 20 + 65536)
            var first = true
            for s in report.sessions {
                for r in s.requests {
                    if !first { w.buf.append(0x2C) }
                    first = false
                    if pretty { w.lit("\n    ") }
                    w.request(r)
                    if w.buf.count >= 1 << 20 {
                        sink(String(decoding: w.buf, as: UTF8.self))
                        w.buf.removeAll(keepingCapacity: true)
                    }
                }
            }
            if !w.buf.isEmpty { sink(String(decoding: w.buf, as: UTF8.self)) }
            out += nl + (pretty ? "  " : "") + "]"
        }
        out += "," + nl
        if pretty { out += "  " }
        out += "\"summary\"" + sep
        summaryJSON(report.summary).write(into: &out, pretty: pretty, indent: 2)
        out += nl + "}\n"
        sink(out)
    }

    /// Writes `requestJSON(r)` exactly as `JSONOut` prints it at `indent`, without building it.
    public static func writeRequest(_ r: WaterfallRequest, into out: inout String, pretty: Bool, indent: Int) {
        var w = JSONBytes(pretty: pretty, indent: indent)
        w.request(r)
        out += String(decoding: w.buf, as: UTF8.self)
    }

    /// A byte-level writer with `JSONOut`'s exact layout and escaping (String appends cost more
    /// than the rest of the waterfall on a large export).
    struct JSONBytes {
        var buf: [UInt8] = []
        let pretty: Bool
        let base: Int
        /// Members written in each open container.
        var counts: [Int] = []
        static let spaces = [UInt8](repeating: 0x20, count: 256)

        init(pretty: Bool, indent: Int) {
            self.pretty = pretty
            self.base = indent
            counts.reserveCapacity(8)
        }

        mutating func lit(_ s: StaticString) {
            s.withUTF8Buffer { buf.append(contentsOf: $0) }
        }

        mutating func newline(_ depth: Int) {
            buf.append(0x0A)
            var n = base + 2 * depth
            while n > 0 {
                let k = min(n, 256)
                JSONBytes.spaces.withUnsafeBufferPointer { buf.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<k])) }
                n -= k
            }
        }

        mutating func open(_ c: UInt8) {
            buf.append(c)
            counts.append(0)
        }

        mutating func next() {
            let i = counts.count - 1
            if counts[i] > 0 { buf.append(0x2C) }
            counts[i] += 1
            if pretty { newline(counts.count) }
        }

        mutating func key(_ k: StaticString) {
            next()
            buf.append(0x22)
            lit(k)
            if pretty { lit("\": ") } else { lit("\":") }
        }

        mutating func close(_ c: UInt8) {
            let n = counts.removeLast()
            if n > 0 && pretty { newline(counts.count) }
            buf.append(c)
        }

        mutating func null() { lit("null") }

        mutating func string(_ s: String?) {
            guard var s else { return null() }
            s.withUTF8 { u in
                buf.append(0x22)
                var plain = 0
                var i = 0
                let n = u.count
                while i < n {
                    let c = u[i]
                    var rep: StaticString?
                    var hex: UInt32 = 0
                    var skip = 1
                    switch c {
                    case 0x22: rep = "\\\""
                    case 0x5C: rep = "\\\\"
                    case 0x0A: rep = "\\n"
                    case 0x0D: rep = "\\r"
                    case 0x09: rep = "\\t"
                    case 0x00..<0x20, 0x7F: hex = UInt32(c)
                    case 0xE2 where i + 2 < n && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9):
                        hex = u[i + 2] == 0xA8 ? 0x2028 : 0x2029
                        skip = 3
                    default:
                        i += 1
                        continue
                    }
                    buf.append(contentsOf: UnsafeBufferPointer(rebasing: u[plain..<i]))
                    if let rep {
                        lit(rep)
                    } else {
                        lit("\\u")
                        for shift in [12, 8, 4, 0] {
                            let d = UInt8((hex >> UInt32(shift)) & 0xF)
                            buf.append(d < 10 ? 48 + d : 87 + d)
                        }
                    }
                    i += skip
                    plain = i
                }
                buf.append(contentsOf: UnsafeBufferPointer(rebasing: u[plain..<n]))
                buf.append(0x22)
            }
        }

        mutating func int(_ v: Int?) {
            guard let v else { return null() }
            if v >= 0 && v < 10 {
                buf.append(48 + UInt8(v))
            } else {
                buf.append(contentsOf: String(v).utf8)
            }
        }

        mutating func bool(_ v: Bool?) {
            guard let v else { return null() }
            if v { lit("true") } else { lit("false") }
        }

        mutating func ms(_ v: Double?) {
            guard let v, v.isFinite else { return null() }
            let k = (v * 1000).rounded()
            // Below 2^33 ms, k/1000 prints as its integer part, '.', and the trimmed thousandths
            // (at least one digit), which is exactly Double.description (JSONOut.format) there: the
            // spacing of doubles is far below 0.001, so no shorter string reads back the same.
            guard k != 0, abs(k) < 8_000_000_000_000 else {
                buf.append(contentsOf: JSONOut.format(k / 1000).utf8)
                return
            }
            var u = Int64(k)
            if u < 0 { buf.append(0x2D); u = -u }
            appendDigits(u / 1000)
            buf.append(0x2E)
            var frac = Int(u % 1000)
            if frac == 0 { buf.append(0x30); return }
            var digits = 3
            while frac % 10 == 0 { frac /= 10; digits -= 1 }
            var div = 1
            for _ in 1..<digits { div *= 10 }
            while div > 0 { buf.append(UInt8(48 + (frac / div) % 10)); div /= 10 }
        }

        mutating func appendDigits(_ v: Int64) {
            if v < 10 { buf.append(48 + UInt8(v)); return }
            var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var n = 0
            var x = v
            withUnsafeMutableBytes(of: &tmp) { p in
                while x > 0 { p[n] = UInt8(48 + x % 10); x /= 10; n += 1 }
                for i in stride(from: n - 1, through: 0, by: -1) { buf.append(p[i]) }
            }
        }

        /// One request, keys in sorted order (String `<`), as JSONOut prints them.
        mutating func request(_ r: WaterfallRequest) {
            open(0x7B)
            key("category"); string(r.category)
            key("durationMs"); ms(r.durationMs)
            key("error"); string(r.error)
            key("hasMetrics"); bool(r.hasMetrics)
            key("kind"); string(r.kind)
            key("label"); string(r.label)
            key("method"); string(r.method)
            key("offsetMs"); ms(r.offsetMs)
            key("recordId"); string(r.recordId)
            key("requestId"); string(r.requestId)
            key("seq"); int(r.seq)
            key("sessionId"); string(r.sessionId)
            key("source"); string(r.source)
            key("start"); string(r.start.map { Timestamp.format($0, micro: true) })
            key("state"); string(r.state)
            key("statusCode"); int(r.statusCode)
            key("totalMs"); ms(r.totalMs)
            key("transactions")
            open(0x5B)
            for t in r.transactions {
                next()
                open(0x7B)
                key("anomalies")
                open(0x5B)
                for a in t.anomalies { next(); string(a) }
                close(0x5D)
                key("fetchType"); string(t.fetchType)
                key("index"); int(t.index)
                key("networkProtocol"); string(t.networkProtocol)
                key("offsetMs"); ms(t.offsetMs)
                key("phases")
                open(0x7B)
                key("blocked"); ms(t.phases.blocked)
                key("dns"); ms(t.phases.dns)
                key("download"); ms(t.phases.download)
                key("request"); ms(t.phases.request)
                key("tcp"); ms(t.phases.tcp)
                key("tls"); ms(t.phases.tls)
                key("waiting"); ms(t.phases.waiting)
                close(0x7D)
                key("remoteAddress"); string(t.remoteAddress)
                key("remotePort"); int(t.remotePort)
                key("reusedConnection"); bool(t.reusedConnection)
                key("statusCode"); int(t.statusCode)
                key("tlsVersion"); string(t.tlsVersion)
                key("totalMs"); ms(t.totalMs)
                key("url"); string(t.url)
                close(0x7D)
            }
            close(0x5D)
            key("url"); string(r.url)
            close(0x7D)
        }
    }

    /// One request as JSON.
    public static func requestJSON(_ r: WaterfallRequest) -> JSONOut {
        .object([
            "sessionId": .opt(r.sessionId), "seq": .opt(r.seq), "recordId": .opt(r.recordId),
            "requestId": .opt(r.requestId), "method": .opt(r.method), "url": .opt(r.url),
            "statusCode": .opt(r.statusCode), "state": .opt(r.state), "source": .opt(r.source),
            "category": .opt(r.category), "kind": .opt(r.kind), "label": .opt(r.label),
            "start": .opt(r.start.map { Timestamp.format($0, micro: true) }),
            "offsetMs": ms(r.offsetMs), "durationMs": ms(r.durationMs), "totalMs": ms(r.totalMs), "error": .opt(r.error),
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
