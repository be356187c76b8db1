import SiftArchive

/// A module's rules, declared as one `CaseIterable` enum whose raw values are the rule ids. The set
/// is complete by construction, the compiler asks for every case's text (an exhaustive `switch`),
/// and a raise site names a case (`note(.seqGap, …)`), never an id as text.
public protocol RuleSet: RawRepresentable, CaseIterable, Sendable where RawValue == String {
    /// The severity the rule is usually raised at.
    var severity: Severity { get }
    /// One line: what the rule found.
    var summary: String { get }
    /// What the rule checks and why, in full (SARIF `fullDescription`); empty: the summary says it all.
    var detail: String { get }
    /// What to do about a finding.
    var help: String { get }
}

extension RuleSet {
    public var detail: String { "" }
    public var help: String { "" }
    /// The id a `Finding` is raised with.
    public var id: RuleID { RuleID(rawValue) }
    /// The rule as the registry, the man page and SARIF show it.
    public var rule: Rule { Rule(rawValue, severity, summary, detail: detail, help: help) }
    /// Every rule of the set, in declaration order.
    public static var rules: [Rule] { allCases.map(\.rule) }
}
