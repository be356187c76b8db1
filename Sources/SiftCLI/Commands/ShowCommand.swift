import Foundation
import SiftCore
import SiftReport
import SiftVerify
import SiftCorrelate
import SiftWaterfall

/// `pbsift show <input>... <seq | req_… | rec_…>`: one request, whole.
public enum ShowCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "show",
        abstract: "One request, whole: headers, bodies, phases, server lines, context.",
        discussion: """
            Finds one network record, by its seq number, its request id (req_...) or its record id \
            (rec_...), and shows it whole: the request line; status, error and state; request and \
            response headers (credentials masked); each body — what it is (type, size, inline or blob, \
            truncated) and its content, masked as verify reads it, JSON pretty-printed, the first 16 KiB \
            (--body full or none); every transaction (redirects and retries) with its phases on one time axis \
            scaled to the request, and whether it reused a connection or came from the cache; one \
            sentence on where the time went; with --logs, the server's lines for it on the device \
            clock (the clock skew used is named); and the records around it, device and server \
            interleaved. When several sessions hold the request, --session chooses one.
            """,
        arguments: [
            ArgumentSpec.exports,
            ArgumentSpec(
                "request", help: "The request: a seq number (52), a request id (req_...) or a record id (rec_...).",
                takesPath: false)
        ],
        options: [
            OptionSpec.logs,
            OptionSpec("session", value: "id", help: "The session to look in, when several match: its id or the start of it."),
            OptionSpec.context(help: "Seconds of records shown before and after the request."),
            OptionSpec(
                "body", value: "how",
                help:
                    "The request and response bodies: the first 16 KiB, masked, JSON pretty-printed (default), full (up to 1 MiB) or none.",
                allowed: ["16k", "full", "none"]),
            OptionSpec(
                "curl",
                help: "Print the request as a curl command instead, every masked value read from a shell variable ($AUTHORIZATION)."),
            OptionSpec.windowMargin(help: "Seconds added before and after the session's time window when reading the logs.")
        ],
        examples: [
            ("pbsift show export.zip 52", "The request with seq 52: headers, bodies, phases, the records around it."),
            ("pbsift show export.zip req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b --logs logs/", "One request with the server's lines for it."),
            ("pbsift show export.zip rec_0c1d2e3f -f markdown -o request.md", "One request, ready for a ticket."),
            ("pbsift show export.zip 38 --curl", "The request as a curl command, credentials read from shell variables.")
        ],
        formats: reporters.map(\.format),
        manSection: """
            The exit status is that of
            .Nm inspect
            for the same inputs.
            A request that is not in the export is a usage error (exit status 64) that names what
            exists: the nearest request seqs, or how many request ids the export holds.
            With
            .Fl -format Cm json
            the report is one JSON object, keys sorted: the record's identity
            .Pq Cm seq , recordId , requestId , sessionId , user ,
            .Cm method , url , statusCode , state , error ,
            .Cm request
            and
            .Cm response
            (their
            .Cm headers
            and a
            .Cm body
            summary),
            .Cm transactions
            (each with its
            .Cm phases ,
            milliseconds from the request's start),
            .Cm verdict ,
            .Cm server
            (null without
            .Fl -logs )
            and
            .Cm around .
            """)

    /// The formats, in `--format` order (text is the default).
    static let reporters: [any Reporter<ShowReport>] = [
        Format.text("text") { r, c in r.text(colors: c.colors) },
        Format.text("markdown") { r, _ in r.markdown() },
        Format.text("json") { r, _ in r.json() }
    ]

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        // --session here chooses among the sessions holding the request: the analysis applies it.
        var run = try ReadingRun(options, spec: spec, io: io, scoped: false)
        let common = run.common
        let inputs = options.argument("input")
        let logs = options.all("logs")
        if inputs.contains("-") && logs.contains("-") {
            throw UsageError("standard input can be the export or the logs, not both", about: "-")
        }
        let wanted = options.argument("request").first ?? ""
        guard let selector = ShowSelector(wanted) else {
            throw UsageError.invalid(wanted, for: "<request>", expected: "a seq number, a request id (req_...) or a record id (rec_...)")
        }
        let context = Double(options.int("context") ?? 10)
        let margin = CorrelateCommand.windowMargin(from: options)
        let session = options.value("session")

        let show = ShowAnalysis(selector: selector, session: session, context: context)
        let waterfall = WaterfallAnalysis()
        let correlation = CorrelationAnalysis(maxBytes: CorrelationAnalysis.besideWaterfallBytes)
        // Without logs there is no join: no request or session is collected for it.
        try run.read(inputs, analyses: logs.isEmpty ? [show, waterfall] : [show, waterfall, correlation])
        let outcome = run.outcome

        guard let match = show.matches.first else {
            // The message names a record type from the export: it goes through the redactor.
            let notFound = Redactor.verify().text(show.notFoundMessage().untrusted)
            if outcome.anyIncomplete {
                io.err("pbsift: show: \(notFound); an input was not read in full\n")
                return .incomplete
            }
            throw UsageError(notFound.value)
        }
        if show.placeCount > 1 {
            let list = show.matches.prefix(5).map {
                SessionSelector.short($0.sessionId) + " (seq \($0.record.seq.map(String.init) ?? "?"))"
            }
            throw UsageError(
                "\(show.placeCount) sessions hold '\(wanted)': \(list.joined(separator: ", "))\(show.placeCount > 5 ? ", …" : ""); choose one with '--session <id>'"
            )
        }

        // The rebuilt request and its session's host statistics.
        let wfSession = waterfall.sessions.first { $0.input == match.input && $0.file == match.file }
        let wf = wfSession?.requests.first { $0.ref == match.ref }
        var hosts: [String: (requests: Int, opened: Int)] = [:]
        if let s = wfSession, let h = wf?.host { hosts = WaterfallSummary.hostStats([s], hosts: [h]) }

        var correlated: CorrelationReport?
        if !logs.isEmpty {
            let requests = correlation.requests.filter { $0.ref.sameFile(match.ref) }
            let sessions = correlation.sessions.filter { $0.input == match.input && $0.file == match.file }
            correlated = run.correlate(
                requests: requests, sessions: sessions, logs: logs, margin: margin, read: try CorrelateCommand.readOptions(from: options))
        }
        let bodyLimit: Int? =
            switch options.value("body") ?? "16k" {
            case "none": nil
            case "full": ShowReport.maskedBodyBound
            default: ShowReport.defaultBodyLimit
            }
        let report = ShowReport(match: match, request: wf, hosts: hosts, correlation: correlated, bodyLimit: bodyLimit)
        if options.flag("curl") {
            guard common.format == "text" else { throw UsageError("--curl prints a shell command, not \(common.format)", about: "--curl") }
            if let failed = common.report(report, with: [Format.text("text") { r, _ in r.curl() }], io: io) { return failed }
        } else if let failed = common.report(report, with: reporters, io: io) {
            return failed
        }
        // It lists no findings: it exits as `inspect` does (on the reader's).
        return run.status(counting: run.outcome.findings.filter(InspectCommand.reports.keeps))
    }
}
