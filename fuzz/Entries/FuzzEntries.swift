// SiftFuzz: the entry points the libFuzzer targets in `fuzz/Targets/` call, one per target, each taking
// raw bytes. `swift test` replays `fuzz/regressions/<target>/*` through the same functions, without
// libFuzzer. An entry point must never crash, hang or grow memory past the reader's bounds on any
// input: that is what the fuzzer checks.
// May import: SiftArchive, SiftCore, SiftVerify, SiftWaterfall, SiftCorrelate, Foundation.

import Foundation
import SiftArchive
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

/// The fuzz targets by name, as `fuzz/run TARGET SECONDS` and the regression folders name them.
public enum FuzzEntries {
    /// Every target: its name and its entry point.
    public static let all: [(name: String, run: @Sendable ([UInt8]) -> Void)] = [
        ("archive", archive),
        ("json", json),
        ("export", export),
        ("logline", logLine),
        ("timestamp", timestamp),
        ("decoders", decoders),
        ("tolerant", tolerant),
        ("har", har),
        ("rulefile", ruleFile)
    ]

    /// Small bounds, so one input costs milliseconds and a lying size cannot run for long.
    static var limits: ReadLimits {
        var l = ReadLimits.default
        l.maxInputBytes = 4 << 20
        l.maxEntries = 64
        l.maxLineBytes = 1 << 20
        l.maxBlobBytes = 1 << 20
        return l
    }

    /// Bytes as an input on disk: the first byte picks the name (`.zip`, `.tar`, `.tar.gz`, `.jsonl.gz`,
    /// `.jsonl`), the rest is the file; then every entry is read to its end.
    public static func archive(_ data: [UInt8]) {
        let names = ["in.zip", "in.tar", "in.tar.gz", "in.jsonl.gz", "ses_x.jsonl"]
        let pick = Int(data.first ?? 0) % names.count
        withTempFile(names[pick], Array(data.dropFirst())) { path in
            var buf = [UInt8](repeating: 0, count: 4096)
            _ = InputWalker.walk(path: path, limits: limits) { entry in
                while let n = try? buf.withUnsafeMutableBytes({ try entry.source.read(into: $0) }), n > 0 {}
            }
        }
    }

    /// One JSON text through the tape parser; every value is then decoded.
    public static func json(_ data: [UInt8]) {
        guard let doc = try? JSONDocument(bytes: data, maxDepth: 64) else { return }
        visit(doc.root, depth: 0)
    }

    static func visit(_ v: JSONValue, depth: Int) {
        _ = v.string
        _ = v.double
        _ = v.int
        _ = v.rawText
        guard depth < 64 else { return }
        v.forEachElement { visit($0, depth: depth + 1) }
        v.forEachMember { _, m in visit(m, depth: depth + 1) }
    }

    /// Bytes as one session file read by the export reader with every analysis `report` runs.
    /// A line through the tolerant number grammar (`TolerantNumbers.repair`), then the strict
    /// parser, as verify reads a record that is not strict JSON; the repair never grows a line by
    /// more than `null` per token and never touches a string.
    public static func tolerant(_ data: [UInt8]) {
        guard let repaired = TolerantNumbers.repair(data) else { return }
        precondition(repaired.count <= data.count * 4 + 4, "the repair grew the line without bound")
        _ = try? JSONDocument(bytes: repaired, maxDepth: 512, maxValues: 1 << 20)
    }

    public static func export(_ data: [UInt8]) {
        withTempFile("ses_fuzz.jsonl", data) { path in
            let verify = VerifyAnalysis(parallel: false)
            verify.keepSecretValues()
            let waterfall = WaterfallAnalysis()
            let correlation = CorrelationAnalysis()
            let outcome = ExportReader(limits: limits).read(inputs: [path], analyses: [verify, waterfall, correlation])
            _ = ReportEnvelope.render(
                ReportEnvelope.document(
                    inputs: outcome.inputs, findings: outcome.findings,
                    blobs: outcome.blobs, sections: [:]))
            let report = WaterfallReport(sessions: waterfall.sessions, findings: [], redactor: .verify(known: verify.secretValues))
            _ = WaterfallRender.json(report, pretty: false)
            _ = WaterfallRender.text(report)
        }
    }

