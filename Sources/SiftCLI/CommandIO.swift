import Foundation

/// Where a command writes, and what it knows about its terminal. Tests render into memory.
public final class CommandIO: @unchecked Sendable {
    /// Data (the report). Written through `out(_:)`.
    public var stdoutSink: (String) -> Void
    /// Diagnostics and progress.
    public var stderrSink: (String) -> Void
    public var stdoutIsTTY: Bool
    public var stderrIsTTY: Bool
    public var environment: [String: String]
    /// Terminal width for text output (COLUMNS, else 100).
    public var columns: Int

    public init(stdout: @escaping (String) -> Void, stderr: @escaping (String) -> Void, stdoutIsTTY: Bool = false,
                stderrIsTTY: Bool = false, environment: [String: String] = [:], columns: Int = 100) {
        self.stdoutSink = stdout
        self.stderrSink = stderr
        self.stdoutIsTTY = stdoutIsTTY
        self.stderrIsTTY = stderrIsTTY
        self.environment = environment
        self.columns = columns
    }

    /// Tells whether standard output was closed by its reader (`| head`): a long-running command
    /// checks `stdoutClosed` and stops producing output. In memory it is never closed.
    public var stdoutClosedProbe: () -> Bool = { false }

    /// True once standard output's reader has gone away (EPIPE); further output is dropped.
    public var stdoutClosed: Bool { stdoutClosedProbe() }

    public func out(_ s: String) { stdoutSink(s) }
    public func err(_ s: String) { stderrSink(s) }
}
