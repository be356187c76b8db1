import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

/// A log that carries no request id (an AWS ALB's default access log) is joined by method, path and
/// time, and says so; near misses, other clients and two lines that fit are never taken for ours.
@Suite struct RequestLineJoinTests {
    /// The example's four server-side requests: method, URL, end time (server clock), duration, status.
    static let served: [(String, String, String, Double, Int)] = [
        ("POST", "/v1/auth/token?client=ios", "2026-11-29T12:55:03.748000Z", 0.101, 200),
        ("GET", "/v1/flags?keys=palbase.debug_console", "2026-11-29T12:55:04.104500Z", 0.011, 200),
        ("GET", "/v1/oauth/callback?code=abc&state=xyz", "2026-11-29T12:55:04.551000Z", 0.035, 200),
        ("GET", "/v1/catalog?page=1", "2026-11-29T12:55:04.998000Z", 0.257, 200)
    ]

    /// An ALB access log line (its default fields: no request id).
    static func alb(_ method: String, _ path: String, end: String, seconds: Double, status: Int) -> String {
        "h2 \(end) app/prod-api/50dc6c495c0c9188 203.0.113.7:52113 10.0.3.12:8080 0.000 \(String(format: "%.3f", seconds)) 0.000 "
            + "\(status) \(status) 55 67 \"\(method) https://api.example.test:443\(path) HTTP/2.0\" \"Palbe/3.1.0\" "
            + "ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/prod-api/73e2d6bc24d8a067 "
            + "\"Root=1-6b0c20a6-499b18e50a175b0ef36bf211\" \"api.example.test\" \"-\" 0 \(end) \"forward\" \"-\" \"-\" \"10.0.3.12:8080\" "
            + "\"\(status)\" \"-\" \"-\""
    }

    func run(_ extra: [String] = [], replacing: [Int: String] = [:]) throws -> CorrelationReport {
        let lines = try #require(exampleSession())
        let (requests, sessions) = load(sessionLines: lines)
        var log = Self.served.enumerated().map { k, s in
            replacing[k] ?? Self.alb(s.0, s.1, end: s.2, seconds: s.3, status: s.4)
        }
        log += extra
        let dir = tempDir()
        write(dir + "/alb.log", log.joined(separator: "\n") + "\n")
        return Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/alb.log"])
    }

    @Test func aLogWithoutIdsIsJoinedByMethodPathAndTime() throws {
        let report = try run()
        let matched = report.requests.filter { $0.status == .matched }
        #expect(matched.count == 4)
        for m in matched {
            #expect(m.lines.count == 1)
            #expect(m.lines.first?.line.joinedBy == .requestLine)
            #expect(m.serverMs != nil)
        }
        #expect(report.clockSkew.basis == JoinBasis.requestLine.rawValue)
        let skew = try #require(report.clockSkew.seconds)
        #expect(skew > 2.3 && skew < 2.7, "\(skew)")
        let note = try #require(report.logs.files.first?.joinNote)
        #expect(note.contains("4 requests matched by method, path and time"), "\(note)")
    }

    /// The request the device gave up on after 191 ms went on at the server for 2.2 s: its line, written
    /// at completion, ends long after the device's request did, and is its all the same.
    @Test func aRequestTheDeviceGaveUpOnIsJoinedToTheServersLongerLine() throws {
        let gaveUp = Self.alb("GET", "/v1/orders/open", end: "2026-11-29T12:55:08.313000Z", seconds: 2.2, status: 504)
        let report = try run([gaveUp])
        let orders = try #require(report.requests.first { $0.entry.url?.contains("/v1/orders/open") == true })
        #expect(orders.entry.statusCode == nil)
        #expect(orders.status == .matched)
        #expect(orders.lines.map(\.line.line) == [5])
        let skew = try #require(report.clockSkew.seconds)
        #expect(abs(skew - 2.508) < 0.05, "\(skew)")
    }

    @Test func anotherClientAtAnotherTimeIsNotOurs() throws {
        // The same path asked for 40 s later by someone else: it fits no offset the others agree on.
        let later = Self.alb("GET", "/v1/catalog?page=2", end: "2026-11-29T12:55:44.998000Z", seconds: 0.2, status: 200)
        let report = try run([later])
        let catalog = try #require(report.requests.first { $0.entry.url?.contains("/v1/catalog") == true })
        #expect(catalog.lines.map(\.line.line) == [4])
    }

    @Test func twoLinesThatFitLeaveTheRequestUnmatched() throws {
        // Two clients asked for /v1/flags in the same milliseconds: neither is taken.
        let twin = Self.alb("GET", "/v1/flags", end: "2026-11-29T12:55:04.105000Z", seconds: 0.011, status: 200)
        let report = try run([twin])
        let flags = try #require(report.requests.first { $0.entry.url?.contains("/v1/flags") == true })
        #expect(flags.status == .clientOnly)
        #expect(report.requests.filter { $0.status == .matched }.count == 3)
        #expect(report.logs.files.first?.joinNote?.contains("1 left unmatched") == true)
    }

    @Test func aLineWithAnotherStatusIsAnotherRequest() throws {
        let report = try run(replacing: [3: Self.alb("GET", "/v1/catalog?page=1", end: Self.served[3].2, seconds: 0.257, status: 503)])
        let catalog = try #require(report.requests.first { $0.entry.url?.contains("/v1/catalog") == true })
        #expect(catalog.status == .clientOnly)
    }