    /// The bytes as a HAR document through the streaming reader, the mapping and the check on what
    /// each record carries, with verify and waterfall's analyses; then every record masked as `har`
    /// and `records` print it.
    public static func har(_ data: [UInt8]) {
        withTempFile("fuzz.har", data) { path in
            let verify = VerifyAnalysis(parallel: false)
            let waterfall = WaterfallAnalysis()
            let printer = MaskEveryRecord()
            let outcome = ExportReader(limits: limits).read(inputs: [path], analyses: [verify, waterfall, printer])
            _ = ReportEnvelope.render(
                ReportEnvelope.document(inputs: outcome.inputs, findings: outcome.findings, blobs: outcome.blobs, sections: [:]))
        }
    }

    /// Masks each record as the printing commands do.
    final class MaskEveryRecord: Analysis {
        let secrets = RecordSecrets()
        let base = Redactor.verify()
        func record(_ record: Record, session: SessionContext) {
            let found = secrets.scan(record)
            _ = found.redactor(base).jsonLine(record.json, replacing: [:])
        }
        func finish() -> [Finding] { [] }
    }

    /// One server log line through the line parser: detected, then read with one format hint and as
    /// one forced format (each picked by the line's length, so mutations reach every format). Every
    /// hint on every input was forty parses an input: a few executions a second once lines grew.
    public static func logLine(_ data: [UInt8]) {
        data.withUnsafeBufferPointer { b in
            _ = LineParser.parse(b)
            let formats = LogFormat.allCases
            guard !formats.isEmpty else { return }
            _ = LineParser.parse(b, hint: formats[data.count % formats.count])
            let forced = formats[(data.count / formats.count) % formats.count]
            _ = LineParser.parse(b, options: LogReadOptions(format: forced, referenceTime: 1_796_000_000))
            // A W3C log's columns, and a team's own format (regex captures, strftime layouts).
            var w3c = LogReadOptions()
            w3c.w3cFields = ["date", "time", "cs-method", "cs-uri-stem", "sc-status", "time-taken", "cs(x-request-id)"]
            _ = LineParser.parse(b, options: w3c)
            var own = LogReadOptions(userFormats: FuzzEntries.userFormats)
            own.timezone = TimeZone(secondsFromGMT: 3600)
            _ = LineParser.parse(b, options: own)
            // The lines after a record that belong to it (a stack trace), from each start.
            if let base = b.baseAddress {
                _ = StackTrace.read(base, b.count, from: 0)
                _ = StackTrace.read(base, b.count, from: b.count / 2)
            }
        }
    }

