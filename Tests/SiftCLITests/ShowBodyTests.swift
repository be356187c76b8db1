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

/// `show --curl`: the request as a curl command; masked values read from shell variables, every
/// other word single-quoted so nothing in the export can run.
@Suite struct ShowCurlTests {
    static var zip: String { packageRoot.appendingPathComponent("samples/export-incident.zip").path }

    @Test func masksBecomeVariables() {
        let r = runCLI(["show", Self.zip, "27", "--curl"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("# set first (masked in the export): $AUTHORIZATION $SECRET_1\ncurl \\\n"), "\(r.out)")
        #expect(r.out.contains(#"-H 'Authorization: '"$AUTHORIZATION""#))
        #expect(r.out.contains(#""password":"'"$SECRET_1"'""#), "\(r.out)")
        let q = runCLI(["show", Self.zip, "29", "--curl"])
        #expect(q.out.contains(#"access_token='"$ACCESS_TOKEN""#), "\(q.out)")
        #expect(runCLI(["show", Self.zip, "27", "--curl", "-f", "json"]).status == 64)
    }

    @Test func nothingInTheExportRuns() throws {
        let path = try Fixture.write([
            Fixture.header(),
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"POST","url":"https://api.example.test/v1/x?q=a'b","state":"success","statusCode":200,"duration":0.1,"request":{"headers":[{"name":"X-Note","value":"it's $(touch /tmp/pbsift-curl-pwned) `id`"}],"body":{"size":9,"encoding":"utf8","text":"a'b\"c$HOME"}}}"#
        ])
        let r = runCLI(["show", path, "1", "--curl"])
        #expect(r.out.contains(#"-H 'X-Note: it'\''s $(touch /tmp/pbsift-curl-pwned) `id`'"#), "\(r.out)")
        #expect(r.out.contains(#"--data-raw 'a'\''b"c$HOME'"#), "\(r.out)")
        // Evaluated by a shell, every word stays a literal: `echo` prints the words, nothing runs.
        let script =
            "set -f; printf '%s\\n' "
            + r.out.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
            .replacingOccurrences(of: "curl \\\n", with: "")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.contains("it's $(touch /tmp/pbsift-curl-pwned) `id`"), "\(printed)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/pbsift-curl-pwned"))
    }
}

/// A request that timed out is drawn one way, and named one way, in every renderer.
@Suite struct NoResponseDrawingTests {
    static var zip: String { packageRoot.appendingPathComponent("samples/export-incident.zip").path }

    @Test func theTimeoutIsXEverywhere() {
        let show = runCLI(["show", Self.zip, "31"]).out
        #expect(show.contains("no response") && show.contains("|xxxx"), "\(show)")
        let wf = runCLI(["waterfall", Self.zip]).out
        let row = wf.split(separator: "\n").first { $0.contains(" 31 POST") } ?? ""
        #expect(row.contains("xxxx") && !row.contains("~"), "\(row)")
        #expect(wf.contains("x no response (timed out or failed)"))
        let report = runCLI(["report", Self.zip]).out
        #expect(report.contains("x no response (timed out or failed)"))
        let svg = runCLI(["waterfall", Self.zip, "-f", "svg"]).out
        #expect(svg.contains("no response (timed out or failed)"))
    }
}
