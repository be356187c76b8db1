import Foundation
import Testing
@testable import SiftCLI
import SiftCore

@Suite struct ReportTests {
    static let samples = packageRoot.appendingPathComponent("samples")
    static var incident: String { samples.appendingPathComponent("export-incident.zip").path }
    static var logs: String { samples.appendingPathComponent("logs").path }

    static func schema() throws -> SchemaValidator {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("docs/schema/report.schema.json"))
        return SchemaValidator(schema: try JSONDocument(bytes: Array(data)).root)
    }

    @Test(arguments: [
        ["export-incident.zip", "--logs", "logs"], ["export-incident.tar.gz"], ["export-clean"],
        ["damaged/truncated.tar.gz", "damaged/frame-in-export"]
    ])
    func jsonMatchesTheSchema(_ args: [String]) throws {
        let paths = args.map { $0.hasPrefix("--") ? $0 : Self.samples.appendingPathComponent($0).path }
        let r = runCLI(["report", "--json"] + paths)
        let doc = try JSONDocument(string: r.out)
        let errors = try Self.schema().validate(doc.root)
        #expect(errors.isEmpty, "\(errors.prefix(10))")
    }

    @Test func theValidatorCatchesViolations() throws {
        let bad = try JSONDocument(string: #"{"tool": {"name": "x"}, "inputs": 3}"#)
        let errors = try Self.schema().validate(bad.root)
        #expect(errors.contains { $0.contains("missing verdict") })
        #expect(errors.contains { $0.contains("$.inputs") })
        #expect(errors.contains { $0.contains("$.tool") })
    }

    @Test func verdictLeadsTheIncident() throws {
        let r = runCLI(["report", "--json", Self.incident, "--logs", Self.logs])
        #expect(r.status == 1)
        let doc = try JSONDocument(string: r.out)
        let verdict = doc.root["verdict"]?.elements ?? []
        #expect(verdict.map { $0["key"]?.string ?? "" } == ["credentials", "export", "failures", "slowest", "server"])
        #expect(verdict.first?["ok"]?.bool == false)
        #expect(verdict[1]["ok"]?.bool == true)
        #expect(doc.root["correlation", "clockSkew", "seconds"]?.double.map { abs($0 - 2.487) < 0.05 } == true)
        #expect(doc.root["failures"]?.count == 3, "one item per failed request")
        #expect(doc.root["failures"]?.elements.first?["timeline"] != nil)
        // One pass: the same findings as verify and inspect together.
        let rules = Set(doc.root["findings"]?.elements.compactMap { $0["rule"]?.string } ?? [])
        #expect(rules.contains("redaction.header") && rules.contains("secret.jwt") && rules.contains("correlation.echo-mismatch"))
    }

    @Test(arguments: ["text", "markdown", "json", "csv", "html"])
    func noPlantedSecretInAnyFormat(_ format: String) throws {
        let r = runCLI(["report", "-f", format, Self.incident, "--logs", Self.logs])
        #expect(r.status == 1)
        #expect(!r.out.isEmpty)
        for secret in try PlantedLeaks.values() where secret.utf8.count >= 6 {
            #expect(!r.out.contains(secret), "a planted secret reached the \(format) report")
        }
    }

    @Test func cleanExportPasses() {
        let r = runCLI(["report", Self.samples.appendingPathComponent("export-clean").path])
        #expect(r.status == 0)
        #expect(r.out.contains("No credential found"))
    }

    @Test func unreadableLogsMakeItIncomplete() {
        let r = runCLI(["report", Self.incident, "--logs", "/nonexistent/pbsift-logs", "--fail-on", "never"])
        #expect(r.status == 2)
    }

    @Test(arguments: [["--slowest", "x"], ["--context", "-1"], ["-f", "pdf"]])
    func usageErrors(_ extra: [String]) {
        let r = runCLI(["report", Self.incident] + extra)
        #expect(r.status == 64)
    }

    /// Hostile strings from an export never break a Markdown table, inject HTML, or run as a spreadsheet formula.
    @Test func injectionIsNeutralised() throws {
        let dir = try makeTempDir()
        let evil = "a|b\\n<script>alert(1)</script>`x`\\u001b[31m"
        let net =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","source":"app","kind":"http","method":"GET","url":"https://x.test/\#(evil)","state":"failure","statusCode":500,"duration":0.1,"error":{"domain":"X","code":1,"description":"\#(evil)"}}"#
        let log = #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:02.100Z","level":"error","label":"l","message":"\#(evil)"}"#
        let frame = #"{"type":"frame","seq":3,"ts":"2026-11-29T10:15:02.200Z","direction":"out","body":{}}"#
        let file = dir.appendingPathComponent("=cmd|'calc'!A0.jsonl")
        try Data(([Fixture.header(), net, log, frame].joined(separator: "\n") + "\n").utf8).write(to: file)

        let md = runCLI(["report", "-f", "markdown", file.path]).out
        // Outside code blocks no raw HTML; inside them text is literal, and no fence can be closed by data.
        let parts = md.components(separatedBy: "```")
        #expect(parts.count % 2 == 1)
        for (i, part) in parts.enumerated() where i % 2 == 0 { #expect(!part.contains("<script>")) }
        #expect(!md.contains("\u{1b}"))
        for line in md.split(separator: "\n") where line.hasPrefix("|") && line.contains("x.test") {
            // Every `|` inside a cell is escaped: the row has as many bare pipes as its header.
            let bare = line.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count
            #expect(bare == 7 || bare == 4 || bare == 6, "\(line)")
        }
        let html = runCLI(["report", "-f", "html", file.path]).out
        #expect(!html.contains("<script>"))
        #expect(!html.contains("\u{1b}"))
        let csv = runCLI(["report", "-f", "csv", file.path]).out
        #expect(!csv.contains(",=cmd"))
        #expect(csv.contains("'=cmd"))
        let text = runCLI(["report", file.path]).out
        #expect(!text.contains("\u{1b}"))
    }
}
