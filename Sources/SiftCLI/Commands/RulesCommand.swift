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
            OptionSpec("format", short: "f", value: "format", help: "Output format.", allowed: reporters.map(\.format), default: "text"),
            OptionSpec("json", help: "Same as --format json."),
        ],
        examples: [
            ("pbsift rules", "Every rule, one per line."),
            ("pbsift rules --json | jq -r '.[].id'", "Every rule id, one per line."),
        ],
        formats: reporters.map(\.format),
        commonOptions: false)

    /// The formats, in `--format` order (text is the default).
    static let reporters: [any Reporter<[Rule]>] = [
        Format.text("text") { rules, _ in RulesCommand.text(rules) },
        Format.json { rules, w in w.value(.array(rules.map(\.json))) },
    ]

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let format = options.flag("json") ? "json" : options.value("format") ?? "text"
        let reporter = reporters.first { $0.format == format } ?? reporters[0]
        reporter.write(RuleRegistry.all, to: ReportContext(sink: io.stdout))
        return .ok
    }

    /// `family  id  severity  summary`, aligned.
    static func text(_ rules: [Rule]) -> String {
        let width = (rules.map(\.id.count).max() ?? 0) + 2
        var out = ""
        var family: RuleFamily? = nil
        for r in rules {
            if r.family != family {
                out += (family == nil ? "" : "\n") + r.family.rawValue + "\n"
                family = r.family
            }
            out += "  " + r.id.padding(toLength: width, withPad: " ", startingAt: 0)
                + r.severity.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + r.summary + "\n"
        }
        return out
    }
}
