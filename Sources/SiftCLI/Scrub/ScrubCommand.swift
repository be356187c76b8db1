import Foundation
import SiftArchive
import SiftCore
import SiftVerify

/// `pbsift scrub <input> -o <output>`: a copy of an export that can be shared.
public enum ScrubCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "scrub",
        abstract: "Write a shareable copy of an export with every credential replaced.",
        discussion: """
            Reads the input once with verify's checks, then writes a copy in the same kind of \
            container (folder, .zip, .tar, .tar.gz, .jsonl, .jsonl.gz, HAR) in which every value verify \
            reports, at any severity, is replaced by ***scrubbed:<rule>:<fingerprint>***: the rule \
            that found it and its fingerprint, never the value. Values are replaced wherever they \
            stand (headers, URLs, bodies, base64 and gzip'd bodies, blobs, damaged lines, other \
            files); a file or folder whose name holds one is renamed, the value becoming \
            scrubbed-<rule>-<fingerprint> and the extension kept. A blob whose bytes change is stored under its new SHA-256 and every reference to \
            it is updated, with the body sizes. A frame record, which must never leave the device, \
            becomes a record of type 'scrubbed' keeping only its seq and ts. A later copy of a name an \
            object holds twice is renamed <name>~2, <name>~3… A zip copy deflates the members its input \
            deflated, a file gzip'd more than once keeps its layers; everything else is copied byte for byte. The output must not exist: scrub never \
            writes over a file, never follows a link, writes under a temporary name and renames it \
            at the end, and writes nothing when the input could not be read in full (exit 2).
            """,
        arguments: [
            ArgumentSpec(
                "input", help: "The export to copy: a folder, .zip, .tar, .tar.gz, .jsonl, .jsonl.gz or HAR file.",
                takesPath: true)
        ],
        options: [
            OptionSpec("output", short: "o", value: "path", help: "Where to write the copy (must not exist).", takesPath: true),
            OptionSpec(
                "dry-run", help: "List what would change (renamed copies of a name: the first 20 of a file, then a count); write nothing."),
            OptionSpec("quiet", short: "q", help: "No summary on standard error."),
            ProjectConfig.rulesOption,
            OptionSpec(
                "fail-on", value: "severity",
                help: "Before it is kept, the copy is checked by verify: a finding at or above this severity left in it refuses the copy.",
                allowed: ["info", "low", "medium", "high", "critical"], default: "low"),
            OptionSpec(
                "max-input-bytes", value: "n",
                help: "Most bytes read (after decompression) from the input; K, M and G suffixes are binary.",
                kind: .bytes, default: ByteSize.describe(ReadLimits.default.maxInputBytes)),
            OptionSpec(
                "color", value: "when", help: "Taken as every command takes it; scrub's listing has no colour.",
                allowed: ["auto", "always", "never"], default: "auto")
        ],
        examples: [
            ("pbsift scrub export.zip -o export-scrubbed.zip", "A copy to attach to a ticket."),
            ("pbsift scrub --dry-run capture.har", "What would be replaced, and where.")
        ],
        formats: ["text"],
        manSection: """
            After
            .Nm scrub ,
            .Nm verify
            on the output finds nothing at or above
            .Cm low ,
            .Nm inspect
            shows an intact export, and
            .Nm waterfall
            and
            .Nm correlate
            give the results they give on the input.
            """,
        commonOptions: false)

    /// `scrub`'s options, decoded once; a missing input or output is a usage error here.
    struct Options {
        var input: String
        var output: String?
        var dryRun: Bool
        var quiet: Bool
        var failOn: Severity
        var limits = ReadLimits.default

        init(_ options: ParsedOptions) throws {
            guard let input = options.argument("input").first else { throw UsageError("missing argument '<input>'") }
            guard input != "-" else { throw UsageError("scrub needs a file or a folder, not standard input", about: "-") }
            self.input = input
            dryRun = options.flag("dry-run")
            quiet = options.flag("quiet")
            failOn = options.value("fail-on").flatMap(Severity.init(rawValue:)) ?? .low
            output = options.value("output")
            guard dryRun || output != nil else { throw UsageError("missing option '--output <path>'") }
            if let n = options.bytes("max-input-bytes") { limits.maxInputBytes = n }
        }
    }

    public static func run(_ parsed: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let options = try Options(parsed)
        let input = options.input, dryRun = options.dryRun, quiet = options.quiet, failOn = options.failOn
        let limits = options.limits
        // Names inside the input (entries, link targets) can hold a credential: every text that
        // is not the user's own path is printed through verify's redactor.
        var redactor = Redactor.verify()
        func fail(_ path: String, _ why: String) -> ExitStatus {
            io.err("pbsift: \(argument: path): \(redactor.text(why.untrusted))\n")
            return .incomplete
        }
        let output = options.output
        if let output {
            var st = stat()
            if lstat(output, &st) == 0 { return fail(output, "already exists; scrub never writes over a file, choose a new name") }
        }

        // 1. What verify finds, and whether the input reads in full.
        let collect = ScrubCollector()
        let outcome = ExportReader(limits: limits).read(inputs: [input], analyses: [collect])
        redactor = redactor.adding(known: collect.hits.map(\.value))
        guard let summary = outcome.inputs.first else { return fail(input, "not read") }
        // A value verify's checks could not reach (past a bound) can't be replaced: nothing is written.
        if summary.status != .ok || collect.incompleteBlob || collect.finder.bounds > 0 {
            let why =
                summary.errors.first
                ?? (collect.incompleteBlob
                    ? "a blob is larger than the bound and cannot be rewritten"
                    : collect.finder.bounds > 0 ? "verify's checks stopped at a bound; run pbsift verify to see where" : "not read in full")
            return fail(input, "not read in full (\(why)); nothing written")
        }
        var scrubber = Scrubber(values: ScrubValues(hits: collect.hits), limits: limits)
        scrubber.cookies = collect.cookies
        let gzipped = ScrubCommand.startsWithGzip(input)

        // 2. The blobs whose bytes change, and their new names.
        var problem: String?
        _ = InputWalker.walk(path: input, limits: limits) { entry in
            guard problem == nil, let hex = ScrubCommand.blobHex(entry.name) else { return }
            do {
                let bytes = try ScrubCommand.readAll(entry.source)
                if let out = try scrubber.content(bytes) {
                    scrubber.renames[hex] = (SHA256.hexDigest(out), out.count)
                }
            } catch {
                problem = "\(entry.name): \(error)"
            }
        }
        if let problem { return fail(input, problem) }

        // 3. Every entry, rewritten or copied, into the same kind of container.
        var changes: [String] = []
        var renamedNames: [String] = []
        let temp = output.map { ScrubCommand.tempName(for: $0) }
        do {
            let out = try ScrubOutput(kind: summary.container, gzip: gzipped, path: temp, dryRun: dryRun)
            scrubber.scratchNear = out.scratchNear
            var walkError: Error?
            let walk = InputWalker.walk(path: input, limits: limits) { entry in
                guard walkError == nil else { return }
                do {
                    var name = entry.name
                    if let hex = ScrubCommand.blobHex(entry.name) {
                        // A blob is read whole: the first read refused any over the blob bound.
                        let bytes = try ScrubCommand.readAll(entry.source)
                        var data = bytes
                        if let renamed = scrubber.renames[hex], let out = try scrubber.content(bytes) {
                            name = String(entry.name.dropLast(hex.count + 3)) + renamed.hex.prefix(2) + "/" + renamed.hex
                            data = out
                            changes.append("\(entry.name) → \(name) (re-hashed)")
                        }
                        if !entry.isWholeInput, let renamed = scrubber.values.rename(name, used: &scrubber.used) {
                            changes.append("\(name) → \(renamed) (renamed)")
                            name = renamed
                        }
                        try out.add(name: name, bytes: data, deflate: entry.isDeflated)
                        return
                    }
                    // Any other entry is streamed: read, edited and written a line or a piece at a time.
                    let renamed = entry.isWholeInput ? nil : scrubber.values.rename(name, used: &scrubber.used)
                    let sink = try out.begin(name: renamed ?? name, deflate: entry.isDeflated, sizeHint: entry.declaredSize)
                    let isJSON = ScrubCommand.isJSONText(entry)
                    let peek = PrefixedSource.peek(entry.source, count: 2)
                    let changed: Bool
                    if Scrubber.isGzip(peek.peeked) && (!isJSON || !entry.isWholeInput) {
                        // A gzip'd file in a folder or an archive (a whole input was inflated by the walker).
                        changed = try scrubber.gzipped(peek, scratchNear: out.scratchNear, to: sink) { s, source, sink in
                            isJSON ? try s.jsonText(source, to: sink) : try s.otherText(source, to: sink, depth: 1)
                        }
                    } else if isJSON {
                        changed = try scrubber.jsonText(peek, to: sink)
                    } else {
                        changed = try scrubber.otherText(peek, to: sink, depth: 0)
                    }
                    try sink.finish()
                    if changed { changes.append("\(entry.name): rewritten") }
                    if isJSON {
                        let renames = scrubber.keyRenames
                        for k in renames.first {
                            renamedNames.append(
                                "\(entry.name) line \(k.line): a later copy of '\(k.from)' in one object → '\(k.to)' (verify.duplicate-key)"
                            )
                        }
                        if let k = renames.last {
                            let more = renames.count - renames.first.count
                            renamedNames.append(
                                "\(entry.name): \(more) more later cop\(more == 1 ? "y" : "ies") of names held twice renamed, the last on line \(k.line): '\(k.from)' → '\(k.to)' (verify.duplicate-key)"
                            )
                        }
                        scrubber.keyRenames.removeAll()
                    }
                    if let renamed {
                        changes.append("\(name) → \(renamed) (renamed)")
                        name = renamed
                    }
                } catch {
                    walkError = error
                }
            }
            if let walkError { throw walkError }
            if walk.isPartial { throw WriteError("the input changed or could not be read again") }
            try out.finish()
            if let temp, let output, !dryRun {
                // The copy proves itself: verify reads it whole, and what it still finds refuses it.
                if let left = ScrubCommand.leftIn(temp, limits: limits, failOn: failOn) {
                    ScrubCommand.remove(temp)
                    return fail(output, "\(left); nothing written")
                }
                guard rename(temp, output) == 0 else {
                    throw WriteError("cannot rename to '\(output)': \(String(cString: strerror(errno)))")
                }
            }
        } catch {
            if let temp { ScrubCommand.remove(temp) }
            return fail(output ?? input, "\(error); nothing written")
        }

        // 4. What was done.
        var lines: [SafeText] = []
        let placed = scrubber.values.entries.filter { scrubber.used.contains($0.placeholder) }
        let verb: SafeText = dryRun ? "would replace" : "replaced"
        let wrote: SafeText = dryRun ? "" : "; wrote \(argument: output ?? "")"
        lines.append(
            "\(verb) \(placed.count) value\(placed.count == 1 ? "" : "s") in \(changes.count) file\(changes.count == 1 ? "" : "s")\(wrote)")
        for e in placed.sorted(by: { ($0.rule, $0.fingerprint) < ($1.rule, $1.fingerprint) }) {
            // A rule id and a fingerprint: pbsift's own words.
            lines.append("  \(SafeText(program: e.rule))  \(SafeText(program: e.fingerprint))")
        }
        if scrubber.framesReplaced > 0 {
            let n = scrubber.framesReplaced
            let were: SafeText = dryRun ? "would be" : n == 1 ? "was" : "were"
            lines.append(
                "  \(n) frame record\(n == 1 ? "" : "s") (policy.frame-in-export) \(were) replaced by a 'scrubbed' record keeping seq and ts"
            )
        }
        for c in changes + renamedNames { lines.append("  \(redactor.text(c.untrusted))") }
        let text = lines.joined(separator: "\n") + "\n"
        if dryRun { io.out(text) } else if !quiet { io.err(text) }
        return .ok
    }

    // MARK: helpers

    /// `…/blobs/<hh>/<64 hex>`: the blob's hex name.
    static func blobHex(_ name: String) -> String? {
        let parts = name.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[parts.count - 3] == "blobs" else { return nil }
        let hex = parts[parts.count - 1].lowercased()
        return hex.utf8.count == 64 && hex.allSatisfy(\.isHexDigit) ? hex : nil
    }

    /// Session files, HAR documents and whole-file inputs are JSON text to edit; anything else is copied.
    static func isJSONText(_ entry: ArchiveEntry) -> Bool {
        let n = entry.name.lowercased()
        return entry.isWholeInput || n.hasSuffix(".jsonl") || n.hasSuffix(".jsonl.gz") || n.hasSuffix(".har") || n.hasSuffix(".har.gz")
    }

    static func readAll(_ source: ByteSource) throws -> [UInt8] {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let n = try buf.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return out }
            out += buf[..<n]
        }
    }

    static func startsWithGzip(_ path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        let d = (try? h.read(upToCount: 2)) ?? Data()
        return d.count == 2 && d[d.startIndex] == 0x1F && d[d.startIndex + 1] == 0x8B
    }

    static func tempName(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).pbsift-\(UUID().uuidString.prefix(8))")
            .path
    }

    /// What keeps a scrubbed copy from verifying clean at `failOn`: the copy not read in full, a check
    /// stopped at a bound, or findings left (their rules and places, never values); nil when clean.
    static func leftIn(_ copy: String, limits: ReadLimits, failOn: Severity) -> String? {
        let verify = VerifyAnalysis(config: VerifyConfig())
        let outcome = ExportReader(limits: limits).read(inputs: [copy], analyses: [verify])
        if let i = outcome.inputs.first, i.status != .ok {
            return "the scrubbed copy does not read in full (\(i.errors.first ?? i.status.rawValue))"
        }
        let left = outcome.findings.filter { VerifyCommand.reported($0) && ($0.severity >= failOn || $0.ruleID == VerifyRule.bound.id) }
        guard let first = left.first else { return nil }
        let place = [first.file, first.location].compactMap { $0 }.joined(separator: " ")
        let more = left.count > 1 ? " and \(left.count - 1) more" : ""
        return
            "verify still finds \(first.rule) (\(first.severity.rawValue)) at \(place)\(more) in the scrubbed copy, which scrub could not clean"
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Collects what `verify` would report: every value, with its rule, in records and blobs.
final class ScrubCollector: Analysis {
    let finder = SecretHitFinder()
    var hits: [SecretHit] = []
    /// HAR cookies (`name \0 value`) whose header verify reported, with its placeholder.
    var cookies: [String: String] = [:]
    var incompleteBlob = false
    /// Every file is scrubbed, so every file is read (export.json, notes, stray files).
    var readsOtherFiles: Bool { true }

    func record(_ record: Record, session: SessionContext) {
        for found in finder.hits(in: record) {
            // Fingerprinted where verify fingerprints it: a guessable value's `loc:` is the same.
            let h = found.at(session: session.sessionId ?? session.file)
            hits.append(h)
            // A cookie header's value is also written as its cookies, one by one (HAR `cookies`): a
            // long value is replaced wherever it stands, and every pair in its own `cookies` entry.
            if h.location.lowercased().contains("cookie") {
                let placeholder = ScrubPlaceholder.make(rule: h.rule.id, fingerprint: h.fingerprint)
                for pair in h.value.split(separator: ";") {
                    guard let eq = pair.firstIndex(of: "=") else { continue }
                    let n = String(pair[..<eq]).trimmingCharacters(in: .whitespaces)
                    let v = String(pair[pair.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
                    if v.utf8.count >= 8 { hits.append(SecretHit(value: v, rule: h.rule, severity: h.severity, location: h.location)) }
                    if !v.isEmpty && cookies[n + "\u{0}" + v] == nil { cookies[n + "\u{0}" + v] = placeholder }
                }
            }
        }
    }

    /// File and folder names are data: a credential there is replaced in the copy's names.
    func entryName(_ file: SessionContext) {
        for part in SecretHitFinder.nameParts(file.entryName) { hits += finder.hits(inName: part.name) }
    }

    func blob(_ blob: BlobContent) {
        if !blob.complete { incompleteBlob = true }
        hits += finder.hits(inContent: blob.bytes).map { $0.at(session: blob.root) }
    }

    func damagedLine(_ bytes: [UInt8], line: Int, session: SessionContext) {
        hits += finder.hits(inText: bytes)
    }

    func otherText(_ bytes: [UInt8], line: Int, file: SessionContext) {
        hits += finder.hits(inText: bytes)
    }
}

/// Where scrubbed entries go: a folder, a zip, a tar (gzip'd or not), or one file. An entry is added
/// whole (`add`) or written a piece at a time (`begin`); a tar entry written in pieces is gathered in
/// a scratch file first, its header needing its size.
final class ScrubOutput {
    enum Sink { case folder(String), zip(ZipWriter, NewFile), tar(TarWriter, NewFile, DeflateStream?), file(NewFile, Bool), none }
    private var sink: Sink
    /// A path whose folder takes the scratch files (the output's own folder; a temporary one for a dry run).
    let scratchNear: String

    init(kind: ContainerKind, gzip: Bool, path: String?, dryRun: Bool) throws {
        scratchNear = !dryRun ? path ?? "" : URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pbsift-scrub").path
        guard let path, !dryRun else { sink = .none; return }
        switch kind {
        case .folder:
            guard mkdir(path, 0o755) == 0 else { throw WriteError("cannot create '\(path)': \(String(cString: strerror(errno)))") }
            sink = .folder(path)
        case .zip:
            let f = try NewFile(path: path)
            sink = .zip(ZipWriter(file: f), f)
        case .tar, .tarGz:
            let f = try NewFile(path: path)
            let d = kind == .tarGz ? try DeflateStream(gzip: true) : nil
            sink = .tar(TarWriter(sink: { bytes in try f.write(d.map { $0.write(bytes) } ?? bytes) }), f, d)
        case .jsonl, .jsonlGz, .har:
            sink = .file(try NewFile(path: path), gzip)
        case .stdin, .unknown:
            throw WriteError("this kind of input cannot be written back")
        }
    }

    /// A new file in the output folder, its folders made as needed.
    private static func newFile(root: String, name: String) throws -> NewFile {
        var dir = root
        let parts = name.split(separator: "/").map(String.init)
        for p in parts.dropLast() {
            dir += "/" + p
            var st = stat()
            if lstat(dir, &st) != 0 {
                guard mkdir(dir, 0o755) == 0 else { throw WriteError("cannot create '\(dir)': \(String(cString: strerror(errno)))") }
            } else if st.st_mode & S_IFMT != S_IFDIR {
                throw WriteError("'\(dir)' is not a folder")
            }
        }
        return try NewFile(path: root + "/" + name)
    }

    /// Starts an entry written a piece at a time; `deflate` as for `add`, `sizeHint` its likely size.
    func begin(name: String, deflate: Bool, sizeHint: Int64?) throws -> EntrySink {
        switch sink {
        case .none:
            return EntrySink(put: { _ in }, end: {})
        case .folder(let root):
            let f = try ScrubOutput.newFile(root: root, name: name)
            return EntrySink(put: { try f.write($0) }, end: { try f.close() })
        case .zip(let z, _):
            let e = try z.begin(name: name, deflate: deflate, sizeHint: sizeHint)
            return EntrySink(put: { try e.write($0) }, end: { try e.finish() })
        case .tar(let t, _, _):
            let spool = try SpoolFile(near: scratchNear)
            return EntrySink(put: { try spool.write($0) }, end: { try t.add(name: name, size: spool.count) { try spool.copy(to: $0) } })
        case .file(let f, let gzip):
            // The input was one file: the walker inflated its gzip layer, so it is compressed again.
            // What is written may be gzip'd itself (gzip in gzip, edited layer by layer): the copy keeps
            // the input's layers.
            guard gzip else { return EntrySink(put: { try f.write($0) }, end: {}) }
            let d = try DeflateStream(gzip: true)
            return EntrySink(put: { try f.write(d.write($0)) }, end: { try f.write(d.finish()) })
        }
    }

    /// Adds one entry; `deflate`: the input stored it compressed (a zip member), so the copy does too.
    func add(name: String, bytes: [UInt8], deflate: Bool) throws {
        switch sink {
        case .none: break
        case .folder(let root):
            let f = try ScrubOutput.newFile(root: root, name: name)
            try f.write(bytes)
            try f.close()
        case .zip(let z, _): try z.add(name: name, bytes: bytes, deflate: deflate)
        case .tar(let t, _, _): try t.add(name: name, bytes: bytes)
        case .file(let f, let gzip):
            // The input was one file: the walker inflated its gzip layer, so it is compressed again.
            try f.write(gzip ? try DeflateStream.gzip(bytes) : bytes)
        }
    }

    func finish() throws {
        switch sink {
        case .none, .folder: break
        case .zip(let z, let f):
            try z.finish()
            try f.close()
        case .tar(let t, let f, let d):
            try t.finish()
            if let d { try f.write(d.finish()) }
            try f.close()
        case .file(let f, _): try f.close()
        }
    }
}
