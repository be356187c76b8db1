import Foundation
import Testing
@_spi(Testing) import SiftCore
@testable import SiftCorrelate

/// What a logger writes after a record (a stack trace) belongs to that record: kept with it, bounded,
/// the line naming the cause picked out, masked like the rest, and never swallowing the next record.
@Suite struct StackTraceTests {
    static let id = rid(7)

    func scan(_ lines: [String]) -> LogScanResult {
        let dir = tempDir()
        write(dir + "/app.log", lines.joined(separator: "\n") + "\n")
        return LogScanner(request: ScanRequest(ids: RequestIDSet([RequestID(Self.id)!]))).scan(paths: [dir + "/app.log"])
    }

    @Test func aPythonTracebackGivesItsLastException() throws {
        let s = scan([
            "2026-11-29 12:55:08,313 ERROR [\(Self.id)] api.views: GET /v1/flags 500 12.0ms",
            "Traceback (most recent call last):",
            "  File \"/app/api/views.py\", line 42, in flags",
            "    return provider.fetch()",
            "ConnectionError: upstream flags-service refused the connection",
            "2026-11-29 12:55:08,400 INFO [req_other] api.views: GET /v1/cart 200 3.0ms"
        ])
        let line = try #require(s.lines.first)
        #expect(line.parsed.cause == "ConnectionError: upstream flags-service refused the connection")
        #expect(line.parsed.continuation.count == 4)
        #expect(line.parsed.continuation.allSatisfy { !$0.contains("req_other") })
    }

    @Test func aJavaTraceGivesItsRootCause() throws {
        let s = scan([
            "2026-11-29T13:55:08.313+01:00 ERROR 1 --- [api] [nio-8080-exec-4] c.a.api.web.Handler : [requestId=\(Self.id)] GET /v1/orders -> 500 in 12 ms",
            "java.lang.IllegalStateException: order service failed",
            "\tat com.acme.api.OrderService.load(OrderService.java:88)",
            "\t... 42 more",
            "Caused by: java.net.ConnectException: Connection refused",
            "\tat java.base/sun.nio.ch.Net.connect0(Native Method)"
        ])
        let line = try #require(s.lines.first)
        #expect(line.parsed.cause == "Caused by: java.net.ConnectException: Connection refused")
    }

    @Test func aGoPanicDumpBelongsToItsLine() throws {
        let s = scan([
            "2026/11/29 12:55:08 [\(Self.id)] GET /v1/cart 500 panic: runtime error: invalid memory address or nil pointer dereference",
            "goroutine 35 [running]:",
            "net/http.(*conn).serve.func1()",
            "\t/usr/local/go/src/net/http/server.go:1898 +0xbe",
            "panic({0x6a2c40?, 0x9a1d50?})",
            "\t/usr/local/go/src/runtime/panic.go:770 +0x132",
            "main.(*api).cart(0xc000010000, {0x7f1e40, 0xc0000a8000}, 0xc0000b2000)",
            "\t/app/main.go:42 +0x1d",
            "2026/11/29 12:55:08 [req_other] GET /v1/flags 200",
            "main.notAFrame()"
        ])
        let line = try #require(s.lines.first)
        #expect(line.parsed.continuation.count == 7)
        #expect(line.parsed.continuation.first == "goroutine 35 [running]:")
        #expect(line.parsed.continuation.allSatisfy { !$0.contains("req_other") })
    }

    @Test func aLongTraceIsCutAndSaysHowMuch() throws {
        let frames = (0..<200).map { "\tat com.acme.Frame\($0).run(Frame.java:\($0))" }
        let s = scan(["2026-11-29 12:55:08,313 ERROR [\(Self.id)] boom", "java.lang.RuntimeException: boom"] + frames)
        let line = try #require(s.lines.first)
        #expect(line.parsed.continuation.count == StackTrace.keptLines + 1)
        #expect(line.parsed.continuation.last == "… 193 more lines")
        #expect(line.parsed.cause == "java.lang.RuntimeException: boom")
    }

    @Test func aLineWithNoTraceHasNone() throws {
        let s = scan(["2026-11-29 12:55:08,313 INFO [\(Self.id)] ok", "2026-11-29 12:55:08,314 INFO next"])
        #expect(s.lines.first?.parsed.continuation.isEmpty == true)
        #expect(s.lines.first?.parsed.cause == nil)
    }

    @Test func aCredentialInATraceIsMasked() throws {
        let secret = "sk_live_" + String(repeating: "q7Rt", count: 6)
        let s = scan([
            "2026-11-29 12:55:08,313 ERROR [\(Self.id)] charge failed",
            "Traceback (most recent call last):",
            "  File \"/app/pay.py\", line 9, in charge",
            "stripe.error.AuthenticationError: Invalid API Key provided: \(secret)"
        ])
        let line = try #require(s.lines.first)
        let masked = line.redacted(by: Redactor.identity(known: [secret]))
        #expect(!(masked.parsed.cause ?? "").contains(secret))
        #expect(!masked.parsed.continuation.joined().contains(secret))
        #expect(masked.parsed.cause?.contains("AuthenticationError") == true)
    }
}
