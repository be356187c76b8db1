import Foundation
import SiftCore
import SiftReport
import SiftCorrelate
import SiftVerify

/// The skeleton every reading command runs through (in the manner of swift-format's `Frontend`):
/// the command declares its analyses (and, in its spec, its formats); the run resolves the report
/// options, reads every input once with those analyses (the `--session`/`--since`/`--until` scope,
/// the progress line, `pbsift: PATH: reason` for each input not read in full), scans the server
/// logs when asked, and computes the exit status by one rule (`status(counting:)`).
struct ReadingRun {
    /// The report options (`--format`, `--output`, `--fail-on`, `--color`, limits…).
    let common: CommonOptions
    /// What `--session`, `--since` and `--until` keep.
    let scope: RecordScope
    /// `--shard K/N`: the share of the inputs read (every input when nil).
    let shard: Shard?
    let io: CommandIO
    /// What the read found: inputs, sessions, the reader's and the analyses' findings (those of the
    /// chosen sessions only).
    var outcome: ReadOutcome
    /// Problems with the server logs, each already on standard error.
    private(set) var logErrors: [String] = []

    /// Rules whose finding means a check stopped at a bound: the input was not checked in full
    /// (exit status 2, whatever a baseline or `--fail-on` says).
    static let boundRules: Set<RuleID> = [VerifyRule.bound.id, CorrelationRule.limit.id]

    /// Resolves the report options and the scope (unless `scoped` is false: the command keeps
    /// `--session` for itself). Throws `UsageError` for a value the parser could not judge.
    init(_ options: ParsedOptions, spec: CommandSpec, io: CommandIO, scoped: Bool = true) throws {
        common = try CommonOptions(options, spec: spec, io: io)
        scope = scoped ? RecordScope(options) : RecordScope(session: nil)
        shard = Shard(options)
        self.io = io
        outcome = ReadOutcome()
    }

    /// Reads `inputs` once with `analyses`, each seeing only what the scope keeps; keeps the chosen
    /// sessions' findings and lists only the chosen sessions (`matching`: a command that keeps
    /// `--session` for itself passes its own scope). Throws `UsageError` when `--session` matches no session.
    mutating func read(
        _ inputs: [String], analyses: [any Analysis], shouldStop: (@Sendable () -> Bool)? = nil,
        requestIdHeader: String? = nil, matching: RecordScope? = nil
    ) throws {
        let chosen = matching ?? scope
        outcome = Diagnostics.read(
            inputs, analyses: scope.wrap(analyses), common: common, io: io,
            shouldStop: shouldStop, requestIdHeader: requestIdHeader,
            keepsSession: chosen.keepsSession, inShare: shard?.keeps)
        try chosen.checkSessionMatched(outcome)
        if !scope.isEmpty {
            let scope = scope
            outcome.findings = outcome.findings.filter(scope.keeps)
        }
    }

    /// Scans `logs` for the requests' lines (`Correlator.run`), with the progress line and one
    /// `pbsift: PATH: reason` per log problem; the problems count for the exit status.
    mutating func correlate(
        requests: [NetworkEntry], sessions: [SessionEntry], logs: [String], margin: Double,
        read: LogReadOptions = LogReadOptions(), announceFiles: Bool = true
    ) -> CorrelationReport {
        var scanOptions = ScanOptions()
        scanOptions.read = read
        scanOptions.maxEntries = common.limits.maxEntries
        // `PBSIFT_PIPE_WAIT`, when given, bounds the wait for a writer of a pipe named by `--logs` too
        // (30 s by default: a log producer may take longer to start than an export's writer).
        if common.pipeWaitGiven { scanOptions.pipeWriterWait = common.limits.pipeWaitSeconds }
        let progress = ScanProgress(io: io, enabled: common.showProgress)
        if common.showProgress { scanOptions.progress = { progress.add($0) } }
        let report = Correlator.run(
            requests: requests, sessions: sessions, logs: logs,
            options: CorrelationOptions(windowMargin: margin), scanOptions: scanOptions)
        progress.clear()
        Diagnostics.logs(report.logs.allErrors, io: io)
        // What each log file was read as and which fields it gave, said on standard error beside a
        // text report (the JSON carries it always; correlate's text lists it on standard output).
        if announceFiles && !common.quiet && common.format == "text" { Diagnostics.logFiles(report.logs.files, io: io) }
        logErrors += report.logs.allErrors
        return report
    }

    /// Whether something was not read or checked in full: an input, a log, or a check stopped at a bound.
    var incomplete: Bool {
        outcome.anyIncomplete || !logErrors.isEmpty || outcome.findings.contains { Self.boundRules.contains($0.ruleID) }
    }

    /// The one exit-status rule: 2 when `incomplete` (it wins), else 1 when one of `findings` (the
    /// findings the command reports; by default all of the read's) is at or above `--fail-on`, else 0.
    func status(counting findings: [Finding]? = nil) -> ExitStatus {
        common.exitStatus(findings: findings ?? outcome.findings, incomplete: incomplete)
    }

    /// Writes a report rendered whole, then returns `status(counting:)` (2 when it could not be written).
    func finish(_ report: SafeText, counting findings: [Finding]? = nil) -> ExitStatus {
        if let failed = common.write(report, io: io) { return failed }
        return status(counting: findings)
    }
}

extension ReadingRun {
    /// Releases `value` on a worker thread: the one reference left is the worker's (taken here,
    /// with no copy kept on this thread), so the worker's release is the last.
    static func letGo<T: Sendable>(_ value: consuming T) {
        let held = Unmanaged.passRetained(Held(consume value))
        DispatchQueue.global().async { held.release() }
    }

    private final class Held<T: Sendable>: @unchecked Sendable {
        let value: T
        init(_ value: consuming T) { self.value = value }
    }
}
