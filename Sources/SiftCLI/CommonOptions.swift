import Foundation
import SiftArchive
import SiftCore
import SiftVerify

/// The options the frame adds to every reporting command, and their resolution.
public enum CommonOptionTable {
    /// `-h/--help`, added to every command (last in its table).
    public static let help = OptionSpec("help", short: "h", help: "Show help information.")

    /// Values `--fail-on` accepts: the severities, then `never`.
    public static let failOnValues = Severity.allCases.map(\.rawValue) + ["never"]

    /// The report options for a command whose `--format` accepts `formats` (first is the default).
    public static func options(formats: [String]) -> [OptionSpec] {
        [
            OptionSpec(
                "format", short: "f", value: "format", help: "Output format.", allowed: formats,
                default: formats.first),
            formats.contains("json") || !formats.contains("har")
                ? OptionSpec("json", help: "Same as --format json.")
                : OptionSpec("json", help: "Same as --format har (HAR is JSON)."),
            OptionSpec(
                "output", short: "o", value: "file",
                help: "Write the report to this file instead of standard output.", takesPath: true),
            OptionSpec(
                "fail-on", value: "severity",
                help: "Exit with status 1 when a finding is at or above this severity.",
                allowed: failOnValues, default: "high"),
            OptionSpec("quiet", short: "q", help: "No progress and no warnings on standard error."),
            OptionSpec(
                "color", value: "when",
                help: "Colour in text output; auto means only on a terminal and when NO_COLOR is not set.",
                allowed: ["auto", "always", "never"], default: "auto"),
            OptionSpec(
                "max-input-bytes", value: "n",
                help: "Most bytes read (after decompression) from one input; K, M and G suffixes are binary.",
                kind: .bytes, default: ByteSize.describe(ReadLimits.default.maxInputBytes)),
            ProjectConfig.option,
            ProjectConfig.rulesOption
        ]
    }
}

extension CommandSpec {
    /// Every option the command accepts, in help order: its own, the frame's report options (when
    /// `commonOptions`; a name the command defines itself is not added twice), then `--help`.
    public var allOptions: [OptionSpec] {
        var all = options
        var names = Set(options.map(\.name))
        var shorts = Set(options.compactMap(\.short))
        if commonOptions {
            for o in CommonOptionTable.options(formats: formats) where !names.contains(o.name) {
                var o = o
                if let s = o.short, shorts.contains(s) { o.short = nil }
                all.append(o)
                names.insert(o.name)
                if let s = o.short { shorts.insert(s) }
            }
        }
        if !names.contains("help") { all.append(CommonOptionTable.help) }
        return all
    }

    /// `pbsift <name> [<options>] <input> ...`
    public var usageLine: String {
        var parts = ["pbsift", name]
        if allOptions.contains(where: { $0.name != "help" }) { parts.append("[<options>]") }
        for a in arguments { parts.append(a.usage) }
        return parts.joined(separator: " ")
    }
}

extension ArgumentSpec {
    /// `<input> ...`: the exports every reading command takes.
    public static let exports = ArgumentSpec(
        "input",
        help:
            "An export: a folder (archives in it are read too), .zip, .tar, .tar.gz, .jsonl or .jsonl.gz file, a HAR 1.2 file, or - for JSON Lines on standard input.",
        variadic: true, takesPath: true)

    /// `<input> ...`, `[<name>]`.
    public var usage: String {
        let core = "<\(name)>" + (variadic ? " ..." : "")
        return optional ? "[\(core)]" : core
    }
}

extension OptionSpec {
    /// `--logs <path>`, repeatable: server logs for `correlate`, `show` and `report`.
    public static let logs = OptionSpec(
        "logs", value: "path", help: "Server logs: a file, a folder (recursive), a .gz file, or - for standard input.",
        repeatable: true, takesPath: true)

    /// `--window-margin <seconds>`: seconds around each session's time window (`correlate`, `show`, `report`).
    static func windowMargin(help: String) -> OptionSpec {
        OptionSpec("window-margin", value: "seconds", help: help, kind: .seconds(0...7 * 86400), default: "60")
    }

