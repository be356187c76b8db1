import Foundation
import Testing
@_spi(Testing) import SiftCore
@testable import SiftCorrelate

/// The join and its redaction hold each request once: copies of a `NetworkEntry` share one box until
/// one of them writes, and a redaction that masks nothing keeps the box (and the lines) it was given.
@Suite struct SharingTests {
    /// A value the redactor is told is secret, assembled here (never a literal).
    static let secret = ["q7", "Zr", "Lm"].joined() + String(repeating: "x", count: 18)

    func entry(_ n: Int, url: String) -> NetworkEntry {
        NetworkEntry(
            input: "x.zip", file: "sessions/s.jsonl", sessionId: "ses_1", seq: n, line: n + 1, recordId: "rec_\(n)",
            requestId: rid(n), echoedRequestId: rid(n), method: "GET", url: url, statusCode: 200,
            requestStart: 1_795_947_302.2, responseStart: 1_795_947_302.4)
    }

    @Test func copiesShareOneBoxUntilOneWrites() {
        let a = entry(1, url: "https://api.example/v1/a")
        var b = a
        #expect(a.storageIdentity == b.storageIdentity)
        b.url = "https://api.example/v1/b"
        b.responseEnd = 1_795_947_302.5
        #expect(a.storageIdentity != b.storageIdentity)
        #expect(a.url == "https://api.example/v1/a" && a.responseEnd == nil)
        #expect(b.url == "https://api.example/v1/b" && b.responseEnd == 1_795_947_302.5)
        #expect(a != b)
        var c = a
        c.url = a.url
        #expect(c == a)
    }

    @Test func redactionThatMasksNothingKeepsTheBoxes() throws {
        let clean = entry(1, url: "https://api.example/v1/catalog")
        let dirty = entry(2, url: "https://api.example/v1/catalog?note=" + Self.secret)
        let line = ServerLine(
            file: "api.log", line: 7, ids: [try #require(RequestID(rid(1)))],
            parsed: ParsedLine(format: .platform, ts: 1_795_947_302.3, level: "info", status: 200, message: "ok"))
        var scan = LogScanResult()
        scan.lines = [line]
        let report = Correlator.correlate(requests: [clean, dirty], sessions: [], scan: scan)
        let redacted = Redactor.identity(known: [Self.secret]).apply(report).value

        #expect(redacted.requests.count == 2)
        // The clean request: the same box, the same line.
        #expect(redacted.requests[0].entry.storageIdentity == clean.storageIdentity)
        #expect(redacted.requests[0].entry.storageIdentity == report.requests[0].entry.storageIdentity)
        #expect(redacted.requests[0].lines == report.requests[0].lines)
        // The request whose URL held the secret: a box of its own, masked; the report it came from is untouched.
        #expect(redacted.requests[1].entry.storageIdentity != dirty.storageIdentity)
        #expect(redacted.requests[1].entry.url?.contains(Self.secret) == false)
        #expect(report.requests[1].entry.url?.contains(Self.secret) == true)
        #expect(dirty.url?.contains(Self.secret) == true)
        #expect(redacted.count(.matched) == 1 && redacted.count(.clientOnly) == 1)
    }
}
