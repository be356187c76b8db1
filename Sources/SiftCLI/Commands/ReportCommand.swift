import Foundation
import SiftCore
import SiftReport
import SiftCorrelate
import SiftVerify
import SiftWaterfall

/// `pbsift report <input>... [--logs PATH]...`: the support engineer's one command.
public enum ReportCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "report",
        abstract: "The support report: leaks, damage, failures, slowness, the server.",
        discussion: """
            Reads every input once with every analysis (inspect, verify, waterfall) and, with --logs, \
            joins the requests with the server's log lines (correlate). The report opens with a verdict \
            a reader gets in five seconds: did credentials leak, is the export intact, what failed, \
            what was slow and why (backend or network), what the server said. Then the sessions; the \
            failed and the slowest requests with their phases and server lines; the records around \
            each failure on one timeline, device and server (skew-corrected); and every finding.
            """,
        arguments: [
            ArgumentSpec.exports
        ],
        options: [
            OptionSpec.logs,
            OptionSpec("slowest", value: "n", help: "How many of the slowest requests to show.", kind: .int(0...1000), default: "5"),
            OptionSpec.context(help: "Seconds of records shown before and after each failure."),
            OptionSpec.windowMargin(help: "Seconds added before and after each session's time window when reading the logs."),
            OptionSpec.extraField(help: "Also treat this header, parameter or field name as secret, as in verify."),
            OptionSpec("baseline", value: "file", help: "Accept the credential findings this verify baseline lists.", takesPath: true),
            OptionSpec(
                "summary",
                help:
                    "Print only the lines to paste into a ticket: the verdict, the failing request, the server line that failed, where the time went, the clock skew, the credentials (text, markdown or json)."
            ),
            Shard.option
        ] + RecordScope.options,
        examples: [
            (
                "pbsift report export.zip --logs logs/ -f markdown -o ticket.md",
                "A ticket-ready report of a user's export and the day's logs."
            ),
            ("pbsift report export.zip --logs api.log.gz --json | jq .verdict", "The verdict lines, through jq."),
            ("pbsift report export.zip -f html -o report.html", "One self-contained HTML page with the waterfall drawn."),
            ("pbsift report export.zip --logs logs/ --summary -f markdown", "Five lines to paste into a ticket."),
            ("pbsift report export.zip -f csv -o findings.csv", "Every finding as a spreadsheet row.")
        ],
        formats: BatchLines.formats(reporters.map(\.format)),
        manSection: """
            The
            .Cm json
            document is the union of the other commands' documents under one envelope, described by
            .Pa docs/schema/report.schema.json :
            the keys of
            .Nm inspect
            .Pq Cm tool , inputs , sessions , blobs ,
            then
            .Cm findings
            and
            .Cm summary
            over every analysis,
            .Cm verdict
            (objects of
            .Cm key , ok
            and
            .Cm text ) ,
            .Cm verify
            (its summary),
            .Cm waterfall
            (the waterfall document without its findings),
            .Cm correlation
            (the correlate document's sections, or null without
            .Fl -logs ) ,
            and
            .Cm failures
            (the timeline around each failed request).
            .Cm csv
            has one row per finding, with the columns of every other command's CSV of findings;
            cells that begin with
            .Ql = ,
            .Ql + ,
            .Ql -
            or
            .Ql @
            are prefixed with a quote so spreadsheets do not run them.
            """)

    /// The formats, in `--format` order (text is the default).
    static let reporters: [any Reporter<FindingsOutput<SupportReport>>] =
        [
            Format.text("text") { r, c in r.report.text(colors: c.colors) },
            Format.text("markdown") { r, _ in r.report.markdown() },
            Format.json { r, w in r.report.json(into: &w) },
            Format.text("csv") { r, _ in r.report.csv() },
            Format.text("html") { r, _ in r.report.html() }
        ] + FindingsFormats.all()

    /// `--summary`'s formats: the lines to paste.
    static let summaryReporters: [any Reporter<FindingsOutput<SupportReport>>] = [
        Format.text("text") { r, c in r.report.summaryText(colors: c.colors) },
        Format.text("markdown") { r, _ in r.report.summaryMarkdown() },
        Format.text("json") { r, _ in r.report.summaryJSON() }
    ]

    /// The findings `report` lists, and counts for its exit status: every family.
    static let reports = FindingSelection.all

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        var run = try ReadingRun(options, spec: spec, io: io)
        let common = run.common
        let inputs = options.argument("input")
        let logs = options.all("logs")
        if inputs.contains("-") && logs.contains("-") {
            throw UsageError("standard input can be the export or the logs, not both", about: "-")
        }
        let summary = options.flag("summary")
        if summary, !["text", "markdown", "json"].contains(common.format) {
            throw UsageError("--summary prints text, markdown or json, not \(common.format)")
        }
        let slowest = options.int("slowest") ?? 5
        let context = Double(options.int("context") ?? 10)
        let margin = CorrelateCommand.windowMargin(from: options)
        var config = try VerifyCommand.config(from: options)
        let baseline = try VerifyCommand.baseline(from: options)
        // As verify: the fingerprint key beside the baseline, so guessable values fingerprint (hmac:)
        // as the baseline listed them.
        if let b = options.value("baseline") {
            config.fingerprintKey = try VerifyCommand.fingerprintKey(FingerprintKey.path(forBaseline: b), option: "--baseline")
        }

        let verify = VerifyAnalysis(config: config)
        verify.keepSecretValues()
        // Only the JSON document and the HTML page print the waterfall itself; the other formats show
        // a few requests and some counts, taken as each session ends, and hold no session after it.
        let digests = !["json", "html", "jsonl"].contains(common.format) || summary
        let readLogs = logs.isEmpty ? nil : try CorrelateCommand.readOptions(from: options)
        let parts = Parts(verify: verify, digests: digests, slowest: slowest, context: context, logs: !logs.isEmpty)
        if common.format == "jsonl" {
            // Each input's report on its own line, as soon as it is read. Joined with logs, the
            // inputs are read one after the other on this thread (the join reads every log for each).
            let joining = Joining(run)
            let config = config
            let lanes = LaneSlots<Parts>(lanes: ReadingRun.lanes)
            let verifies = LaneSlots<VerifyAnalysis>(lanes: ReadingRun.lanes)
            let scope = RecordScope(options).description
            return try BatchLines.run(
                &run, command: spec.name, inputs: inputs, lanes: logs.isEmpty ? ReadingRun.lanes : 0,
                analyses: { lane in
                    let verify = verifies[lane] ?? VerifyAnalysis(config: config, parallel: false)
                    if verifies[lane] == nil {
                        verify.keepSecretValues()
                        verifies[lane] = verify
                    }
                    verify.startAfresh()
                    let parts = Parts(verify: verify, digests: false, slowest: slowest, context: context, logs: !logs.isEmpty)
                    lanes[lane] = parts
                    return parts.analyses
                },
                document: { outcome, lane in
                    func build(_ run: inout ReadingRun) -> (report: SupportReport, counted: [Finding]) {
                        lanes[lane]!.report(
                            outcome, run: &run, logs: logs, margin: margin, read: readLogs, config: config, baseline: baseline,
                            scope: scope)
                    }
                    var alone = joining.copy()
                    let report = logs.isEmpty ? build(&alone) : joining.with(build)
                    return (report.counted, { w in report.report.json(into: &w) })
                }
            ) {
                // A log that could not be read leaves every input's join unchecked.
                joining.with { !$0.logErrors.isEmpty }
            }
        }
        try run.read(inputs, analyses: parts.analyses)
        let (report, all) = parts.report(
            run.outcome, run: &run, logs: logs, margin: margin, read: readLogs, config: config, baseline: baseline,
            scope: RecordScope(options).description)
        let stopped: ExitStatus?
        do {
            // The inputs and findings as the report redacted them (not redacted a second time).
            let output = FindingsOutput(
                command: spec.name, report: report, inputs: report.redactedOutcome.project(\.inputs),
                findings: report.redactedFindings)
            stopped = common.report(output, with: summary ? summaryReporters : reporters, io: io, closedIsOK: true)
        }
        // Written: what the report holds (every request and text of a large export) is let go on a
        // worker, not one by one on this thread, which has nothing left to do but return.
        ReadingRun.letGo(consume report)
        if let stopped { return stopped }
        // A bound that stopped verify's checks leaves the input not verified in full, whatever a baseline says.
        return run.status(counting: all)
    }
}

