import Foundation
import SiftCore
import SiftCorrelate

/// The `--emit-query` options that name where the ids and times live on the log platform.
enum QueryOptions {
    static let options: [OptionSpec] = [
        option("id-field", value: "name", help: "With --emit-query: the field holding the request id. (default: request_id)"),
        option(
            "time-field", value: "name",
            help: "With --emit-query: the timestamp field. (default: @timestamp for elasticsearch, ts for clickhouse and bigquery)"),
        option(
            "table", value: "name",
            help: "With --emit-query: the table, or the Elasticsearch index. (default: logs, project.dataset.logs, logs-*)"),
        option("stream", value: "selector", help: "With --emit-query loki: the stream selector. (default: {job=~\".+\"})"),
        option("log-group", value: "name", help: "With --emit-query cloudwatch: the log group. (default: $LOG_GROUP)")
    ]

    /// A value that goes into a query: checked by `QueryTarget.problem`.
    static func option(_ name: String, value: String, help: String) -> OptionSpec {
        OptionSpec(name, value: value, help: help, kind: .rule { QueryTarget.problem(option: name, value: $0) })
    }

    /// The target the options name; a usage error for a name that can't go into a query, or for an
    /// option given without `--emit-query`.
    static func target(_ options: ParsedOptions, platform: QueryPlatform?) throws -> QueryTarget {
        var t = QueryTarget()
        for o in QueryOptions.options {
            guard let value = options.value(o.name) else { continue }
            guard platform != nil else {
                throw UsageError("applies only with '--emit-query <platform>'", about: "--" + o.name)
            }
            switch o.name {
            case "id-field": t.idField = value
            case "time-field": t.timeField = value
            case "table": t.table = value
            case "stream": t.stream = value
            default: t.logGroup = value
            }
        }
        return t
    }

    /// A note when the logs hold none of the ids the sessions minted: the wrong logs, or another time.
    static func noMatchHint(_ report: CorrelationReport) -> SafeText? {
        let withId = report.requests.count
        guard withId > 0, report.count(.matched) + report.count(.idMismatch) == 0 else { return nil }
        let files = report.logs.files.count
        var window: SafeText = ""
        if let from = report.sessions.compactMap(\.windowFrom).min(), let to = report.sessions.compactMap(\.windowTo).max() {
            window =
                " (the sessions ran \(SafeText(program: Timestamp.format(from))) to \(SafeText(program: Timestamp.format(to))), margin included)"
        }
        let lines = report.logs.lineCount
        let head: SafeText = "note: none of the \(withId) request id\(withId == 1 ? "" : "s") of these sessions appears in the given logs "
        return head + "(\(files) file\(files == 1 ? "" : "s"), \(lines) line\(lines == 1 ? "" : "s")): "
            + "are these the right logs, and do they cover the sessions' time\(window)?\n"
    }
}
