import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify

/// `pbsift correlate <input>... --logs PATH...`: join every request with the server's own log lines.
public enum CorrelateCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "correlate",
        abstract: "Join each request with the server's log lines through its request id.",
        discussion: """
            Reads the exports, then scans the --logs (files, folders walked recursively without \
            following links, .gz files, or - for standard input; a link named on the command line is \
            followed, so a folder of links such as /var/log/containers is read as --logs DIR/*.log) for \
            the req_<uuid> ids each network \
            record minted or had echoed. Per request: its server lines, and its status: matched, \
            client-only (no server line) or id-mismatch (the echoed id differs: something rewrote it). \
            The server-minus-device clock skew is estimated from the matched requests (from the lines whose \
            id sits in a request-id field when there are any) and server lines are placed on the device \
            timeline; where a line carries a duration (its unit taken from the format), the waiting time is \
            split into server and network time, and a server time longer than the device's whole request \
            is a finding, not used. Ids the logs hold inside a session's time window that no record \
            carries are listed as server-only. The log format is detected per file from a catalogue of \
            known shapes (nginx, Apache, ingress-nginx, Envoy, Istio, Traefik, Caddy, HAProxy, Squid, \
            Kong, Heroku, AWS ALB, API Gateway, Akamai, Google Cloud, Cloudflare, OpenTelemetry, ECS, Rails, lograge, Spring Boot, \
            log4j2, ASP.NET Core, Serilog, Python, django-structlog, pino, bunyan, zap, zerolog, logrus, \
            Gin, Echo, actix-web, klog, Monolog, uWSGI, W3C (IIS, CloudFront), any JSON, logfmt, plain text), inside what \
            wraps it (Docker, CRI, journald, syslog, docker compose), and named in the output; \
            --log-format forces one, or adds the team's own from a file (lnav's format-file form). \
            With --emit-query, nothing is scanned: the queries fetching exactly these ids in the sessions' \
            time window from a log platform are printed instead.
            """,
        arguments: [
            ArgumentSpec.exports
        ],
        options: [
            OptionSpec.logs,
            OptionSpec(
                "emit-query", value: "platform",
                help: "Print the log platform's queries for these ids and time window instead of scanning.",
                allowed: QueryPlatform.allCases.map(\.rawValue)),
            OptionSpec(
                "failed", help: "With --emit-query: only the failed requests' ids (a status of 400 or more, an error, a timeout)."),
            OptionSpec.windowMargin(help: "Seconds added before and after each session's time window (server-only ids, queries)."),
            OptionSpec(
                "log-format", value: "name|file",
                help:
                    "Read every log line as this catalogue format instead of detecting it per file; or a file of the team's own formats (lnav's format-file form), tried first.",
                kind: .rule { v in
                    LogCatalogue.entry(named: v) != nil || FileManager.default.fileExists(atPath: v)
                        ? nil : "a format of the catalogue (docs/correlate.md) or a format file"
                }),
            OptionSpec(
                "log-timezone", value: "zone",
                help: "The zone of log times written without an offset: UTC, +02:00 or a name like Europe/Paris (default UTC).",
                kind: .rule { LogReadOptions.zone($0) == nil ? "UTC, an offset like +02:00, or a zone name like Europe/Paris" : nil }),
            OptionSpec(
                "request-id-header", value: "name",
                help: "The header that carries the request id in HAR inputs.", default: "X-Request-Id"),
            Shard.option
        ] + QueryOptions.options,
        examples: [
            ("pbsift correlate export.zip --logs /var/log/api/", "Join an export with a folder of rotated, gzip'd logs."),
            (
                "pbsift correlate --json export.zip --logs api.log | jq '.requests[] | select(.status != \"matched\")'",
                "The requests the server never logged, or whose id a proxy rewrote."
            ),
            ("pbsift correlate export.zip --emit-query loki", "The LogQL queries that fetch these requests' lines from Loki."),
            ("pbsift correlate -f csv -o joined.csv export.zip --logs api.log.gz", "One CSV row per request and server line.")
        ],
        formats: BatchLines.formats(reporters.map(\.format)),
        manSection: """
            With
            .Fl -format Cm json
            the report carries, beside
            .Cm tool , inputs , findings
            and
            .Cm summary :
            .Bd -literal -offset indent
            {"requests": [{"sessionId", "seq", "recordId", "requestId",
                           "echoedRequestId", "method", "url", "statusCode", "ts",
                           "status": "matched|client-only|id-mismatch",
                           "serverLines": [{"file", "line", "ts", "deviceTs", "level",
                                            "status", "durationMs", "message",
                                            "format", "method", "path", "idInField",
                                            "requestIds"}],
                           "serverMs", "waitingMs", "networkMs", "logsCover"}],
             "sessions": [{"sessionId", "userId", "window": {"from", "to"},
                           "serverOnly": {"count", "withUserId"}}],
             "serverOnly": {"count", "requestIds", "truncated",
                            "withUserId": {"count", "requestIds"}},
             "clockSkew": {"seconds", "samples", "uncertainty", "outliers",
                           "method": "marzullo", "basis", "fieldSamples",
                           "textSamples", "textSeconds"},
             "correlation": {"requests", "matched", "clientOnly", "idMismatch",
                             "withoutRequestId", "windowMarginSeconds"},
             "logs": {"files": [{"file", "encoding", "format", "bytes", "lines",
                                 "matchedLines", "longLines", "from", "to", "error"}],
                      "filesScanned", "bytes", "lines", "matchedLines",
                      "droppedLines", "droppedWindowIds", "errors"}}
            .Ed
            .Pp
            .Cm clockSkew.seconds
            is positive when the server clock is ahead of the device's.
            A log file that cannot be read in full is an error naming it (exit status 2); the others
            are still scanned, and the lines before a cut still count.
            .Pp
            The rule:
            .Bl -tag -width Ds
            .It Cm correlation.echo-mismatch
            The server echoed a different request id than the one the SDK minted (medium).
            .It Cm correlation.server-time-implausible
            A server line reports a duration longer than the device's whole request (a unit misread, or
            another request's line); it is not used for the server/network split (medium).
            .It Cm correlation.skew-disagreement
            Lines where the request id appears only inside free text (a logged URL, a message) give a
            clock skew other than the lines with it in a request-id field; only the latter are used (medium).
            .It Cm correlation.skew-whole-hours
            The clock skew is close to a whole number of hours: the server logs may be in local time
            (see
            .Fl -log-timezone ;
            medium).
            .It Cm correlation.field-unread
            A server line holds a time, status or duration where its format places one, but the value
            could not be read: named with its file and first line (medium).
            .It Cm correlation.skew-outlier
            Server lines carrying a request's id put the server clock more than a minute from the
            estimate (an id reused later, a forged line): named, not used for the skew (medium).
            .El
            .Pp
            .Cm logs.files[].format
            and
            .Cm serverLines[].format
            name the catalogue entry each file was read as (detected on its first line with a wanted id,
            or forced with
            .Fl -log-format ) .
            .Cm idInField
            tells whether the request's id sits in a field of the line of its own; the clock skew rests on
            such lines when there are any
            .Pq Cm clockSkew.basis .
            .Pp
            .Fl -emit-query
            prints, for
            .Cm loki ,
            .Cm logcli
            commands with a LogQL line filter (at most 100 ids each); for
            .Cm elasticsearch ,
            one search body per line with a
            .Cm terms
            query and an
            .Cm @timestamp
            range (at most 2000 ids each, so that the 10000-hit window holds their lines); for
            .Cm clickhouse ,
            SQL with
            .Cm IN
            (at most 5000 ids each); for
            .Cm bigquery ,
            .Cm bq query
            commands with the ids as an array parameter; for
            .Cm cloudwatch ,
            .Cm aws logs start-query
            commands whose query string stays within 10000 characters.
            """)

    /// `--window-margin` in seconds (default 60; shared with `show` and `report`).
    static func windowMargin(from options: ParsedOptions) -> Double {
        options.seconds("window-margin") ?? 60
    }

    /// `--log-format` (a catalogue name, or a file of the team's formats), `--log-timezone`, and the
    /// config file's `logFormats`. A format file that cannot be read or compiled is a usage error naming it.
    static func readOptions(from options: ParsedOptions) throws -> LogReadOptions {
        var read = LogReadOptions()
        if let f = options.value("log-format") {
            if let name = LogFormat(rawValue: f) {
                read.format = name
            } else {
                guard let data = FileManager.default.contents(atPath: f), data.count <= 1 << 20 else {
                    throw UsageError("cannot read this log format file (at most 1 MiB)", about: f)
                }
                do {
                    read.userFormats = try UserLogFormat.load(try JSONDocument(bytes: Array(data)).root)
                } catch let e as UserLogFormat.DefinitionError {
                    throw UsageError(e.description + " (see docs/correlate.md)", about: f)
                } catch {
                    throw UsageError("not a JSON format file: \(error)", about: f)
                }
            }
        }
        if let path = options.value("config"), let config = try? ProjectConfig.load(path: path) { read.userFormats += config.logFormats }
        if let zone = options.value("log-timezone").flatMap(LogReadOptions.zone) { read.timezone = zone }
        return read
    }

    /// The formats, in `--format` order (text is the default).
    static let reporters: [any Reporter<CorrelateOutput>] =
        [
            Format.textStream("text") { r, c, emit in CorrelationRender.text(r.report, colors: c.colors, emit: emit) },
            Format.json { r, w in
                // The requests and sessions are written one at a time, never held as one JSON value.
                let doc = ReportEnvelope.document(
                    inputs: r.inputs.value, findings: r.report.value.findings, blobs: r.blobs,
                    sections: CorrelationRender.summarySections(r.report))
                CorrelationRender.write(doc, listing: r.report, to: &w)
            },
            Format.textStream("csv") { r, _, emit in CorrelationRender.csv(r.report, emit: emit) },
            Format.textStream("markdown") { r, _, emit in CorrelationRender.markdown(r.report, emit: emit) }
        ] + FindingsFormats.all()

    /// The findings `correlate` reports, and counts for its exit status: the reader's and the join's.
    static let reports = FindingSelection([.integrity, .limits, .archive, .policy, .correlation])

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        var run = try ReadingRun(options, spec: spec, io: io)
        let common = run.common
        let inputs = options.argument("input")
        let logs = options.all("logs")
        let platform = options.value("emit-query").flatMap(QueryPlatform.init(rawValue:))
        let margin = windowMargin(from: options)
        let read = try readOptions(from: options)
        let target = try QueryOptions.target(options, platform: platform)
        if platform == nil && logs.isEmpty {
            throw UsageError("missing '--logs <path>' (or '--emit-query <platform>')")
        }
        if platform == nil && options.flag("failed") {
            throw UsageError("--failed narrows --emit-query; without it, every request is joined", about: "--failed")
        }
        if inputs.contains("-") && logs.contains("-") {
            throw UsageError("standard input can be the export or the logs, not both", about: "-")
        }
        if common.format == "jsonl" {
            guard platform == nil else {
                throw UsageError("--emit-query prints one query for every input: not with --format jsonl", about: "--emit-query")
            }
            return try runEach(&run, inputs: inputs, logs: logs, margin: margin, read: read, idHeader: options.value("request-id-header"))
        }
        let analysis = CorrelationAnalysis()
        // verify's checks collect the credentials the exports hold (kept in memory, never printed), so
        // that a server line repeating one as free text is masked too; their findings are verify's to report.
        let verify = VerifyAnalysis(config: VerifyConfig())
        verify.keepSecretValues()
        try run.read(inputs, analyses: [analysis, verify], requestIdHeader: options.value("request-id-header"))
        run.outcome.findings.removeAll { VerifyRules.declares($0.ruleID) }
        let outcome = run.outcome
        let redactor = Redactor.verify(known: verify.secretValues)

        if let platform {
            // `--failed`: the ids of the requests that failed (a status of 400 or more, a failure or cancellation).
            let asked = options.flag("failed") ? analysis.requests.filter(\.record.failed) : analysis.requests
            let scopes = QueryEmitter.scopes(requests: asked, sessions: analysis.sessions, margin: margin)
            if scopes.isEmpty {
                if !common.quiet {
                    if options.flag("failed") {
                        io.err("warning: the inputs hold no failed request with a request id: nothing to query\n")
                    } else {
                        io.err("warning: the inputs hold no request id: nothing to query\n")
                    }
                }
                return run.finish("")
            }
            let text = QueryEmitter.emit(platform, scopes: scopes, target: target)
            return run.finish(SafeText(escaped: redactor.text(text.untrusted)))
        }

        var logRead = read
        logRead.referenceTime = analysis.sessions.compactMap { $0.window?.from }.min()
        let findings: [Finding]
        let output: CorrelateOutput
        do {
            // The records go to the join (the analysis keeps none), and the unredacted report ends
            // here: a hundred thousand requests are held once or twice, never three times.
            var report = run.correlate(
                requests: analysis.takeRequests(), sessions: analysis.takeSessions(), logs: logs,
                margin: margin, read: logRead, announceFiles: false)
            if !common.quiet, let hint = QueryOptions.noMatchHint(report) { io.err(hint) }
            findings = ReportEnvelope.sorted((outcome.findings + report.findings).filter(reports.keeps))
            report.findings = findings
            output = CorrelateOutput(report: redactor.apply(report), inputs: redactor.apply(outcome.inputs), blobs: outcome.blobs)
        }
        if let failed = common.report(output, with: reporters, io: io) { return failed }
        return run.status(counting: findings)
    }
}

