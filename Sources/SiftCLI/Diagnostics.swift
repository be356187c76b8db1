import Foundation
import SiftCore
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
        keepsSession: (@Sendable (String?) -> Bool)? = nil
    ) -> ReadOutcome {
        let progress = Progress(io: io, options: common)
        let reader = ExportReader(limits: common.limits)
        if let keepsSession { reader.keepsSession = keepsSession }
        if let shouldStop { reader.shouldStop = shouldStop }
        if let requestIdHeader { reader.requestIdHeader = requestIdHeader }
        let outcome = reader.read(inputs: inputs, analyses: analyses + [progress])
        progress.clear()
        Diagnostics.inputs(outcome.inputs, io: io)
        return outcome
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

    /// The reason names places inside the input (entry names, link targets): it is redacted.
    static func line(_ path: String, _ reason: String, io: CommandIO) {
        io.err("pbsift: \(argument: path): \(redactor.text(reason.untrusted))\n")
    }

    static let redactor = Redactor.verify()
}
