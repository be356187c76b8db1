import Foundation
import SiftCore
import SiftReport

/// `--shard K/N`: the share of a batch's inputs this run reads. An input belongs to one share, by a
/// hash of its key (`ExportReader.shareKey`: the same on every machine, wherever the folder is
/// mounted), so N runs given the same inputs read every export once between them.
struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1…count.
    let index: Int
    let count: Int

    static let option = OptionSpec(
        "shard", value: "k/n",
        help: "Read only share K of N of the inputs (by path, the same on every machine); 'pbsift merge' joins the shards' JSON Lines.",
        kind: .rule { Shard($0) == nil ? "K/N, whole numbers with 1 <= K <= N <= 100000" : nil })

    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 100_000, k >= 1, k <= n
        else { return nil }
        index = k
        count = n
    }

    init?(_ options: ParsedOptions) {
        guard let text = options.value("shard") else { return nil }
        self.init(text)
    }

    var description: String { "\(index)/\(count)" }

    /// Whether the input of this key is in the share.
    func keeps(_ key: String) -> Bool { Int(Shard.hash(key) % UInt64(count)) == index - 1 }

    /// FNV-1a (64-bit) of the key's bytes: the same on every machine and in every build.
    static func hash(_ key: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in key.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }
}

/// The JSON Lines a batch writes when it is read input by input (`--format jsonl`), and what
/// `pbsift merge` reads back. Every line is one object with `schema` (1), `command` and `type`:
///
/// - `input`: one per input, as soon as it is read: `input`, `container`, `status`, `errors`,
///   `exitStatus` (the run's rule applied to this input alone), `worst` (the highest severity among
///   the findings that count for the exit status, or null), and the command's own member (verify:
///   `verify` and `blobs`; inspect, report, waterfall: the whole document the command prints for
///   that input alone, under the command's name);
/// - `finding`: verify only, one per finding, right after its input's line (a finding's members);
/// - `summary`: the last line: the counts, `failOn`, `shard`, `incomplete` and `exitStatus` of the run.
struct BatchLines {
    static let schema = 1

    /// A command's formats with `jsonl` added before the formats every command with findings shares.
    static func formats(_ own: [String]) -> [String] {
        let shared = own.filter { f in FindingsFormats.names.contains(f) }
        return own.filter { !shared.contains($0) } + ["jsonl"] + shared
    }
    let command: String
    let sink: OutputSink
    var totals = BatchTotals()

    init(command: String, sink: OutputSink) {
        self.command = command
        self.sink = sink
    }

    /// Writes an input's line (`input` redacted); `document` writes the command's member, if any.
    mutating func input(
        _ input: InputSummary, status: ExitStatus, worst: Severity?, members: [String: JSONOut] = [:],
        document: ((inout JSONWriter) -> Void)? = nil
    ) {
        var m = members
        if case .object(let o) = input.json {
            for (k, v) in o where k != "path" { m[k] = v }
        }
        m["input"] = .string(input.path)
        m["exitStatus"] = .int(Int(status.rawValue))
        m["worst"] = worst.map { .string($0.rawValue) } ?? .null
        write(type: "input", m, document: document)
        totals.add(input: input, status: status)
    }

    /// Writes a finding's line (redacted).
    mutating func finding(_ f: Finding) {
        guard case .object(let o) = f.json else { return }
        write(type: "finding", o)
    }

    /// Writes the summary line and returns the run's exit status.
    mutating func summary(failOn: Severity?, shard: Shard?, incomplete: Bool, members: [String: JSONOut] = [:]) -> ExitStatus {
        let status = totals.status(extraIncomplete: incomplete)
        var m = members
        m["inputs"] = .int(totals.inputs)
        m["incompleteInputs"] = .int(totals.incompleteInputs)
        m["failOn"] = failOn.map { .string($0.rawValue) } ?? .string("never")
        m["shard"] = shard.map { .string($0.description) } ?? .null
        m["incomplete"] = .bool(incomplete)
        m["exitStatus"] = .int(Int(status.rawValue))
        write(type: "summary", m)
        return status
    }

    private func write(type: String, _ members: [String: JSONOut], document: ((inout JSONWriter) -> Void)? = nil) {
        var m = members
        m["schema"] = .int(BatchLines.schema)
        m["command"] = .string(command)
        m["type"] = .string(type)
        var w = JSONWriter(pretty: false, sink: sink)
        w.beginObject()
        var keys = Array(m.keys)
        if document != nil { keys.append(command) }
        for k in keys.sorted() {
            w.key(k)
            if let v = m[k] { w.value(v) } else { document?(&w) }
        }
        w.endObject()
        w.newline()
        w.flush()
    }
}