extension ReportCommand {
    /// The analyses of one report and how their results become it: one set for a whole run, or
    /// one per input when a batch is read input by input (`--format jsonl`).
    struct Parts {
        let verify: VerifyAnalysis
        let digest: RequestDigest?
        let waterfall: WaterfallAnalysis
        let correlation: CorrelationAnalysis
        let timeline: FailureTimeline
        let logs: Bool
        let slowest: Int

        init(verify: VerifyAnalysis, digests: Bool, slowest: Int, context: Double, logs: Bool) {
            self.verify = verify
            let digest = digests ? RequestDigest(slowest: slowest) : nil
            self.digest = digest
            var sink: (@Sendable (WaterfallSession) -> Void)? = nil
            if let digest { sink = { digest.add($0) } }
            waterfall = WaterfallAnalysis(sessionsTo: sink)
            // Without logs there is no join: the network records are the waterfall's alone, and no
            // session is collected for it (an export can hold a hundred thousand).
            correlation = CorrelationAnalysis(maxBytes: CorrelationAnalysis.besideWaterfallBytes)
            timeline = FailureTimeline(context: context)
            self.logs = logs
            self.slowest = slowest
        }

        var analyses: [any Analysis] { logs ? [verify, waterfall, correlation, timeline] : [verify, waterfall, timeline] }

