import Foundation
import SiftCore

/// A log platform `--emit-query` writes for.
public enum QueryPlatform: String, Sendable, CaseIterable {
    case loki, elasticsearch, clickhouse, bigquery, cloudwatch

    /// At most this many ids go in one query (the platform's limit, with room to spare).
    public var maxIdsPerQuery: Int {
        switch self {
        // A 100-id alternation is ~4.2 KB of LogQL: inside the 8 KiB URL limit of common proxies in front of Loki.
        case .loki: 100
        // `index.max_terms_count` allows 65,536 terms, but one search returns at most 10,000 hits
        // (`index.max_result_window`): 2,000 ids leave room for five lines each.
        case .elasticsearch: 2_000
        // `max_query_size` defaults to 262,144 bytes; 5,000 quoted ids are ~215 KB.
        case .clickhouse: 5_000
        // Ids travel as a query parameter; 10,000 keep the request far below BigQuery's 10 MB.
        case .bigquery: 10_000
        // Bounded by the 10,000-character query string instead (see `QueryEmitter.cloudwatch`).
        case .cloudwatch: 10_000
        }
    }
}

/// Prints the queries that fetch exactly the given request ids in a time window from a log platform.
///
/// Each query's results, exported as JSON lines, are valid `--logs` input: the scanner finds the id in
/// any field at any depth (Loki's `line`, Elasticsearch's `_source`, CloudWatch's `@message`).
public enum QueryEmitter {
    /// The longest Logs Insights query string CloudWatch accepts.
    public static let cloudwatchMaxQueryChars = 10_000

    /// The queries for `platform`, one per line (comment lines where the language has them).
    /// `ids` are sorted and deduplicated; `from`/`to` are seconds since 1970 (margin included).
    public static func emit(
        _ platform: QueryPlatform, ids: [String], from: Double, to: Double,
        target: QueryTarget = QueryTarget()
    ) -> String {
        emit(platform, scopes: [QueryScope(ids: ids, from: from, to: to)], target: target)
    }

