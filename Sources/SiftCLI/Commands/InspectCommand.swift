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
            ArgumentSpec.exports,
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
            .Pp
            The reader's findings, by rule id:
            .Bl -tag -width Ds
            \(ruleList(readerRules))
            .El
            """)

    /// The rules the reader reports, with what each means (the man page lists them).
    public static let readerRules: [(String, String)] = [
        ("integrity.seq-gap", "A record's seq is missing, skips numbers, or goes backwards: records were lost or altered."),
        ("integrity.seq-duplicate", "Two records carry the same seq."),
        ("integrity.torn-line", "The last line is cut short (the app was killed mid-write)."),
        ("integrity.malformed-line", "A line that is not a JSON object, is too long or too deep, or is blank."),
        ("integrity.missing-header", "The session file does not start with a session header."),
        ("integrity.session-id-mismatch", "The header's sessionId differs from the file name."),
        ("integrity.blob-missing", "A body cites a blob the export does not hold."),
        ("integrity.blob-hash-mismatch", "The SHA-256 of a blob's bytes differs from its name."),
        ("integrity.blob-orphan", "A blob no record cites."),
        ("integrity.body-size-mismatch", "A body's size disagrees with its text, data or blob."),
        ("integrity.unknown-record-type", "Records of a type this version does not know (kept and counted)."),
        ("limits.inline-body-too-large", "An inline body over 32768 bytes."),
        ("limits.stored-body-too-large", "A stored body over 5242880 bytes."),
        ("limits.store-over-budget", "Sessions and blobs over the 134217728-byte store budget."),
        ("policy.frame-in-export", "A realtime frame record, which must never leave the device."),
        ("archive.unsafe-path", "An entry name with .., an absolute path, a backslash or a NUL (read under a cleaned name)."),
        ("archive.link-skipped", "A link, device, FIFO or socket entry: skipped, never followed."),
        ("archive.crc-mismatch", "An entry's bytes do not match its recorded CRC-32."),
        ("archive.truncated", "The archive, a compressed stream or an entry ends early."),
        ("archive.decompression-limit", "Decompressed bytes or entries passed the bounds; the rest was not read."),
        ("archive.corrupt", "The container's structure is damaged."),
        ("archive.duplicate-entry", "Two entries with the same cleaned name (both are read)."),
        ("archive.unsupported", "An entry uses an unsupported compression method or encryption."),
        ("archive.unreadable", "The input could not be opened or read, is a device or socket, or holds no Palbe record (not a Palbe export)."),
        ("archive.header-mismatch", "A zip entry's local header disagrees with its central directory (name, method, CRC-32 or sizes); read as the central directory says."),
    ]

    /// `.It Cm rule` and its meaning, one per rule.
    static func ruleList(_ rules: [(String, String)]) -> String {
        rules.map { ".It Cm \($0.0)\n\($0.1)" }.joined(separator: "\n")
    }

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let common = try CommonOptions(options, spec: spec, io: io)
        let outcome = Diagnostics.read(options.argument("input"), analyses: [], common: common, io: io)
        return common.finish(render(outcome, format: common.format, colors: common.colors), outcome: outcome, io: io)
    }

    /// The report in one of the spec's formats.
    public static func render(_ outcome: ReadOutcome, format: String, colors: Colors = .off) -> String {
        let safe = Redactor.verify().apply(outcome)
        switch format {
        case "json": return InspectReport.json(safe)
        case "csv": return InspectReport.csv(safe)
        case "markdown": return InspectReport.markdown(safe)
        default: return InspectReport.text(safe, colors: colors)
        }
    }
}
