import Foundation
import SiftCore
import Testing

/// `show` prints the request and response bodies: masked, JSON pretty-printed, cut at 16 KiB by
/// default, `--body full` or `none`.
@Suite struct ShowBodyTests {
    static var zip: String { packageRoot.appendingPathComponent("samples/export-incident.zip").path }

    @Test func theFailedOrderShowsItsBodies() throws {
        let r = runCLI(["show", Self.zip, "38"])
        #expect(r.out.contains("\"error\": \"payment_provider_unavailable\""), "\(r.out)")
        #expect(r.out.contains("\"quoteId\": \"qt_5531\""))
        let md = runCLI(["show", Self.zip, "38", "-f", "markdown"])
        #expect(md.out.contains("```json\n{\n  \"error\""), "\(md.out)")
        let doc = try JSONDocument(string: runCLI(["show", Self.zip, "38", "--json"]).out).root
        #expect(doc["response", "body", "text"]?.string?.contains("retryAfter") == true)
        let none = runCLI(["show", Self.zip, "38", "--body", "none"])
        #expect(!none.out.contains("payment_provider_unavailable\"") && none.out.contains("--body none"), "\(none.out)")
    }

    @Test func aPasswordInABodyIsMaskedInEveryFormat() {
        for f in ["text", "markdown", "json"] {
            let r = runCLI(["show", Self.zip, "28", "-f", f])
            #expect(r.out.contains("password=") && !r.out.contains("password=Example"), "\(f): \(r.out)")
        }
    }

    @Test func aLongBodyIsCutAndCountedAndAFenceCannotBeClosed() throws {
        let text = String(repeating: "word ", count: 8000) + "```\nafter the fence"
        let body = String(decoding: JSONOut.string(text).render(pretty: false).utf8, as: UTF8.self)
        let path = try Fixture.write([
            Fixture.header(),
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"POST","url":"https://api.example.test/v1/x","state":"success","statusCode":200,"duration":0.1,"request":{"body":{"size":40020,"contentType":"text/plain","encoding":"utf8","text":\#(body)}}}"#
        ])
        let r = runCLI(["show", path, "1"])
        #expect(r.out.contains("more (--body full)"), "\(r.out.suffix(300))")
        #expect(!r.out.contains("after the fence"))
        let full = runCLI(["show", path, "1", "--body", "full", "-f", "markdown"])
        #expect(full.out.contains("after the fence") && full.out.contains("````\n"), "\(full.out.suffix(200))")
    }
}