    /// A format file in lnav's form, for the log-line target.
    static let userFormats: [UserLogFormat] = {
        let text = #"""
            {"gw": {"regex": {"a": {"pattern": "^(?<timestamp>\\S+ \\S+) (?<level>\\w+) (?<request_id>\\S+) (?<status>\\d+) (?<took_us>\\S+)(?<body>.*)$"}},
                    "timestamp-format": ["%d.%m.%Y %H:%M:%S.%L", "%a, %d %b %Y %T %Z", "%s.%f", "%m/%d/%y %I:%M:%S %p", "%j %Y %z"]},
             "js": {"json": true, "timestamp-field": "when", "pbsift-duration-unit": "us"}}
            """#
        return (try? UserLogFormat.load(JSONDocument(string: text).root)) ?? []
    }()

    /// The timestamp parsers: the export's, and the log scanner's (ISO 8601, CLF, epoch, anywhere in a line).
    public static func timestamp(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        _ = Timestamp.parse(text)
        _ = LogTime.parse(text)
        data.withUnsafeBufferPointer { b in
            _ = Timestamp.parse(bytes: b)
            guard let p = b.baseAddress, b.count > 0 else { return }
            _ = LogTime.epoch(p, b.count)
            _ = LogTime.iso(p, b.count)
            _ = LogTime.clf(p, b.count)
            _ = LogTime.find(in: p, count: b.count)
            _ = LogTime.ctime(p, b.count)
            _ = LogTime.klog(p, b.count, near: 1_796_000_000)
            _ = LogTime.timeOfDay(p, b.count, near: 1_796_000_000)
        }
    }

    /// A team's rule file (a gitleaks TOML config or pbsift's JSON form): parsed, each rule compiled and
    /// checked against its examples, then run over the file's own text under its step budget.
    public static func ruleFile(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        guard let loaded = try? TeamRuleFile.parse(text, source: "fuzz") else { return }
        _ = try? TeamRules.count(loaded.rules, in: text)
    }

    /// The URL, query, form, multipart and base64 decoders: the bytes as a network record's URL,
    /// header value and body (the first byte picks the content type and encoding), checked by
    /// verify's scanner and the waterfall's URL helpers.
    public static func decoders(_ data: [UInt8]) {
        let text = String(decoding: data.dropFirst(), as: UTF8.self)
        _ = WaterfallURL.parts(text)
        _ = WaterfallURL.host(text)
        _ = WaterfallURL.hostAndPath(text)
        _ = WaterfallURL.endpointKey(method: "GET", url: text)
        _ = WaterfallURL.collapsePath(text)
        _ = Base64.decode(text)
        let types = [
            "application/x-www-form-urlencoded", "multipart/form-data; boundary=b", "application/json",
            "text/plain", "multipart/mixed; boundary=\"" + String(text.prefix(8)) + "\""
        ]
        let pick = Int(data.first ?? 0)
        let contentType = types[pick % types.count]
        let body: JSONOut =
            pick & 0x80 != 0
            ? .object([
                "encoding": .string("base64"), "data": .string(Data(text.utf8).base64EncodedString()),
                "size": .int(text.utf8.count), "contentType": .string(contentType)
            ])
            : .object([
                "encoding": .string("utf8"), "text": .string(text), "size": .int(text.utf8.count),
                "contentType": .string(contentType)
            ])
        let record = JSONOut.object([
            "type": .string("network"), "seq": .int(1), "ts": .string("2026-11-29T10:15:02.000Z"),
            "id": .string("rec_1"), "method": .string("POST"), "url": .string(text), "state": .string("success"),
            "statusCode": .int(200),
            "request": .object([
                "headers": .array([
                    .object(["name": .string("Referer"), "value": .string(text)]),
                    .object(["name": .string("Cookie"), "value": .string(text)])
                ]),
                "body": body
            ])
        ]).render(pretty: false)
        export(Array(record.utf8) + [0x0A])
    }

    /// Writes `bytes` to the file `name` in this thread's scratch folder and runs `body` on its path.
    /// The folder is made once, on tmpfs (`/dev/shm`) when there is one, and the file is rewritten in
    /// place with plain `write`s: a fresh folder and an atomic (fsync'd) write per input made file-system
    /// work the whole cost of an input (a few executions a second).
    static func withTempFile(_ name: String, _ bytes: [UInt8], _ body: (String) -> Void) {
        guard let dir = Scratch.folder() else { return }
        let path = dir + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n <= 0 { break }
            done += n
        }
        close(fd)
        guard done == bytes.count else { return }
        body(path)
    }
}

/// Scratch folders, one per thread (`swift test` replays targets side by side), removed with their
/// files when the process exits.
enum Scratch {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var folders: [UInt: String] = [:]
    nonisolated(unsafe) private static var cleanupRegistered = false

    static func folder() -> String? {
        let thread = UInt(pthread_self())
        lock.lock()
        defer { lock.unlock() }
        if let dir = folders[thread] { return dir }
        var base = "/dev/shm"
        if access(base, W_OK) != 0 { base = NSTemporaryDirectory() }
        let dir = (base.hasSuffix("/") ? base : base + "/") + "pbsift-fuzz-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        guard mkdir(dir, 0o700) == 0 else { return nil }
        folders[thread] = dir
        if !cleanupRegistered {
            cleanupRegistered = true
            atexit { Scratch.removeAll() }
        }
        return dir
    }

    private static func removeAll() {
        for dir in folders.values {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] { unlink(dir + "/" + name) }
            rmdir(dir)
        }
    }
}
