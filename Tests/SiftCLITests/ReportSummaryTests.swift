import Foundation
import SiftCore
import Testing

/// `report --summary`: the few lines a support engineer pastes into a ticket, on the bundled incident.
@Suite struct ReportSummaryTests {
    static var zip: String { packageRoot.appendingPathComponent("samples/export-incident.zip").path }
    static var logs: String { packageRoot.appendingPathComponent("samples/logs").path }

    @Test func textNamesTheFailureItsServerLineAndTheSkew() {
        let r = runCLI(["report", Self.zip, "--logs", Self.logs, "--summary", "-q"])
        #expect(r.status == 1)
        let lines = r.out.split(separator: "\n")
        #expect((3...7).contains(lines.count), "\(r.out)")
        #expect(lines.first?.hasPrefix("verdict") == true)
        // The failure the server explains: its line, where the time went, the skew.
        #expect(r.out.contains("#38 POST") && r.out.contains("503"), "\(r.out)")
        #expect(r.out.contains("upstream timeout"), "\(r.out)")
        #expect(r.out.contains("server clock") && r.out.contains("ahead"), "\(r.out)")
        #expect(r.out.contains("credentials"))
    }

    @Test func markdownAndJSON() throws {
        let md = runCLI(["report", Self.zip, "--logs", Self.logs, "--summary", "-f", "markdown", "-q"])
        #expect(md.out.split(separator: "\n").allSatisfy { $0.hasPrefix("- **") }, "\(md.out)")
        let js = runCLI(["report", Self.zip, "--logs", Self.logs, "--summary", "--json", "-q"])
        let doc = try JSONDocument(string: js.out).root
        let keys = (doc["summary"]?.elements ?? []).compactMap { $0["key"]?.string }
        #expect(keys.first == "verdict" && keys.contains("failed") && keys.contains("clock"), "\(keys)")
    }

    @Test func otherFormatsAreAUsageError() {
        #expect(runCLI(["report", Self.zip, "--summary", "-f", "csv"]).status == 64)
    }

    /// Without logs: no clock line, and the summary still names the failure.
    @Test func withoutLogs() {
        let r = runCLI(["report", Self.zip, "--summary", "-q"])
        #expect(!r.out.contains("clock") && r.out.contains("failed"), "\(r.out)")
    }
}

/// `records --seq` and `--request`, and `correlate --emit-query --failed`: narrowing to what a ticket is about.
@Suite struct NarrowingTests {
    static var zip: String { packageRoot.appendingPathComponent("samples/export-incident.zip").path }

    static func seqs(_ out: String) -> [Int] {
        out.split(separator: "\n").compactMap { line in (try? JSONDocument(string: String(line)))?.root["seq"]?.int }
    }

    @Test func recordsBySeqAndRange() {
        #expect(Self.seqs(runCLI(["records", Self.zip, "--seq", "38"]).out) == [38])
        #expect(Self.seqs(runCLI(["records", Self.zip, "--seq", "30-32", "--seq", "38"]).out) == [30, 31, 32, 38])
        #expect(runCLI(["records", Self.zip, "--seq", "9-1"]).status == 64)
        #expect(runCLI(["records", Self.zip, "--seq", "x"]).status == 64)
    }

    @Test func recordsByRequestId() throws {
        let one = runCLI(["records", Self.zip, "--seq", "38"]).out
        let rid = try #require(try JSONDocument(string: String(one.split(separator: "\n")[0])).root["requestId"]?.string)
        #expect(Self.seqs(runCLI(["records", Self.zip, "--request", rid.uppercased()]).out).contains(38))
        let rec = try #require(try JSONDocument(string: String(one.split(separator: "\n")[0])).root["id"]?.string)
        #expect(Self.seqs(runCLI(["records", Self.zip, "--request", rec]).out) == [38])
    }

    @Test func emitQueryForTheFailedOnly() {
        let all = runCLI(["correlate", Self.zip, "--emit-query", "loki"]).out
        let failed = runCLI(["correlate", Self.zip, "--emit-query", "loki", "--failed"]).out
        func ids(_ s: String) -> Int { s.components(separatedBy: "req_").count - 1 }
        #expect(ids(failed) > 0 && ids(failed) < ids(all), "\(ids(failed)) of \(ids(all))")
        #expect(runCLI(["correlate", Self.zip, "--logs", "/dev/null", "--failed"]).status == 64)
    }
}

/// `--session`, `--since` and `--until` leave a trace: the report's headline says what it kept.
@Suite struct ScopeTraceTests {
    @Test func theHeadlineSaysWhatWasKept() {
        let zip = packageRoot.appendingPathComponent("samples/export-incident.zip").path
        let since = runCLI(["report", zip, "--since", "2026-11-29T10:15:50Z", "-q"]).out
        #expect(
            since.hasPrefix("pbsift report: ") && since.split(separator: "\n")[0].hasSuffix("(only records from 2026-11-29T10:15:50.000Z)"),
            "\(since.prefix(200))")
        let md = runCLI(["report", zip, "--session", "ses_4fd5", "-f", "markdown", "-q"]).out
        #expect(md.contains("(only session ses\\_4fd5)") || md.contains("(only session ses_4fd5)"), "\(md.prefix(200))")
        #expect(!runCLI(["report", zip, "-q"]).out.split(separator: "\n")[0].contains("(only"))
        // And the JSON says it too; without a scope there is no member.
        let json = runCLI(["report", zip, "--since", "2026-11-29T10:15:50Z", "--json", "-q"]).out
        #expect(json.contains(#""scope": "records from 2026-11-29T10:15:50.000Z""#), "\(json.prefix(300))")
        #expect(!runCLI(["report", zip, "--json", "-q"]).out.contains(#""scope""#))
    }
}
