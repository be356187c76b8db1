import Foundation
import SiftCore
import Testing

@testable import SiftCorrelate

/// A line read under each wrapper (and wrappers nested) gives what the line alone gives, with the
/// wrapper's time when the line has none.
@Suite struct WrapperTests {
    static let app =
        #"{"level":30,"time":1795956903748,"req":{"id":"\#(rid(1))","method":"POST","url":"/v1/auth/token"},"res":{"statusCode":200},"responseTime":101.2,"msg":"request completed"}"#

    static func json(_ s: String) -> String { String(decoding: JSONOut.string(s).render(pretty: false).utf8, as: UTF8.self) }

    static let ts = "2026-11-29T12:56:00.000000000Z"
    static var docker: String { #"{"log":\#(json(app + "\n")),"stream":"stdout","time":"\#(ts)"}"# }

    static var wrapped: [(LogWrapper, String)] {
        let syslog = "<190>1 \(ts) host app 12 - [meta x=\"1\"] " + app
        return [
            (.dockerJSON, docker),
            (.cri, "\(ts) stdout F \(app)"),
            (.journald, #"{"__REALTIME_TIMESTAMP":"1795957000000000","_HOSTNAME":"h","MESSAGE":\#(json(app))}"#),
            (.syslog5424, "\(syslog.utf8.count) \(syslog)"),
            (.compose, "api-1  | \(app)"),
            (.timePrefix, "\(ts) ecs/api/1a2b \(app)"),
            (.syslog3164, "Nov 29 12:56:00 api-host app[812]: \(app)"),
            (.syslog3164, "<134>Nov  9 12:56:00 api-host app: \(app)"),
            (.pythonServer, "[2026-11-29 12:56:00 +0000] [812] [INFO] \(app)"),
            (.syslogISO, "2026-11-29T12:56:00+00:00 lb1 haproxy[4387]: \(app)"),
            (.syslogISO, "2026-11-29T12:56:00.000123+01:00 api-host app/web.1[12]: \(app)")
        ]
    }

    @Test func eachWrapperIsPeeled() {
        let plain = LineParser.parse(Self.app)
        #expect(plain.status == 200)
        for (kind, line) in Self.wrapped {
            let peeled = LogWrapper.peel(Array(line.utf8))
            #expect(peeled.wrappers == [kind], "\(kind): \(peeled.wrappers)")
            #expect(String(decoding: peeled.inner, as: UTF8.self) == Self.app, "\(kind)")
            let p = LineParser.parse(line)
            #expect(p.status == plain.status && p.durationMs == plain.durationMs && p.ts == plain.ts, "\(kind)")
            #expect(p.fieldIDs == plain.fieldIDs, "\(kind)")
        }
    }

    @Test func wrappersNest() {
        let line = "\(Self.ts) stdout F \(Self.docker)"
        let peeled = LogWrapper.peel(Array(line.utf8))
        #expect(peeled.wrappers == [.cri, .dockerJSON])
        #expect(LineParser.parse(line).status == 200)
    }

    @Test func theWrappersTimeStandsInForALineWithoutOne() {
        let line = "\(Self.ts) stdout F GET /v1/x 200 12ms request_id=\(rid(2))"
        let p = LineParser.parse(line)
        #expect(p.ts.map { abs($0 - 1_795_956_960) < 1e-3 } == true, "\(String(describing: p.ts))")
    }

    @Test func linesThatOnlyLookWrappedAreLeftAlone() {
        for line in [
            #"{"log":"app.http","time":"2026-11-29T12:55:03Z","msg":"x"}"#,
            "INFO  | request completed",
            "2026-11-29 12:55:03.748 | INFO     | app:handle:12 - done",
            "Nov 29 12:55:03 just words and no tag",
            "[2026-11-29 12:55:03] [812] [INFO] a time without a zone",
            "2026-11-29T12:55:03.748Z INFO handler[2]: GET /v1/x 200",
            "2026-11-29T12:55:03.748Z api tower_http::trace::on_response: finished",
            "2026-11-29T12:55:03.748Z  WARN request: slow"
        ] {
            #expect(LogWrapper.peel(Array(line.utf8)).wrappers.isEmpty, "\(line)")
        }
    }
    @Test func terminalColourIsRemovedBeforeALineIsRead() {
        let esc = "\u{1B}"
        let line = "127.0.0.1 - - [07/Dec/2026:06:00:35 +0000] \"\(esc)[35m\(esc)[1mGET /v1/orders/open HTTP/1.1\(esc)[0m\" 503 -"
        let p = LineParser.parse(line)
        #expect(p.method == "GET")
        #expect(p.path == "/v1/orders/open")
        #expect(p.status == 503)
        #expect(LogWrapper.withoutColour(Array("a\(esc)]0;title\u{07}b\(esc)[2Kc".utf8)) == Array("abc".utf8))
    }

    /// `kubectl logs --timestamps` (or CRI) around an access line: the line is read as its format, and
    /// its whole-second time, written as the request completed, takes the wrapper's finer stamp of that
    /// second; a time that marks the request's start (Apache's `%t`) keeps its own.
    @Test func anAccessLineUnderATimeIsPeeledAndTakesItsFinerSecond() {
        let nginx =
            #"203.0.113.7 - - [29/Nov/2026:12:55:03 +0000] "POST /v1/auth/token HTTP/1.1" 200 67 "-" "ua" 0.101 "\#(rid(1))""#
        for line in ["2026-11-29T12:55:03.748123456Z " + nginx, "2026-11-29T12:55:03.748123456Z stdout F " + nginx] {
            let p = LineParser.parse(line)
            #expect(p.format.rawValue == "nginx-combined", "\(line)")
            #expect(p.ts.map { abs($0 - 1_795_956_903.748123) < 1e-5 } == true, "\(String(describing: p.ts))")
            #expect(p.status == 200 && p.durationMs == 101)
        }
        let apache = #"203.0.113.7 - - [29/Nov/2026:12:55:03 +0000] "GET /v1/x HTTP/1.1" 200 67 "-" "ua" \#(rid(2)) 101000"#
        let a = LineParser.parse("2026-11-29T12:55:03.748123456Z " + apache)
        #expect(a.format.rawValue == "apache-combined")
        #expect(a.ts == 1_795_956_903)
        // A wrapper's time in another second is not the line's.
        #expect(LineParser.parse("2026-11-29T12:55:05.100Z " + nginx).ts == 1_795_956_903)
    }
}
