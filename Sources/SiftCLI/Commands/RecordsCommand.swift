import Foundation
import SiftCore
import SiftVerify

/// `pbsift records <input>...`: every record flattened, one per line, for jq and spreadsheets.
public enum RecordsCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "records",
        abstract: "Print every record flattened, one per line, for jq and spreadsheets.",
        discussion: """
            Streams each record after its session header as one JSON object per line (jsonl), with \
            sessionId, input, file and line added to the record's own fields; a base64 body that \
            decodes to UTF-8 text gains a text field. With --format csv, one row per record with the \
            chosen --columns (nested fields by dots: error.code). Credentials are masked in both \
            formats: values the SDK's contract names, and values shaped like a credential, are \
            replaced by ***, the SDK's own mask, and so is every copy of such a value in any other record \
            (a password repeated in a log message). Files and folders are read twice for that (first \
            for the values); standard input is read once, so a copy there is masked only from the \
            record where the value is first found onward. A pipe closed early (| head) ends quietly.
            """,
        arguments: [
            ArgumentSpec.exports
        ],
        options: [
            OptionSpec(
                "type", value: "type", help: "Keep records of this type.",
                allowed: ["network", "log", "event", "frame", "unknown"], repeatable: true),
            OptionSpec(
                "level", value: "level", help: "Keep log records at or above this level.",
                allowed: RecordFilter.levels),
            OptionSpec("label", value: "label", help: "Keep records with this label.", repeatable: true),
            OptionSpec(
                "status", value: "code", help: "Keep network records with this status code or class, such as 503 or 5xx.",
                kind: .rule { RecordFilter.validStatus($0) ? nil : "a status code such as 503, or a class such as 5xx" },
                repeatable: true),
            OptionSpec(
                "seq", value: "n", help: "Keep the records with this seq number, or a range such as 10-20.",
                kind: .rule { RecordFilter.seqs($0) == nil ? "a seq number such as 52, or a range such as 10-20" : nil },
                repeatable: true),
            OptionSpec(
                "request", value: "id", help: "Keep the records of this request id (req_..., minted or echoed) or record id (rec_...).",
                repeatable: true),
            RecordScope.sessionOption,
            RecordScope.sinceOption,
            RecordScope.untilOption,
            OptionSpec(
                "grep", value: "pattern", help: "Keep records whose printed line (credentials masked) matches this regular expression.",
                kind: .regex),
            OptionSpec(
                "columns", value: "list",
                help:
                    "CSV columns, comma-separated; nested fields by dots. Default: \(RecordFlattener.defaultColumns.joined(separator: ", ")).",
                takesPath: false),
            OptionSpec("json", help: "Same as --format jsonl: JSON Lines, one record per line."),
            OptionSpec(
                "follow",
                help: "Print each kept record as it arrives on standard input (-) or is appended to a file (followed across rotation).")
        ],
        examples: [
            ("pbsift records --type network --status 5xx export.zip | jq -r .url", "The URLs of every failed request."),
            ("pbsift records --level warning -f csv -o logs.csv export.zip", "Warnings and worse as a spreadsheet."),
            ("pbsift records --grep checkout export.zip | head -5", "The first five records that mention checkout."),
            ("pbsift records --seq 30-40 export.zip", "The records around seq 38."),
            ("palbase debug tail --follow --json | pbsift records --follow --level error -", "Errors as the device logs them."),
            ("pbsift records --request req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b export.zip", "Every record of one request.")
        ],
        formats: lineFormats.map(\.format),
        manSection: """
            Each line of
            .Cm jsonl
            output is the record's own JSON object (keys sorted) plus
            .Cm sessionId , input , file
            and
            .Cm line .
            Credentials are masked as in
            .Nm verify .
            The exit status is that of
            .Nm inspect
            for the same inputs (findings are not printed; use
            .Nm inspect
            or
            .Nm verify ) .
            """)

    /// The filter the options ask for (the parser checked every value).
    static func filter(from options: ParsedOptions) -> RecordFilter {
        var f = RecordFilter()
        f.types = Set(options.all("type"))
        f.minLevel = options.value("level")
        f.labels = Set(options.all("label"))
        f.statuses = options.all("status")
        let scope = RecordScope(options)
        f.since = scope.since
        f.until = scope.until
        f.grep = options.regex("grep")
        f.seqs = Set(options.all("seq").flatMap { RecordFilter.seqs($0) ?? [] })
        f.ids = Set(options.all("request").map { $0.lowercased() })
        return f
    }

    /// `--json` means JSON Lines here (as `palbase debug tail --json` prints them).
    static func jsonMeansJSONLines(_ options: ParsedOptions) throws -> ParsedOptions {
        guard options.flag("json") else { return options }
        if let given = options.value("format"), given != "jsonl" {
            throw UsageError("conflicts with '--format \(given)'", about: "--json")
        }
        var o = options
        o.flags.remove("json")
        o.values["format"] = ["jsonl"]
        return o
    }

    /// The formats, in `--format` order: each writes one masked record per line as it is read (JSON
    /// Lines straight from the parsed record, the line `--grep` saw when it made one).
    static let lineFormats: [RecordLines] = [
        RecordLines(format: "jsonl", header: { _ in nil }) { record, session, line, _, masker, sink in
            sink.write(line ?? masker.line(record, session: session))
        },
        RecordLines(format: "csv", header: { Escape.csvRow(arguments: $0) }) { record, session, _, columns, masker, sink in
            sink.write(Escape.csvRow(masker.object(record, session: session).cells(columns)))
        }
    ]

    public static func run(_ parsed: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let options = try jsonMeansJSONLines(parsed)
        // --since and --until are the filter's (a record without a time is judged there); the run keeps --session.
        var run = try ReadingRun(options, spec: spec, io: io, scoped: false)
        let common = run.common
        let filter = filter(from: options)
        let scope = RecordScope(session: options.value("session"))
        let columns = (options.value("columns") ?? RecordFlattener.defaultColumns.joined(separator: ","))
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let sink = try common.openOutput(io)
        let lines = lineFormats.first { $0.format == common.format } ?? lineFormats[0]
        if let header = lines.header(columns) { sink.write(header) }
        let inputs = options.argument("input")
        let masker = RecordMasker(config: VerifyConfig())
        if options.flag("follow") {
            return try follow(inputs, filter: filter, lines: lines, columns: columns, masker: masker, sink: sink, common: common, io: io)
        }
        // A credential any record holds is masked wherever another record repeats it as free text. Inputs
        // that can be read twice are read first for the values alone; standard input (read once) masks a
        // value from the record where it is first found onward.
        if inputs.allSatisfy(Self.readsTwice) {
            let silent = CommandIO(stdout: { _ in }, stderr: { _ in })
            var first = try ReadingRun(options, spec: spec, io: silent, scoped: false)
            try first.read(
                inputs, analyses: scope.wrap([KnownValues(masker: masker)]), shouldStop: { [sink] in sink.closed },
                matching: scope)
        }
        let analysis = RecordsAnalysis(filter: filter, line: { record, session in masker.line(record, session: session) }) {
            record, session, line in lines.line(record, session, line, columns, masker, sink)
        }
        try run.read(
            inputs, analyses: scope.wrap([KnownValues(masker: masker), analysis]), shouldStop: { [sink] in sink.closed },
            matching: scope)
        if masker.full && !common.quiet {
            io.err(
                "note: more than \(RecordMasker.maxValues) credential values or \(RecordMasker.maxBytes / 1024) KiB of them: "
                    + "later ones are masked in their own record only (limits.known-values)\n")
        }
        if let failed = common.close(sink, io: io) { return failed }
        if sink.closed { return .ok }
        return run.status()
    }

    /// `--follow`: each kept record printed (and flushed) as its line arrives on standard input or is
    /// appended to a file (followed across rotation); a credential is masked from the record where it
    /// is first found onward. The end of the stream or Ctrl-C ends the run.
    static func follow(
        _ inputs: [String], filter: RecordFilter, lines: RecordLines, columns: [String], masker: RecordMasker, sink: OutputSink,
        common: CommonOptions, io: CommandIO
    ) throws -> ExitStatus {
        guard inputs.count == 1, let path = inputs.first else {
            throw UsageError("--follow reads one stream: standard input (-) or one file", about: "--follow")
        }
        let stream = try FollowStream(path: path, io: io, quiet: common.quiet, maxLineBytes: common.limits.maxLineBytes)
        let analysis = RecordsAnalysis(filter: filter, line: { record, session in masker.line(record, session: session) }) {
            record, session, line in
            lines.line(record, session, line, columns, masker, sink)
            sink.flush()
        }
        let tooLong = stream.runRecords { record, session in
            masker.learn(record)
            analysis.record(record, session: session)
        }
        if let failed = common.close(sink, io: io) { return failed }
        return tooLong > 0 ? .incomplete : .ok
    }

    /// Whether an input can be read a second time: a file or a folder (not standard input, a pipe or a device).
    static func readsTwice(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var st = stat()
        guard stat(path, &st) == 0 else { return true } // the read reports the problem
        let kind = st.st_mode & S_IFMT
        return kind == S_IFREG || kind == S_IFDIR
    }
}

