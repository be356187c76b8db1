import Foundation
import SiftCore

/// The output formats of the waterfall.
public enum WaterfallOutputFormat: String, CaseIterable, Sendable {
    case text, json, csv, markdown, svg
}

/// Renderers: pure functions from a report to the text of one format.
public enum WaterfallRender {
    /// Renders `report` in `format`. `columns` and `color` only matter for `text`.
    public static func render(
        _ report: WaterfallReport, as format: WaterfallOutputFormat, columns: Int = 100,
        color: Bool = false
    ) -> String {
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
        var w = JSONWriter(pretty: pretty)
        w.buf.reserveCapacity(4096 + report.summary.requestCount * (pretty ? 1600 : 900))
        json(report, into: &w)
        w.newline()
        return w.text
    }

    /// Writes the JSON document at the writer's place (a document of its own, or a member of a
    /// larger one), keys sorted; without `findings` the `findings` member is left out. Requests are
    /// written as they are read, never built as trees (a test holds them equal to `requestJSON`).
    public static func json(_ report: WaterfallReport, into w: inout JSONWriter, findings: Bool = true) {
        w.beginObject()
        if findings {
            w.key("findings")
            // One finding's tree at a time: an export of many sessions has many findings.
            w.beginArray()
            for f in report.findings {
                w.element()
                w.value(f.json)
            }
            w.endArray()
        }
        w.key("requests")
        w.beginArray()
        writeRequests(report.sessions, into: &w)
        w.endArray()
        w.key("summary")
        writeSummary(report.summary, into: &w)
        w.endObject()
    }

    /// Requests rendered side by side per batch, in a window of `requestWindow` at a time.
    static let requestBatch = 256
    static let requestWindow = 2048

    /// Writes every request of `sessions` as elements of the open array, in order. With more than one
    /// worker, a window of requests is rendered in batches on the worker threads, each batch into
    /// bytes of its own at the array's indent, and the bytes are written in order (a window while the
    /// next one is rendered): the same document as one `request(_:)` after another, with at most two
    /// windows' bytes held beyond the writer's.
    static func writeRequests(_ sessions: [WaterfallSession], into w: inout JSONWriter) {
        let total = sessions.reduce(0) { $0 + $1.requests.count }
        let writer = RequestJSONWriter(pretty: w.pretty, indent: w.valueIndent)
        guard ReadWorkers.count > 1 && total > requestBatch else {
            for s in sessions {
                for r in s.requests {
                    w.element()
                    w.buf.append(contentsOf: writer.bytes(r))
                }
            }
            return
        }
        // Batches of (session, requests) that never cross a session.
        var batches: [(session: Int, range: Range<Int>)] = []
        for (i, s) in sessions.enumerated() {
            var at = 0
            while at < s.requests.count {
                let end = min(at + requestBatch, s.requests.count)
                batches.append((i, at..<end))
                at = end
            }
        }
        let separator = w.elementSeparator
        // Windows of batches, of about `requestWindow` requests each.
        var windows: [Range<Int>] = []
        var from = 0
        while from < batches.count {
            var to = from
            var n = 0
            while to < batches.count && n < requestWindow {
                n += batches[to].range.count
                to += 1
            }
            windows.append(from..<to)
            from = to
        }
        let all = batches
        let render: @Sendable (Range<Int>) -> [(bytes: [UInt8], count: Int)] = { window in
            // Each request after the separator `element()` writes, laid out on the worker: the batch
            // is then one piece for the writer, not an element and a copy per request on this thread.
            Parallel.map(Array(all[window])) { b -> (bytes: [UInt8], count: Int) in
                let part = writer.bytes(sessions[b.session].requests[b.range])
                var out: [UInt8] = []
                out.reserveCapacity(part.bytes.count + part.ends.count * separator.count)
                var start = 0
                part.bytes.withUnsafeBufferPointer { bytes in
                    for end in part.ends {
                        out.append(contentsOf: separator)
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
                        start = end
                    }
                }
                return (out, part.ends.count)
            }
        }
        // The next window is rendered on the workers while this thread writes the one before: at
        // most two windows' bytes are held.
        var rendered = render(windows[0])
        for k in windows.indices {
            let next = Ahead<[(bytes: [UInt8], count: Int)]>()
            if k + 1 < windows.count {
                let window = windows[k + 1]
                next.start { render(window) }
            }
            for part in rendered {
                part.bytes.withUnsafeBufferPointer { w.elements($0, count: part.count) }
            }
            if k + 1 < windows.count { rendered = next.wait() }
        }
    }

