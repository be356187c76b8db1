import Foundation
import SiftCore
import SiftWaterfall

/// `pbsift waterfall <input>...`: every request's timing waterfall, and where the time went.
public enum WaterfallCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "waterfall",
        abstract: "Rebuild every request's timing waterfall; show where the time went.",
        discussion: """
            Rebuilds, from the URLSession metrics of each network record, the phases of every \
            transaction (a redirect or retry is one more): blocked, DNS, TCP, TLS, request, waiting \
            and download, in milliseconds. A phase that did not happen (a reused connection has no \
            DNS, TCP or TLS; a cache hit has almost nothing) is null, never 0. Then a session \
            timeline from launch (concurrency, idle gaps), the slowest requests with the phase that \
            dominated each and why, time per phase, and per-endpoint count, p50, p95 and max. \
            URLs lose their userinfo, and secret query values are masked.
            """,
        arguments: [
            ArgumentSpec.exports
        ],
        options: [
            OptionSpec(
                "request", value: "id", help: "Show only this request: a request id (req_...), a record id (rec_...) or a seq number."),
            OptionSpec("slowest", value: "n", help: "Show only the N slowest requests (in timeline order).", kind: .int(1...Int.max)),
            OptionSpec(
                "min-duration", value: "ms", help: "Show only requests that took at least this many milliseconds.",
                kind: .milliseconds),
            OptionSpec("category", value: "name", help: "Show only requests of this category: auth, call, generated, app, ..."),
            OptionSpec("source", value: "source", help: "Show only the SDK's own requests or the app's.", allowed: ["sdk", "app"]),
            Shard.option,
            OptionSpec(
                "follow",
                help:
                    "Print each request's waterfall as its record arrives on standard input (-) or is appended to a file (followed across rotation), text or JSON Lines."
            )
        ] + RecordScope.options,
        examples: [
            ("pbsift waterfall export.zip", "Every request on one axis from launch, and where the time went."),
            ("pbsift waterfall --slowest 10 -f markdown export.zip", "The ten slowest requests, ready for a ticket."),
            ("pbsift waterfall --request req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b export.zip", "One request's transactions and phases."),
            ("pbsift waterfall -f svg -o waterfall.svg export.zip", "A browser-style network panel as one SVG file."),
            ("palbase debug tail --follow --json | pbsift waterfall --follow -", "Each request's phases as the device finishes it."),
            ("pbsift waterfall --json export.zip | jq '.summary.slowest[0].explanation'", "Why the slowest request was slow.")
        ],
        formats: BatchLines.formats(reporters.map(\.format)),
        manSection: """
            With
            .Fl -format Cm json
            the report is one JSON object, keys sorted:
            .Bd -literal -offset indent
            {"requests": [{"sessionId", "seq", "recordId", "requestId",
                           "method", "url", "statusCode", "state", "source",
                           "category", "kind", "label", "start", "offsetMs",
                           "durationMs", "totalMs", "hasMetrics",
                           "transactions": [{"index", "phases": {"blocked",
                             "dns", "tcp", "tls", "request", "waiting",
                             "download"}, "offsetMs", "totalMs",
                             "reusedConnection", "networkProtocol",
                             "remoteAddress", "remotePort", "tlsVersion",
                             "statusCode", "url", "fetchType", "anomalies"}]}],
             "summary": {"requests", "transactions", "sessions": [...],
                         "slowest": [...], "phases": {...},
                         "endpoints": [...], "endpointsOmitted"},
             "findings": [...]}
            .Ed
            .Pp
            Times are milliseconds with microsecond precision;
            .Cm offsetMs
            counts from the session's launch (or its first record when it has no header).
            A phase that did not happen is null.
            .Cm csv
            has one row per transaction;
            .Cm svg
            is one self-contained file (no scripts, fonts or links).
            .Pp
            The waterfall's findings, by rule id:
            .Bl -tag -width Ds
            \(InspectCommand.ruleList(rules))
            .El
            """)

    /// The findings the waterfall reports, and counts for its exit status (the reader's are
    /// `inspect`'s; a note on standard error says how many there were).
    static let reports = FindingSelection([.waterfall])

    /// The formats, in `--format` order (text is the default).
    static let reporters: [any Reporter<FindingsOutput<WaterfallReport>>] =
        [
            Format.textStream("text") { r, c, emit in
                WaterfallRender.text(r.report, columns: c.columns, color: c.colors.enabled, into: emit)
            },
            Format.json { r, w in WaterfallRender.json(r.report, into: &w) },
            Format.textStream("csv") { r, _, emit in WaterfallRender.csv(r.report, into: emit) },
            Format.textStream("markdown") { r, _, emit in WaterfallRender.markdown(r.report, into: emit) },
            Format.text("svg") { r, _ in WaterfallRender.svg(r.report) }
        ] + FindingsFormats.all()

    /// The rules the waterfall reports (the man page lists them).
    public static var rules: [(String, String)] {
        WaterfallRule.rules.map { ($0.id, String($0.summary.dropLast()) + " (\($0.severity.rawValue)).") }
    }

    /// The filter the options ask for (the parser checked the numbers).
    static func filter(from options: ParsedOptions) -> WaterfallFilter {
        var f = WaterfallFilter()
        f.request = options.value("request")
        f.slowest = options.int("slowest")
        f.minDurationMs = options.seconds("min-duration").map { $0 * 1000 }
        f.category = options.value("category")
        f.source = options.value("source")
        return f
    }

    /// Whether `r` is the request `--request` names (a seq, a request id or a record id).
    static func isRequest(_ r: WaterfallRequest, _ q: String) -> Bool {
        (Int(q).map { $0 == r.seq } ?? false) || r.requestId == q || r.recordId == q
    }

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        var run = try ReadingRun(options, spec: spec, io: io)
        let common = run.common
        let filter = filter(from: options)
        let redactor = Redactor.verify()
        if options.flag("follow") {
            return try follow(options.argument("input"), common: common, io: io, redactor: redactor)
        }
        if common.format == "jsonl" {
            // Each input's waterfall on its own line, as soon as it is read; a filter applies to each.
            let current = LaneSlots<WaterfallAnalysis>(lanes: ReadingRun.lanes)
            return try BatchLines.run(
                &run, command: spec.name, inputs: options.argument("input"),
                analyses: { lane in
                    let analysis = WaterfallAnalysis(sessionsTo: nil)
                    current[lane] = analysis
                    return [analysis]
                }
            ) { outcome, lane in
                let report = WaterfallReport(
                    sessions: current[lane]!.takeSessions(), findings: outcome.findings.filter(reports.keeps), filter: filter,
                    redactor: redactor)
                return (report.findings, { w in WaterfallRender.json(report, into: &w) })
            }
        }
        // Without a filter every request is shown: each session is redacted on a worker as it ends,
        // beside the reading. A filter chooses requests by their texts as read, so it needs them first.
        let early = filter.isEmpty ? RedactingSessions(redactor) : nil
        var sink: (@Sendable (WaterfallSession) -> Void)? = nil
        if let early { sink = { early.add($0) } }
        let analysis = WaterfallAnalysis(sessionsTo: sink)
        try run.read(options.argument("input"), analyses: [analysis])
        let outcome = run.outcome
        if let wanted = filter.request, let selector = ShowSelector(wanted),
            !analysis.sessions.contains(where: { $0.requests.contains(where: { isRequest($0, wanted) }) })
        {
            throw UsageError(ShowAnalysis.notFound(selector, sessions: analysis.sessions), about: "--request")
        }
        let mine = outcome.findings.filter(reports.keeps)
        let report =
            if let early {
                WaterfallReport(sessions: early, findings: mine)
            } else {
                WaterfallReport(sessions: analysis.takeSessions(), findings: mine, filter: filter, redactor: redactor)
            }
        let others = outcome.findings.count - mine.count
        if others > 0 && !common.quiet {
            io.err(
                "note: the reader made \(others) other finding\(others == 1 ? "" : "s") (integrity, limits, archive, policy); see 'pbsift inspect'\n"
            )
        }
        let stopped: ExitStatus?
        do {
            let output = FindingsOutput(
                command: spec.name, report: report, inputs: redactor.apply(outcome.inputs), findings: redactor.apply(report.findings))
            stopped = common.report(output, with: reporters, io: io, closedIsOK: true)
        }
        let shown = report.findings
        // Written: every request of the report is let go on a worker, not one by one on this thread.
        ReadingRun.letGo(consume report)
        if let stopped { return stopped }
        // What is listed decides the exit status: the waterfall's findings of the requests shown.
        return run.status(counting: shown)
    }
}

