import Foundation
import SiftCore

/// One option of a command, as data: help text, the man page's option lists and shell completions
/// are generated from these tables.
public struct OptionSpec: Sendable {
    /// Long name without dashes: `format` for `--format`.
    public var name: String
    public var short: Character?
    /// `nil` for a flag; otherwise the value's placeholder in help (`format`, `file`, `ms`).
    public var valueName: String?
    public var help: String
    /// What the value must be; the parser checks it and keeps the typed value.
    public var kind: ValueKind
    /// The only values accepted, for a `.choice` (listed in help, the man page and completions).
    public var allowed: [String]? {
        if case .choice(let words) = kind { return words }
        return nil
    }
    /// Shown in help as `(default: …)`.
    public var defaultValue: String?
    /// May be given more than once (all values kept); otherwise the last one wins.
    public var repeatable: Bool
    /// Completions complete a file name for the value.
    public var takesPath: Bool

    /// `allowed` is the same as `kind: .choice(allowed)`.
    public init(
        _ name: String, short: Character? = nil, value: String? = nil, help: String, kind: ValueKind = .text,
        allowed: [String]? = nil, default defaultValue: String? = nil, repeatable: Bool = false,
        takesPath: Bool = false
    ) {
        self.name = name
        self.short = short
        self.valueName = value
        self.help = help
        self.kind = allowed.map(ValueKind.choice) ?? kind
        self.defaultValue = defaultValue
        self.repeatable = repeatable
        self.takesPath = takesPath
    }
}

/// A positional argument.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    /// `<input> ...`: one or more.
    public var variadic: Bool
    public var optional: Bool
    /// When set, the only values accepted (checked by the parser, listed in help and completions).
    public var allowed: [String]?
    /// Completions complete a file name here (inputs); false for words like a shell name.
    public var takesPath: Bool
    public init(
        _ name: String, help: String, variadic: Bool = false, optional: Bool = false, allowed: [String]? = nil,
        takesPath: Bool = true
    ) {
        self.name = name
        self.help = help
        self.variadic = variadic
        self.optional = optional
        self.allowed = allowed
        self.takesPath = allowed == nil && takesPath
    }
}

/// Everything the frame needs to parse, document and dispatch one subcommand.
public struct CommandSpec: Sendable {
    public var name: String
    /// One line, shown in `pbsift --help` and as OVERVIEW.
    public var abstract: String
    /// Paragraphs after the overview in `pbsift <cmd> --help`.
    public var discussion: String
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    /// `(command line, what it does)`; the man page's EXAMPLES, and a test runs each one.
    public var examples: [(String, String)]
    /// The formats `--format` accepts (first is the default); `--json` is `--format json`.
    public var formats: [String]
    /// mdoc prose for the man page, placed after the command's option list: its JSON shape, its
    /// findings and rule ids. Plain text lines and mdoc macros (`.Pp`, `.Bl`, `.Li`…); no blank lines.
    public var manSection: String?
    /// Whether the frame adds the report options (`--format`, `--json`, `--output`, `--fail-on`,
    /// `--quiet`, `--color`, `--max-input-bytes`). `--help` is always added.
    public var commonOptions: Bool

    public init(
        name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec], options: [OptionSpec],
        examples: [(String, String)] = [], formats: [String], manSection: String? = nil,
        commonOptions: Bool = true
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.examples = examples
        self.formats = formats
        self.manSection = manSection
        self.commonOptions = commonOptions
    }
}

/// argv after parsing: syntax only, nothing resolved yet.
public struct ParsedOptions: Sendable {
    /// Values by long option name, in the order given (scalar options: use `last`).
    public var values: [String: [String]] = [:]
    /// The same values after their option's `ValueKind` checked them (read with `int`, `seconds`, …).
    public var typed: [String: [OptionValue]] = [:]
    /// Flags given, by long name.
    public var flags: Set<String> = []
    public var positionals: [String] = []
    /// Positionals by argument name (`input`, `shell`), as the spec's arguments took them in order.
    public var arguments: [String: [String]] = [:]

    public init() {}

    /// The values given for one positional argument of the spec.
    public func argument(_ name: String) -> [String] { arguments[name] ?? [] }

    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// A usage error: printed as `pbsift: WHAT: reason` like every other error, then the usage line,
/// exit 64. `what` is the option, argument, file or subcommand at fault (nil: the command itself).
/// A bad value: `UsageError.invalid`.
public struct UsageError: Error, Sendable {
    /// What is at fault, as the user wrote it (`--format <format>`, a config file's path); nil for the command.
    public var what: String?
    /// Lowercase, no final period: `unknown option; did you mean '--format'?`.
    public var reason: String
    public init(_ reason: String, about what: String? = nil) {
        self.reason = reason
        self.what = what
    }

    /// The line standard error gets: `pbsift: WHAT: reason` (`WHAT` defaults to `command`). Both
    /// are command-line text (an export's text in a reason went through the `Redactor` first).
    public func line(command: String) -> SafeText {
        "pbsift: \(argument: what ?? command): \(argument: reason)"
    }
}

/// One subcommand: its table and what it does.
public protocol SiftCommand: SendableMetatype {
    static var spec: CommandSpec { get }
    /// Runs after parsing; returns the exit status. Throws `UsageError` for a bad value found while resolving.
    static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus
}
