import Foundation
import Testing
@testable import SiftCLI
import SiftCore

@Suite struct CorrelateCommandTests {
    static let id = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
    static let network =
        #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"POST","url":"https://api.example.test/v1/auth/token","state":"success","statusCode":200,"duration":0.4,"requestId":"\#(id)","echoedRequestId":"\#(id)","metrics":{"transactions":[{"requestStart":"2026-11-29T10:15:01.500Z","requestEnd":"2026-11-29T10:15:01.510Z","responseStart":"2026-11-29T10:15:01.900Z","responseEnd":"2026-11-29T10:15:02.000Z"}]}}"#
    static let serverLine =
        #"{"ts": "2026-11-29T10:15:04.200Z", "level": "info", "request_id": "\#(id)", "status": 200, "duration_ms": 38.2, "user_id": "usr_123", "msg": "request completed"}"#

    func setUp() throws -> (session: String, logs: String) {
        let session = try Fixture.write([Fixture.header(), Self.network])
        let logs = try makeTempDir().appendingPathComponent("api.log").path
        try Data((Self.serverLine + "\n").utf8).write(to: URL(fileURLWithPath: logs))
        return (session, logs)
    }

    @Test func joinsAsJSON() throws {
        let (session, logs) = try setUp()
        let r = runCLI(["correlate", "--json", session, "--logs", logs])
        #expect(r.status == 0, "\(r.err)")
        let doc = try JSONDocument(string: r.out).root
        #expect(doc["tool", "name"]?.string == "pbsift")
        let req = try #require(doc["requests"]?.elements.first)
        #expect(req["status"]?.string == "matched")
        #expect(req["serverLines"]?.elements.first?["durationMs"]?.double == 38.2)
        #expect(req["serverMs"]?.double == 38.2)
        // Server ahead: its line (10:15:04.2) sits between 10:15:01.5 and 10:15:01.9 on the device.
        let skew = try #require(doc["clockSkew", "seconds"]?.double)
        #expect(skew > 2.2 && skew < 2.8)
        #expect(doc["logs", "lines"]?.int == 1)
    }

    /// A W3C extended log piped in: its `#Fields:` directive is read from the stream as from a file,
    /// so status and duration come from their columns (before, a stream was read as plain text and
    /// the port was taken for the status).
    @Test func aW3CLogOnStandardInput() throws {
        let session = try Fixture.write([Fixture.header(), Self.network])
        let w3c = """
            #Software: Microsoft Internet Information Services 10.0
            #Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip sc-status time-taken cs(X-Request-Id)
            2026-11-29 10:15:04 10.0.3.12 POST /v1/auth/token - 443 - 203.0.113.7 200 38 \(Self.id)

            """
        let r = try Binary.run(["correlate", "--json", session, "--logs", "-"], stdin: w3c)
        #expect(r.status == 0, "\(r.err)")
        let doc = try JSONDocument(string: r.out).root
        #expect(doc["logs", "files"]?.elements.first?["format"]?.string == "w3c")
        let line = try #require(doc["requests"]?.elements.first?["serverLines"]?.elements.first)
        #expect(line["status"]?.int == 200)
        #expect(line["durationMs"]?.double == 38)
    }

    @Test func otherFormats() throws {
        let (session, logs) = try setUp()
        for format in ["text", "csv", "markdown"] {
            let r = runCLI(["correlate", "-f", format, session, "--logs", logs])
            #expect(r.status == 0)
            // Markdown escapes the `_`.
            let shown = format == "markdown" ? Self.id.replacingOccurrences(of: "_", with: "\\_") : Self.id
            #expect(r.out.contains(shown), "\(format)")
        }
    }

    @Test func emitsQueries() throws {
        let (session, _) = try setUp()
        let r = runCLI(["correlate", session, "--emit-query", "clickhouse", "--window-margin", "30"])
        #expect(r.status == 0)
        #expect(r.out.contains("WHERE request_id IN ('\(Self.id)')"))
        #expect(r.out.contains("2026-11-29T10:14:31.000Z"))
        let bad = runCLI(["correlate", session, "--emit-query", "splunk"])
        #expect(bad.status == 64)
    }

    @Test func usageAndUnreadableLogs() throws {
        let (session, _) = try setUp()
        #expect(runCLI(["correlate", session]).status == 64)
        #expect(runCLI(["correlate", session, "--logs", "x", "--window-margin", "soon"]).status == 64)
        let r = runCLI(["correlate", "--json", session, "--logs", "/nonexistent/api.log"])
        #expect(r.status == 2)
        #expect(r.out.contains("/nonexistent/api.log: cannot read"))
    }

