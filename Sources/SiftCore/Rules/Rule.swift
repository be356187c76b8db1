import Foundation

/// What a rule is about: the part of its id before the first dot. Commands select findings by
/// family (`waterfall` shows the `waterfall` family), never by matching id prefixes themselves.
package enum RuleFamily: String, Sendable, CaseIterable, Comparable {
    case integrity, limits, archive, policy, redaction, secret, verify, waterfall, correlation

    /// The family of a rule id (`secret.jwt` → `secret`); nil for an id outside every family.
    package init?(ruleId: String) {
        guard let dot = ruleId.firstIndex(of: ".") else { return nil }
        self.init(rawValue: String(ruleId[..<dot]))
    }

    package static func < (a: RuleFamily, b: RuleFamily) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }

    /// Credentials that reached the export (`redaction`, `secret`, and a frame in the export).
    package var isLeak: Bool { self == .redaction || self == .secret }
}

/// One rule an analysis can raise: its stable id, family, usual severity, a one-line summary and
/// what to do about it. Each analysis declares its rules; `pbsift rules`, the man page and SARIF
/// `tool.driver.rules` are generated from them, and a test fails when a raised rule is not declared.
package struct Rule: Sendable, Equatable {
    package let id: String
    package let family: RuleFamily
    /// The severity it is usually raised at (some rules are raised lower or higher by case).
    package let severity: Severity
    package let summary: String
    /// What the rule checks and why, in full (SARIF `fullDescription`); empty: the summary says it all.
    package let detail: String
    /// What to do about a finding.
    package let help: String

    /// What a `Finding` is built from: only a declared rule gives one.
    package var ref: RuleID { RuleID(id) }

    /// `id` must be in a family (`family.name`); an id that is not is a programming error caught by tests.
    package init(_ id: String, _ severity: Severity, _ summary: String, detail: String = "", help: String = "") {
        self.id = id
        self.family = RuleFamily(ruleId: id) ?? .policy
        self.severity = severity
        self.summary = summary
        self.detail = detail
        self.help = help
    }

    /// As JSON (`pbsift rules --format json`).
    package var json: JSONOut {
        .object([
            "id": .string(id), "family": .string(family.rawValue), "severity": .string(severity.rawValue),
            "summary": .string(summary), "help": .string(help)
        ])
    }
}

/// The id of a declared rule, as a `Finding` is built from it. Only a declaration makes one: a
/// `RuleSet` case (`ReaderRule.seqGap.id`) or a `Rule` built from a table (`rule.ref`, the
/// detectors'): a finding cannot be raised for a rule nobody declared.
package struct RuleID: Sendable, Hashable, CustomStringConvertible {
    package let id: String
    init(_ id: String) { self.id = id }
    /// The family of the rule (`secret.jwt` → `.secret`).
    package var family: RuleFamily? { RuleFamily(ruleId: id) }
    package var description: String { id }
}

/// The findings a command reports: whole families, plus single rules of another family it
/// declares by name. What a command lists is what decides its exit status (`--fail-on`).
package struct FindingSelection: Sendable {
    package let families: Set<RuleFamily>
    /// Rules of other families the command reports too (`verify` lists `archive.duplicate-entry`:
    /// a repeated entry can hide content from its checks).
    package let rules: Set<String>

    package init(_ families: Set<RuleFamily>, plus rules: [Rule] = []) {
        self.families = families
        self.rules = Set(rules.map(\.id))
    }

    /// Every family.
    package static let all = FindingSelection(Set(RuleFamily.allCases))

    package func keeps(_ f: Finding) -> Bool {
        f.family.map(families.contains) ?? false || rules.contains(f.rule)
    }
}

extension Finding {
    /// The family of the finding's rule.
    package var family: RuleFamily? { RuleFamily(ruleId: rule) }
}