    /// `--context <seconds>`: seconds of records around a request (`show`, `report`).
    static func context(help: String) -> OptionSpec {
        OptionSpec("context", value: "seconds", help: help, kind: .int(0...3600), default: "10")
    }

    /// `--extra-field <name>`, repeatable: a name added to verify's redaction lists (`verify`, `report`).
    static func extraField(help: String) -> OptionSpec {
        OptionSpec(
            "extra-field", value: "name", help: help,
            kind: .rule { ContractNames.normalise($0).isEmpty ? "a field name" : nil }, repeatable: true)
    }

    /// `--format <format>`, as error messages name the option.
    public var display: String { "--\(name)" + (valueName.map { " <\($0)>" } ?? "") }
}

/// Byte counts with binary suffixes, as `--max-input-bytes` takes them.
public enum ByteSize {
    /// `1048576`, `64K`, `512M`, `2G`, `1T` (also `KiB`, `MB`, lowercase): bytes, or nil.
    public static func parse(_ text: String) -> Int64? {
        var s = text.trimmingCharacters(in: .whitespaces).uppercased()
        for suffix in ["IB", "B"] where s.hasSuffix(suffix) && s.count > suffix.count {
            s.removeLast(suffix.count)
            break
        }
        var shift: Int64 = 0
        if let last = s.last, let i = ["K", "M", "G", "T"].firstIndex(of: String(last)) {
            shift = Int64(10 * (i + 1))
            s.removeLast()
        }
        guard !s.isEmpty, s.allSatisfy(\.isASCII), s.allSatisfy(\.isNumber), let n = Int64(s), n > 0 else { return nil }
        let (v, overflow) = n.multipliedReportingOverflow(by: Int64(1) << shift)
        return overflow ? nil : v
    }

    /// The shortest exact form with a binary suffix: `1G`, `64K`, `1000`.
    public static func describe(_ n: Int64) -> String {
        var v = n
        for suffix in ["", "K", "M", "G", "T"] {
            if v < 1024 || v % 1024 != 0 || suffix == "T" { return "\(v)\(suffix)" }
            v /= 1024
        }
        return "\(n)"
    }
}

/// The report options of one run, resolved from the command line and the environment.
public struct CommonOptions: Sendable {
    /// One of the command's `formats`.
    public var format: String
    /// `-o/--output`; nil (or `-`) means standard output.
    public var outputPath: String?
    /// The threshold for exit status 1; nil for `--fail-on never`.
    public var failOn: Severity?
    /// `-q/--quiet`: no progress, no warnings.
    public var quiet: Bool
    /// Whether text output carries ANSI colour.
    public var color: Bool
    /// Bounds for the reader (`--max-input-bytes` applied to the defaults).
    public var limits: ReadLimits
    /// Whether `PBSIFT_PIPE_WAIT` gave `limits.pipeWaitSeconds` (it then bounds `--logs` pipes too).
    public var pipeWaitGiven = false
    /// Whether a progress line may be drawn on standard error (a terminal, and not quiet).
    public var showProgress: Bool

    /// ANSI styling for text output, on only when `color` is.
    public var colors: Colors { Colors(enabled: color) }