/// Hands every record (kept by the filter or not) to the masker before `records` prints it, so that
/// the credentials it holds are known to every record printed after it.
final class KnownValues: Analysis {
    let masker: RecordMasker

    init(masker: RecordMasker) { self.masker = masker }

    func record(_ record: Record, session: SessionContext) { masker.learn(record) }
    func finish() -> [Finding] { [] }
}

/// One format of `records`: an optional header from the columns, then one line per masked record
/// (handed the record, its session, its JSON line when `--grep` made it, the columns and the masker).
struct RecordLines: Sendable {
    typealias Line = @Sendable (Record, SessionContext, SafeText?, [String], RecordMasker, OutputSink) -> Void
    let format: String
    let header: @Sendable ([String]) -> SafeText?
    let line: Line

    init(format: String, header: @escaping @Sendable ([String]) -> SafeText?, line: @escaping Line) {
        self.format = format
        self.header = header
        self.line = line
    }
}

/// Redacts a flattened record before `records` prints it: the values verify's checks find in the
/// record (contract breaches, credential shapes, decoded bodies), the values found in the records
/// read before it (or in the first pass over the inputs), and every credential shape in any string,
/// names included, are replaced by `***` (the SDK's mask); a base64 or gzip body that holds a
/// credential is withheld (its stored form decodes back to the value). The known values are bounded
/// (`maxValues`, `maxBytes`): past the bound a value is masked in its own record only, and `full` says so.
final class RecordMasker: @unchecked Sendable {
    static let maxValues = 10_000
    static let maxBytes = 1 << 20

