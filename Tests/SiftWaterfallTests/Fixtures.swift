import Foundation
import SiftCore
import SiftWaterfall

/// Builders for hand-made session lines. Times are milliseconds after `base`.
enum Fx {
    static let base: Double = Timestamp.parse("2026-11-29T10:15:01Z") ?? 0
    static let sessionId = "ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13"

    /// RFC 3339 with microseconds, `ms` after `base`.
    static func ts(_ ms: Double) -> String { Timestamp.format(base + ms / 1000, micro: true) }

    static func header(launchMs: Double = 0, sessionId: String = sessionId) -> String {
        "{\"type\":\"session\",\"seq\":0,\"ts\":\"\(ts(launchMs))\",\"formatVersion\":1,\"sessionId\":\(jsonString(sessionId)),\"launchedAt\":\"\(ts(launchMs))\"}"
    }

    /// A transaction object from timestamp offsets (field name → ms) plus extra raw members.
    static func tx(_ times: [String: Double], _ extra: [String: String] = [:]) -> String {
        var parts: [String] = []
        for name in TransactionTimes.fieldNames {
            if let v = times[name] { parts.append("\"\(name)\":\"\(ts(v))\"") }
        }
        for (k, v) in extra.sorted(by: { $0.key < $1.key }) { parts.append("\"\(k)\":\(v)") }
        return "{" + parts.joined(separator: ",") + "}"
    }

    /// A full new connection: fetch at `at`, dns 18, tcp 31, tls 42, request 3, waiting `wait`, download 4.
    static func newConnection(
        at: Double, wait: Double = 121, status: Int = 200, url: String? = nil,
        extra: [String: String] = [:]
    ) -> String {
        var e = [
            "networkProtocol": "\"h2\"", "reusedConnection": "false", "fetchType": "\"network\"",
            "remoteAddress": "\"203.0.113.7\"", "remotePort": "443", "tlsVersion": "\"1.3\"", "statusCode": "\(status)"
        ]
        if let url { e["url"] = jsonString(url) }
        for (k, v) in extra { e[k] = v }
        return tx(
            [
                "fetchStart": at, "domainLookupStart": at + 2, "domainLookupEnd": at + 20, "connectStart": at + 20,
                "secureConnectionStart": at + 51, "secureConnectionEnd": at + 93, "connectEnd": at + 93,
                "requestStart": at + 93, "requestEnd": at + 96, "responseStart": at + 96 + wait,
                "responseEnd": at + 100 + wait
            ], e)
    }

    /// A reused connection: blocked 1, request 2, waiting `wait`, download `dl`.
    static func reused(
        at: Double, wait: Double = 20, dl: Double = 5, status: Int = 200, url: String? = nil,
        extra: [String: String] = [:]
    ) -> String {
        var e = [
            "networkProtocol": "\"h2\"", "reusedConnection": "true", "fetchType": "\"network\"",
            "remoteAddress": "\"203.0.113.7\"", "remotePort": "443", "tlsVersion": "\"1.3\"", "statusCode": "\(status)"
        ]
        if let url { e["url"] = jsonString(url) }
        for (k, v) in extra { e[k] = v }
        return tx(
            [
                "fetchStart": at, "requestStart": at + 1, "requestEnd": at + 3, "responseStart": at + 3 + wait,
                "responseEnd": at + 3 + wait + dl
            ], e)
    }

    /// A network record. `txs` are transaction objects; `metrics: false` omits metrics.
    static func network(
        seq: Int, id: String, method: String = "GET", url: String, durationMs: Double?,
        endMs: Double, txs: [String], taskStartMs: Double? = nil, taskEndMs: Double? = nil,
        metrics: Bool = true, kind: String = "http", category: String = "call", source: String = "sdk",
        state: String = "success", status: Int? = 200, label: String = "call",
        requestId: String? = nil, extra: String = ""
    ) -> String {
        var s =
            "{\"type\":\"network\",\"seq\":\(seq),\"ts\":\"\(ts(endMs))\",\"id\":\(jsonString(id)),\"source\":\(jsonString(source)),\"kind\":\(jsonString(kind)),\"category\":\(jsonString(category)),\"label\":\(jsonString(label)),\"method\":\(jsonString(method)),\"url\":\(jsonString(url)),\"state\":\"\(state)\""
        if let status { s += ",\"statusCode\":\(status)" }
        if let durationMs { s += ",\"duration\":\(durationMs / 1000)" }
        if let requestId { s += ",\"requestId\":\"\(requestId)\"" }
        if metrics {
            var m: [String] = []
            if let a = taskStartMs { m.append("\"taskStart\":\"\(ts(a))\"") }
            if let b = taskEndMs { m.append("\"taskEnd\":\"\(ts(b))\"") }
            m.append("\"redirectCount\":\(max(0, txs.count - 1))")
            m.append("\"transactions\":[" + txs.joined(separator: ",") + "]")
            s += ",\"metrics\":{" + m.joined(separator: ",") + "}"
        }
        return s + extra + "}"
    }

    static func jsonString(_ s: String) -> String {
        var out = ""
        JSONOut.quote(s, into: &out)
        return out
    }

    static func record(_ line: Int, _ json: String) throws -> Record {
        Record(line: line, json: try JSONDocument(string: json).root)
    }

    /// Runs the collector over one session's lines and returns it (finished).
    static func collect(
        _ lines: [String], input: String = "export.zip",
        file: String = "sessions/ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13.jsonl"
    ) throws
        -> (sessions: [WaterfallSession], findings: [Finding])
    {
        let c = WaterfallCollector()
        c.beginSession(input: input, file: file, sessionId: nil)
        for (i, l) in lines.enumerated() { c.add(try record(i + 1, l)) }
        c.endSession(sessionId: nil, launchedAt: nil)
        let f = c.finish()
        return (c.sessions, f)
    }

    /// The one request of a one-record session.
    static func single(_ line: String, header: Bool = true) throws -> (WaterfallRequest, [Finding]) {
        let (s, f) = try collect(header ? [Fx.header(), line] : [line])
        guard let r = s.first?.requests.first else { throw FixtureError.noRequest }
        return (r, f)
    }

    enum FixtureError: Error { case noRequest }
}
