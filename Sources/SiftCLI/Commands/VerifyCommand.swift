import Foundation
import SiftArchive
import SiftCore
import SiftVerify

/// `pbsift verify <input>...`: prove that no credential left the device.
public enum VerifyCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "verify",
        abstract: "Prove that no credential left the device.",
        discussion: """
            Checks every record, body and blob once. Every header, query parameter (of the record URL \
            and of every transaction URL), JSON body field at any depth and log metadata key whose \
            normalised name is on the SDK's redaction lists must hold exactly ***; any other value is a \
            finding, however harmless it looks. Form, multipart, gzip, base64, blob and truncated bodies, \
            URL-valued headers, URL userinfo, log messages, error descriptions and event attributes are \
            checked too, and \(VerifyRules.detectorIds.count) detectors look for credential shapes \
            (JWTs, Bearer and Basic credentials, PEM private keys, AWS, Palbase, GitHub, GitLab, Slack, \
            Stripe, Google, Azure, 1Password and other provider tokens) anywhere, under any name, names \
            included, and inside base64 or hex runs of any string once decoded. Findings show a masked preview and a fingerprint, never a value; a value short \
            enough to guess shows neither its length nor a hash of it (see docs/verify.md). Writing a \
            baseline exits 0. Exit status 1 means a finding at or above \
            --fail-on; 2 means an input could not be verified in full (2 wins).
            """,
        arguments: [
            ArgumentSpec.exports
        ],
        options: [
            OptionSpec.extraField(help: "Add a name to every redaction list (headers, query parameters, body fields)."),
            OptionSpec(
                "baseline", value: "file", help: "Accept the findings this baseline lists (matched by rule and fingerprint).",
                takesPath: true),
            OptionSpec(
                "write-baseline", value: "file",
                help: "Write a baseline accepting every current finding to this file (its fingerprint key goes beside it, in FILE.key).",
                takesPath: true),
            OptionSpec(
                "follow",
                help:
                    "Check records as they arrive on standard input (-) or are appended to a file (followed across rotation), each finding printed at once; the end of the stream or Ctrl-C gives the exit status."
            ),
            Shard.option
        ],
        examples: [
            ("pbsift verify export.zip", "Check an export before attaching it to a ticket."),
            ("palbase debug tail --follow --json | pbsift verify --follow -", "Check a device's records live, as they arrive."),
            ("pbsift verify --format sarif -o pbsift.sarif fixtures/", "SARIF for GitHub code scanning."),
            ("pbsift verify --extra-field session_key --fail-on medium export/", "Add a leaking name the SDK does not know yet."),
            ("pbsift verify --write-baseline .pbsift-baseline.json fixtures/", "Accept the known test credentials of a fixture."),
            ("pbsift verify --baseline .pbsift-baseline.json fixtures/", "Fail only on credentials not in the baseline.")
        ],
        formats: BatchLines.formats(reporters.map(\.format)),
        manSection: """
            Rule ids:
            .Bl -tag -width Ds
            \((VerifyRules.rules.filter { $0.family != .secret } + [ReaderRule.frameInExport.rule]).map { ".It Cm \($0.id)\n\($0.summary.hasSuffix(".") ? String($0.summary.dropLast()) : $0.summary)." }.joined(separator: "\n"))
            .It Cm secret. Ns Ar detector
            A value with a credential's shape, one rule per detector:
            \(VerifyRules.detectorIds.filter { $0 != "url-userinfo" }.joined(separator: ", ")).
            .El
            .Pp
            With
            .Fl -format Cm json
            the report is the shared envelope
            .Pq Cm tool , inputs , findings , summary
            plus a
            .Cm verify
            object:
            .Cm records , blobs , suppressed , incompleteInputs , findings , bySeverity .
            .Fl -format Cm sarif
            writes SARIF 2.1.0 for GitHub code scanning; each result's line is the record's line in its
            session file (inside an archive or a gzip'd file, the result names the archive with no
            line and the member as a logical location) and
            .Cm partialFingerprints
            carries the value's fingerprint.
            .Fl -format Cm junit
            writes JUnit XML for CI: one test suite per input and session file, one test case per rule
            and place, failing at or above
            .Fl -fail-on .
            .Pp
            The config file
            .Pq Fl -config , or the nearest Pa .pbsift.json
            is JSON; verify reads its redaction keys (the file's schema, with
            .Cm logs
            and
            .Cm failOn ,
            is in
            .Pa docs/config.md ;
            a key it does not know is a usage error naming the file and the key):
            .Bd -literal -offset indent
            {"extraFields": {"headers": [], "query": [], "body": []},
             "allowFingerprints": [], "disableDetectors": []}
            .Ed
            .Pp
            A baseline
            .Pq Fl -baseline , Fl -write-baseline
            is JSON:
            .Bd -literal -offset indent
            {"format": "pbsift-baseline", "version": 1,
             "entries": [{"rule", "fingerprint", "location", "sessionId"}]}
            .Ed
            """)

    /// The formats, in `--format` order (text is the default).
    static let reporters: [any Reporter<VerifyOutput>] =
        [
            Format.text("text") { r, c in VerifyRender.text(findings: r.findings, inputs: r.inputs, summary: r.summary, colors: c.colors) },
            Format.text("json") { r, _ in VerifyRender.json(findings: r.findings, inputs: r.inputs, summary: r.summary, blobs: r.blobs) },
            Format.text("csv") { r, _ in VerifyRender.csv(findings: r.findings) },
            Format.text("markdown") { r, _ in VerifyRender.markdown(findings: r.findings, inputs: r.inputs, summary: r.summary) }
        ] + FindingsFormats.all()

    /// The findings `verify` reports (and counts for its exit status): its own families, the
    /// reader's policy findings and duplicate entries (the rest belong to `inspect`).
    static let reports = FindingSelection([.redaction, .secret, .policy, .verify], plus: [ArchiveProblem.duplicateEntry.rule])

    static func reported(_ f: Finding) -> Bool { reports.keeps(f) }

    /// The fingerprint key beside a baseline (nil when there is none); a key that could be used against
    /// the gate is a usage error naming the option.
    static func fingerprintKey(_ path: String, option: String) throws -> [UInt8]? {
        do { return try FingerprintKey.load(path: path) } catch { throw UsageError(error.description, about: option) }
    }

    /// The verify configuration from `--config` and `--extra-field` (shared with `report`).
    static func config(from options: ParsedOptions) throws -> VerifyConfig {
        var config = VerifyConfig()
        if let path = options.value("config") {
            let loaded = try ProjectConfig.load(path: path)
            config.merge((options.flags.contains(ProjectConfig.searchedFlag) ? loaded.withoutLowerings : loaded).verify)
        }
        for name in options.all("extra-field") { config.addExtraField(name) }
        return config
    }

    /// The baseline from `--baseline`, if given (shared with `report`).
    static func baseline(from options: ParsedOptions) throws -> Baseline? {
        guard let path = options.value("baseline") else { return nil }
        do { return try Baseline.load(path: path) } catch { throw UsageError(error.description, about: "--baseline") }
    }

    /// `verify`'s own options, decoded once (the common ones are `CommonOptions`).
    struct Options {
        var inputs: [String]
        var config: VerifyConfig
        /// `--baseline`: its path and what it holds.
        var baselinePath: String?
        var baseline: Baseline?
        /// `--write-baseline`.
        var writeBaseline: String?

        init(_ options: ParsedOptions) throws {
            inputs = options.argument("input")
            config = try VerifyCommand.config(from: options)
            baselinePath = options.value("baseline")
            baseline = try VerifyCommand.baseline(from: options)
            writeBaseline = options.value("write-baseline")
        }
    }

    public static func run(_ parsed: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        var run = try ReadingRun(parsed, spec: spec, io: io)
        let common = run.common
        let options = try Options(parsed)
        if parsed.flag("follow") {
            guard options.inputs.count == 1, let path = options.inputs.first else {
                throw UsageError("--follow reads one stream: standard input (-) or one file", about: "--follow")
            }
            guard ["text", "json"].contains(common.format) else {
                throw UsageError("--follow prints text or JSON Lines (--json), not \(common.format)", about: "--follow")
            }
            guard options.baseline == nil, options.writeBaseline == nil else {
                throw UsageError("--follow checks a stream: no baseline is read or written", about: "--follow")
            }
            return try FollowVerify(path: path, config: options.config, common: common, io: io, maxLineBytes: common.limits.maxLineBytes)
                .run()
        }
        var config = options.config
        let baseline = options.baseline
        // The fingerprint key lives beside the baseline; the first --write-baseline creates it.
        var keyWritten: String? = nil
        if let b = options.baselinePath {
            config.fingerprintKey = try fingerprintKey(FingerprintKey.path(forBaseline: b), option: "--baseline")
        }
        if let w = options.writeBaseline {
            let keyPath = FingerprintKey.path(forBaseline: w)
            if let existing = try fingerprintKey(keyPath, option: "--write-baseline") {
                if config.fingerprintKey == nil { config.fingerprintKey = existing }
            } else {
                do {
                    let key = try FingerprintKey.create(path: keyPath)
                    if config.fingerprintKey == nil { config.fingerprintKey = key }
                    keyWritten = keyPath
                } catch { throw UsageError(error.description, about: "--write-baseline") }
            }
        }

        if common.format == "text" && options.writeBaseline == nil {
            return try runEach(&run, inputs: options.inputs, config: config, baseline: baseline)
        }
        if common.format == "jsonl" {
            guard options.writeBaseline == nil else {
                throw UsageError(
                    "a baseline is written from one report of the whole batch: not with --format jsonl", about: "--write-baseline")
            }
            return try runEach(&run, inputs: options.inputs, config: config, baseline: baseline)
        }

        let analysis = VerifyAnalysis(config: config)
        analysis.keepSecretValues()
        try run.read(options.inputs, analyses: [analysis])
        let outcome = run.outcome

        // Locations and messages name keys, headers and record types from the export: redacted
        // before they are printed or written to a baseline.
        let redactor = Redactor.verify(config: config, known: analysis.secretValues)
        let safe = redactor.apply(outcome.findings.filter(reported))
        let all = safe.value
        var status: ExitStatus? = nil
        if let path = options.writeBaseline {
            do {
                let written = Baseline(findings: all)
                try written.write(path: path)
                let n = written.entries.count
                var note: SafeText = "pbsift: wrote \(n) baseline entr\(n == 1 ? "y" : "ies") to \(argument: path)"
                if let keyWritten { note += "; created the fingerprint key \(argument: keyWritten) (keep it beside the baseline)" }
                io.err(note + "\n")
                // Writing a baseline accepts every finding: the run succeeds unless an input was not read in full.
                status = run.incomplete ? .incomplete : .ok
            } catch {
                io.err("pbsift: --write-baseline: \(argument: error.description)\n")
                status = .incomplete
            }
        }
        let (kept, suppressed) = baseline?.apply(all) ?? (all, [])
        let summary = VerifySummary(
            findings: kept, suppressed: suppressed.count, inputs: outcome.inputs,
            records: analysis.recordsScanned, blobs: analysis.blobsScanned)
        let keptSet = Set(kept)
        let output = VerifyOutput(
            findings: safe.filter { keptSet.contains($0) }, inputs: redactor.apply(outcome.inputs),
            summary: summary, blobs: outcome.blobs)
        if let failed = common.report(output, with: reporters, io: io) { return failed }
        // A bound that stopped the checks leaves the input not verified in full, whatever a baseline says.
        return status ?? run.status(counting: kept)
    }
}

