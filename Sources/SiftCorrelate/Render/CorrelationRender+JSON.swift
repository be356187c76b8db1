import Foundation
import SiftCore

extension CorrelationRender {
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
            "serverLines": .array(c.lines.map(lineJSON)), "serverLinesNotKept": .int(c.linesNotKept),
            "serverMs": ms(c.serverMs), "waitingMs": ms(c.waitingMs), "networkMs": ms(c.networkMs),
            "logsCover": .opt(c.logsCover)
        ])
    }

    static func sessionJSON(_ s: CorrelatedSession) -> JSONOut {
        .object([
            "sessionId": .opt(s.entry.sessionId), "userId": .opt(s.entry.userId),
            "window": .object(["from": ts(s.windowFrom), "to": ts(s.windowTo)]),
            "serverOnly": .object([
                "count": .int(s.serverOnly.count),
                "withUserId": .int(s.serverOnly.withUserId)
            ])
        ])
    }

    static func sections(_ r: CorrelationReport, listing: Bool = true) -> [String: JSONOut] {
        let requests: [JSONOut] = listing ? r.requests.map(requestJSON) : []
        let sessions: [JSONOut] = listing ? r.sessions.map(sessionJSON) : []
        let files: [JSONOut] = r.logs.files.map { f in
            .object([
                "file": .string(f.file), "encoding": .string(f.encoding), "format": .opt(f.format?.rawValue),
                "bytes": .int(Int(f.bytes)), "lines": .int(f.lines), "matchedLines": .int(f.matchedLines),
                "longLines": .int(f.longLines), "readsAsLog": f.readsAsLog.map { .bool($0) } ?? .null,
                "fieldsRead": .array(f.fieldsRead.map { .string($0.rawValue) }), "error": .opt(f.error),
                "durationUnits": .array(f.readUnits.duration.map { .string($0) }),
                "timesToTheSecond": f.readUnits.timesToTheSecond.map { .bool($0) } ?? .null,
                "durationUnitNote": .opt(f.durationUnitNote), "joinNote": .opt(f.joinNote),
                "timezone": .opt(f.inferredOffset.map(Correlator.zoneName)),
                "from": ts(f.firstTs), "to": ts(f.lastTs)
            ])
        }
        let skew = r.clockSkew
        return [
            "requests": .array(requests),
            "sessions": .array(sessions),
            "serverOnly": .object([
                "count": .int(r.serverOnly.ids.count),
                "requestIds": .array(r.serverOnly.ids.prefix(10_000).map { .string($0.description) }),
                "withUserId": .object([
                    "count": .int(r.serverOnly.withUserId.count),
                    "requestIds": .array(r.serverOnly.withUserId.prefix(10_000).map { .string($0.description) })
                ]),
                "truncated": .bool(r.serverOnlyTruncated)
            ]),
            "clockSkew": .object([
                "seconds": skew.seconds.map { .double(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null,
                "samples": .int(skew.samples),
                "uncertainty": skew.uncertainty.map { .double(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null,
                "outliers": .int(skew.outliers),
                "method": .string("marzullo"),
                "basis": .string(skew.basis), "fieldSamples": .int(skew.fieldSamples), "textSamples": .int(skew.textSamples),
                "textSeconds": skew.textSeconds.map { .double(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null
            ]),
            "correlation": .object([
                "requests": .int(r.requests.count), "matched": .int(r.count(.matched)),
                "clientOnly": .int(r.count(.clientOnly)), "idMismatch": .int(r.count(.idMismatch)),
                "withoutRequestId": .int(r.withoutRequestId), "windowMarginSeconds": .double(r.windowMargin)
            ]),
            "logs": .object([
                "files": .array(files), "filesScanned": .int(r.logs.files.count),
                "bytes": .int(Int(r.logs.bytes)), "lines": .int(r.logs.lineCount),
                "matchedLines": .int(r.logs.files.reduce(0) { $0 + $1.matchedLines }),
                "droppedLines": .int(r.logs.droppedLines), "droppedWindowIds": .int(r.logs.droppedSeen),
                "errors": .array(r.logs.allErrors.map { .string($0) })
            ])
        ]
    }

    static func lineJSON(_ p: PlacedLine) -> JSONOut {
        let l = p.line
        return .object([
            "file": .string(l.file), "line": .int(l.line), "ts": ts(l.parsed.ts), "deviceTs": ts(p.deviceTs),
            "level": .opt(l.parsed.level), "status": .opt(l.parsed.status), "durationMs": ms(l.parsed.durationMs),
            "durationUnit": .opt(l.parsed.durationUnit),
            "message": .opt(l.parsed.message), "format": .string(l.parsed.format.rawValue),
            "method": .opt(l.parsed.method), "path": .opt(l.parsed.path), "idInField": .bool(p.idInField),
            "joinedBy": .string(l.joinedBy.rawValue),
            "cause": .opt(l.parsed.cause), "continuation": .array(l.parsed.continuation.map { .string($0) }),
            // A line may carry thousands of ids: the first 16 are listed, the count is exact.
            // A line joined by method, path and time carries no id (its `ids` only tie it to the request).
            "requestIds": .array((l.joinedBy == .requestLine ? [] : l.ids).prefix(16).map { .string($0.description) }),
            "requestIdCount": .int(l.joinedBy == .requestLine ? 0 : l.ids.count),
            "fields": .object(l.parsed.fields.mapValues { .string($0) })
        ])
    }
}
