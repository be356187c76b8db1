import Foundation
import SiftCore
import Testing
@testable import SiftCLI

/// The rule registry: every rule has a family, ids are unique, and every rule a command raises on
/// hostile and sample exports is declared.
@Suite struct RuleRegistryTests {
    @Test func everyRuleHasAFamilyAndAUniqueId() {
        var seen = Set<String>()
        for r in RuleRegistry.all {
            #expect(RuleFamily(ruleId: r.id) == r.family, "\(r.id) is outside every family")
            #expect(seen.insert(r.id).inserted, "\(r.id) is declared twice")
            #expect(!r.summary.isEmpty)
        }
    }

    /// The rules raised on the leak fixture and the contract's example export.
    @Test func everyRaisedRuleIsRegistered() throws {
        let fx = try #require(LeakMatrixTests.fixture)
        let example = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/format/examples/PalbeConsole").path
        var raised = Set<String>()
        for args in [["verify", fx.export.path], ["inspect", fx.export.path], ["waterfall", fx.export.path],
                     ["correlate", fx.export.path, "--logs", fx.logs.path], ["report", fx.export.path, "--logs", fx.logs.path],
                     ["verify", example], ["report", example]] {
            let r = runCLI(args + ["--format", "json"])
            guard let doc = try? JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any],
                  let findings = doc["findings"] as? [[String: Any]] else { continue }
            for f in findings { if let id = f["rule"] as? String { raised.insert(id) } }
        }
        #expect(!raised.isEmpty)
        for id in raised.sorted() {
            #expect(RuleRegistry.rule(id) != nil, "\(id) is raised but not declared: declare it with its analysis")
        }
    }

    @Test func rulesCommandListsTheRegistry() throws {
        let text = runCLI(["rules"]).out
        for r in RuleRegistry.all { #expect(text.contains(r.id)) }
        let json = runCLI(["rules", "--format", "json"]).out
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(list.count == RuleRegistry.all.count)
        #expect(Set(list.compactMap { $0["family"] as? String }).isSubset(of: Set(RuleFamily.allCases.map(\.rawValue))))
    }

    /// `docs/rules.md` is generated from the registry, as the man page is from the option tables.
    @Test func rulesDocIsFresh() throws {
        let checkedIn = try String(contentsOf: packageRoot.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        #expect(checkedIn == runCLI(["rules", "--format", "markdown"]).out,
                "docs/rules.md is out of date, run `swift run pbsift rules --format markdown > docs/rules.md`")
    }
}
