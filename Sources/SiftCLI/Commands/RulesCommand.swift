import Foundation
import SiftCore

/// `pbsift rules`: every rule pbsift can raise, from the rule registry.
public enum RulesCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "rules",
        abstract: "List every rule pbsift can raise, with its family and severity.",
        discussion: """
            One line per rule, grouped by family (integrity, limits, archive, policy, redaction, secret, \
            verify, waterfall, correlation). With --format json, an array of objects with id, family, \
            severity, summary and help.
            """,
        arguments: [],
        options: [
            OptionSpec("format", short: "f", value: "format", help: "Output format.", allowed: ["text", "json"], default: "text"),
            OptionSpec("json", help: "Same as --format json."),
        ],
        examples: [
            ("pbsift rules", "Every rule, one per line."),
            ("pbsift rules --json | jq -r '.[].id'", "Every rule id, one per line."),
        ],
        formats: ["text", "json"],
        commonOptions: false)

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let json = options.flag("json") || options.value("format") == "json"
        io.out(json ? RulesCommand.json() : RulesCommand.text())
        return .ok
    }

    /// `family  id  severity  summary`, aligned.
    static func text() -> String {
        let width = (RuleRegistry.all.map(\.id.count).max() ?? 0) + 2
        var out = ""
        var family: RuleFamily? = nil
        for r in RuleRegistry.all {
            if r.family != family {
                out += (family == nil ? "" : "\n") + r.family.rawValue + "\n"
                family = r.family
            }
            out += "  " + r.id.padding(toLength: width, withPad: " ", startingAt: 0)
                + r.severity.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + r.summary + "\n"
        }
        return out
    }

    static func json() -> String {
        JSONOut.array(RuleRegistry.all.map(\.json)).render(pretty: true) + "\n"
    }
}
