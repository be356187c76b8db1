import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall
import Testing
@testable import SiftCLI

/// The rule registry: every rule has a family, ids are unique, and every rule a command raises on
/// hostile and sample exports is declared.
@Suite struct RuleRegistryTests {
    @Test func everyRuleHasAFamilyAndASummary() {
        for r in RuleRegistry.all {
            #expect(RuleFamily(ruleId: r.id) == r.family, "\(r.id) is outside every family")
            #expect(!r.summary.isEmpty)
            #expect(!r.help.isEmpty, "\(r.id) has no help: what to do about it")
        }
    }

    /// The rules raised on the leak fixture and the contract's example export.
    @Test func everyRaisedRuleIsRegistered() throws {
        let fx = try #require(LeakMatrixTests.fixture)
        let example = packageRoot.appendingPathComponent("Tests/SiftCoreTests/Fixtures/PalbeConsole").path
        var raised = Set<String>()
        for args in [
            ["verify", fx.export.path], ["inspect", fx.export.path], ["waterfall", fx.export.path],
            ["correlate", fx.export.path, "--logs", fx.logs.path], ["report", fx.export.path, "--logs", fx.logs.path],
            ["verify", example], ["report", example]
        ] {
            let r = runCLI(args + ["--format", "json"])
            guard let doc = try? JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any],
                let findings = doc["findings"] as? [[String: Any]]
            else { continue }
            for f in findings { if let id = f["rule"] as? String { raised.insert(id) } }
        }
        #expect(!raised.isEmpty)
        for id in raised.sorted() {
            #expect(RuleRegistry.rule(id) != nil, "\(id) is raised but not declared: declare it with its analysis")
        }
    }

    /// Rules are declared once: over every set as declared (no de-duplication), no id repeats,
    /// and every id's prefix is its family.
    @Test func idsAreUniqueOverTheDeclaredSets() {
        var seen = Set<String>()
        for r in RuleRegistry.declared {
            #expect(seen.insert(r.id).inserted, "\(r.id) is declared twice")
            #expect(r.id.hasPrefix(r.family.rawValue + "."), "\(r.id) is not in its family")
        }
        #expect(RuleRegistry.all.count == RuleRegistry.declared.count)
        // What a finding says is its rule's id.
        let f = Finding(rule: ReaderRule.seqGap.id, severity: .high, input: "x", message: "m")
        #expect(f.rule == ReaderRule.seqGap.rawValue && f.family == .integrity)
    }

    /// Raise sites name a rule in code: an id written as text outside a `…Rule.swift` file (where
    /// rules are declared) fails here. Detector rules are declared by their table row.
    @Test func noRuleIdIsWrittenOutsideItsDeclaration() throws {
        let root = packageRoot.standardizedFileURL
        let families = RuleFamily.allCases.map(\.rawValue).joined(separator: "|")
        let pattern = try NSRegularExpression(pattern: "\"(\(families))\\.[a-z0-9]")
        var found: [String] = []
        for dir in ["Sources", "fuzz/Entries"] {
            let walker = FileManager.default.enumerator(at: root.appendingPathComponent(dir), includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                guard url.pathExtension == "swift", !url.lastPathComponent.hasSuffix("Rule.swift") else { continue }
                let text = try String(contentsOf: url, encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let l = String(line)
                    if pattern.firstMatch(in: l, range: NSRange(l.startIndex..., in: l)) != nil {
                        found.append("\(url.lastPathComponent):\(n + 1)")
                    }
                }
            }
        }
        #expect(found.isEmpty, "rule ids written as text: \(found)")
    }

    @Test func rulesCommandListsTheRegistry() throws {
        let text = runCLI(["rules"]).out
        for r in RuleRegistry.all { #expect(text.contains(r.id)) }
        let json = runCLI(["rules", "--format", "json"]).out
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(list.count == RuleRegistry.all.count)
        #expect(Set(list.compactMap { $0["family"] as? String }).isSubset(of: Set(RuleFamily.allCases.map(\.rawValue))))
    }

    @Test func rulesANameShowsThoseInFull() throws {
        let one = runCLI(["rules", "github-token"])
        #expect(one.status == 0)
        #expect(one.out.hasPrefix("secret.github-token\n"))
        for part in ["severity    critical: ", "provider    GitHub", "looks at    ghp_"] { #expect(one.out.contains(part), "\(part)") }
        // A word: every rule whose id or provider holds it; JSON keeps to those.
        let word = runCLI(["rules", "launchdarkly", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(word.out.utf8)) as? [[String: Any]])
        // (and the rule that knows LaunchDarkly by name)
        #expect(
            Set(list.compactMap { $0["id"] as? String })
                == ["secret.launchdarkly-key", "secret.launchdarkly-mobile-key", "secret.provider-keyed-secret"])
        #expect(list.allSatisfy { ($0["severityWhy"] as? String)?.isEmpty == false })
        let none = runCLI(["rules", "no-such-rule-anywhere"])
        #expect(none.status == 64)
        #expect(none.err.contains("no rule's id or provider holds 'no-such-rule-anywhere'"))
    }

    /// `docs/rules.md` is generated from the registry, as the man page is from the option tables.
    @Test func rulesDocIsFresh() throws {
        let checkedIn = try String(contentsOf: packageRoot.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        #expect(
            checkedIn == runCLI(["rules", "--format", "markdown"]).out,
            "docs/rules.md is out of date, run `swift run pbsift rules --format markdown > docs/rules.md`")
    }
}

/// What a command lists is what decides its exit status: in SARIF (which lists every finding a
/// command reports), each command's findings are of the families it declares, and `--fail-on`
/// fails exactly when one of them is at or above it.
@Suite struct ListedDecidesExitTests {
    static let commands: [(name: String, selection: FindingSelection, extra: Bool)] = [
        ("inspect", InspectCommand.reports, false), ("verify", VerifyCommand.reports, false),
        ("waterfall", WaterfallCommand.reports, false), ("correlate", CorrelateCommand.reports, true),
        ("report", ReportCommand.reports, true)
    ]

    @Test(arguments: ["info", "medium", "high", "critical"])
    func listedFindingsDecideTheExit(_ failOn: String) throws {
        let fx = try #require(LeakMatrixTests.fixture)
        let threshold = try #require(Severity(rawValue: failOn))
        var checked = 0
        for c in Self.commands {
            let args = [c.name, fx.export.path] + (c.extra ? ["--logs", fx.logs.path] : []) + ["--format", "sarif", "--fail-on", failOn]
            let r = runCLI(args)
            guard r.status != 2 else { continue } // not read in full: 2 wins whatever is listed
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(c.name)")
            let results = ((doc["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
            var worst: Severity? = nil
            for res in results {
                let id = try #require(res["ruleId"] as? String)
                let family = try #require(RuleFamily(ruleId: id))
                #expect(c.selection.families.contains(family) || c.selection.rules.contains(id), "\(c.name) lists \(id)")
                let sev = (res["properties"] as? [String: Any])?["severity"] as? String
                if let s = sev.flatMap(Severity.init(rawValue:)) { worst = max(worst ?? s, s) }
            }
            let expected: Int32 = (worst.map { $0 >= threshold } ?? false) ? 1 : 0
            #expect(r.status == expected, "\(c.name) --fail-on \(failOn): status \(r.status), worst listed \(worst?.rawValue ?? "none")")
            if !results.isEmpty { checked += 1 }
        }
        #expect(checked >= 3, "most commands list findings on the leak fixture")
    }
}
