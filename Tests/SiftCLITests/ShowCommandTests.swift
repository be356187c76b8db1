import Foundation
import Testing
@testable import SiftCLI

/// `pbsift show`: one request, whole — through the built binary, with goldens per format.
@Suite(.serialized) struct ShowCommandTests {
    /// Compares `text` with `Golden/<name>` (re-recorded with `PBSIFT_RECORD_GOLDEN=1`).
    func expectGolden(_ text: String, _ name: String) throws { try FrameTests().expectGolden(text, name) }

    /// Runs the binary from the package root, so paths in the output are the relative ones given.
    func show(_ args: [String]) throws -> Binary.Result {
        try Binary.run(["show"] + args, cwd: packageRoot)
    }

    /// The 503 of the support case, with the server's lines: one golden per format.
    @Test(arguments: [("text", "txt"), ("markdown", "md"), ("json", "json")])
    func goldenPerFormat(_ format: String, _ ext: String) throws {
        let r = try show(["samples/export-incident.zip", "38", "--logs", "samples/logs", "-f", format, "--fail-on", "never"])
        #expect(r.status == 0, "\(r.err)")
        // Only the note of what each log file gave (beside a text report).
        #expect(r.err.split(separator: "\n").allSatisfy { $0.hasPrefix("note: samples/logs/") }, "\(r.err)")
        try expectGolden(r.out, "show-38.\(ext)")
    }

    @Test func oneRequestWhole() throws {
        let r = try show(["samples/export-incident.zip", "38", "--logs", "samples/logs", "--fail-on", "never"])
        #expect(r.status == 0)
        let o = r.out
        #expect(o.hasPrefix("POST https://api.palbase.studio/v1/orders → 503\n"))
        #expect(o.contains("status 503 · state failure"))
        #expect(o.contains("Retry-After: 30"))
        #expect(o.contains("Verdict: waiting 5.1 s"))
        #expect(o.contains("; server 5.0 s of it"))
        #expect(o.contains("server clock 2.49 s ahead of the device"))
        #expect(o.contains("device ▶  #38 POST"))
        #expect(o.contains("  server    "))
        #expect(o.contains("#37 log"))
        #expect(o.contains("#39 log"))
    }

    @Test func redirectsCacheAndReuse() throws {
        let redirect = try show(["samples/export-incident.zip", "17", "--fail-on", "never"])
        #expect(redirect.status == 0)
        #expect(redirect.out.contains("#1 +0 ms"))
        #expect(redirect.out.contains("#3 "))
        #expect(redirect.out.contains("→ 301 · redirect · new connection"))
        #expect(redirect.out.contains("→ 200 · after a redirect · new connection"))
        let cache = try show(["samples/export-incident.zip", "8", "--fail-on", "never"])
        #expect(cache.out.contains("from the local cache"))
        let reused = try show(["samples/export-incident.zip", "4", "--fail-on", "never", "--json"])
        #expect(reused.out.contains("\"reused connection\""))
        // The timeout never got a response: no response headers, and the verdict says so.
        let timeout = try show(["samples/export-incident.zip", "31", "--fail-on", "never"])
        #expect(timeout.out.contains("Response headers: none (no response)"))
        #expect(timeout.out.contains("without a response: The request timed out."))
    }

    @Test func byRequestIdAndRecordId() throws {
        let byReq = try show(["samples/export-incident.zip", "req_05f25418-2679-4298-84e5-4b9bf067dfbe", "--fail-on", "never", "--json"])
        #expect(byReq.status == 0)
        #expect(byReq.out.contains("\"seq\" : 20") || byReq.out.contains("\"seq\": 20"))
        let byRec = try show(["samples/export-incident.zip", "rec_16eda711", "--fail-on", "never", "--json"])
        #expect(byRec.out == byReq.out)
    }

    @Test func missingIsAUsageErrorThatSaysWhatExists() throws {
        let seq = try show(["samples/export-incident.zip", "99"])
        #expect(seq.status == 64)
        #expect(seq.out.isEmpty)
        #expect(
            seq.err.hasPrefix(
                "pbsift: show: no request with seq 99 in this export; the nearest requests are seq 48, 50, 52 (33 requests, seq 3 to 52)\n")
        )
        let log = try show(["samples/export-incident.zip", "21"])
        #expect(log.status == 64)
        #expect(log.err.hasPrefix("pbsift: show: seq 21 is a log record, not a request; the nearest requests are seq 19, 20, 22"))
        let req = try show(["samples/export-incident.zip", "req_00000000-0000-4000-8000-000000000000"])
        #expect(req.status == 64)
        #expect(req.err.hasPrefix("pbsift: show: no request id req_00000000-0000-4000-8000-000000000000 in this export"))
        let none = try show(["samples/export-incident.zip"])
        #expect(none.status == 64)
    }

    @Test func sessionSelector() throws {
        // seq 3 is a request in several sessions: the user has to choose.
        let both = try show(["samples/export-incident.zip", "samples/ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl", "3"])
        #expect(both.status == 64)
        #expect(both.err.contains("2 sessions hold '3'"))
        #expect(both.err.contains("--session"))
        let one = try show([
            "samples/export-incident.zip", "samples/ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl", "3",
            "--session", "ses_6b0404f2", "--json"
        ])
        #expect(one.status == 0)
        #expect(one.out.contains("ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107"))
        let bare = try show([
            "samples/export-incident.zip", "samples/ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl", "3",
            "--session", "4fd58165", "--json"
        ])
        #expect(bare.status == 0 && bare.out.contains("ses_4fd58165"))
        let nosuch = try show(["samples/export-incident.zip", "3", "--session", "ses_nosuch"])
        #expect(nosuch.status == 64)
        #expect(nosuch.err.contains("no session matches '--session ses_nosuch'"))
    }

    @Test func headersAreMasked() throws {
        // A bearer token in a header the SDK should have redacted: shown masked, never whole.
        let token = "eyJ" + String(repeating: "hbGciOiJIUzI1NiJ9", count: 2) + "." + String(repeating: "aB3dE", count: 8)
        let record =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","source":"sdk","kind":"http","category":"call","method":"GET","url":"https://api.example.test/v1/orders","state":"success","statusCode":200,"duration":0.120,"request":{"headers":[{"name":"Authorization","value":"Bearer \#(token)"},{"name":"Accept","value":"application/json"}],"body":{"size":0}},"response":{"headers":[],"body":{"size":12,"contentType":"application/json","encoding":"utf8","text":"{\"ok\":true}"}}}"#
        let path = try Fixture.write([Fixture.header(), record])
        for format in ["text", "markdown", "json"] {
            let r = try Binary.run(["show", path, "1", "-f", format, "--fail-on", "never"])
            #expect(r.status == 0)
            #expect(!r.out.contains(token), "\(format)")
            #expect(r.out.contains("Authorization"))
            #expect(r.out.contains("chars)"))
            #expect(r.out.contains("application/json, 12 B, inline text"))
        }
    }

    @Test func headerlessStdinHasAnUnknownUser() throws {
        let r = try Binary.run(["show", "-", "1", "--json"], stdin: Fixture.network + "\n")
        #expect(r.status == 0)
        #expect(r.out.contains("\"user\" : \"unknown\"") || r.out.contains("\"user\": \"unknown\""))
        let signedOut = try Fixture.write([Fixture.header().replacingOccurrences(of: #","userId":"usr_123""#, with: ""), Fixture.network])
        let s = try Binary.run(["show", signedOut, "1"])
        #expect(s.out.contains("(user signed out)"))
    }
}