    @Test func aLogThatNamesRequestsByIdIsNotJoinedWithoutOne() throws {
        // Lines whose `request_id` is not ours (a bare UUID, a cut id): those are other requests.
        let lines = try #require(exampleSession())
        let (requests, sessions) = load(sessionLines: lines)
        let log = Self.served.enumerated().map { k, s in
            "{\"time\":\"\(s.2)\",\"request_id\":\"0000000\(k)-1111-4222-8333-000000000000\",\"request_method\":\"\(s.0)\","
                + "\"request_uri\":\"\(s.1)\",\"status\":\(s.4),\"request_time\":\(s.3)}"
        }
        let dir = tempDir()
        write(dir + "/api.log", log.joined(separator: "\n") + "\n")
        let report = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/api.log"])
        #expect(report.requests.allSatisfy { $0.status != .matched })
        #expect(report.logs.files.first?.joinNote == nil)
    }

    @Test func aFileOfOtherIdsIsNotReadForAJoinWithoutOne() throws {
        // Another service's log: every line names its own request id (none of ours).
        let lines = try #require(exampleSession())
        let (requests, sessions) = load(sessionLines: lines)
        let log = (0..<300).map { k in
            "{\"ts\":\"2026-11-29T12:55:04.000Z\",\"request_id\":\"\(rid(1000 + k))\",\"method\":\"GET\",\"path\":\"/v1/flags\",\"status\":200}"
        }
        let dir = tempDir()
        write(dir + "/other.log", log.joined(separator: "\n") + "\n")
        let report = Correlator.run(requests: requests, sessions: sessions, logs: [dir + "/other.log"])
        #expect(report.requests.allSatisfy { $0.status != .matched })
        #expect(report.logs.files.first?.joinNote?.contains("carry request ids of their own") == true)
    }

    @Test func pathsAreComparedWithoutHostOrQuery() {
        #expect(RequestLineJoin.pathOf("https://api.example.test:443/v1/x?y=1") == "/v1/x")
        #expect(RequestLineJoin.pathOf("/v1/x#frag") == "/v1/x")
        #expect(RequestLineJoin.pathOf("https://api.example.test") == "/")
        #expect(RequestLineJoin.pathOf("not a path") == nil)
    }
}

/// Recorded from hypercorn on 127.0.0.1 (`%(t)s` in the Apache layout with `%(D)s`, twelve requests of
/// a device whose clock ran 2.5 s behind): hypercorn stamps the moment it logs, not the arrival that
/// Apache's `%t` is; read as arrivals the lines disagree, read as completions they pin the skew.
@Suite struct TimeMarkFromTheLinesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Skew/hypercorn-end-marked")

    @Test func aWholeSecondLogStampedAtTheEndGivesTheSkew() throws {
        let text = try String(contentsOfFile: Self.folder.appendingPathComponent("session.jsonl").path, encoding: .utf8)
        let (requests, sessions) = load(sessionLines: text.split(separator: "\n").map(String.init))
        let report = Correlator.run(
            requests: requests, sessions: sessions, logs: [Self.folder.appendingPathComponent("hypercorn.log").path])
        #expect(report.requests.filter { $0.status == .matched }.count == 12)
        #expect(report.logs.files.first?.format?.rawValue == "apache-combined")
        let skew = try #require(report.clockSkew.seconds)
        #expect(abs(skew - 2.5) < 0.02, "\(skew)")
        #expect(report.clockSkew.outliers == 0)
    }
}

/// Recorded from Flask's Werkzeug server on 127.0.0.1 (its default log: no id, no duration, whole
/// seconds, ANSI colour around the request line of a 5xx), twelve requests of a device 2.5 s behind.
@Suite struct RecordedJoinWithoutIdsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Skew/werkzeug-no-id")

    @Test func werkzeugsLogIsJoinedByMethodPathQueryAndTime() throws {
        let text = try String(contentsOfFile: Self.folder.appendingPathComponent("session.jsonl").path, encoding: .utf8)
        let (requests, sessions) = load(sessionLines: text.split(separator: "\n").map(String.init))
        let report = Correlator.run(
            requests: requests, sessions: sessions, logs: [Self.folder.appendingPathComponent("werkzeug.log").path])
        let matched = report.requests.filter { $0.status == .matched }
        // Two identical POSTs in one second cannot be told apart: left, not guessed.
        #expect(matched.count == 10)
        #expect(report.logs.files.first?.joinNote?.contains("2 left unmatched") == true)
        for m in matched {
            let line = try #require(m.lines.first)
            // Each joined line is the request's own: its query too (a coloured 503 line included).
            #expect(RequestLineJoin.queryOf(line.line.parsed.path ?? "") == RequestLineJoin.queryOf(m.entry.url ?? ""))
            #expect(line.line.parsed.status == m.entry.statusCode)
        }
        let skew = try #require(report.clockSkew.seconds)
        #expect(abs(skew - 2.5) < 0.3, "\(skew)")
    }

    @Test func queriesAreComparedWithMasksAsWildcards() {
        #expect(RequestLineJoin.sameQuery(["code": "***", "state": "xyz"], ["code": "abc", "state": "xyz"]))
        #expect(!RequestLineJoin.sameQuery(["page": "1"], ["page": "2"]))
        #expect(!RequestLineJoin.sameQuery(["page": "1"], ["page": "1", "sort": "asc"]))
        #expect(RequestLineJoin.sameQuery(nil, ["page": "2"]))
        #expect(RequestLineJoin.queryOf("/v1/x?q=a%20b&flag") == ["q": "a b", "flag": ""])
    }
}
