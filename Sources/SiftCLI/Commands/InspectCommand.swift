import Foundation
import SiftCore

/// `pbsift inspect <input>...`: what is in an export.
public enum InspectCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "inspect",
        abstract: "Show what is in an export: sessions, records, blobs and findings.",
        discussion: """
            Reads every input once and lists, per session, its id, app, SDK, device, environment, \
            user, launch time, time span and record counts by type; the blobs (count, bytes, what \
            deduplication saved); and the integrity, limits, archive and policy findings the reader made.
            """,
        arguments: [
            ArgumentSpec.exports
        ],
        options: [Shard.option],
        examples: [
            ("pbsift inspect export.zip", "Summarise an export for a person."),
            (
                "pbsift inspect --json export.zip | jq '.sessions[] | {sessionId, recordCount}'",
                "Record counts per session, through jq."
            ),
            ("pbsift inspect -f csv -o sessions.csv PalbeConsole/", "One CSV row per session of a copied store."),
            ("palbase debug tail --json | pbsift inspect -", "Inspect records piped from the Palbase CLI.")
        ],
        formats: BatchLines.formats(reporters.map(\.format)),
        manSection: """
            With
            .Fl -format Cm json
            the report is one JSON object, keys sorted:
            .Bd -literal -offset indent
            {"tool": {"name": "pbsift", "version": "\(PBSift.version)"},
             "inputs": [{"path", "container", "status", "errors": [...],
                         "blobs": {"count", "bytes", "references",
                                   "referencedBytes", "savedBytes"}}],
             "sessions": [{"sessionId", "input", "file", "hasHeader",
                           "recordCount", "records": {"network", "log",
                           "event", "frame", "unknown"}, "damagedLines",
                           "app": {"bundleId", "version", "build"},
                           "sdk": {"name", "version"},
                           "device": {"model", "system", "locale", "timeZone"},
                           "environmentRef", "userId", "launchedAt",
                           "firstTs", "lastTs", "durationSeconds"}],
             "blobs": {"count", "bytes", "references", "referencedBytes",
                       "savedBytes"},
             "findings": [{"rule", "severity", "input", "file", "sessionId",
                           "seq", "line", "recordId", "location", "message",
                           "preview", "fingerprint"}],
             "summary": {"total", "critical", "high", "medium", "low",
                         "info", "worst"}}
            .Ed
            .Pp
            .Cm container
            is one of
            .Cm folder , zip , tar , tar.gz , jsonl , jsonl.gz , stdin
            or
            .Cm unknown ;
            .Cm status
            is
            .Cm ok , partial
            or
            .Cm unreadable .
            .Cm recordCount
            counts every record after the header line, of every type.
            Absent session facts are null; absent finding fields are omitted.
            .Pp
            With
            .Fl -format Cm csv
            there is one row per session; with
            .Cm markdown ,
            tables ready to paste into a ticket.
            .Pp
            The reader's findings, by rule id:
            .Bl -tag -width Ds
            \(ruleList(readerRules))
            .El
            """)

    /// The rules the reader reports, with what each means (the man page lists them).
    public static var readerRules: [(String, String)] { ReaderRules.all.map { ($0.id, $0.summary) } }

    /// `.It Cm rule` and its meaning, one per rule.
    static func ruleList(_ rules: [(String, String)]) -> String {
        rules.map { ".It Cm \($0.0)\n\($0.1)" }.joined(separator: "\n")
    }

    /// The formats, in `--format` order (text is the default).
    static let reporters: [any Reporter<InspectOutput>] =
        [
            Format.text("text") { r, c in InspectReport.text(r.outcome, colors: c.colors) },
            Format.json { r, w in InspectReport.json(r.outcome, into: &w) },
            Format.text("csv") { r, _ in InspectReport.csv(r.outcome) },
            Format.text("markdown") { r, _ in InspectReport.markdown(r.outcome) }
        ] + FindingsFormats.all()

    /// The findings `inspect` reports, and counts for its exit status: the reader's.
    static let reports = FindingSelection([.integrity, .limits, .archive, .policy])

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        var run = try ReadingRun(options, spec: spec, io: io)
        if run.common.format == "jsonl" {
            return try BatchLines.run(&run, command: spec.name, inputs: options.argument("input"), analyses: { _ in [] }) { outcome, _ in
                var outcome = outcome
                outcome.findings = outcome.findings.filter(reports.keeps)
                let redacted = Redactor.verify().apply(outcome)
                return (outcome.findings, { w in InspectReport.json(redacted, into: &w) })
            }
        }
        try run.read(options.argument("input"), analyses: [])
        run.outcome.findings = run.outcome.findings.filter(reports.keeps)
        if run.outcome.sessionsNotListed > 0 && run.common.format == "csv" {
            // A CSV holds rows only: the bound is said where a person sees it.
            io.err("note: \(run.outcome.sessions.count) of \(run.outcome.totalSessions) sessions listed (limits.sessions-not-listed)\n")
        }
        let output = InspectOutput(outcome: Redactor.verify().apply(run.outcome))
        if let failed = run.common.report(output, with: reporters, io: io) { return failed }
        return run.status()
    }

    /// The report in one of the spec's formats.
    public static func render(_ outcome: ReadOutcome, format: String, colors: Colors = .off) -> String {
        var text = ""
        let reporter = reporters.first { $0.format == format } ?? reporters[0]
        reporter.write(
            InspectOutput(outcome: Redactor.verify().apply(outcome)), to: ReportContext(sink: .memory { text += $0 }, colors: colors))
        return text
    }
}

/// What `inspect` prints: the outcome of the read, redacted.
struct InspectOutput: FindingsReport {
    var outcome: Redacted<ReadOutcome>

    var findingsDocument: FindingsDocument {
        FindingsDocument(
            command: "inspect", findings: outcome.project(\.findings), inputs: outcome.project(\.inputs), rule: RuleRegistry.rule)
    }
}