        /// The report of what the analyses saw (`outcome`), the logs joined when given, and the
        /// findings it counts for the exit status (after the baseline).
        func report(
            _ outcome: ReadOutcome, run: inout ReadingRun, logs: [String], margin: Double, read: LogReadOptions?,
            config: VerifyConfig, baseline: Baseline?, scope: String?
        ) -> (report: SupportReport, counted: [Finding]) {
            var correlated: CorrelationReport? = nil
            if let read, !logs.isEmpty {
                correlated = run.correlate(
                    requests: correlation.takeRequests(), sessions: correlation.takeSessions(), logs: logs, margin: margin, read: read)
            }
            // Every finding once: the reader's and verify's come with the outcome, correlate's with its report.
            var all = (outcome.findings + (correlated?.findings ?? [])).filter(reports.keeps)
            var suppressed = 0
            if let baseline {
                let (kept, dropped) = baseline.apply(all)
                all = kept
                suppressed = dropped.count
            }
            all = ReportEnvelope.sorted(all)
            // Never print a secret: every text goes through one redactor, which knows what verify found
            // and runs verify's detectors over each text.
            let redactor = Redactor.verify(config: config, known: verify.secretValues)
            // The waterfall's findings are among `all`, which the report shows: none are given to it
            // again (they would be redacted and sorted a second time, and never shown).
            let waterfallReport = WaterfallReport(sessions: waterfall.takeSessions(), findings: [], redactor: redactor)
            let report = SupportReport(
                outcome: outcome, findings: all, waterfall: consume waterfallReport, digest: digest, correlation: correlated,
                timeline: timeline,
                verifySummary: VerifySummary(
                    findings: all.filter(VerifyCommand.reported), suppressed: suppressed, inputs: outcome.inputs,
                    records: verify.recordsScanned, blobs: verify.blobsScanned),
                slowest: slowest, redactor: redactor, scope: scope)
            return (report, all)
        }
    }
}

extension ReportCommand {
    /// The run a batch's joins go through (its log diagnostics and errors), one join at a time.
    final class Joining: @unchecked Sendable {
        private var run: ReadingRun
        private let lock = NSLock()
        init(_ run: ReadingRun) { self.run = run }

        /// A copy of the run, for a report that joins no log (the run is then only read).
        func copy() -> ReadingRun {
            lock.lock()
            defer { lock.unlock() }
            return run
        }

        func with<R>(_ body: (inout ReadingRun) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(&run)
        }
    }
}
