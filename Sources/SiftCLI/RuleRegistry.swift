import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

/// Every rule pbsift can raise, as each analysis declares it: the reader's, verify's, the
/// waterfall's and the correlation's. A finding whose rule is not here is a bug (a test runs every
/// command and checks). `pbsift rules` prints it; a new rule joins by being declared with its analysis.
public enum RuleRegistry {
    /// Every declared rule, as declared: an id declared twice is here twice (a test fails on it).
    public static let declared: [Rule] = ReaderRules.all + VerifyRules.rules + WaterfallRule.rules + CorrelationRule.rules

    /// Every rule, by family and id.
    public static let all: [Rule] = declared.sorted { $0.family != $1.family ? $0.family < $1.family : $0.id < $1.id }

    private static let byId: [String: Rule] = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })

    /// The rule of an id, when one is declared.
    public static func rule(_ id: String) -> Rule? { byId[id] ?? TeamRules.declarations.first { $0.id == id } }

    /// The rules of some families, in registry order.
    public static func rules(of families: Set<RuleFamily>) -> [Rule] { all.filter { families.contains($0.family) } }
}
