import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

@Suite struct QueryTests {
    let ids = [rid(2), rid(1), rid(2)]
    let from = Timestamp.parse("2026-11-29T12:54:01.002Z")!
    let to = Timestamp.parse("2026-11-29T13:01:00.500Z")!

    @Test func loki() {
        #expect(
            QueryEmitter.emit(.loki, ids: ids, from: from, to: to) == """
                # query 1 of 1: 2 request ids, 2026-11-29T12:54:01.000Z to 2026-11-29T13:01:01.000Z
                logcli query --from='2026-11-29T12:54:01.000Z' --to='2026-11-29T13:01:01.000Z' --limit=100000 --output=jsonl '{job=~".+"} |~ "req_00000001-1111-4222-8333-000000000001|req_00000002-1111-4222-8333-000000000002"'

                """)
    }

    @Test func elasticsearch() {
        #expect(
            QueryEmitter.emit(.elasticsearch, ids: ids, from: from, to: to) == """
                # query 1 of 1: 2 request ids, 2026-11-29T12:54:01.000Z to 2026-11-29T13:01:01.000Z
                curl -sS -H 'Content-Type: application/json' "${ES_URL:-http://localhost:9200}/logs-*/_search?filter_path=hits.hits._source" -d '{"query":{"bool":{"filter":[{"terms":{"request_id":["req_00000001-1111-4222-8333-000000000001","req_00000002-1111-4222-8333-000000000002"]}},{"range":{"@timestamp":{"gte":"2026-11-29T12:54:01.000Z","lte":"2026-11-29T13:01:01.000Z"}}}]}},"size":10000,"sort":[{"@timestamp":"asc"}]}'

                """)
    }

    @Test func clickhouse() {
        #expect(
            QueryEmitter.emit(.clickhouse, ids: ids, from: from, to: to) == """
                -- query 1 of 1: 2 request ids, 2026-11-29T12:54:01.000Z to 2026-11-29T13:01:01.000Z
                SELECT * FROM logs WHERE request_id IN ('req_00000001-1111-4222-8333-000000000001', 'req_00000002-1111-4222-8333-000000000002') AND ts BETWEEN parseDateTime64BestEffort('2026-11-29T12:54:01.000Z', 3) AND parseDateTime64BestEffort('2026-11-29T13:01:01.000Z', 3) ORDER BY ts FORMAT JSONEachRow;

                """)
    }

    @Test func bigquery() {
        #expect(
            QueryEmitter.emit(.bigquery, ids: ids, from: from, to: to) == """
                # query 1 of 1: 2 request ids, 2026-11-29T12:54:01.000Z to 2026-11-29T13:01:01.000Z
                bq query --nouse_legacy_sql --format=json --max_rows=1000000 --parameter='ids:ARRAY<STRING>:["req_00000001-1111-4222-8333-000000000001","req_00000002-1111-4222-8333-000000000002"]' --parameter='from:TIMESTAMP:2026-11-29T12:54:01.000Z' --parameter='to:TIMESTAMP:2026-11-29T13:01:01.000Z' 'SELECT * FROM `project.dataset.logs` WHERE request_id IN UNNEST(@ids) AND ts BETWEEN @from AND @to ORDER BY ts'

                """)
    }

    @Test func cloudwatch() {
        #expect(
            QueryEmitter.emit(.cloudwatch, ids: ids, from: from, to: to) == """
                # query 1 of 1: 2 request ids, 2026-11-29T12:54:01.000Z to 2026-11-29T13:01:01.000Z
                aws logs start-query --log-group-names "$LOG_GROUP" --start-time 1795956841 --end-time 1795957261 --query-string 'fields @timestamp, @message | filter @message like /req_00000001-1111-4222-8333-000000000001|req_00000002-1111-4222-8333-000000000002/ | sort @timestamp asc | limit 10000'

                """)
    }

    /// `--id-field`, `--time-field`, `--table`, `--stream`, `--log-group` go where each language takes them.
    @Test func targetNames() {
        let t = QueryTarget(idField: "req_id", timeField: "time", table: "app-logs", stream: #"{app="api"}"#, logGroup: "/aws/ecs/api")
        let loki = QueryEmitter.emit(.loki, ids: ids, from: from, to: to, target: t)
        #expect(loki.contains(#"'{app="api"} |~ "req_00000001"#))
        let es = QueryEmitter.emit(.elasticsearch, ids: ids, from: from, to: to, target: t)
        #expect(es.contains("/app-logs/_search"))
        #expect(es.contains(#"{"terms":{"req_id":["#) && es.contains(#"{"range":{"time":{"gte""#))
        let ch = QueryEmitter.emit(.clickhouse, ids: ids, from: from, to: to, target: t)
        #expect(ch.contains("SELECT * FROM `app-logs` WHERE req_id IN ("))
        #expect(ch.contains("ORDER BY time FORMAT"))
        let bq = QueryEmitter.emit(.bigquery, ids: ids, from: from, to: to, target: t)
        #expect(bq.contains("FROM `app-logs` WHERE req_id IN UNNEST(@ids) AND time BETWEEN"))
        let cw = QueryEmitter.emit(.cloudwatch, ids: ids, from: from, to: to, target: t)
        #expect(cw.contains("--log-group-names '/aws/ecs/api'"))
        #expect(cw.contains("filter req_id like /"))
        // Names that would break out of the query or the shell are refused.
        #expect(QueryTarget.problem(option: "table", value: "logs; DROP TABLE x") != nil)
        #expect(QueryTarget.problem(option: "id-field", value: "a'b") != nil)
        #expect(QueryTarget.problem(option: "stream", value: "job=api") != nil)
        #expect(QueryTarget.problem(option: "stream", value: #"{job="api"}"#) == nil)
        #expect(QueryTarget.problem(option: "log-group", value: "/aws/ecs/api") == nil)
        #expect(QueryEmitter.shellQuote("it's") == #"'it'\''s'"#)
    }

    @Test func splitsWherePlatformLimitsRequire() {
        let many = (0..<1000).map(rid)
        let loki = QueryEmitter.emit(.loki, ids: many, from: from, to: to)
        #expect(loki.split(separator: "\n").filter { $0.hasPrefix("logcli") }.count == 10)
        let cw = QueryEmitter.emit(.cloudwatch, ids: many, from: from, to: to)
        let queries = cw.split(separator: "\n").filter { $0.hasPrefix("aws") }
        #expect(queries.count == 5)
        for q in queries {
            let start = q.range(of: "--query-string '")!.upperBound
            #expect(q[start...].dropLast().count <= QueryEmitter.cloudwatchMaxQueryChars)
        }
        // Every id is asked for exactly once.
        let asked = queries.flatMap { q in many.filter { q.contains($0) } }
        #expect(asked.count == 1000)
        #expect(
            QueryEmitter.emit(.elasticsearch, ids: many, from: from, to: to).split(separator: "\n").filter { $0.hasPrefix("curl") }.count
                == 1)
        #expect(
            QueryEmitter.emit(.elasticsearch, ids: (0..<4001).map(rid), from: from, to: to).split(separator: "\n").filter {
                $0.hasPrefix("curl")
            }.count == 3)
        #expect(QueryEmitter.emit(.clickhouse, ids: (0..<12_000).map(rid), from: from, to: to).split(separator: "\n").count == 6)
    }

    @Test func platformExportsAreValidLogsInput() throws {
        // The JSON-lines export of each query's results: the id is found in any field, at any depth.
        let id = rid(1)
        let inner = "{\\\"ts\\\":\\\"2026-11-29T12:55:00Z\\\",\\\"request_id\\\":\\\"\(id)\\\",\\\"status\\\":200}"
        let dir = tempDir()
        write(dir + "/loki.jsonl", "{\"labels\":{\"job\":\"api\"},\"timestamp\":\"2026-11-29T12:55:00.5Z\",\"line\":\"\(inner)\"}\n")
        write(
            dir + "/es.jsonl",
            "{\"_index\":\"logs\",\"_source\":{\"@timestamp\":\"2026-11-29T12:55:00Z\",\"request_id\":\"\(id)\",\"status\":200}}\n")
        write(dir + "/ch.jsonl", "{\"ts\":\"2026-11-29 12:55:00.000\",\"request_id\":\"\(id)\",\"status\":200}\n")
        write(dir + "/bq.jsonl", "{\"ts\":\"2026-11-29 12:55:00 UTC\",\"request_id\":\"\(id)\",\"status\":\"200\"}\n")
        write(dir + "/cw.jsonl", "{\"@timestamp\":\"2026-11-29 12:55:00.000\",\"@message\":\"\(inner)\"}\n")
        let r = LogScanner(request: ScanRequest(ids: RequestIDSet([RequestID(id)!]))).scan(paths: [dir])
        #expect(r.lines.count == 5)
        let t = Timestamp.parse("2026-11-29T12:55:00Z")!
        for l in r.lines {
            #expect(l.parsed.status == 200, "\(l.file)")
            #expect(l.parsed.ts == t, "\(l.file)")
        }
    }

    @Test func scopesFollowTheRequests() {
        func entry(_ n: Int, _ start: Double, _ end: Double) -> NetworkEntry {
            NetworkEntry(
                input: "x", file: "f", sessionId: "s", seq: n, line: n, requestId: rid(n), echoedRequestId: rid(n + 100),
                ts: end, requestStart: start, responseEnd: end)
        }
        let t = from
        // Two requests close together, one a day later: two windows, not one spanning the day.
        let scopes = QueryEmitter.scopes(
            requests: [entry(1, t, t + 1), entry(2, t + 600, t + 700), entry(3, t + 86400, t + 86401)],
            sessions: [], margin: 60)
        #expect(scopes.count == 2)
        #expect(scopes[0].ids == [rid(1), rid(2), rid(101), rid(102)])
        #expect(scopes[0].from == t - 60 && scopes[0].to == t + 760)
        #expect(scopes[1].ids == [rid(3), rid(103)])
        let text = QueryEmitter.emit(.clickhouse, scopes: scopes)
        #expect(text.contains("-- query 1 of 2: 4 request ids"))
        #expect(text.contains("-- query 2 of 2: 2 request ids"))
    }
}
