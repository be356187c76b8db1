import Foundation
import SiftArchive
import SiftCore
import Testing
@testable import SiftCLI

/// `inspect` in memory: every format, exit statuses, escaping, and the shared report pieces.
@Suite struct InspectTests {
    func outcome(_ lines: [String]) throws -> (String, ReadOutcome) {
        let path = try Fixture.write(lines)
        return (path, ExportReader().read(inputs: [path], analyses: []))
    }

    func parse(_ json: String) throws -> [String: Any] {
        let obj = try JSONSerialization.jsonObject(with: Data(json.utf8))
        guard let dict = obj as? [String: Any] else { throw UsageError("not an object") }
        return dict
    }

    @Test func jsonEnvelope() throws {
        let (path, o) = try outcome(Fixture.withFrame)
        let doc = try parse(InspectReport.json(Redactor.verify().apply(o)))
        #expect(Set(doc.keys) == ["tool", "inputs", "sessions", "blobs", "findings", "summary"])
        let tool = doc["tool"] as? [String: Any]
        #expect(tool?["name"] as? String == "pbsift" && tool?["version"] as? String == PBSift.version)
        let inputs = doc["inputs"] as? [[String: Any]] ?? []
        #expect(inputs.count == 1)
        #expect(inputs.first?["path"] as? String == path)
        #expect(inputs.first?["container"] as? String == "jsonl")
        #expect(inputs.first?["status"] as? String == "ok")
        let sessions = doc["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.count == 1)
        let s = sessions.first ?? [:]
        #expect(s["sessionId"] as? String == Fixture.sessionId)
        #expect(s["input"] as? String == path)
        #expect(s["recordCount"] as? Int == 3)
        let records = s["records"] as? [String: Int] ?? [:]
        #expect(records == ["network": 1, "log": 1, "event": 0, "frame": 1, "unknown": 0])
        #expect((s["app"] as? [String: Any])?["bundleId"] as? String == "com.acme.shop")
        #expect((s["device"] as? [String: Any])?["model"] as? String == "iPhone16,1")
        #expect(s["userId"] as? String == "usr_123")
        #expect(s["environmentRef"] as? String == "env_prod_eu")
        #expect(s["launchedAt"] as? String == "2026-11-29T10:15:01.002000Z")
        #expect(s["durationSeconds"] as? Double == 2.0) // first to last record after the header
        let findings = doc["findings"] as? [[String: Any]] ?? []
        #expect(
            findings.contains {
                $0["rule"] as? String == "policy.frame-in-export" && $0["severity"] as? String == "high"
                    && $0["seq"] as? Int == 3 && $0["sessionId"] as? String == Fixture.sessionId
            })
        let summary = doc["summary"] as? [String: Any] ?? [:]
        #expect(summary["high"] as? Int == 1 && summary["worst"] as? String == "high")
        #expect(summary["total"] as? Int == findings.count)
        // Deterministic: the same outcome renders the same bytes.
        #expect(InspectReport.json(Redactor.verify().apply(o)) == InspectReport.json(Redactor.verify().apply(o)))
    }

    /// The envelope written member by member (sessions and findings one at a time, through a writer
    /// with a sink) is byte for byte the tree `ReportEnvelope.document` renders.
    @Test func streamedEnvelopeIsTheTreesBytes() throws {
        let (_, o) = try outcome(Fixture.withFrame + ["", "{not json", "[1]"])
        let r = Redactor.verify().apply(o).value
        var sections: [String: JSONOut] = [
            "sessions": .array(r.sessions.map(InspectReport.sessionJSON)),
            "blobs": ReportEnvelope.blobJSON(ReportEnvelope.blobTotals(r.blobs))
        ]
        sections["extra"] = .object(["b": .int(1), "a": .array([])])
        let tree = ReportEnvelope.render(
            ReportEnvelope.document(
                inputs: r.inputs, findings: r.findings, blobs: r.blobs,
                sections: sections))
        var members = InspectReport.sections(r)
        members["extra"] = .object(["b": .int(1), "a": .array([])])
        members.array("empty", [Int]()) { .int($0) }
        let box = TextBox()
        var w = JSONWriter(pretty: true, sink: OutputSink.memory { box.text += $0 })
        ReportEnvelope.members(inputs: r.inputs, findings: r.findings, blobs: r.blobs, sections: members).write(into: &w)
        w.newline()
        w.flush()
        let streamed = box.text
        #expect(r.findings.count >= 3)
        #expect(streamed == tree.replacingOccurrences(of: "\n  \"extra\"", with: "\n  \"empty\": [],\n  \"extra\""))
    }

