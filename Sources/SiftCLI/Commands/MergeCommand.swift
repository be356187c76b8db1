import Foundation
import SiftArchive
import SiftCore
import SiftVerify

/// `pbsift merge FILE...`: the JSON Lines of a batch's shards, joined into the report one run would have given.
public enum MergeCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "merge",
        abstract: "Join the JSON Lines of a batch's shards into one report.",
        discussion: """
            Reads the JSON Lines that verify, inspect, report, waterfall or correlate wrote with --format jsonl \
            (one file per shard of a --shard K/N batch, plain or gzip, or - for standard input) and \
            writes what one run over every input would have written: in jsonl, the same lines sorted \
            by input with one summary line; for verify, the same JSON, text, Markdown, CSV, SARIF and \
            JUnit; for the other commands, JSON (every input's document, sorted by input), a text \
            summary, and the findings as CSV, SARIF or JUnit. The exit status is the one run's: 2 when \
            an input was not read in full, or a line here could not be read; else 1 when a finding \
            counted for the exit status is at or above --fail-on (by default the runs' own); else 0. \
            Every line must come from the same command and schema.
            """,
        arguments: [
            ArgumentSpec(
                "file", help: "JSON Lines a run wrote with --format jsonl (plain or .gz), or - for standard input.", variadic: true,
                takesPath: true)
        ],
        options: [],
        examples: [
            ("pbsift merge shard-*.jsonl", "The one verdict of every shard of a batch."),
            ("pbsift merge -f sarif -o pbsift.sarif shard-*.jsonl", "One SARIF file for code scanning."),
            ("pbsift merge -f junit -o junit.xml shard-*.jsonl.gz", "One JUnit report for the CI's test view.")
        ],
        formats: ["text", "json", "jsonl", "markdown", "csv", "sarif", "junit"],
        manSection: """
            Each line is one object with
            .Cm schema
            (1),
            .Cm command
            and
            .Cm type :
            .Cm input
            (one per input),
            .Cm finding
            (verify, one per finding, after its input) or
            .Cm summary
            (the last line of a run).
            .Pa docs/schema/batch.md
            describes every member.
            """)

    /// One input's lines, kept in the spool: where they start and how long they are.
    struct Group {
        var input: String
        var offset: Int64
        var length: Int
        /// Order read (ties between copies of one input keep it).
        var order: Int
    }

    /// What the files hold, as far as the reports need it.
    struct Merged {
        var command: String?
        var groups: [Group] = []
        var totals = BatchTotals()
        /// The runs' `--fail-on` (the first one met), and whether another run said otherwise.
        var failOn: String?
        var failOnDiffers = false
        /// A run's summary said something beyond its inputs was not read in full (a log).
        var incomplete = false
        /// A file or line here could not be read.
        var unread = false
        var summaries = 0
        /// Files that could not be opened (already named).
        var unreadFiles = Set<String>()
        /// The shards whose summary lines were read (`K/N` as written), with where each was.
        var shards: [String: String] = [:]
        /// Inputs read, by path, with where: an input read twice (a shard given twice, shards that
        /// overlap) is named.
        var seen: [String: String] = [:]
        /// Each input's `worst`, in the order read (a few bytes an input).
        var worst: [Severity?] = []
        /// verify: the counts of each input's `verify` member, summed; the others: their `findings`.
        var verify = VerifySummary(findings: [])
        var counted = 0
        /// The findings the document formats list (held only for them).
        var findings: [Finding] = []
        var inputs: [InputSummary] = []
        var blobs: [String: BlobSummary] = [:]
    }

    /// A line longer than this is not read (a report line holds one input's whole report): it is
    /// named, and merge exits 2.
    static let maxLine = 256 << 20

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let common = try CommonOptions(options, spec: spec, io: io)
        let files = options.argument("file")
        if files.filter({ $0 == "-" }).count > 1 { throw UsageError("standard input can be read once", about: "-") }
        let spool = try Spool()
        let holds = common.format != "jsonl"
        var merged = Merged()
        for path in files { read(path, into: &merged, spool: spool, holdFindings: holds, io: io) }
        guard let command = merged.command else {
            if merged.groups.isEmpty { io.err("pbsift: merge: no line of a batch was read (write them with --format jsonl)\n") }
            return .incomplete
        }
        checkShards(&merged, io: io)
        if merged.failOnDiffers && !common.quiet {
            io.err("warning: the runs were made with different --fail-on thresholds; the first one's stands unless --fail-on is given\n")
        }
        var failOn: Severity? = common.failOn
        if options.value("fail-on") == nil, let f = merged.failOn { failOn = f == "never" ? nil : Severity(rawValue: f) }
        merged.groups.sort { $0.input != $1.input ? $0.input < $1.input : $0.order < $1.order }
        let status = exitStatus(merged, failOn: failOn)

        let sink: OutputSink
        do { sink = try common.openOutput(io) } catch { return error.report(io) }
        var written = common
        written.failOn = failOn
        switch common.format {
        case "jsonl":
            writeLines(merged, command: command, spool: spool, sink: sink, failOn: failOn)
        case _ where command == VerifyCommand.spec.name:
            let redactor = Redactor.verify()
            let findings = ReportEnvelope.sorted(merged.findings)
            let inputs = merged.inputs.sorted { $0.path < $1.path }
            let output = VerifyOutput(
                findings: redactor.apply(findings), inputs: redactor.apply(inputs), summary: merged.verify, blobs: merged.blobs)
            if common.format == "text" {
                // As a batch prints it: each input's findings in turn, then the summary line.
                let context = written.context(sink, io: io)
                var byInput: [String: [Finding]] = [:]
                for f in output.findings.value { byInput[f.input, default: []].append(f) }
                var listed = false
                for input in output.inputs.value {
                    let section = VerifyCommand.TextSection(
                        findings: redactor.apply(byInput[input.path] ?? []), inputs: redactor.apply([input]), after: listed)
                    guard section.listsSomething else { continue }
                    VerifyCommand.textSection.write(section, to: context)
                    listed = true
                }
                VerifyCommand.textSummary.write((merged.verify, listed), to: context)
                break
            }
            guard let reporter = VerifyCommand.reporters.first(where: { $0.format == common.format }) else {
                throw UsageError("verify's lines merge into text, json, jsonl, markdown, csv, sarif or junit", about: "--format")
            }
            reporter.write(output, to: written.context(sink, io: io))
        default:
            try writeOther(merged, command: command, spool: spool, common: written, sink: sink, io: io)
        }
        if let failed = common.close(sink, io: io) { return failed }
        if spool.failure != nil {
            io.err("pbsift: merge: the temporary file (TMPDIR) could not be written or read back in full\n")
            return .incomplete
        }
        return status
    }

    /// Every shard of a sharded batch must be there once: `K/N` summary lines for each K of one N.
    static func checkShards(_ m: inout Merged, io: CommandIO) {
        guard !m.shards.isEmpty else { return }
        let parsed = m.shards.keys.compactMap { Shard($0) }
        let counts = Set(parsed.map(\.count))
        guard counts.count == 1, let n = counts.first, parsed.count == m.shards.count else {
            io.err("pbsift: merge: the shards are not K/N of one N (\(m.shards.count) summary lines)\n")
            m.unread = true
            return
        }
        let missing = (1...n).filter { k in !parsed.contains { $0.index == k } }
        guard !missing.isEmpty else { return }
        io.err("pbsift: merge: \(missing.count) of \(n) shards missing (the first: \(missing[0])/\(n)): their inputs were not checked\n")
        m.unread = true
    }

    /// The exit status one run would have given: 2 when anything was not read in full, else 1 when an
    /// input's counted findings reach `failOn`, else 0.
    static func exitStatus(_ m: Merged, failOn: Severity?) -> ExitStatus {
        if m.unread || m.incomplete || m.totals.incompleteInputs > 0 { return .incomplete }
        guard let failOn else { return .ok }
        return m.worst.contains { ($0 ?? .info) >= failOn && $0 != nil } ? .findings : .ok
    }

    // MARK: reading

    private static func read(_ path: String, into m: inout Merged, spool: Spool, holdFindings: Bool, io: CommandIO) {
        let source: ByteSource
        do {
            let raw: ByteSource = path == "-" ? FileSource(fileDescriptor: 0) : try FileSource(path: path)
            let peeked = PrefixedSource.peek(raw, count: 2)
            source = peeked.peeked == [0x1F, 0x8B] ? GzipSource(wrapping: peeked) : peeked
        } catch {
            Diagnostics.line(path, "\(error)", io: io)
            m.unread = true
            return
        }
        var lines = LineReader(source: source, maxLine: maxLine)
        var open: Int? = nil // the index of the group the next finding line joins
        let summariesBefore = m.summaries
        var lastLine = 0
        defer {
            // A run writes its summary last: a file without one was cut short, or its run stopped.
            if m.summaries == summariesBefore {
                Diagnostics.line(
                    path, "no summary line after line \(lastLine): the run stopped before its end, or the file was cut", io: io)
                m.unread = true
            }
        }
        func fail(_ n: Int, _ why: String) {
            Diagnostics.line(path, "line \(n): \(why)", io: io)
            m.unread = true
        }
        do {
            while let event = try lines.next() {
                switch event {
                case .blank: continue
                case .tooLong(let n, let bytes): fail(n, "a line of \(bytes) bytes, longer than merge reads")
                case .line(let bytes, let n), .unterminated(let bytes, let n):
                    lastLine = n
                    if let why = take(bytes, from: "\(path):\(n)", into: &m, open: &open, spool: spool, holdFindings: holdFindings) {
                        fail(n, why)
                    }
                }
            }
        } catch {
            Diagnostics.line(path, "\(error)", io: io)
            m.unread = true
        }
    }

    /// Takes one line; returns why it cannot be taken, or nil.
    private static func take(
        _ bytes: [UInt8], from place: String, into m: inout Merged, open: inout Int?, spool: Spool, holdFindings: Bool
    ) -> String? {
        let doc: JSONDocument
        do { doc = try JSONDocument(bytes: bytes) } catch { return "not JSON (\(error.description))" }
        let j = doc.root
        guard j.isObject, j["schema"]?.int == BatchLines.schema, let command = j["command"]?.string, let type = j["type"]?.string
        else { return "not a line of a pbsift batch (schema \(BatchLines.schema), written with --format jsonl)" }
        if let known = m.command, known != command {
            return "a line of '\(Escape.terminal(String(command.prefix(32))))' among lines of '\(known)'"
        }
        guard ["verify", "inspect", "report", "waterfall", "correlate"].contains(command) else {
            return "not a command whose batches merge"
        }
        m.command = command
        switch type {
        case "input":
            guard let input = InputSummary(batchLine: j), let exit = j["exitStatus"]?.int else {
                return "an input line without its input, container, status or exitStatus"
            }
            if let first = m.seen[input.path] {
                // Named, listed once: a verdict over both copies is not the one run's (exit 2).
                m.unread = true
                return
                    "input '\(Escape.terminal(input.path))' was read before, at \(Escape.terminal(first)): shards overlap or a file was given twice"
            }
            m.seen[input.path] = place
            let worst = j["worst"]?.string.flatMap(Severity.init(rawValue:))
            m.totals.add(input: input, status: exit == 2 ? .incomplete : exit == 1 ? .findings : .ok)
            m.worst.append(worst)
            let offset = spool.append(bytes)
            m.groups.append(Group(input: input.path, offset: offset, length: bytes.count + 1, order: m.groups.count))
            open = m.groups.count - 1
            if command == "verify", let v = j["verify"] {
                m.verify += VerifySummary(batchMember: v)
            } else {
                m.counted += max(0, j["findings"]?.int ?? 0)
            }
            guard holdFindings else { return nil }
            m.inputs.append(input)
            if command == "verify" {
                if let b = j["blobs"], b.isObject { m.blobs[input.path] = BlobSummary(json: b) }
            } else {
                for f in j[command]?["findings"]?.elements ?? [] {
                    if let finding = Finding(json: f) { m.findings.append(finding) }
                }
            }
        case "finding":
            guard let g = open else { return "a finding line before any input line" }
            guard let f = Finding(json: j) else { return "a finding line without its rule, severity, input or message" }
            spool.append(bytes)
            m.groups[g].length += bytes.count + 1
            if holdFindings { m.findings.append(f) }
        case "summary":
            open = nil
            m.summaries += 1
            if let shard = j["shard"]?.string {
                if let other = m.shards[shard] { return "shard \(Escape.terminal(shard)) again (first at \(Escape.terminal(other)))" }
                m.shards[shard] = place
            }
            if j["incomplete"]?.bool == true { m.incomplete = true }
            if let f = j["failOn"]?.string {
                if let known = m.failOn, known != f { m.failOnDiffers = true }
                if m.failOn == nil { m.failOn = f }
            }
        default:
            return "a line of unknown type"
        }
        return nil
    }

    // MARK: writing

    /// One row per finding, the columns of every command's CSV of findings.
    static let findingsCSV = Format<Redacted<[Finding]>>.text("csv") { f, _ in VerifyRender.csv(findings: f) }

    /// jsonl: every input's lines (redacted again), sorted by input, then one summary line.
    private static func writeLines(_ m: Merged, command: String, spool: Spool, sink: OutputSink, failOn: Severity?) {
        let redactor = Redactor.verify()
        for g in m.groups {
            spool.forEachLine(of: g) { bytes in
                guard let doc = try? JSONDocument(bytes: bytes) else { return }
                sink.write(redactor.jsonLine(doc.root, replacing: [:]))
            }
        }
        var lines = BatchLines(command: command, sink: sink)
        lines.totals = m.totals
        var members: [String: JSONOut] = [:]
        if command == "verify" { members["verify"] = m.verify.json } else { members["findings"] = .int(m.counted) }
        _ = lines.summary(failOn: failOn, shard: nil, incomplete: m.incomplete || m.unread, members: members)
    }

    /// inspect, report, waterfall: JSON (every input's line, sorted), text, Markdown, or the findings.
    private static func writeOther(
        _ m: Merged, command: String, spool: Spool, common: CommonOptions, sink: OutputSink, io: CommandIO
    ) throws {
        let redactor = Redactor.verify()
        let findings = redactor.apply(ReportEnvelope.sorted(m.findings))
        let inputs = redactor.apply(m.inputs.sorted { $0.path < $1.path })
        let status = exitStatus(m, failOn: common.failOn)
        switch common.format {
        case "json":
            var w = JSONWriter(pretty: true, sink: sink)
            w.beginObject()
            w.key("command")
            w.string(command)
            w.key("inputs")
            w.beginArray()
            for g in m.groups {
                spool.forEachLine(of: g) { bytes in
                    guard let doc = try? JSONDocument(bytes: bytes) else { return }
                    w.element()
                    w.value(redactor.json(doc.root.out).value)
                }
                w.flush()
            }
            w.endArray()
            w.key("summary")
            w.value(
                .object([
                    "inputs": .int(m.totals.inputs), "incompleteInputs": .int(m.totals.incompleteInputs),
                    "findings": .int(findings.value.count), "exitStatus": .int(Int(status.rawValue))
                ]))
            w.endObject()
            w.newline()
            w.flush()
        case "text", "markdown":
            let bySeverity = Severity.allCases.reversed().compactMap { s -> String? in
                let n = findings.value.filter { $0.severity == s }.count
                return n == 0 ? nil : "\(n) \(s.rawValue)"
            }
            let head = common.format == "markdown" ? "**pbsift merge**" : "pbsift merge"
            var text =
                "\(head): \(command) over \(m.totals.inputs) input\(m.totals.inputs == 1 ? "" : "s"), \(findings.value.count) finding\(findings.value.count == 1 ? "" : "s")"
            if !bySeverity.isEmpty { text += " (" + bySeverity.joined(separator: ", ") + ")" }
            if m.totals.incompleteInputs > 0 { text += "; \(m.totals.incompleteInputs) not read in full" }
            text += "; exit status \(Int(status.rawValue))\n"
            // Words of pbsift's own: the command (one of four), counts and severities.
            sink.write(SafeText(program: text))
        case "csv":
            findingsCSV.write(findings, to: common.context(sink, io: io))
        default:
            let output = FindingsOutput(command: command, report: (), inputs: inputs, findings: findings)
            guard
                let reporter = (FindingsFormats.all() as [any Reporter<FindingsOutput<Void>>]).first(where: { $0.format == common.format })
            else { throw UsageError("\(command)'s lines merge into text, json, jsonl, markdown, csv, sarif or junit", about: "--format") }
            reporter.write(output, to: common.context(sink, io: io))
        }
    }
}

