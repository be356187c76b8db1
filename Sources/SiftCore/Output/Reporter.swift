import Foundation

// The output layer: a command builds its report (a model whose untrusted text went through the
// `Redactor`), picks the reporter its `--format` names from the list it declares, and the reporter
// writes the report to an `OutputSink`. A reporter escapes for its medium; it never redacts.
//
// A format of one command is a `Format` value in the command's list; a format every command with
// findings has (SARIF, JUnit XML) is a reporter type in `Reporters/`, listed in `FindingsFormats`.

/// Where a reporter writes, and the run's choices that shape the output.
public struct ReportContext {
    public let sink: OutputSink
    /// ANSI styling for text output (off unless asked for and on a terminal).
    public let colors: Colors
    /// Terminal width for text output.
    public let columns: Int
    /// `--fail-on`: findings at or above it fail (nil: `never`).
    public let failOn: Severity?

    public init(sink: OutputSink, colors: Colors = .off, columns: Int = 100, failOn: Severity? = .high) {
        self.sink = sink
        self.colors = colors
        self.columns = columns
        self.failOn = failOn
    }
}

/// One output format of a command's report.
public protocol Reporter<Report>: Sendable {
    associatedtype Report
    /// The `--format` value that selects it.
    var format: String { get }
    /// Writes `report` to `context.sink`.
    func write(_ report: Report, to context: ReportContext)
}

/// A command's own format: its name and how it writes the command's report.
public struct Format<Report>: Reporter {
    public let format: String
    private let body: @Sendable (Report, ReportContext) -> Void

    /// A format written as it goes (streamed through the sink or the JSON writer).
    public init(_ format: String, write: @escaping @Sendable (Report, ReportContext) -> Void) {
        self.format = format
        self.body = write
    }

    /// A format rendered as one text, then written.
    public static func text(_ format: String, _ render: @escaping @Sendable (Report, ReportContext) -> String) -> Format {
        Format(format) { report, context in context.sink.write(render(report, context)) }
    }

    /// A format rendered as text in pieces, each written as it is made (a long listing is never held whole).
    public static func textStream(_ format: String, _ render: @escaping @Sendable (Report, ReportContext, (String) -> Void) -> Void)
        -> Format
    {
        Format(format) { report, context in render(report, context) { context.sink.write($0) } }
    }

    /// A JSON document written through the one JSON writer (pretty), followed by a newline.
    public static func json(_ format: String = "json", _ write: @escaping @Sendable (Report, inout JSONWriter) -> Void) -> Format {
        Format(format) { report, context in
            var w = JSONWriter(pretty: true, sink: context.sink)
            write(report, &w)
            w.newline()
            w.flush()
        }
    }

    public func write(_ report: Report, to context: ReportContext) { body(report, context) }
}

/// A command's findings, as the formats shared by every command with findings need them.
/// Built only from redacted findings and inputs.
public struct FindingsDocument: Sendable {
    /// The command that made the report (`verify`, `inspect`…).
    public let command: String
    public let findings: [Finding]
    public let inputs: [InputSummary]
    /// The registered rule of an id (SARIF describes every rule it names from it).
    public let rule: @Sendable (String) -> Rule?
    public let version: String

    public init(
        command: String, findings: Redacted<[Finding]>, inputs: Redacted<[InputSummary]>,
        rule: @escaping @Sendable (String) -> Rule?, version: String = ToolInfo.version
    ) {
        self.command = command
        self.findings = findings.value
        self.inputs = inputs.value
        self.rule = rule
        self.version = version
    }
}

/// A report with findings: it offers them to the shared finding formats.
public protocol FindingsReport {
    var findingsDocument: FindingsDocument { get }
}

/// The formats every command with findings offers, after its own: one reporter type per file in
/// `Reporters/`. A new shared format joins by being listed here.
public enum FindingsFormats {
    public static func all<R: FindingsReport>() -> [any Reporter<R>] {
        [SARIFReporter<R>(), JUnitReporter<R>()]
    }

    /// Their `--format` names.
    public static var names: [String] { ["sarif", "junit"] }
}