    /// `'text'` for a POSIX shell: every `'` closed, escaped and reopened.
    public static func shellQuote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The queries for several scopes (groups of ids with their own window), numbered across all.
    public static func emit(_ platform: QueryPlatform, scopes: [QueryScope], target: QueryTarget = QueryTarget()) -> String {
        let idField = target.idField ?? "request_id"
        var batches: [(ids: [String], from: Double, to: Double)] = []
        for scope in scopes {
            let ids = Array(Set(scope.ids)).sorted()
            let split: [[String]]
            if platform == .cloudwatch {
                split = packCloudwatch(ids, field: target.idField)
            } else {
                split = stride(from: 0, to: ids.count, by: platform.maxIdsPerQuery).map {
                    Array(ids[$0..<min(ids.count, $0 + platform.maxIdsPerQuery)])
                }
            }
            for b in split { batches.append((b, scope.from, scope.to)) }
        }
        var out = ""
        for (k, item) in batches.enumerated() {
            let batch = item.ids
            let from = item.from, to = item.to
            let fromText = Timestamp.format(from.rounded(.down))
            let toText = Timestamp.format(to.rounded(.up))
            let head = "query \(k + 1) of \(batches.count): \(batch.count) request ids, \(fromText) to \(toText)"
            switch platform {
            case .loki:
                let filter = batch.joined(separator: "|")
                let stream = target.stream ?? "{job=~\".+\"}"
                out += "# \(head)\n"
                out += "logcli query --from='\(fromText)' --to='\(toText)' --limit=100000 --output=jsonl "
                out += shellQuote("\(stream) |~ \"\(filter)\"") + "\n"
            case .elasticsearch:
                let time = target.timeField ?? "@timestamp"
                let body: JSONOut = .object([
                    "size": .int(10_000),
                    "sort": .array([.object([time: .string("asc")])]),
                    "query": .object([
                        "bool": .object([
                            "filter": .array([
                                .object(["terms": .object([idField: .array(batch.map { .string($0) })])]),
                                .object(["range": .object([time: .object(["gte": .string(fromText), "lte": .string(toText)])])])
                            ])
                        ])
                    ])
                ])
                let index = target.table ?? "logs-*"
                out += "# \(head)\n"
                out +=
                    "curl -sS -H 'Content-Type: application/json' \"${ES_URL:-http://localhost:9200}/\(index)/_search?filter_path=hits.hits._source\" "
                out += "-d " + shellQuote(body.render(pretty: false)) + "\n"
            case .clickhouse:
                let list = batch.map { "'\($0)'" }.joined(separator: ", ")
                out += "-- \(head)\n"
                let time = sqlName(target.timeField ?? "ts")
                out +=
                    "SELECT * FROM \(sqlName(target.table ?? "logs")) WHERE \(sqlName(idField)) IN (\(list)) AND \(time) BETWEEN parseDateTime64BestEffort('\(fromText)', 3) AND parseDateTime64BestEffort('\(toText)', 3) ORDER BY \(time) FORMAT JSONEachRow;\n"
            case .bigquery:
                let array = batch.map { "\"\($0)\"" }.joined(separator: ",")
                out += "# \(head)\n"
                out += "bq query --nouse_legacy_sql --format=json --max_rows=1000000"
                out += " --parameter='ids:ARRAY<STRING>:[\(array)]'"
                out += " --parameter='from:TIMESTAMP:\(fromText)' --parameter='to:TIMESTAMP:\(toText)'"
                let time = sqlName(target.timeField ?? "ts")
                out +=
                    " 'SELECT * FROM `\(target.table ?? "project.dataset.logs")` WHERE \(sqlName(idField)) IN UNNEST(@ids) AND \(time) BETWEEN @from AND @to ORDER BY \(time)'\n"
            case .cloudwatch:
                out += "# \(head)\n"
                let group = target.logGroup.map(shellQuote) ?? "\"$LOG_GROUP\""
                out +=
                    "aws logs start-query --log-group-names \(group) --start-time \(seconds(from.rounded(.down))) --end-time \(seconds(to.rounded(.up)))"
                out += " --query-string " + shellQuote(cloudwatchQuery(batch, field: target.idField)) + "\n"
            }
        }
        return out
    }

    /// The Logs Insights query for `ids`.
    public static func cloudwatchQuery(_ ids: [String], field: String? = nil) -> String {
        "fields @timestamp, @message | filter \(field ?? "@message") like /\(ids.joined(separator: "|"))/ | sort @timestamp asc | limit 10000"
    }

    /// An SQL name as it is when plain (`logs`, `db.logs`), else each dotted part in backticks.
    static func sqlName(_ name: String) -> String {
        name.split(separator: ".", omittingEmptySubsequences: false).map { part -> String in
            let plain =
                !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                && !(part.first?.isNumber ?? true)
            return plain ? String(part) : "`" + part.replacingOccurrences(of: "`", with: "") + "`"
        }.joined(separator: ".")
    }

    /// Whole seconds, clamped to what an Int64 holds.
    static func seconds(_ t: Double) -> Int64 {
        guard t.isFinite else { return 0 }
        return Int64(exactly: t.rounded()) ?? (t < 0 ? Int64.min : Int64.max)
    }

    /// Packs ids greedily so that each query string stays within `cloudwatchMaxQueryChars`.
    static func packCloudwatch(_ ids: [String], field: String? = nil) -> [[String]] {
        let overhead = cloudwatchQuery([], field: field).count
        var out: [[String]] = []
        var cur: [String] = []
        var len = overhead
        for id in ids {
            let add = id.count + (cur.isEmpty ? 0 : 1)
            if !cur.isEmpty && len + add > cloudwatchMaxQueryChars {
                out.append(cur)
                cur = []
                len = overhead
            }
            len += id.count + (cur.isEmpty ? 0 : 1)
            cur.append(id)
        }
        if !cur.isEmpty { out.append(cur) }
        return out
    }