    /// Writes `requestJSON(r)` exactly as `JSONOut` prints it at `indent`, without building it.
    static func writeRequest(_ r: WaterfallRequest, into out: inout String, pretty: Bool, indent: Int) {
        var w = JSONWriter(pretty: pretty, indent: indent)
        w.request(r)
        out += w.text
    }
}

/// A value worked out on a worker thread while the caller does something else (`start`, then `wait`).
final class Ahead<T>: @unchecked Sendable { // `value` is written before `done` is signalled, read after it is waited for
    private var value: T?
    private let done = DispatchSemaphore(value: 0)

    func start(_ work: @escaping @Sendable () -> T) {
        DispatchQueue.global().async {
            self.value = work()
            self.done.signal()
        }
    }

    func wait() -> T {
        done.wait()
        return value.take()!
    }
}

/// The waterfall's numbers and requests, written straight into the JSON writer (String appends and
/// trees cost more than the rest of the waterfall on a large export).
extension JSONWriter {
    /// Milliseconds rounded to the microsecond, as `WaterfallRender.ms` prints them.
    public mutating func ms(_ v: Double?) {
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

    private mutating func appendDigits(_ v: Int64) {
        if v < 10 { buf.append(48 + UInt8(v)); return }
        var tmp:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8
            ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        var x = v
        withUnsafeMutableBytes(of: &tmp) { p in
            while x > 0 { p[n] = UInt8(48 + x % 10); x /= 10; n += 1 }
            for i in stride(from: n - 1, through: 0, by: -1) { buf.append(p[i]) }
        }
    }

    /// One request, keys in sorted order (String `<`), as JSONOut prints them (written by
    /// `RequestJSONWriter` at this writer's place).
    public mutating func request(_ r: WaterfallRequest) {
        buf.append(contentsOf: RequestJSONWriter(pretty: pretty, indent: valueIndent).bytes(r))
    }
}

extension WaterfallRender {
    /// One request as JSON.
    static func requestJSON(_ r: WaterfallRequest) -> JSONOut {
        .object([
            "sessionId": .opt(r.sessionId), "seq": .opt(r.seq), "recordId": .opt(r.recordId),
            "requestId": .opt(r.requestId), "method": .opt(r.method), "url": .opt(r.url),
            "statusCode": .opt(r.statusCode), "state": .opt(r.state), "source": .opt(r.source),
            "category": .opt(r.category), "kind": .opt(r.kind), "label": .opt(r.label),
            "start": .opt(r.start.map { Timestamp.format($0, micro: true) }),
            "offsetMs": ms(r.offsetMs), "durationMs": ms(r.durationMs), "totalMs": ms(r.totalMs), "error": .opt(r.error),
            "hasMetrics": .bool(r.hasMetrics),
            "transactions": .array(r.transactions.map(transactionJSON))
        ])
    }

    /// One transaction as JSON.
    static func transactionJSON(_ t: WaterfallTransaction) -> JSONOut {
        var phases: [String: JSONOut] = [:]
        for p in WaterfallPhase.allCases { phases[p.rawValue] = ms(t.phases[p]) }
        return .object([
            "index": .int(t.index), "phases": .object(phases), "offsetMs": ms(t.offsetMs), "totalMs": ms(t.totalMs),
            "reusedConnection": .opt(t.reusedConnection), "networkProtocol": .opt(t.networkProtocol),
            "remoteAddress": .opt(t.remoteAddress), "remotePort": .opt(t.remotePort), "tlsVersion": .opt(t.tlsVersion),
            "statusCode": .opt(t.statusCode), "url": .opt(t.url), "fetchType": .opt(t.fetchType),
            "anomalies": .array(t.anomalies.map { .string($0) })
        ])
    }