extension VerifySummary {
    /// The counts of a batch line's `verify` member (a missing count reads as 0).
    init(batchMember v: JSONValue) {
        self.init(findings: [])
        inputs = max(0, v["inputs"]?.int ?? 0)
        incompleteInputs = max(0, v["incompleteInputs"]?.int ?? 0)
        records = max(0, v["records"]?.int ?? 0)
        blobs = max(0, v["blobs"]?.int ?? 0)
        findings = max(0, v["findings"]?.int ?? 0)
        suppressed = max(0, v["suppressed"]?.int ?? 0)
        for s in Severity.allCases { bySeverity[s] = max(0, v["bySeverity"]?[s.rawValue]?.int ?? 0) }
    }
}

/// Where merge keeps the lines it sorts: an unlinked temporary file (in `TMPDIR`), so memory holds
/// only where each input's lines are, never the lines themselves.
final class Spool {
    private let fd: Int32
    private var size: Int64 = 0
    private var pending: [UInt8] = []
    /// The first error writing or reading the file; merge says it and exits 2.
    private(set) var failure: String?

    init() throws {
        let dir = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((dir.hasSuffix("/") ? dir : dir + "/").utf8CString.dropLast()) + Array("pbsift-merge-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw UsageError("cannot make a temporary file in \(dir): \(String(cString: strerror(errno)))", about: "TMPDIR")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
        pending.reserveCapacity(1 << 20)
    }

    deinit { close(fd) }

    /// Appends a line (and its `\n`); returns where it starts.
    @discardableResult
    func append(_ bytes: [UInt8]) -> Int64 {
        let at = size
        pending += bytes
        pending.append(0x0A)
        size += Int64(bytes.count + 1)
        if pending.count >= 1 << 20 { flush() }
        return at
    }

    private func flush() {
        if failure == nil, !pending.isEmpty, pending.withUnsafeBytes({ writeAll(fd, $0.baseAddress!, $0.count) }) != 0 {
            failure = "the temporary file could not be written"
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Each line of `g`, read back.
    func forEachLine(of g: MergeCommand.Group, _ body: ([UInt8]) -> Void) {
        if !pending.isEmpty { flush() }
        guard failure == nil, g.length > 0 else { return }
        var buf = [UInt8](repeating: 0, count: g.length)
        var got = 0
        while got < g.length {
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, g.length - got, off_t(g.offset) + off_t(got)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                failure = "the temporary file: " + (n == 0 ? "cut short" : String(cString: strerror(errno)))
                return
            }
            got += n
        }
        var start = 0
        for i in 0..<buf.count where buf[i] == 0x0A {
            if i > start { body(Array(buf[start..<i])) }
            start = i + 1
        }
    }
}
