import Foundation

/// What a rule is about: the part of its id before the first dot. Commands select findings by
/// family (`waterfall` shows the `waterfall` family), never by matching id prefixes themselves.
public enum RuleFamily: String, Sendable, CaseIterable, Comparable {
    case integrity, limits, archive, policy, redaction, secret, verify, waterfall, correlation

    /// The family of a rule id (`secret.jwt` → `secret`); nil for an id outside every family.
    public init?(ruleId: String) {
        guard let dot = ruleId.firstIndex(of: ".") else { return nil }
        self.init(rawValue: String(ruleId[..<dot]))
    }

    public static func < (a: RuleFamily, b: RuleFamily) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }

    /// Credentials that reached the export (`redaction`, `secret`, and a frame in the export).
    public var isLeak: Bool { self == .redaction || self == .secret }
}

/// One rule an analysis can raise: its stable id, family, usual severity, a one-line summary and
/// what to do about it. Each analysis declares its rules; `pbsift rules`, the man page and SARIF
/// `tool.driver.rules` are generated from them, and a test fails when a raised rule is not declared.
public struct Rule: Sendable, Equatable {
    public let id: String
    public let family: RuleFamily
    /// The severity it is usually raised at (some rules are raised lower or higher by case).
    public let severity: Severity
    public let summary: String
    /// What the rule checks and why, in full (SARIF `fullDescription`); empty: the summary says it all.
    public let detail: String
    /// What to do about a finding.
    public let help: String
    /// Whose credential a detector's rule finds (`GitHub`, `Amazon Bedrock`); nil for the others.
    public var provider: String? = nil
    /// The providers a rule knows by name when it finds several (`secret.provider-keyed-secret`).
    public var providers: [String]? = nil
    /// What a detector's rule looks at, in a line (`ghp_ then 36–255 of [0-9A-Za-z]`); nil for the others.
    public var looksAt: String? = nil
    /// Why a detector's rule stands at its severity (`alone, it opens the account`); nil for the others.
    public var severityWhy: String? = nil

    /// What a `Finding` is built from: only a declared rule gives one.
    public var ref: RuleID { RuleID(id) }

    /// `id` must be in a family (`family.name`); an id that is not is a programming error caught by tests.
    public init(_ id: String, _ severity: Severity, _ summary: String, detail: String = "", help: String = "") {
        self.id = id
        self.family = RuleFamily(ruleId: id) ?? .policy
        self.severity = severity
        self.summary = summary
        self.detail = detail
        self.help = help
    }

    /// As JSON (`pbsift rules --format json`).
    public var json: JSONOut {
        var members: [String: JSONOut] = [
            "id": .string(id), "family": .string(family.rawValue), "severity": .string(severity.rawValue),
            "summary": .string(summary), "help": .string(help)
        ]
        if let provider { members["provider"] = .string(provider) }
        if let looksAt { members["looksAt"] = .string(looksAt) }
        if let severityWhy { members["severityWhy"] = .string(severityWhy) }
        if let providers { members["providers"] = .array(providers.map { .string($0) }) }
        return .object(members)
    }
}

/// The id of a declared rule, as a `Finding` is built from it. Only a declaration makes one: a
/// `RuleSet` case (`ReaderRule.seqGap.id`) or a `Rule` built from a table (`rule.ref`, the
/// detectors'): a finding cannot be raised for a rule nobody declared.
public struct RuleID: Sendable, Hashable, CustomStringConvertible {
    public let id: String
    init(_ id: String) { self.id = id }
    /// The family of the rule (`secret.jwt` → `.secret`).
    public var family: RuleFamily? { RuleFamily(ruleId: id) }
    public var description: String { id }
}

/// The findings a command reports: whole families, plus single rules of another family it
/// declares by name. What a command lists is what decides its exit status (`--fail-on`).
public struct FindingSelection: Sendable {
    public let families: Set<RuleFamily>
    /// Rules of other families the command reports too (`verify` lists `archive.duplicate-entry`:
    /// a repeated entry can hide content from its checks).
    public let rules: Set<String>

    public init(_ families: Set<RuleFamily>, plus rules: [Rule] = []) {
        self.families = families
        self.rules = Set(rules.map(\.id))
    }

    /// Every family.
    public static let all = FindingSelection(Set(RuleFamily.allCases))

    public func keeps(_ f: Finding) -> Bool {
        f.family.map(families.contains) ?? false || rules.contains(f.rule)
    }
}

extension Finding {
    /// The family of the finding's rule.
    public var family: RuleFamily? { RuleFamily(ruleId: rule) }
}