    /// A FIFO inside a --logs folder is never opened (the scan would wait for a writer): it is named
    /// on standard error as `pbsift: PATH: reason`, the rest is still scanned, and the exit status is 2.
    @Test func specialFileInALogsFolderIsReported() throws {
        let (session, logs) = try setUp()
        let folder = URL(fileURLWithPath: logs).deletingLastPathComponent().path
        #expect(mkfifo(folder + "/tail.log", 0o600) == 0)
        let r = runCLI(["correlate", "--json", session, "--logs", folder])
        #expect(r.status == 2)
        #expect(r.err.contains("pbsift: \(folder)/tail.log: a fifo; skipped, never opened\n"))
        #expect(r.out.contains("\"matched\":1") || r.out.contains("\"matched\": 1"))
    }

    @Test func progressOnATerminalOnly() throws {
        let (session, logs) = try setUp()
        let tty = runCLI(["correlate", "--json", session, "--logs", logs], stderrTTY: true)
        #expect(tty.err.contains("scanning logs"))
        #expect(tty.err.hasSuffix("\r\u{1B}[K"))
        #expect(runCLI(["correlate", "--json", session, "--logs", logs]).err.isEmpty)
        #expect(runCLI(["correlate", "-q", "--json", session, "--logs", logs], stderrTTY: true).err.isEmpty)
    }

    /// A log line can carry any number: none of them kills `correlate` or `report` (they were a SIGILL).
    @Test func hostileNumbersInServerLines() throws {
        let (session, _) = try setUp()
        let logs = try makeTempDir().appendingPathComponent("api.log").path
        let lines = [
            #"{"ts": 1e28, "level": "info", "request_id": "\#(Self.id)", "status": 200, "duration_ms": 1e308, "msg": "x"}"#,
            #"{"ts": "2026-11-29T10:15:04.200Z", "request_id": "\#(Self.id)", "status": 200, "msg": "{\"ts\": 1e28, \"status\": 500}"}"#,
            #"{"ts": 99999999999999999999999, "request_id": "\#(Self.id)", "latency": 1e306}"#
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: logs))
        for command in ["correlate", "report"] {
            for format in ["json", "text", "csv", "markdown"] {
                let r = runCLI([command, "-f", format, session, "--logs", logs])
                #expect(r.status == 0, "\(command) \(format): \(r.err)")
            }
        }
        let r = runCLI(["correlate", "--json", session, "--logs", logs])
        let doc = try JSONDocument(string: r.out).root
        let server = try #require(doc["requests"]?.elements.first?["serverLines"]?.elements)
        #expect(server.count == 3)
        #expect(server.map { $0["status"]?.int } == [200, 200, nil]) // the message's 500 does not win
        #expect(server.map { $0["durationMs"]?.isNull } == [true, true, true])
        #expect(server[0]["ts"]?.isNull == true)
    }

    /// A request whose only line is over the line bound is found (its id streamed), not "client-only".
    @Test func idInALineOverTheBound() throws {
        let (session, _) = try setUp()
        let logs = try makeTempDir().appendingPathComponent("api.log").path
        let line =
            #"{"ts": "2026-11-29T10:15:04.200Z", "request_id": "\#(Self.id)", "body": ""# + String(repeating: "a", count: 1 << 21) + "\"}\n"
        try Data(line.utf8).write(to: URL(fileURLWithPath: logs))
        let r = runCLI(["correlate", "--json", session, "--logs", logs])
        #expect(r.status == 0, "\(r.err)")
        let doc = try JSONDocument(string: r.out).root
        #expect(doc["requests"]?.elements.first?["status"]?.string == "matched")
        #expect(doc["logs", "files"]?.elements.first?["longLines"]?.int == 1)
        #expect(doc["requests"]?.elements.first?["serverLines"]?.elements.first?["ts"]?.string == "2026-11-29T10:15:04.200000Z")
    }
}

extension CorrelateCommandTests {
    @Test func logFormatAndTimezoneOptions() throws {
        let (session, logs) = try setUp()
        #expect(runCLI(["correlate", session, "--logs", logs, "--log-format", "nope"]).status == 64)
        #expect(runCLI(["correlate", session, "--logs", logs, "--log-timezone", "Mars/Base"]).status == 64)
        let r = runCLI(["correlate", "--json", session, "--logs", logs, "--log-format", "palbase-json", "--log-timezone", "+01:00"])
        #expect(r.status == 0, "\(r.err)")
        let doc = try JSONDocument(string: r.out).root
        #expect(doc["logs", "files"]?.elements.first?["format"]?.string == "palbase-json")
        #expect(doc["requests"]?.elements.first?["serverLines"]?.elements.first?["idInField"]?.bool == true)
        #expect(doc["clockSkew", "basis"]?.string == "request-id fields")
        // A naive Python line taken in +01:00: the skew stays small.
        let py = try makeTempDir().appendingPathComponent("app.log").path
        try Data("2026-11-29 11:15:04,200 INFO [\(Self.id)] api.access: POST /v1/auth/token 200 38.2ms\n".utf8).write(
            to: URL(fileURLWithPath: py))
        let local = try JSONDocument(string: runCLI(["correlate", "--json", session, "--logs", py, "--log-timezone", "+01:00"]).out).root
        #expect((local["clockSkew", "seconds"]?.double).map { $0 > 2 && $0 < 3 } == true)
        #expect(local["logs", "files"]?.elements.first?["format"]?.string == "python-logging")
        let utc = try JSONDocument(string: runCLI(["correlate", "--json", session, "--logs", py]).out).root
        #expect((utc["findings"]?.elements ?? []).contains { $0["rule"]?.string == "correlation.skew-whole-hours" })
        for f in ["text", "csv", "markdown"] {
            #expect(runCLI(["correlate", "-f", f, session, "--logs", py]).out.contains("python-logging"), "\(f)")
        }
    }

