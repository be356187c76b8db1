import Foundation
import SiftCore
import SiftVerify

/// `pbsift rules`: every rule pbsift can raise, from the rule registry.
public enum RulesCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "rules",
        abstract: "List every rule pbsift can raise, with its family and severity.",
        discussion: """
            One line per rule, grouped by family (integrity, limits, archive, policy, redaction, secret, \
            verify, waterfall, correlation). With --format json, an array of objects with id, family, \
            severity, summary and help, and for a detector's rule its provider, what it looks at \
            (looksAt) and why it stands at its severity (severityWhy); with --format markdown, one table \
            per family. Given rules (an id, with or without its family, or a word of an id or a \
            provider's name), only those, and in text each in full.
            """,
        arguments: [
            ArgumentSpec(
                "rule", help: "Only these rules: an id (secret.github-token, github-token) or a word of an id or provider (github).",
                variadic: true, optional: true, takesPath: false)
        ],
        options: [
            OptionSpec("format", short: "f", value: "format", help: "Output format.", allowed: reporters.map(\.format), default: "text"),
            OptionSpec("json", help: "Same as --format json."),
            ProjectConfig.rulesOption
        ],
        examples: [
            ("pbsift rules", "Every rule, one per line."),
            ("pbsift rules --json | jq -r '.[].id'", "Every rule id, one per line."),
            ("pbsift rules github", "The rules whose id or provider says github, each in full."),
            ("pbsift rules --rules gitleaks.toml", "Also the team's rules of a gitleaks config, checked against their examples.")
        ],
        formats: reporters.map(\.format),
        commonOptions: false)

    /// The formats, in `--format` order (text is the default).
    static let reporters: [any Reporter<[Rule]>] = [
        Format.text("text") { rules, _ in RulesCommand.text(rules) },
        Format.json { rules, w in w.value(.array(rules.map(\.json))) },
        Format.text("markdown") { rules, _ in RulesCommand.markdown(rules) }
    ]

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let format = options.flag("json") ? "json" : options.value("format") ?? "text"
        let reporter = reporters.first { $0.format == format } ?? reporters[0]
        var rules = RuleRegistry.all + TeamRules.declarations
        let asked = options.argument("rule")
        if !asked.isEmpty {
            rules = try chosen(rules, asked)
            if format == "text" {
                let full: any Reporter<[Rule]> = Format.text("text") { rules, _ in rules.map(RulesCommand.detail).joined(separator: "\n") }
                full.write(rules, to: ReportContext(sink: io.stdout))
                return .ok
            }
        }
        reporter.write(rules, to: ReportContext(sink: io.stdout))
        return .ok
    }

    /// The rules a word names: an exact id, an id without its family (`github-token`), else every rule
    /// whose id or provider holds the word (any case). A word that names none is a usage error.
    static func chosen(_ rules: [Rule], _ words: [String]) throws -> [Rule] {
        var out: [Rule] = []
        for w in words {
            let low = w.lowercased()
            var hit = rules.filter { $0.id == w || $0.id.split(separator: ".", maxSplits: 1).last.map(String.init) == w }
            if hit.isEmpty {
                hit = rules.filter { r in
                    r.id.lowercased().contains(low) || (r.provider?.lowercased().contains(low) ?? false)
                        || (r.providers?.contains { $0.lowercased().contains(low) } ?? false)
                }
            }
            guard !hit.isEmpty else { throw UsageError("no rule's id or provider holds '\(w)'", about: w) }
            for r in hit where !out.contains(where: { $0.id == r.id }) { out.append(r) }
        }
        return out
    }

    /// One rule in full: each of its parts on a line.
    static func detail(_ r: Rule) -> String {
        var out = r.id + "\n"
        func line(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            out += "  " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + value + "\n"
        }
        line("family", r.family.rawValue)
        line("severity", r.severity.rawValue + (r.severityWhy.map { ": " + $0 } ?? ""))
        line("provider", r.provider)
        line("looks at", r.looksAt)
        line("summary", r.summary)
        line("detail", r.detail)
        line("what to do", r.help)
        if let p = r.providers { line("providers", "\(p.count) known by name, listed by pbsift rules --json") }
        return out
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
            out +=
                "  " + r.id.padding(toLength: width, withPad: " ", startingAt: 0)
                + r.severity.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + r.summary + "\n"
        }
        return out
    }

    /// `docs/rules.md`: a table per family (a test keeps the checked-in file equal to this).
    static func markdown(_ rules: [Rule]) -> String {
        var out = """
            <!-- Generated by `pbsift rules --format markdown`: do not edit. Regenerate with
                 swift run pbsift rules --format markdown > docs/rules.md -->
            # Rules

            Every rule a finding can carry, from the rule registry each analysis declares its rules in.
            The severity is the one a rule is usually raised at; SARIF's `defaultConfiguration.level`
            comes from it (`error` for critical and high, `warning` for medium, `note` for low and info).

            """
        var family: RuleFamily? = nil
        var detailed = false
        for r in rules {
            if r.family != family {
                family = r.family
                // A family whose rules say whose credential they find and what they look at (the
                // detectors) gets those two columns.
                detailed = rules.contains { $0.family == r.family && ($0.provider != nil || $0.looksAt != nil) }
                out +=
                    detailed
                    ? "\n## \(r.family.rawValue)\n\n| Rule | Provider | Severity | Looks at | What to do |\n|---|---|---|---|---|\n"
                    : "\n## \(r.family.rawValue)\n\n| Rule | Severity | Summary | What to do |\n|---|---|---|---|\n"
            }
            if detailed {
                let provider = r.provider ?? (r.providers.map { "\($0.count) providers by name" } ?? "")
                out +=
                    "| `\(r.id)` | \(Escape.markdown(provider)) | \(r.severity.rawValue)\(r.severityWhy.map { ": " + Escape.markdown($0) } ?? "") | \(Escape.markdown(r.looksAt ?? r.summary)) | \(Escape.markdown(r.help)) |\n"
            } else {
                out += "| `\(r.id)` | \(r.severity.rawValue) | \(Escape.markdown(r.summary)) | \(Escape.markdown(r.help)) |\n"
            }
        }
        if let keyed = rules.first(where: { $0.providers != nil }), let names = keyed.providers {
            out += "\n### Providers known by name (`\(keyed.id)`)\n\n" + names.map(Escape.markdown).joined(separator: ", ") + "\n"
        }
        return out
    }
}