    /// Resolves the frame's options; throws `UsageError` for a value the parser could not judge.
    public init(_ parsed: ParsedOptions, spec: CommandSpec, io: CommandIO) throws {
        var format = parsed.value("format") ?? spec.formats.first ?? "text"
        if parsed.flag("json") {
            if let given = parsed.value("format"), given != "json", !(given == "har" && !spec.formats.contains("json")) {
                throw UsageError("conflicts with '--format \(given)'", about: "--json")
            }
            if spec.formats.contains("json") {
                format = "json"
            } else if spec.formats.contains("har") {
                format = "har" // HAR is JSON: `--json` asks for it
            } else {
                throw UsageError.invalid("json", for: "--format <format>", expected: "one of " + Self.quotedList(spec.formats))
            }
        }
        self.format = format
        let output = parsed.value("output")
        self.outputPath = output == "-" ? nil : output
        if let s = parsed.value("fail-on") {
            failOn = s == "never" ? nil : Severity(rawValue: s)
        } else {
            failOn = .high
        }
        quiet = parsed.flag("quiet")
        var limits = ReadLimits.default
        if let n = parsed.bytes("max-input-bytes") { limits.maxInputBytes = n }
        // How long a pipe named as an input may stay silent (see ReadLimits.pipeWaitSeconds).
        if let w = io.environment["PBSIFT_PIPE_WAIT"].flatMap(Double.init), w.isFinite, w >= 0, w <= 86_400 {
            limits.pipeWaitSeconds = w
            pipeWaitGiven = true
        }
        self.limits = limits
        let toFile = outputPath != nil
        switch parsed.value("color") ?? "auto" {
        case "always": color = true
        case "never": color = false
        default:
            let noColor = !(io.environment["NO_COLOR"] ?? "").isEmpty
            let dumb = io.environment["TERM"] == "dumb"
            color = !noColor && !dumb && !toFile && io.stdoutIsTTY
        }
        showProgress = io.stderrIsTTY && !quiet
    }

    /// `'a', 'b' or 'c'`, as the parser's messages list values.
    public static func quotedList(_ values: [String]) -> String {
        let q = values.map { "'\($0)'" }
        guard q.count > 1 else { return q.first ?? "" }
        return q.dropLast().joined(separator: ", ") + " or " + (q.last ?? "")
    }

    /// The sink the report goes to: the `-o` file's, or standard output's. Throws `OutputFailure`
    /// (`pbsift: PATH: reason`, exit status 2) when the file cannot be opened.
    public func openOutput(_ io: CommandIO) throws(OutputFailure) -> OutputSink {
        guard let path = outputPath else { return io.stdout }
        return try OutputSink.file(path: path)
    }

    /// Finishes the report's sink. Returns nil when written (or the reader went away), or
    /// `.incomplete` after telling standard error why it could not be written.
    public func close(_ sink: OutputSink, io: CommandIO) -> ExitStatus? {
        sink.finish()?.report(io)
    }

    /// The context reporters write in: the sink, colour, width, `--fail-on`.
    public func context(_ sink: OutputSink, io: CommandIO) -> ReportContext {
        ReportContext(sink: sink, colors: colors, columns: io.columns, failOn: failOn)
    }

    /// Writes `report` with the reporter `--format` chose from the command's list (its first when
    /// none matches), to standard output or the `-o` file. Returns nil when written; `.incomplete`
    /// after telling standard error why it could not be; `.ok` when the reader of standard output
    /// went away and `closedIsOK`.
    public func report<R>(_ report: R, with reporters: [any Reporter<R>], io: CommandIO, closedIsOK: Bool = false) -> ExitStatus? {
        guard let reporter = reporters.first(where: { $0.format == format }) ?? reporters.first else { return nil }
        let sink: OutputSink
        do { sink = try openOutput(io) } catch { return error.report(io) }
        reporter.write(report, to: context(sink, io: io))
        if let failed = close(sink, io: io) { return failed }
        return closedIsOK && sink.closed ? .ok : nil
    }

    /// Writes a report held whole, through the sink; nil when written, else `.incomplete`.
    public func write(_ report: SafeText, io: CommandIO) -> ExitStatus? {
        do {
            let sink = try openOutput(io)
            sink.write(report)
            return close(sink, io: io)
        } catch {
            return error.report(io)
        }
    }

    /// The exit status for findings: 2 when an input was not read in full (wins), else 1 when a
    /// finding is at or above `--fail-on`, else 0. Reading commands ask `ReadingRun.status`.
    public func exitStatus(findings: [Finding], incomplete: Bool) -> ExitStatus {
        if incomplete { return .incomplete }
        if let t = failOn, findings.contains(where: { $0.severity >= t }) { return .findings }
        return .ok
    }
}