    /// The ids of a join (minted and echoed, valid ones only), grouped by time: requests less than `gap`
    /// seconds apart share a query window, from the first request's start to the last one's end, widened
    /// by `margin`. A request starts at its `requestStart`, else its `ts`, else its session's start, and
    /// ends at the latest of its start, `responseEnd` and `ts`.
    public static func scopes(requests: [NetworkEntry], sessions: [SessionEntry], margin: Double, gap: Double = 3600) -> [QueryScope] {
        var starts: [String: Double] = [:]
        for s in sessions { if let id = s.sessionId, let w = s.window { starts[id] = w.from } }
        var timed: [(t: Double, end: Double, ids: [String])] = []
        for r in requests {
            let ids = [r.mintedID, r.echoedID].compactMap { $0?.description }
            guard !ids.isEmpty, let t = r.requestStart ?? r.ts ?? r.sessionId.flatMap({ starts[$0] }) else { continue }
            // The request runs until its response ends (a long upload can last minutes).
            let end = [t, r.responseEnd, r.ts].compactMap { $0 }.max() ?? t
            timed.append((t, end, ids))
        }
        timed.sort { $0.t != $1.t ? $0.t < $1.t : $0.ids.lexicographicallyPrecedes($1.ids) }
        var out: [QueryScope] = []
        for item in timed {
            // In place: a copy of the last scope per request would copy its ids each time (quadratic).
            let n = out.count
            if n > 0, item.t - out[n - 1].to <= gap {
                out[n - 1].ids += item.ids
                out[n - 1].to = max(out[n - 1].to, item.end)
            } else {
                out.append(QueryScope(ids: item.ids, from: item.t, to: item.end))
            }
        }
        return out.map { QueryScope(ids: Array(Set($0.ids)).sorted(), from: $0.from - margin, to: $0.to + margin) }
    }
}

/// Where the ids and times live on the platform: the names `--emit-query` writes into its queries.
/// Each nil means the platform's usual default.
public struct QueryTarget: Sendable, Equatable {
    /// The field that holds the request id (`request_id`). Loki filters the line text instead; for
    /// CloudWatch a field given here replaces the `@message` text filter.
    public var idField: String?
    /// The timestamp field (`@timestamp` for Elasticsearch, `ts` for ClickHouse and BigQuery).
    public var timeField: String?
    /// The table (`logs`, `project.dataset.logs`) or the Elasticsearch index (`logs-*`).
    public var table: String?
    /// Loki's stream selector (`{job=~".+"}`).
    public var stream: String?
    /// CloudWatch's log group (`$LOG_GROUP`: set it in the shell).
    public var logGroup: String?

    public init(
        idField: String? = nil, timeField: String? = nil, table: String? = nil, stream: String? = nil,
        logGroup: String? = nil
    ) {
        self.idField = idField
        self.timeField = timeField
        self.table = table
        self.stream = stream
        self.logGroup = logGroup
    }

    /// Why a name can't go into a query as it is, or nil: field, table and index names are plain
    /// identifiers (letters, digits, `_ . @ - *`), a stream selector is `{…}` on one line.
    public static func problem(option: String, value: String) -> String? {
        if option == "stream" {
            let ok = value.hasPrefix("{") && value.hasSuffix("}") && !value.contains(where: { $0.isNewline })
            return ok ? nil : "a Loki stream selector such as {app=\"api\"}"
        }
        if option == "log-group" {
            let ok =
                !value.isEmpty && value.count <= 512
                && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-/.#".contains($0)) }
            return ok ? nil : "a CloudWatch log group name such as /aws/ecs/api"
        }
        let ok =
            !value.isEmpty && value.count <= 256 && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_.@-*".contains($0)) }
        return ok ? nil : "a plain name (letters, digits, _ . @ - *)"
    }
}

/// A group of request ids and the time window to fetch their lines in (seconds since 1970).
public struct QueryScope: Sendable, Equatable {
    /// The request ids, `req_<uuid>`.
    public var ids: [String]
    /// Window start, margin included.
    public var from: Double
    /// Window end, margin included.
    public var to: Double

    public init(ids: [String], from: Double, to: Double) {
        self.ids = ids
        self.from = from
        self.to = to
    }
}