    /// `--log-format FILE` and `.pbsift.json`'s `logFormats`: the team's own format (lnav's form) reads
    /// its lines; a definition that cannot be compiled is a usage error naming the file and the format.
    @Test func aTeamsOwnLogFormat() throws {
        let (session, _) = try setUp()
        let dir = try makeTempDir()
        let logs = dir.appendingPathComponent("gw.log").path
        try Data("29.11.2026 10:15:04.200 | rid=\(Self.id) | 200 took 38ms\n".utf8).write(to: URL(fileURLWithPath: logs))
        let def =
            #"{"gw": {"regex": {"std": {"pattern": "^(?<timestamp>\\S+ \\S+) \\| rid=(?<rid>\\S+) \\| (?<status>\\d+) took (?<duration>\\S+)$"}}, "timestamp-format": ["%d.%m.%Y %H:%M:%S.%L"]}}"#
        let formats = dir.appendingPathComponent("formats.json").path
        try Data(def.utf8).write(to: URL(fileURLWithPath: formats))
        let r = runCLI(["correlate", "--json", session, "--logs", logs, "--log-format", formats])
        #expect(r.status == 0, "\(r.err)")
        let doc = try JSONDocument(string: r.out).root
        #expect(doc["logs", "files"]?.elements.first?["format"]?.string == "gw")
        let line = doc["requests"]?.elements.first?["serverLines"]?.elements.first
        #expect(line?["status"]?.int == 200 && line?["durationMs"]?.double == 38)
        #expect((doc["clockSkew", "seconds"]?.double).map { $0 > 2 && $0 < 3 } == true)
        // The same definition under logFormats in the config file.
        let config = dir.appendingPathComponent("team.json").path
        try Data(#"{"logFormats": \#(def)}"#.utf8).write(to: URL(fileURLWithPath: config))
        let viaConfig = runCLI(["correlate", "--json", session, "--logs", logs, "--config", config])
        #expect(try JSONDocument(string: viaConfig.out).root["logs", "files"]?.elements.first?["format"]?.string == "gw")
        // A pattern that does not compile: exit 64, the file and the format named.
        try Data(#"{"gw": {"regex": {"std": {"pattern": "(?<t>[x"}}}}"#.utf8).write(to: URL(fileURLWithPath: formats))
        let bad = runCLI(["correlate", session, "--logs", logs, "--log-format", formats])
        #expect(bad.status == 64)
        #expect(bad.err.contains(formats) && bad.err.contains("'gw'"), "\(bad.err)")
        try Data(#"{"logFormats": {"gw": {"title": "no regex"}}}"#.utf8).write(to: URL(fileURLWithPath: config))
        #expect(runCLI(["correlate", session, "--logs", logs, "--config", config]).status == 64)
    }
}

/// A credential the export holds (a `password` body field) is masked where a server line repeats it
/// as free text no detector recognises, in every format.
@Suite struct CorrelateKnownValuesTests {
    @Test(arguments: ["text", "json", "csv", "markdown"])
    func serverLineRepeatingAnExportPasswordIsMasked(_ format: String) throws {
        let password = "Hunter" + "2-" + "qzvb" + "wrtk" + "plmn"
        let body = #"{\"password\":\"\#(password)\"}"#
        let network =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"POST","url":"https://api.example.test/v1/login","state":"success","statusCode":200,"duration":0.4,"requestId":"\#(CorrelateCommandTests.id)","request":{"headers":[],"body":{"size":30,"contentType":"application/json","encoding":"utf8","text":"\#(body)"}}}"#
        let session = try Fixture.write([Fixture.header(), network])
        let logs = try makeTempDir().appendingPathComponent("api.log").path
        let line =
            #"{"ts": "2026-11-29T10:15:02.200Z", "level": "info", "request_id": "\#(CorrelateCommandTests.id)", "status": 200, "msg": "login ok pw \#(password)"}"#
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: logs))
        let r = try Binary.run(["correlate", "-f", format, session, "--logs", logs])
        #expect(r.status != 64, "\(r.err)")
        #expect(r.out.contains("login ok pw"), "the server line is printed")
        #expect(!r.out.contains(password) && !r.err.contains(password))
        #expect(!r.out.contains("qzvbwrtk"))
    }
}
