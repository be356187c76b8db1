import Foundation
import SiftCore

/// Where a command writes, and what it knows about its terminal. Tests render into memory.
public final class CommandIO: @unchecked Sendable {
    /// Data (the report): the one buffered sink of standard output. A command with `-o` writes to
    /// the file's sink instead (`CommonOptions.openOutput`).
    public let stdout: OutputSink
    /// Diagnostics and progress (unbuffered).
    public let stderr: OutputSink
    public var stdoutIsTTY: Bool
    public var stderrIsTTY: Bool
    public var environment: [String: String]
    /// Terminal width for text output (COLUMNS, else 100).
    public var columns: Int

    public init(
        stdout: OutputSink, stderr: OutputSink, stdoutIsTTY: Bool = false, stderrIsTTY: Bool = false,
        environment: [String: String] = [:], columns: Int = 100
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutIsTTY = stdoutIsTTY
        self.stderrIsTTY = stderrIsTTY
        self.environment = environment
        self.columns = columns
    }

    /// In memory: each stream's text is handed to its closure.
    public convenience init(
        stdout: @escaping (String) -> Void, stderr: @escaping (String) -> Void, stdoutIsTTY: Bool = false,
        stderrIsTTY: Bool = false, environment: [String: String] = [:], columns: Int = 100
    ) {
        self.init(
            stdout: .memory(stdout), stderr: .memory(stderr), stdoutIsTTY: stdoutIsTTY, stderrIsTTY: stderrIsTTY,
            environment: environment, columns: columns)
    }

    /// True once standard output's reader has gone away (EPIPE); further output is dropped.
    public var stdoutClosed: Bool { stdout.closed }

    /// Only `SafeText` reaches either stream: pbsift's own words, and export text through the `Redactor`.
    public func out(_ s: SafeText) { stdout.write(s) }
    public func err(_ s: SafeText) { stderr.write(s) }
}

extension OutputFailure {
    /// Tells standard error (`pbsift: PATH: reason`); returns exit status 2.
    func report(_ io: CommandIO) -> ExitStatus {
        io.err(line)
        return .incomplete
    }
}

/// A command's report with its findings and inputs (redacted) for the shared finding formats.
struct FindingsOutput<Report>: FindingsReport {
    var command: String
    var report: Report
    var inputs: Redacted<[InputSummary]>
    var findings: Redacted<[Finding]>

    var findingsDocument: FindingsDocument {
        FindingsDocument(command: command, findings: findings, inputs: inputs, rule: RuleRegistry.rule)
    }
}
