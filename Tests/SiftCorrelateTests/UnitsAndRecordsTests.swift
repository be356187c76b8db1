import Foundation
import SiftCore
import Testing

@testable import SiftCorrelate

/// Units a field's name or convention states, statuses of requests with no response, batches of
/// records on one line, and a duration told by a request's first and last lines.
@Suite struct UnitsAndRecordsTests {
    @Test(arguments: [
        ("attributes.http.server.request.duration", TimeUnit.seconds), ("duration_ms", .milliseconds),
        ("elapsed_us", .microseconds), ("latency_seconds", .seconds), ("took_ns", .nanoseconds), ("durationMs", .milliseconds)
    ])
    func aFieldNameStatesItsUnit(_ c: (String, TimeUnit)) {
        #expect(LineParser.unit(ofKey: c.0) == c.1)
    }

    @Test func nameWithoutAUnitTellsNone() {
        #expect(LineParser.unit(ofKey: "duration") == nil)
        #expect(LineParser.unit(ofKey: "status") == nil)
    }

    @Test func aDurationWithASpaceBeforeItsUnitIsRead() {
        #expect(LineParser.durationText("18 ms", factor: 1) == 18)
        #expect(LineParser.durationText("0.101s", factor: 1) == 101)
    }

    @Test func aFractionalNanosecondDurationIsSeconds() {
        let p = LineParser.parse(
            #"{"duration":0.101,"level":"info","msg":"request completed","request_id":"\#(rid(1))","status":200,"time":"2026-11-29T12:55:03Z"}"#
        )
        #expect(p.durationMs.map { abs($0 - 101) < 1e-6 } == true, "\(String(describing: p.durationMs))")
    }

    /// `responseTime` as a whole number is milliseconds (express-winston, pino-http); with a fraction, seconds.
    @Test(arguments: [("101", 101.0), ("0.101", 101.0), ("1.000", 1000.0)])
    func responseTimeByHowItIsWritten(_ c: (String, Double)) {
        let p = LineParser.parse(
            #"{"meta":{"req":{"method":"GET","url":"/v1/x"},"res":{"statusCode":200},"responseTime":\#(c.0)},"level":"info","timestamp":"2026-11-29T12:55:03.748Z","request_id":"\#(rid(1))"}"#
        )
        #expect(p.durationMs.map { abs($0 - c.1) < 1e-6 } == true, "\(c.0): \(String(describing: p.durationMs))")
    }

    /// `timeTaken`: IIS's whole milliseconds, or seconds with a fraction (Azure Front Door).
    @Test(arguments: [("101", 101.0, "ms"), ("\"0.101\"", 101.0, "s"), ("0.101", 101.0, "s")])
    func timeTakenByHowItIsWritten(_ c: (String, Double, String)) {
        let p = LineParser.parse(
            #"{"time":"2026-11-29T12:55:03.748Z","properties":{"httpMethod":"GET","httpStatusCode":"200","timeTaken":\#(c.0),"requestId":"\#(rid(1))"}}"#
        )
        #expect(p.durationMs.map { abs($0 - c.1) < 1e-6 } == true, "\(c.0): \(String(describing: p.durationMs))")
        #expect(p.durationUnit == c.2)
    }

    /// A file's durations read a thousandth of what they are are read one unit up, and say from which.
    @Test func aCorrectedUnitNamesBothUnits() {
        #expect(Correlator.unit("µs", times: 1000) == "ms")
        #expect(Correlator.unit("ms", times: 1000) == "s")
        #expect(Correlator.unit("s", times: 0.001) == "ms")
        #expect(Correlator.unit("ns", times: 1000) == "µs")
    }

    /// nginx's `msec=$msec` on an access line is its time, to the millisecond, over `$time_local`'s second.
    @Test func nginxMsecIsTheTime() {
        let p = LineParser.parse(
            #"127.0.0.1 - - [29/Nov/2026:12:55:03 +0000] "GET /v1/x HTTP/1.1" 200 12 "-" "ua" "\#(rid(1))" rt=0.042 msec=1795956903.748"#
        )
        #expect(p.ts.map { abs($0 - 1_795_956_903.748) < 1e-6 } == true, "\(String(describing: p.ts))")
        #expect(p.durationMs == 42)
    }

