import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify

/// The one channel for problems with an input or a log. Every reading command reads its exports
/// through `Diagnostics.read` and hands its log errors to `Diagnostics.logs`; each problem goes to
/// standard error as `pbsift: PATH: reason` (as ripgrep prints them), whatever the format and even
/// with `--quiet`, and stays in the report (`inputs[].errors`, the logs' errors), where the exit
/// status (2) comes from.
enum Diagnostics {
    /// Problems printed per input; the rest are counted in one more line.
    static let maxPerInput = 10

    /// Reads `inputs` with `analyses` (and the progress line), then reports every input not read in full.
    static func read(
        _ inputs: [String], analyses: [any Analysis], common: CommonOptions, io: CommandIO,
        shouldStop: (@Sendable () -> Bool)? = nil, requestIdHeader: String? = nil,
        keepsSession: (@Sendable (String?) -> Bool)? = nil, inShare: ((String) -> Bool)? = nil
    ) -> ReadOutcome {
        let progress = Progress(io: io, options: common)
        let reader = Diagnostics.reader(
            common: common, progress: progress, shouldStop: shouldStop, requestIdHeader: requestIdHeader, keepsSession: keepsSession,
            inShare: inShare)
        let outcome = reader.read(inputs: inputs, analyses: analyses + [progress])
        progress.clear()
        Diagnostics.inputs(outcome.inputs, io: io)
        return outcome
    }

    /// The reader of a run: its limits, the progress line's count of inputs waiting, and what the
    /// options chose (`--session`, `--shard`, the request-id header, when to stop).
    static func reader(
        common: CommonOptions, progress: Progress, shouldStop: (@Sendable () -> Bool)?, requestIdHeader: String?,
        keepsSession: (@Sendable (String?) -> Bool)?, inShare: ((String) -> Bool)?
    ) -> ExportReader {
        let reader = ExportReader(limits: common.limits)
        if let keepsSession { reader.keepsSession = keepsSession }
        reader.inShare = inShare
        if let shouldStop { reader.shouldStop = shouldStop }
        if let requestIdHeader { reader.requestIdHeader = requestIdHeader }
        if progress.enabled { reader.remaining = { progress.waiting = $0 } }
        return reader
    }

    /// `pbsift: PATH: reason` for each error of each input that was not read in full.
    static func inputs(_ inputs: [InputSummary], io: CommandIO) {
        for input in inputs where input.status != .ok {
            let errors = input.errors.isEmpty ? ["not read in full"] : input.errors
            for e in errors.prefix(maxPerInput) { line(input.path, e, io: io) }
            if errors.count > maxPerInput {
                line(input.path, "… and \(errors.count - maxPerInput) more (the report lists them)", io: io)
            }
        }
    }

    /// `pbsift: PATH: reason` for each log problem (the log scanner's messages start with the path).
    static func logs(_ errors: [String], io: CommandIO) {
        for e in errors { io.err("pbsift: \(redactor.text(e.untrusted))\n") }
    }

    /// One line per log file (the first 10, then a count): the format it was read as, its lines, those
    /// with a wanted id, and which of time, status and duration they gave.
    static func logFiles(_ files: [LogFileSummary], io: CommandIO) {
        for f in files.prefix(10) {
            var s =
                "\(f.file): \(f.format.map { "read as \($0.rawValue)" } ?? "no known format"), \(f.lines) line\(f.lines == 1 ? "" : "s"), \(f.matchedLines) \(f.joinNote == nil ? "with a request id" : "joined")"
            if f.matchedLines > 0 {
                let missing = LogField.allCases.filter { !f.fieldsRead.contains($0) }
                s +=
                    f.fieldsRead.isEmpty
                    ? "; no time, status or duration read"
                    : "; read: " + f.fieldsRead.map { f.readUnits.describe($0) }.joined(separator: ", ")
                if !missing.isEmpty && !f.fieldsRead.isEmpty { s += " (not: " + missing.map(\.rawValue).joined(separator: ", ") + ")" }
            }
            if let u = f.durationUnitNote { s += "; " + u }
            if let j = f.joinNote { s += "; " + j }
            io.err("note: \(redactor.text(s.untrusted))\n")
        }
        if files.count > 10 { io.err("note: … and \(files.count - 10) more log files\n") }
    }

    /// The reason names places inside the input (entry names, link targets): it is redacted.
    static func line(_ path: String, _ reason: String, io: CommandIO) {
        io.err("pbsift: \(argument: path): \(redactor.text(reason.untrusted))\n")
    }

    static let redactor = Redactor.verify()
}