extension WaterfallCommand {
    /// `--follow`: each network record's waterfall printed (and flushed) as its line arrives on
    /// standard input or is appended to a file (followed across rotation). A record is a finished
    /// exchange (or one the SDK wrote as pending): nothing is held between records but the session's
    /// header, so memory is the same at the millionth request as at the first. The end of the
    /// stream, Ctrl-C or SIGTERM ends the run; exit 2 when a line could not be read.
    static func follow(_ inputs: [String], common: CommonOptions, io: CommandIO, redactor: Redactor) throws -> ExitStatus {
        guard inputs.count == 1, let path = inputs.first else {
            throw UsageError("--follow reads one stream: standard input (-) or one file", about: "--follow")
        }
        guard ["text", "json", "jsonl"].contains(common.format) else {
            throw UsageError("--follow prints text or JSON Lines (--json), not \(common.format)", about: "--follow")
        }
        let stream = try FollowStream(path: path, io: io, quiet: common.quiet, maxLineBytes: common.limits.maxLineBytes)
        let sink = try common.openOutput(io)
        let context = common.context(sink, io: io)
        let reporter = common.format == "text" ? followText : followJSON
        // Where offsets count from: the session's header (its launch), else the stream's first record.
        var origin: Record? = nil
        var first = true
        let tooLong = stream.runRecords { record, session in
            if record.type == .session {
                origin = record
            } else if origin == nil, let ts = record.json["ts"]?.string,
                let doc = try? JSONDocument(
                    bytes: Array(JSONOut.object(["type": .string("event"), "ts": .string(ts)]).render(pretty: false).utf8))
            {
                origin = Record(line: record.line, json: doc.root)
            }
            guard record.type == .network else { return }
            let collector = WaterfallCollector()
            collector.beginSession(input: path, file: path, sessionId: session.sessionId)
            if let origin { collector.add(origin) }
            collector.add(record)
            collector.endSession(sessionId: session.sessionId, launchedAt: nil)
            let report = WaterfallReport(sessions: collector.takeSessions(), findings: [], redactor: redactor)
            reporter.write((report, first), to: context)
            first = false
            sink.flush()
        }
        if let failed = common.close(sink, io: io) { return failed }
        return tooLong > 0 ? .incomplete : .ok
    }

    static let followText = Format<(WaterfallReport, Bool)>.text("text") { r, c in
        WaterfallRender.followRows(r.0, columns: c.columns, color: c.colors.enabled, header: r.1)
    }
    static let followJSON = Format<(WaterfallReport, Bool)>.text("json") { r, _ in WaterfallRender.followLines(r.0) }
}