    /// Django's development server writes a bracketed time of the common log format first: not Envoy's
    /// RFC 3339 `[START_TIME]`, so not read as a time the request started.
    @Test func djangoRunserverIsNotEnvoy() {
        let p = LineParser.parse(#"[29/Nov/2026 12:55:03] "GET /v1/flags?x=\#(rid(1)) HTTP/1.1" 200 312"#)
        #expect(p.format.rawValue != "envoy")
        #expect(p.ts == Timestamp.parse("2026-11-29T12:55:03Z"))
        #expect(p.status == 200)
    }

    /// Gin's default logger: its own date layout, the status, the latency with its unit, the method and path.
    @Test func ginDefaultLogger() {
        let p = LineParser.parse(#"[GIN] 2026/11/29 - 12:55:03 | 503 |  1.250034s |     203.0.113.7 | GET      "/v1/catalog?page=1""#)
        #expect(p.format.rawValue == "gin")
        #expect(p.ts == Timestamp.parse("2026-11-29T12:55:03Z"))
        #expect(p.status == 503)
        #expect(p.durationMs.map { abs($0 - 1250.034) < 1e-6 } == true)
        #expect(p.method == "GET")
        #expect(p.path == "/v1/catalog?page=1")
    }

    @Test func statusZeroIsAClosedRequest() {
        let p = LineParser.parse(
            #"[2026-11-29T12:55:06.113Z] "GET /v1/orders/open HTTP/2" 0 DC 0 0 2200 - "203.0.113.7" "ua" "\#(rid(2))" "api.example.test" "10.0.3.12:8080""#
        )
        #expect(p.status == 499)
    }

    @Test func eachRecordOfABatchIsReadForItsOwnId() throws {
        func record(_ id: String, _ status: Int, _ seconds: Double) -> String {
            #"{"timeUnixNano":"1795956903748000000","body":{"stringValue":"request completed"},"attributes":[{"key":"http.response.status_code","value":{"intValue":"\#(status)"}},{"key":"http.request.header.x-request-id","value":{"arrayValue":{"values":[{"stringValue":"\#(id)"}]}}},{"key":"http.server.request.duration","value":{"doubleValue":\#(seconds)}}]}"#
        }
        let line =
            #"{"resourceLogs":[{"scopeLogs":[{"logRecords":["# + record(rid(1), 200, 0.101) + "," + record(rid(2), 503, 0.011) + "]}]}]}\n"
        let dir = tempDir()
        write(dir + "/otel.log", line)
        let scan = LogScanner(request: ScanRequest(ids: RequestIDSet([rid(1), rid(2)].compactMap(RequestID.init)))).scan(paths: [
            dir + "/otel.log"
        ])
        let byId = Dictionary(uniqueKeysWithValues: scan.lines.map { ($0.ids[0].description, $0.parsed) })
        #expect(byId[rid(1)]?.status == 200 && byId[rid(1)]?.durationMs.map { abs($0 - 101) < 1e-6 } == true)
        #expect(byId[rid(2)]?.status == 503 && byId[rid(2)]?.durationMs.map { abs($0 - 11) < 1e-6 } == true)
    }
}

@Suite struct UnreadFieldTests {
    @Test func aFieldTheFormatPlacesButCannotReadIsNamed() throws {
        let line =
            #"{"time_iso8601":"2026-11-29T12:55:03+00:00","request_id":"\#(rid(1))","status":"2OO","request_time":"n/a","request":"GET /x HTTP/1.1"}"#
        let p = LineParser.parse(line)
        #expect(p.format.rawValue == "nginx-json")
        #expect(p.unreadFields == ["status", "duration"], "\(p.unreadFields)")
        let dir = tempDir()
        write(dir + "/api.log", line + "\n")
        let scan = LogScanner(request: ScanRequest(ids: RequestIDSet([rid(1)].compactMap(RequestID.init)))).scan(paths: [dir + "/api.log"])
        let findings = Correlator.unreadFields(scan.lines)
        #expect(findings.map(\.ruleID) == [CorrelationRule.fieldUnread.id, CorrelationRule.fieldUnread.id])
        #expect(findings.first?.message.contains("status that could not be read (first: line 1)") == true, "\(findings.map(\.message))")
    }

    @Test func aMissingOrDashFieldIsNotUnread() {
        let p = LineParser.parse(
            #"{"time_iso8601":"2026-11-29T12:55:03+00:00","request_id":"\#(rid(1))","status":200,"request_time":"-","request":"GET /x HTTP/1.1"}"#
        )
        #expect(p.unreadFields.isEmpty, "\(p.unreadFields)")
    }
}

/// A line that is a member of a pretty-printed JSON record is read with its record; a file of members
/// without whole records stays linear and is read line by line.
@Suite struct PrettyRecordTests {
    @Test func aMemberLineIsReadWithItsRecord() {
        let dir = tempDir()
        let path = dir + "/gcloud.json"
        let entry = """
            [
              {
                "httpRequest": {
                  "latency": "0.038s",
                  "status": 503
                },
                "labels": {
                  "request_id": "\(rid(1))"
                },
                "timestamp": "2026-11-29T10:15:04.790Z"
              }
            ]
            """
        write(path, entry + "\n")
        let scan = LogScanner(request: ScanRequest(ids: RequestIDSet([RequestID(rid(1))!]))).scan(paths: [path])
        let p = scan.lines.first?.parsed
        #expect(scan.lines.first?.line == 8)
        #expect(p?.status == 503 && p?.durationMs == 38)
        #expect(p?.ts.map { abs($0 - 1_795_947_304.79) < 1e-3 } == true)
        #expect(p?.fieldIDs.map(\.description) == [rid(1)])
    }

    @Test func brokenRecordsStayLinear() {
        let dir = tempDir()
        let path = dir + "/broken.json"
        let line = "    \"request_id\": \"\(rid(1))\", \"pad\": \"" + String(repeating: "x", count: 200) + "\",\n"
        write(path, String(repeating: line, count: 20_000))
        let clock = ContinuousClock()
        var scan = LogScanResult()
        let took = clock.measure {
            scan = LogScanner(request: ScanRequest(ids: RequestIDSet([RequestID(rid(1))!]))).scan(paths: [path])
        }
        #expect(scan.files.first?.matchedLines == 20_000)
        #expect(took < .seconds(20), "\(took)")
    }
}