    let secrets: RecordSecrets
    let base: Redactor
    private let lock = NSLock()
    private var known: Set<String> = []
    /// The known values in the order they were found.
    private var knownList: [String] = []
    private var knownBytes = 0
    /// `base` with every known value, remade by `redactor(for:)` only after values were added: a first pass
    /// that finds many values builds it once, not once per value.
    private var current: Redactor
    private var stale = false
    /// What `learn` found in the last record, for `redactor(for:)` of the same record.
    private var last: (record: Record, found: RecordSecrets.Found)?
    private(set) var full = false

    init(config: VerifyConfig) {
        secrets = RecordSecrets(config: config)
        // Masks are written `***`, as the SDK writes them: the records read back through verify as an export does.
        base = Redactor.verify(config: config).maskingAsTheSDK()
        current = base
    }

    static let withheld = RecordFlattener.withheldText

    /// Scans a record and keeps the values it holds (within the bound).
    func learn(_ record: Record) {
        lock.lock()
        defer { lock.unlock() }
        let found = secrets.scan(record)
        last = (record, found)
        for v in found.values where !known.contains(v) {
            let size = v.utf8.count
            guard known.count < Self.maxValues, knownBytes <= Self.maxBytes - size else { full = true; continue }
            known.insert(v)
            knownList.append(v)
            knownBytes += size
            stale = true
        }
    }

    /// The redactor for `record` (every known value, and the values it holds itself) and the sides
    /// whose body data is withheld.
    func redactor(for record: Record) -> (redactor: Redactor, withheld: Set<String>) {
        lock.lock()
        let found: RecordSecrets.Found
        if let last, last.record.line == record.line, last.record.seq == record.seq, last.record.id == record.id,
            last.record.tsText == record.tsText
        {
            found = last.found
        } else {
            found = secrets.scan(record)
        }
        last = nil
        if stale {
            current = base.adding(known: knownList)
            stale = false
        }
        let own = found.values.filter { !known.contains($0) }
        var redactor = own.isEmpty ? current : current.adding(known: own)
        if !found.complete { redactor = redactor.maskingEveryValue() }
        lock.unlock()
        return (redactor, found.bodies)
    }

    /// The record flattened (`RecordFlattener.object`) and masked, for CSV cells.
    func object(_ record: Record, session: SessionContext) -> Redacted<[String: JSONOut]> {
        let (redactor, withheld) = redactor(for: record)
        return redactor.json(object: RecordFlattener.object(record, session: session, withheld: withheld))
    }

    /// The record flattened and masked as one JSON line, written from the parsed record as it is.
    func line(_ record: Record, session: SessionContext) -> SafeText {
        let (redactor, withheld) = redactor(for: record)
        return redactor.jsonLine(record.json, replacing: RecordFlattener.members(record, session: session, withheld: withheld))
    }
}