extension BatchLines {
    /// `--format jsonl` for a command whose line carries its whole document for the input: reads
    /// `inputs` input by input on `lanes` workers (`ReadingRun.readEach`) with the analyses
    /// `analyses(lane)` makes for each, and writes each input's line, in input order, as soon as it
    /// and those before it are read. `document` turns an input's outcome into the findings that count
    /// for its exit status and the writer of its document (redacted), on the input's lane; then the
    /// summary line (`incomplete`: something beyond the inputs, a log, was not read in full).
    static func run(
        _ run: inout ReadingRun, command: String, inputs: [String], lanes: Int = ReadingRun.lanes, requestIdHeader: String? = nil,
        analyses: @escaping @Sendable (Int) -> [any Analysis],
        document: @escaping @Sendable (ReadOutcome, Int) -> (counted: [Finding], document: (inout JSONWriter) -> Void),
        incomplete: () -> Bool = { false }
    ) throws -> ExitStatus {
        let common = run.common, io = run.io
        let sink: OutputSink
        do { sink = try common.openOutput(io) } catch { return error.report(io) }
        var lines = BatchLines(command: command, sink: sink)
        var findings = 0
        try run.readEach(
            inputs, lanes: lanes, shouldStop: { sink.closed }, requestIdHeader: requestIdHeader, analyses: analyses,
            work: { outcome, lane in
                let (counted, write) = document(outcome, lane)
                var held = BatchLines(command: command, sink: .held())
                let status = common.exitStatus(findings: counted, incomplete: ReadingRun.incomplete(outcome))
                for i in Redactor.verify().apply(outcome.inputs).value {
                    held.input(
                        i, status: status, worst: ReadingRun.worst(counted), members: ["findings": .int(counted.count)], document: write)
                }
                return Rendered(held: held.sink, totals: held.totals, findings: counted.count)
            }
        ) { r in
            r.held.replay(into: sink)
            lines.totals += r.totals
            findings += r.findings
        }
        let status = lines.summary(failOn: common.failOn, shard: run.shard, incomplete: incomplete(), members: ["findings": .int(findings)])
        if let failed = common.close(sink, io: io) { return failed }
        return status
    }

    /// What a lane made of one input: its output, held until the inputs before it are written, and its counts.
    struct Rendered: @unchecked Sendable {
        var held: OutputSink
        var totals: BatchTotals
        var findings = 0
    }
}

/// What a batch read input by input keeps: counts, never the inputs' results.
struct BatchTotals {
    var inputs = 0
    var incompleteInputs = 0
    /// The highest per-input exit status seen (2 wins over 1).
    var worstStatus: ExitStatus = .ok

    mutating func add(input: InputSummary, status: ExitStatus) {
        inputs += 1
        if status == .incomplete { incompleteInputs += 1 }
        if status.rawValue > worstStatus.rawValue { worstStatus = status }
    }

    func status(extraIncomplete: Bool) -> ExitStatus { extraIncomplete ? .incomplete : worstStatus }

    static func += (a: inout BatchTotals, b: BatchTotals) {
        a.inputs += b.inputs
        a.incompleteInputs += b.incompleteInputs
        if b.worstStatus.rawValue > a.worstStatus.rawValue { a.worstStatus = b.worstStatus }
    }
}

/// One value per lane of a batch (`ReadingRun.readEach`): each lane reads and writes only its own slot.
/// The slots live in memory allocated once, so writing one never touches another's (no shared
/// array buffer to copy or check); the calling thread's lane (folders) is the last.
final class LaneSlots<V>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<V?>
    private let count: Int

    init(lanes: Int) {
        count = lanes + 1
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    subscript(lane: Int) -> V? {
        get { slots[lane] }
        set { slots[lane] = newValue }
    }
}

extension ReadingRun {
    /// Workers of a batch read input by input: one per core, at most 4.
    static let lanes = max(1, min(4, ReadWorkers.count))

    /// Reads `inputs` input by input (`ExportReader.readEach`) on `lanes` workers, each input seeing
    /// the scope as `read` does, and hands `emit` what `work` made of each input (on its lane), in
    /// input order, as soon as it and those before it are read (of the share `--shard` keeps);
    /// nothing of an input is kept after. Says on standard error what an input lacked, as `read`
    /// does. Throws `UsageError` when `--session` matched no session of any input.
    mutating func readEach<T>(
        _ inputs: [String], lanes: Int, shouldStop: (@Sendable () -> Bool)? = nil, requestIdHeader: String? = nil,
        analyses: @escaping @Sendable (Int) -> [any Analysis], work: @escaping @Sendable (ReadOutcome, Int) -> T,
        emit: (T) throws -> Void
    ) throws {
        let progress = Progress(io: io, options: common)
        let reader = Diagnostics.reader(
            common: common, progress: progress, shouldStop: shouldStop, requestIdHeader: requestIdHeader,
            keepsSession: scope.keepsSession, inShare: shard?.keeps)
        let scope = scope
        var matched = false
        var firstIds: [String] = []
        var failure: (any Error)? = nil
        reader.readEach(
            inputs: inputs, lanes: lanes, analyses: { scope.wrap(analyses($0)) },
            work: { outcome, lane in
                var outcome = outcome
                if !scope.isEmpty { outcome.findings = outcome.findings.filter(scope.keeps) }
                var st = stat()
                let bytes =
                    outcome.inputs.first.map { lstat($0.path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int64(st.st_size) : 0 } ?? 0
                return (work(outcome, lane), outcome.recordCount, bytes)
            }
        ) { each in
            guard failure == nil else { return }
            if each.sessionCount > 0 { matched = true }
            if firstIds.count < 5 { firstIds += each.firstSessionIds.prefix(5 - firstIds.count) }
            progress.clear()
            Diagnostics.inputs(each.inputs, io: io)
            progress.inputRead(records: each.value.1, bytes: each.value.2)
            do { try emit(each.value.0) } catch { failure = error }
        }
        progress.clear()
        if let failure { throw failure }
        if scope.session != nil && !matched {
            var none = ReadOutcome()
            none.firstSessionIds = firstIds
            try scope.checkSessionMatched(none)
        }
    }

    /// Whether one input was not read or checked in full (its status, or a check stopped at a bound).
    static func incomplete(_ outcome: ReadOutcome) -> Bool {
        outcome.anyIncomplete || outcome.findings.contains { boundRules.contains($0.ruleID) }
    }

    /// The highest severity among `findings`.
    static func worst(_ findings: [Finding]) -> Severity? { findings.map(\.severity).max() }
}