    final class TextBox: @unchecked Sendable { var text = "" }

    @Test func textFormat() throws {
        let (_, o) = try outcome(Fixture.withFrame)
        let t = InspectReport.text(Redactor.verify().apply(o))
        for needle in [
            "Session " + Fixture.sessionId, "com.acme.shop 4.2.0 (512)", "palbe-swift 3.1.0",
            "iPhone16,1, iOS 18.1.1, en_GB, Europe/London", "env_prod_eu", "usr_123",
            "2026-11-29T10:15:01.002Z", "3: 1 network, 1 log, 0 event, 1 frame, 0 unknown",
            "HIGH", "policy.frame-in-export"
        ] {
            #expect(t.contains(needle), "\(needle)")
        }
        #expect(!t.contains("\u{1B}"))
        #expect(InspectReport.text(Redactor.verify().apply(o), colors: Colors(enabled: true)).contains("\u{1B}[31m"))
    }

    @Test func markdownAndCSV() throws {
        let (_, o) = try outcome(Fixture.clean)
        let md = InspectReport.markdown(Redactor.verify().apply(o))
        #expect(md.hasPrefix("# pbsift inspect\n"))
        #expect(md.contains("## Sessions") && md.contains("| Session | File |"))
        let csv = InspectReport.csv(Redactor.verify().apply(o))
        let rows = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 2)
        #expect(rows.first == InspectReport.csvHeader.joined(separator: ","))
        #expect(rows.last?.hasPrefix(Fixture.sessionId + ",") == true)
        #expect(rows.last?.contains("\"iPhone16,1\"") == true)
    }

    /// Hostile strings from an export never reach a terminal raw, break a Markdown table, or run in a spreadsheet.
    @Test func hostileStringsAreEscaped() throws {
        let evil = "\\u001b[2J|=cmd()<b>"
        let (_, o) = try outcome([Fixture.header(userId: evil), Fixture.network])
        #expect(o.sessions.first?.userId == "\u{1B}[2J|=cmd()<b>")
        let text = InspectReport.text(Redactor.verify().apply(o), colors: Colors(enabled: true))
        #expect(!text.contains("\u{1B}[2J"))
        #expect(text.contains("\\x1b[2J"))
        let md = InspectReport.markdown(Redactor.verify().apply(o))
        #expect(!md.contains("\u{1B}") && !md.contains("<b>"))
        #expect(md.contains("\\|=cmd()&lt;b&gt;"))
        let csvOut = InspectReport.csv(Redactor.verify().apply(o))
        #expect(!csvOut.contains(",=cmd"))
        let json = InspectReport.json(Redactor.verify().apply(o))
        #expect(json.contains("\\u001b[2J"))
    }

    @Test func findingsPieces() {
        let f = [
            Finding(
                rule: Rule("integrity.unknown-record-type", .info, "a test rule").ref, severity: .info, input: "a.zip",
                file: "sessions/x.jsonl",
                line: 4, message: "unknown record type 'trace'"),
            Finding(
                rule: Rule("secret.jwt", .info, "a test rule").ref, severity: .critical, input: "a.zip", file: "sessions/x.jsonl", seq: 9,
                line: 10,
                location: "response.body $.token", message: "a jwt, unredacted", preview: "eyJh…(300 chars)",
                fingerprint: "sha256:0123456789abcdef")
        ]
        #expect(ReportEnvelope.findingsSummaryLine(f) == "2 findings (1 critical, 1 info)")
        #expect(ReportEnvelope.findingsSummaryLine([]) == "no findings")
        let text = ReportEnvelope.findingsText(f)
        let crit = text.range(of: "secret.jwt")?.lowerBound
        let info = text.range(of: "integrity.unknown-record-type")?.lowerBound
        #expect(crit != nil && info != nil && crit! < info!)
        #expect(text.contains("a.zip: sessions/x.jsonl:10, seq 9, response.body $.token"))
        #expect(text.contains("eyJh…(300 chars)") && text.contains("sha256:0123456789abcdef"))
        let csv = ReportEnvelope.findingsCSV(f).components(separatedBy: "\r\n")
        #expect(csv[0] == ReportEnvelope.findingsCSVHeader.joined(separator: ","))
        #expect(csv[1].hasPrefix("critical,secret.jwt,a.zip,"))
        let md = ReportEnvelope.findingsMarkdown(f)
        #expect(md.contains("| **critical** | `secret.jwt` |"))
        guard case .object(let summary) = ReportEnvelope.summary(f) else { Issue.record("summary"); return }
        #expect(summary["total"] == .int(2) && summary["critical"] == .int(1) && summary["high"] == .int(0))
        #expect(summary["worst"] == .string("critical"))
    }

    @Test func runInMemory() throws {
        let clean = try Fixture.write(Fixture.clean)
        let frame = try Fixture.write(Fixture.withFrame)
        #expect(runCLI(["inspect", clean]).status == 0)
        #expect(runCLI(["inspect", frame]).status == 1)
        #expect(runCLI(["inspect", "--fail-on", "critical", frame]).status == 0)
        #expect(runCLI(["inspect", clean, "/nonexistent/pbsift-test-input"]).status == 2)
        #expect(runCLI(["inspect", frame, "/nonexistent/pbsift-test-input"]).status == 2)
        let a = runCLI(["inspect", "--json", frame])
        let b = runCLI(["inspect", "--format", "json", frame])
        let c = runCLI(["inspect", "-f", "json", frame])
        #expect(a.out == b.out && b.out == c.out && a.status == b.status)
        #expect(a.out.hasPrefix("{\n"))
        let dir = try makeTempDir()
        let out = dir.appendingPathComponent("r.md").path
        let r = runCLI(["inspect", "-f", "markdown", "-o", out, clean])
        #expect(r.status == 0 && r.out.isEmpty)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix("# pbsift inspect"))
        #expect(runCLI(["inspect", "-o", dir.appendingPathComponent("no/such/dir").path, clean]).status == 2)
    }

    @Test func progressDrawsOnlyWhenEnabled() {
        let c = Capture()
        let io = CommandIO(stdout: { c.out += $0 }, stderr: { c.err += $0 }, stderrIsTTY: true)
        var t = 0.0
        let p = Progress(io: io, enabled: true, interval: 0.1, clock: { t })
        p.beginInput(InputContext(path: "a"))
        #expect(c.err == "\r\u{1B}[K" + "reading 1 input · 0 B · 0 records")
        p.tick()
        #expect(c.err.components(separatedBy: "\r").count == 2) // rate-limited: no redraw yet
        t = 0.2
        p.tick()
        #expect(c.err.components(separatedBy: "\r").count == 3)
        _ = p.finish()
        #expect(c.err.hasSuffix("\r\u{1B}[K"))
        #expect(c.out.isEmpty)

        let quiet = Capture()
        let off = Progress(io: CommandIO(stdout: { quiet.out += $0 }, stderr: { quiet.err += $0 }), enabled: false)
        off.beginInput(InputContext(path: "a"))
        _ = off.finish()
        #expect(quiet.err.isEmpty)
    }

    /// With several inputs: which one of how many, the rate, and the time left from the inputs done.
    @Test func progressCountsInputsAndTimeLeft() {
        let c = Capture()
        let io = CommandIO(stdout: { c.out += $0 }, stderr: { c.err += $0 }, stderrIsTTY: true)
        var t = 0.0
        let p = Progress(io: io, enabled: true, interval: 0.1, clock: { t })
        for k in 0..<3 {
            p.waiting = 11 - k
            t = Double(k) * 2
            p.beginInput(InputContext(path: "e\(k).zip"))
        }
        // 2 inputs done in 4 s, 9 waiting plus the current one: about 20 s left.
        #expect(p.line.string.hasPrefix("input 3 of 12 · 0 B · 0 records · 0.0 MB/s · about 20 s left"), "\(p.line.string)")
        _ = p.finish()
    }

    @Test func progressThroughInspectOnTTY() throws {
        let path = try Fixture.write(Fixture.clean)
        let tty = runCLI(["inspect", path], stderrTTY: true)
        #expect(tty.err.contains("reading 1 input"))
        #expect(tty.err.hasSuffix("\r\u{1B}[K"))
        #expect(runCLI(["inspect", "-q", path], stderrTTY: true).err.isEmpty)
        #expect(runCLI(["inspect", path]).err.isEmpty)
    }

    /// The man page's rule list keeps up with the reader: every rule the reader declares is listed.
    @Test func readerRulesDocumented() throws {
        let documented = Set(InspectCommand.readerRules.map(\.0))
        for rule in ReaderRule.allCases { #expect(documented.contains(rule.rawValue), "\(rule) is not in InspectCommand.readerRules") }
        for rule in ArchiveProblem.allCases { #expect(documented.contains(rule.rawValue), "\(rule) is not in InspectCommand.readerRules") }
        for p in ArchiveProblem.allCases { #expect(documented.contains(p.rawValue)) }
    }
}