    /// Writes `summaryJSON(s)` exactly as `JSONOut` prints it, one session's tree at a time (an
    /// export can hold a hundred thousand sessions). Keys in sorted order.
    static func writeSummary(_ s: WaterfallSummary, into w: inout JSONWriter) {
        w.beginObject()
        w.key("endpoints")
        w.value(.array(s.endpoints.map(endpointJSON)))
        w.key("endpointsOmitted")
        w.value(.int(s.endpointsOmitted))
        w.key("phases")
        w.value(phasesJSON(s))
        w.key("requests")
        w.value(.int(s.requestCount))
        w.key("sessions")
        w.beginArray()
        for t in s.timelines {
            w.element()
            w.value(timelineJSON(t))
        }
        w.endArray()
        w.key("slowest")
        w.value(.array(s.slowest.map(slowJSON)))
        w.key("transactions")
        w.value(.int(s.transactionCount))
        w.endObject()
    }

    /// The summary as one tree (tests compare the streamed form with it).
    static func summaryJSON(_ s: WaterfallSummary) -> JSONOut {
        .object([
            "requests": .int(s.requestCount),
            "transactions": .int(s.transactionCount),
            "sessions": .array(s.timelines.map(timelineJSON)),
            "slowest": .array(s.slowest.map(slowJSON)),
            "phases": phasesJSON(s),
            "endpoints": .array(s.endpoints.map(endpointJSON)),
            "endpointsOmitted": .int(s.endpointsOmitted)
        ])
    }

    static func phasesJSON(_ s: WaterfallSummary) -> JSONOut {
        var phases: [String: JSONOut] = [:]
        for p in s.phases {
            phases[p.phase.rawValue] = .object(["totalMs": ms(p.totalMs), "count": .int(p.count), "maxMs": ms(p.maxMs)])
        }
        return .object(phases)
    }

    static func timelineJSON(_ t: WaterfallSummary.Timeline) -> JSONOut {
        .object([
            "sessionId": .opt(t.sessionId), "input": .string(t.input), "file": .string(t.file),
            "launchedAt": .opt(t.launchedAt.map { Timestamp.format($0, micro: true) }),
            "origin": .string(t.originSource), "requests": .int(t.requestCount),
            "firstOffsetMs": ms(t.firstOffsetMs), "endOffsetMs": ms(t.endOffsetMs), "busyMs": ms(t.busyMs),
            "maxConcurrency": .int(t.maxConcurrency), "maxConcurrencyAtMs": ms(t.maxConcurrencyAtMs),
            "idleGapCount": .int(t.idleGapCount),
            "idleGaps": .array(t.idleGaps.map { .object(["startOffsetMs": ms($0.startOffsetMs), "durationMs": ms($0.durationMs)]) })
        ])
    }

    static func slowJSON(_ x: WaterfallSummary.Slow) -> JSONOut {
        .object([
            "sessionId": .opt(x.sessionId), "seq": .opt(x.seq), "recordId": .opt(x.recordId),
            "requestId": .opt(x.requestId), "title": .string(x.title), "elapsedMs": ms(x.elapsedMs),
            "dominantPhase": .opt(x.dominant?.rawValue), "dominantMs": ms(x.dominantMs),
            "explanation": .string(x.explanation)
        ])
    }

    static func endpointJSON(_ e: WaterfallSummary.Endpoint) -> JSONOut {
        .object([
            "endpoint": .string(e.key), "count": .int(e.count), "p50Ms": ms(e.p50Ms), "p95Ms": ms(e.p95Ms),
            "maxMs": ms(e.maxMs), "totalMs": ms(e.totalMs)
        ])
    }
}
