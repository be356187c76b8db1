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
            ArgumentSpec("input", help: "An export: a folder, .zip, .tar, .tar.gz, .jsonl or .jsonl.gz file, or - for JSON Lines on standard input.",
                         variadic: true),
        ],
        options: [],
        examples: [
            ("pbsift inspect export.zip", "Summarise an export for a person."),
            ("pbsift inspect --json export.zip | jq '.sessions[] | {sessionId, recordCount}'",
             "Record counts per session, through jq."),
            ("pbsift inspect -f csv -o sessions.csv PalbeConsole/", "One CSV row per session of a copied store."),
            ("palbase debug tail --json | pbsift inspect -", "Inspect records piped from the Palbase CLI."),
        ],
        formats: ["text", "json", "csv", "markdown"],
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
            """)

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let common = try CommonOptions(options, spec: spec, io: io)
        let progress = Progress(io: io, options: common)
        let outcome = ExportReader(limits: common.limits).read(inputs: options.argument("input"), analyses: [progress])
        progress.clear()
        return common.finish(render(outcome, format: common.format, colors: common.colors), outcome: outcome, io: io)
    }

    /// The report in one of the spec's formats.
    public static func render(_ outcome: ReadOutcome, format: String, colors: Colors = .off) -> String {
        switch format {
        case "json": InspectReport.json(outcome)
        case "csv": InspectReport.csv(outcome)
        case "markdown": InspectReport.markdown(outcome)
        default: InspectReport.text(outcome, colors: colors)
        }
    }
}