/// What `verify` prints: the findings (after the baseline) and the inputs, redacted; the counts.
extension VerifyCommand {
    /// Text and `--format jsonl`: each input verified on its own and written as soon as it is read
    /// (its findings; in JSON Lines its line, then one line per finding), the summary built from
    /// counts: memory does not grow with the number of inputs. One analysis (its workers and
    /// scanners) serves every input.
    static func runEach(_ run: inout ReadingRun, inputs: [String], config: VerifyConfig, baseline: Baseline?) throws -> ExitStatus {
        let common = run.common, io = run.io
        let sink: OutputSink
        do { sink = try common.openOutput(io) } catch { return error.report(io) }
        let text = common.format == "text"
        var lines = BatchLines(command: spec.name, sink: sink)
        let context = common.context(sink, io: io)
        var total = VerifySummary(findings: [])
        var listed = false
        // One analysis per lane, checking on the lane's own thread, each used again for every input.
        let analyses = LaneSlots<VerifyAnalysis>(lanes: ReadingRun.lanes)
        try run.readEach(
            inputs, lanes: ReadingRun.lanes, shouldStop: { sink.closed },
            analyses: { lane in
                let analysis = analyses[lane] ?? VerifyAnalysis(config: config, parallel: false)
                if analyses[lane] == nil {
                    analysis.keepSecretValues()
                    analyses[lane] = analysis
                }
                analysis.startAfresh()
                return [analysis]
            },
            work: { outcome, lane in
                let analysis = analyses[lane]!
                let redactor = Redactor.verify(config: config, known: analysis.secretValues)
                let safe = redactor.apply(outcome.findings.filter(reported))
                let (kept, suppressed) = baseline?.apply(safe.value) ?? (safe.value, [])
                let summary = VerifySummary(
                    findings: kept, suppressed: suppressed.count, inputs: outcome.inputs, records: analysis.recordsScanned,
                    blobs: analysis.blobsScanned)
                let keptSet = Set(kept)
                let shown = safe.filter { keptSet.contains($0) }
                let status = common.exitStatus(findings: kept, incomplete: ReadingRun.incomplete(outcome))
                let inputs = redactor.apply(outcome.inputs)
                var held = BatchLines(command: spec.name, sink: .held())
                if text {
                    let section = TextSection(findings: shown, inputs: inputs, after: false)
                    if section.listsSomething { textSection.write(section, to: common.context(held.sink, io: io)) }
                    for input in inputs.value { held.totals.add(input: input, status: status) }
                    return (BatchLines.Rendered(held: held.sink, totals: held.totals), summary, section.listsSomething)
                }
                for input in inputs.value {
                    var members: [String: JSONOut] = ["verify": summary.json]
                    if let b = outcome.blobs[input.path] { members["blobs"] = ReportEnvelope.blobJSON(b) }
                    held.input(input, status: status, worst: ReadingRun.worst(kept), members: members)
                }
                for f in shown.value { held.finding(f) }
                return (BatchLines.Rendered(held: held.sink, totals: held.totals), summary, false)
            }
        ) { rendered, summary, lists in
            if lists && listed { sink.write("\n") }
            listed = listed || lists
            rendered.held.replay(into: sink)
            lines.totals += rendered.totals
            total += summary
        }
        let status: ExitStatus
        if text {
            textSummary.write((total, listed), to: context)
            status = lines.totals.status(extraIncomplete: false)
        } else {
            status = lines.summary(failOn: common.failOn, shard: run.shard, incomplete: false, members: ["verify": total.json])
        }
        if let failed = common.close(sink, io: io) { return failed }
        return status
    }
}

extension VerifyCommand {
    /// One input's findings in text, as a batch read input by input prints them.
    struct TextSection: Sendable {
        var findings: Redacted<[Finding]>
        var inputs: Redacted<[InputSummary]>
        /// Another input's findings were printed before: a blank line first.
        var after: Bool

        var listsSomething: Bool { !findings.value.isEmpty || inputs.value.contains { $0.status != .ok } }
    }

    static let textSection = Format<TextSection>.text("text") { s, c in
        (s.after ? "\n" : "") + VerifyRender.textFindings(findings: s.findings, inputs: s.inputs, colors: c.colors)
    }

    /// The summary line, after a blank line when findings were listed.
    static let textSummary = Format<(VerifySummary, Bool)>.text("text") { s, c in
        (s.1 ? "\n" : "") + VerifyRender.textSummary(s.0, colors: c.colors)
    }
}

struct VerifyOutput: FindingsReport {
    var findings: Redacted<[Finding]>
    var inputs: Redacted<[InputSummary]>
    var summary: VerifySummary
    var blobs: [String: BlobSummary]

    var findingsDocument: FindingsDocument {
        FindingsDocument(command: "verify", findings: findings, inputs: inputs, rule: RuleRegistry.rule)
    }
}
