import Foundation
import SiftCore
import Testing

/// `pbsift diff BEFORE AFTER`: the incident against the clean sample, two alike, sessions, secrets.
@Suite struct DiffCommandTests {
    static var samples: URL { packageRoot.appendingPathComponent("samples") }

    @Test func theIncidentAgainstTheCleanRun() throws {
        let r = runCLI([
            "diff", Self.samples.appendingPathComponent("export-clean").path,
            Self.samples.appendingPathComponent("export-incident.zip").path
        ])
        #expect(r.status == 1, "\(r.err)")
        #expect(r.out.contains("new failure") && r.out.contains("#38 503"), "\(r.out)")
        #expect(r.out.contains("slower") && r.out.contains("waiting"), "\(r.out)")
        #expect(r.out.contains("request added") && r.out.contains("response body key"), "\(r.out)")
        #expect(r.out.contains("new error log"), "\(r.out)")
        let js = runCLI([
            "diff", "--json", Self.samples.appendingPathComponent("export-clean").path,
            Self.samples.appendingPathComponent("export-incident.zip").path
        ])
        let doc = try JSONDocument(string: js.out).root
        #expect((doc["newFailures"]?.int ?? 0) >= 2)
        #expect((doc["changes"]?.elements ?? []).contains { $0["kind"]?.string == "new failure" })
        let md = runCLI([
            "diff", "-f", "markdown", Self.samples.appendingPathComponent("export-clean").path,
            Self.samples.appendingPathComponent("export-incident.zip").path
        ])
        #expect(md.out.contains("| new failure |"))
    }

    @Test func twoAlikeHaveNoDifferences() {
        let zip = Self.samples.appendingPathComponent("export-incident.zip").path
        let r = runCLI(["diff", zip, zip])
        #expect(r.status == 0)
        #expect(r.out.contains("no differences"))
    }

    @Test func sessionsOfOneExportAndUsageErrors() {
        let zip = Self.samples.appendingPathComponent("export-incident.zip").path
        #expect(runCLI(["diff", zip, zip, "--before-session", "ses_nope"]).status == 64)
        #expect(runCLI(["diff", zip]).status == 64)
        #expect(runCLI(["diff", "-", "-"]).status == 64)
    }

    /// Routes, names and log wordings come from the exports: no credential reaches any format.
    @Test(arguments: ["text", "markdown", "json"])
    func noCredentialInAnyFormat(_ format: String) throws {
        let token = "gh" + "p_" + ReadingBoundsTests.token(3)
        let password = "Corr3ct-Horse-" + "Battery"
        let before = try Fixture.write([Fixture.header(), Fixture.network])
        let after = try Fixture.write([
            Fixture.header(),
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"POST","url":"https://feeds:\#(password)@api.example.test/v1/reset/\#(token)?t=\#(token)","state":"failure","statusCode":500,"duration":0.1,"request":{"headers":[{"name":"Authorization","value":"Bearer \#(token)"}],"body":{"encoding":"utf8","text":"{\"password\":\"\#(password)\"}"}}}"#,
            #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.000Z","level":"error","message":"login failed for password \#(password) token \#(token)"}"#
        ])
        let r = runCLI(["diff", "-f", format, before, after])
        #expect(r.status == 1)
        for secret in [token, password] {
            #expect(!r.out.contains(secret) && !r.err.contains(secret), "\(format): \(r.out)")
        }
        #expect(r.out.contains("new error log") || r.out.contains("new error log".replacingOccurrences(of: " ", with: " ")))
    }
}