/// What `correlate` prints: the join, redacted, with every finding and the inputs.
extension CorrelateCommand {
    /// `--format jsonl`: each input joined with the logs on its own and written as its line as soon
    /// as it is read; the inputs are read one after the other (the join reads every log for each).
    static func runEach(
        _ run: inout ReadingRun, inputs: [String], logs: [String], margin: Double, read: LogReadOptions, idHeader: String?
    ) throws -> ExitStatus {
        let joining = ReportCommand.Joining(run)
        // One verify analysis for every input (read one after the other), kept in a slot.
        let verifies = LaneSlots<VerifyAnalysis>(lanes: 1)
        let first = VerifyAnalysis(config: VerifyConfig(), parallel: false)
        first.keepSecretValues()
        verifies[0] = first
        let current = LaneSlots<CorrelationAnalysis>(lanes: 1)
        return try BatchLines.run(
            &run, command: spec.name, inputs: inputs, lanes: 0, requestIdHeader: idHeader,
            analyses: { lane in
                let verify = verifies[0]!
                verify.startAfresh()
                let analysis = CorrelationAnalysis()
                current[lane] = analysis
                return [analysis, verify]
            },
            document: { outcome, lane in
                var outcome = outcome
                outcome.findings.removeAll { VerifyRules.declares($0.ruleID) }
                let analysis = current[lane]!
                let redactor = Redactor.verify(known: verifies[0]!.secretValues)
                var logRead = read
                logRead.referenceTime = analysis.sessions.compactMap { $0.window?.from }.min()
                var report = joining.with { run in
                    run.correlate(
                        requests: analysis.takeRequests(), sessions: analysis.takeSessions(), logs: logs, margin: margin, read: logRead,
                        announceFiles: false)
                }
                let findings = ReportEnvelope.sorted((outcome.findings + report.findings).filter(reports.keeps))
                report.findings = findings
                let output = CorrelateOutput(report: redactor.apply(report), inputs: redactor.apply(outcome.inputs), blobs: outcome.blobs)
                return (
                    findings,
                    { w in
                        let doc = ReportEnvelope.document(
                            inputs: output.inputs.value, findings: output.report.value.findings, blobs: output.blobs,
                            sections: CorrelationRender.summarySections(output.report))
                        CorrelationRender.write(doc, listing: output.report, to: &w)
                    }
                )
            }
        ) {
            joining.with { !$0.logErrors.isEmpty }
        }
    }
}

