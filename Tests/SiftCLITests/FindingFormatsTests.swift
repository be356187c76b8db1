import Foundation
@_spi(Testing) import SiftCore
import Testing
@testable import SiftCLI
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The shared finding formats (SARIF, JUnit XML) of every command with findings.
@Suite struct FindingFormatsTests {
    /// Every command whose findings these formats carry, with the arguments it needs (`@` is the input).
    static let commands: [[String]] = [
        ["inspect", "@"], ["verify", "@"], ["waterfall", "@"], ["report", "@"],
        ["correlate", "@", "--logs", "@logs"]
    ]

    static func args(_ command: [String], input: String) throws -> [String] {
        let logs = URL(fileURLWithPath: input).deletingLastPathComponent().appendingPathComponent("server.log")
        try Data("2026-11-29T10:15:02.010Z INFO GET /v1/orders 200\n".utf8).write(to: logs)
        return command.map { $0 == "@" ? input : $0 == "@logs" ? logs.path : $0 }
    }

    @Test func everyCommandWithFindingsOffersThem() {
        for c in PBSift.commands where Self.commands.contains(where: { $0[0] == c.spec.name }) {
            #expect(c.spec.formats.suffix(2) == ["sarif", "junit"], "\(c.spec.name)")
        }
    }

    @Test(arguments: commands) func sarifRulesComeFromTheRegistry(_ command: [String]) throws {
        let input = try Fixture.write(Fixture.withFrame)
        let r = try Binary.run(try Self.args(command, input: input) + ["--format", "sarif"])
        #expect(r.status != 64, "\(command): \(r.err)")
        let root = try JSONDocument(string: r.out).root
        let run = try #require(root["runs"]?.elements.first)
        let rules = run["tool", "driver", "rules"]?.elements ?? []
        let ids = rules.compactMap { $0["id"]?.string }
        for rule in rules {
            let id = try #require(rule["id"]?.string)
            let registered = try #require(RuleRegistry.rule(id), "\(id) is not registered")
            #expect(rule["shortDescription", "text"]?.string == registered.summary)
            #expect(rule["defaultConfiguration", "level"]?.string == SARIFDocument.level(registered.severity))
            #expect(rule["help", "text"]?.string?.isEmpty == false)
        }
        for result in run["results"]?.elements ?? [] {
            #expect(ids.contains(result["ruleId"]?.string ?? ""))
        }
        if command[0] != "waterfall" && command[0] != "correlate" {
            #expect(ids.contains("policy.frame-in-export"), "\(command)")
        }
    }

    /// In an archive, a result names the archive with no line and the member as a logical location.
    @Test func archiveResultsHaveNoRegion() throws {
        let zip = packageRoot.appendingPathComponent("samples/export-incident.zip").path
        let r = try Binary.run(["verify", zip, "--format", "sarif"])
        let run = try #require(try JSONDocument(string: r.out).root["runs"]?.elements.first)
        let results = run["results"]?.elements ?? []
        #expect(!results.isEmpty)
        for result in results {
            let loc = try #require(result["locations"]?.elements.first)
            #expect(loc["physicalLocation", "artifactLocation", "uri"]?.string?.hasSuffix("export-incident.zip") == true)
            #expect(loc["physicalLocation", "region"] == nil)
            let member = try #require(loc["logicalLocations"]?.elements.first)
            #expect(member["kind"]?.string == "module")
            #expect(member["name"]?.string?.hasSuffix(".jsonl") == true || member["name"]?.string?.isEmpty == false)
        }
        // A session file on its own keeps its line.
        let file = try Fixture.write(Fixture.withFrame)
        let plain = try Binary.run(["verify", file, "--format", "sarif"])
        let first = try #require(try JSONDocument(string: plain.out).root["runs"]?.elements.first?["results"]?.elements.first)
        #expect((first["locations"]?.elements.first?["physicalLocation", "region", "startLine"]?.int ?? 0) >= 1)
    }

    @Test func junitFailsAtFailOnAndIsWellFormed() throws {
        let input = try Fixture.write(Fixture.withFrame)
        for (failOn, failures) in [("high", 1), ("critical", 0)] {
            let r = try Binary.run(["verify", input, "--format", "junit", "--fail-on", failOn])
            #expect(r.out.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pbsift verify\""))
            #expect(r.out.contains("failures=\"\(failures)\""), "\(failOn): \(r.out)")
            let parser = XMLParser(data: Data(r.out.utf8))
            let names = Names()
            parser.delegate = names
            #expect(parser.parse(), "\(r.out)")
            #expect(names.elements.contains("testsuite") && names.elements.contains("testcase"))
            #expect(names.elements.contains("failure") == (failures > 0))
        }
        // A clean input is one passing case.
        let clean = try Fixture.write(Fixture.clean)
        let ok = try Binary.run(["verify", clean, "--format", "junit"])
        #expect(ok.status == 0)
        #expect(ok.out.contains("name=\"no findings\"/>") && ok.out.contains("failures=\"0\""))
    }

    /// Text from an export is escaped for XML after redaction: no markup, no raw controls.
    @Test func junitEscapesUntrustedText() {
        let f = Finding(
            rule: Rule("policy.frame-in-export", .info, "a test rule").ref, severity: .high, input: "in<put>",
            file: "a\u{1B}]52;c;x\u{07}.jsonl",
            line: 3, location: "\"quoted\" & <tag>", message: "m\u{202E}x", preview: "ghp_…(40 chars)", fingerprint: "sha256:00")
        let doc = FindingsDocument(
            command: "verify", findings: Redactor.identity().apply([f]), inputs: Redactor.identity().apply([InputSummary]()),
            rule: RuleRegistry.rule)
        let xml = JUnitDocument.render(doc, failOn: .high)
        #expect(
            !xml.contains("<tag>") && !xml.contains("in<put>") && !xml.contains("\u{1B}") && !xml.contains("\u{07}")
                && !xml.contains("\u{202E}"))
        #expect(!xml.contains("ghp_"), "values, even masked, are not printed")
        #expect(xml.contains("sha256:00"))
    }

    final class Names: NSObject, XMLParserDelegate {
        var elements: [String] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes attributeDict: [String: String] = [:]
        ) {
            elements.append(name)
        }
    }
}
