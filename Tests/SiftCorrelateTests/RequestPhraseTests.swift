import Testing

@testable import SiftCorrelate

/// A request told in words: what is read from each phrase, and phrases that hold no request.
@Suite struct RequestPhraseTests {
    static let cases: [(String, String?, Int?, Double?)] = [
        ("POST /v1/auth/token 200 101.000 ms - 67", "POST", 200, 101),
        ("HTTP GET /v1/flags responded 503 in 1250.0000 ms", "GET", 503, 1250),
        (#""GET http://h/v1/x HTTP/1.1" from 203.0.113.7:52113 - 200 67B in 101.4ms"#, "GET", 200, 101.4),
        ("GET /v1/x => generated 67 bytes in 101 msecs (HTTP/1.1 200) 4 headers in 120 bytes", "GET", 200, 101),
        ("GET /v1/x -> 404 in 12 ms", "GET", 404, 12),
        ("request finished status 201 took 0.25s", nil, 201, 250),
        ("PUT /v1/x 204 350µs", "PUT", 204, 0.35)
    ]

    @Test(arguments: 0..<cases.count)
    func phrase(_ i: Int) throws {
        let (text, method, status, ms) = Self.cases[i]
        let r = try #require(RequestPhrase.read(text[...]), "\(text)")
        #expect(r.method == method, "\(text)")
        #expect(r.status == status, "\(text)")
        #expect(r.durationMs.map { abs($0 - (ms ?? -1)) < 1e-6 } ?? (ms == nil), "\(text): \(String(describing: r.durationMs))")
    }

    @Test func wordsWithoutARequestAreNone() {
        for text in ["retry in 5s", "cache warmed 300 keys in 12 ms", "user 200 logged in"] {
            let r = RequestPhrase.read(text[...])
            #expect(r == nil || (r?.status == nil && r?.method == nil), "\(text): \(String(describing: r))")
        }
        // A request not yet answered has no duration.
        let retry = RequestPhrase.read("retrying GET /v1/x in 5s"[...])
        #expect(retry?.method == "GET" && retry?.durationMs == nil)
    }

    /// A size after the status (`67B`, `67 bytes`) is never read as one.
    @Test func sizesAreNoStatus() {
        let r = RequestPhrase.read("GET /v1/x - 200 B 404 bytes in 3ms"[...])
        #expect(r?.status == nil)
    }
}