struct CorrelateOutput: FindingsReport {
    var report: Redacted<CorrelationReport>
    var inputs: Redacted<[InputSummary]>
    var blobs: [String: BlobSummary]

    var findingsDocument: FindingsDocument {
        FindingsDocument(command: "correlate", findings: report.project(\.findings), inputs: inputs, rule: RuleRegistry.rule)
    }
}

/// `scanning logs · 1.2 GiB` on standard error while the logs are scanned (a terminal, not `--quiet`).
/// Called from several scanning threads at once.
final class ScanProgress: @unchecked Sendable {
    private let io: CommandIO
    private let enabled: Bool
    private let lock = NSLock()
    private var bytes: Int64 = 0
    private var lastDraw = 0.0
    private var drawn = false

    init(io: CommandIO, enabled: Bool) {
        self.io = io
        self.enabled = enabled
    }

    func add(_ n: Int64) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        bytes += n
        let t = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        guard t - lastDraw >= 0.1 else { return }
        lastDraw = t
        drawn = true
        io.err("\r\u{1B}[Kscanning logs · \(bytes: bytes)")
    }

    func clear() {
        lock.lock()
        defer { lock.unlock() }
        guard enabled, drawn else { return }
        io.err("\r\u{1B}[K")
        drawn = false
    }
}
