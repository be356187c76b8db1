import SiftArchive
import SiftCore

import Dispatch
import Foundation

/// Where a record was read: the session facts a finding needs, copied when the record is handed over
/// (the reader keeps filling its `SessionContext` while the worker runs). One object, shared by the
/// records of a session read under the same facts (`VerifyAnalysis.place(_:)`): handing a record over
/// costs one reference, not one per text.
final class SessionPlace: Sendable {
    let input: String
    let file: String
    let root: String
    let sessionId: String?
    let blobsAvailable: Bool

    init(_ s: SessionContext) {
        input = s.input.path
        file = s.file
        root = s.root
        sessionId = s.sessionId
        blobsAvailable = s.blobsAvailable
    }

    init(input: String, file: String, root: String, sessionId: String?, blobsAvailable: Bool) {
        self.input = input
        self.file = file
        self.root = root
        self.sessionId = sessionId
        self.blobsAvailable = blobsAvailable
    }

    func finding(
        _ rule: RuleID, _ severity: Severity, at record: (line: Int?, seq: Int?, id: String?), location: String,
        message: String, preview: String?, fingerprint: String?
    ) -> Finding {
        Finding(
            rule: rule, severity: severity, input: input, file: file, sessionId: sessionId, seq: record.seq,
            line: record.line, recordId: record.id, location: location, message: message, preview: preview,
            fingerprint: fingerprint)
    }
}

/// The `verify` analysis: checks every record it is handed and every blob once against the SDK's
/// redaction contract and the credential detectors, and returns the findings from `finish()`.
///
/// Blob findings are reported once for every record that references the blob (blobs may arrive before
/// or after those records), and once on their own when no record references them.
///
/// With `parallel` (the default) the checks run on worker threads (one per core, at most
/// `maxWorkers`) while the reader parses the next lines: records go over in batches of about 2 MiB,
/// batches are dealt to the workers in turn, and at most `budgetLimit` bytes are in flight, counted
/// as held (a parsed record's text and tape, not its line's length). An item that costs half the
/// budget or more (a record of several MiB) is checked on the reader's thread once the workers are
/// idle: handed over, it would sit in the queue while the reader parsed the next one.
/// What each batch found is applied to the run's results in batch order, so the findings are the same
/// whatever the number of workers and however their work interleaves. `finish()` waits for them.
public final class VerifyAnalysis: Analysis {
    public let config: VerifyConfig
    /// The run's results (every batch's output is applied here, in order); the checker when serial.
    let worker: VerifyWorker
    /// The checks, batched to the worker lanes; each batch's output applied to `worker` in order.
    private let workers: OrderedWorkers<Item, VerifyWorker, VerifyOutput>
    /// Bytes in flight between the reader and the workers at most (held bytes: `cost(of:)`).
    static let budgetLimit = 16 << 20
    /// Blobs handed over, by key: a second copy under the same name is checked only when its bytes differ.
    /// The blobs checked (name and bytes), as 128-bit digests: a hundred thousand blobs cost a few MiB.
    private var blobsChecked = Set<BlobCopy>()

    /// Workers of a parallel run at most (each a thread with its own scanner).
    static let maxWorkers = 4

    /// A verify analysis with the contract lists extended and detectors disabled as `config` says.
    public init(config: VerifyConfig = VerifyConfig(), parallel: Bool = true) {
        self.config = config
        let worker = VerifyWorker(config: config)
        self.worker = worker
        workers = OrderedWorkers(
            lanes: parallel ? max(1, min(VerifyAnalysis.maxWorkers, ReadWorkers.count)) : 0, label: "pbsift.verify",
            budget: ByteBudget(limit: VerifyAnalysis.budgetLimit), batchBytes: VerifyAnalysis.batchBytesLimit,
            batchCount: VerifyAnalysis.batchCountLimit, release: .whenWorked,
            makeState: { _ in VerifyWorker(config: config) },
            work: { items, checker in
                for item in items { VerifyAnalysis.check(item, on: checker) }
                return checker.takeOutput()
            },
            apply: { worker.apply($0) })
    }

    /// The number of value-shape detectors enabled.
    public var detectorCount: Int { worker.scanner.engine.detectors.count }
    /// Records checked, counted as `inspect` counts them (a session's header line is checked, not counted).
    public var recordsScanned: Int { drain(); return workers.withApplied { worker.recordsScanned } + inertRecords }
    /// Distinct blobs checked.
    public var blobsScanned: Int { drain(); return workers.withApplied { worker.blobsScanned } }
    /// Bytes of record lines and blobs checked.
    public var bytesScanned: Int64 { drain(); return workers.withApplied { worker.bytesScanned } + inertBytes }

    /// Work handed to the workers in batches (one wake-up per batch, not per record).
    enum Item: Sendable {
        case record(Record, SessionPlace)
        case damaged([UInt8], Int, SessionPlace)
        case other([UInt8], Int, SessionPlace)
        case name(SessionPlace, [NamePart])
        case blob(BlobContent)
    }
    private static let batchBytesLimit = 2 << 20
    private static let batchCountLimit = 512
    /// What an item costs in flight beyond its bytes (its place, its record): a blank line is not free,
    /// or a file of them queues batches without bound while the workers fall behind.
    private static let itemCost = 256

    /// Checks one item on `checker`, its output left in `checker.out`.
    private static func check(_ item: Item, on checker: VerifyWorker) {
        switch item {
        case .record(let r, let place): checker.record(r, session: place)
        case .damaged(let bytes, let line, let place): checker.damagedLine(bytes, line: line, session: place)
        case .other(let bytes, let line, let place): checker.otherText(bytes, line: line, file: place)
        case .name(let place, let parts): checker.entryName(place, parts: parts)
        case .blob(let blob): checker.blob(blob)
        }
    }

    private func handle(_ item: Item, bytes: Int) {
        if !workers.isInline && bytes >= VerifyAnalysis.budgetLimit / 2 {
            // Large: checked here, in order, once every batch before it is applied.
            drain()
            workers.withApplied {
                VerifyAnalysis.check(item, on: worker)
                worker.apply(worker.takeOutput())
            }
            return
        }
        workers.submit(item, bytes: bytes)
    }

    public func record(_ record: Record, session: SessionContext) {
        // `{}`: no name, no value, nothing to check.
        if record.copies.isEmpty && record.duplicateNames.isEmpty && isInert(record.json.doc.bytes) {
            inertRecords += 1
            inertBytes += Int64(record.json.doc.bytes.count)
            return
        }
        handle(.record(record, place(session)), bytes: VerifyAnalysis.cost(of: record))
    }

    /// The context `lastPlace` was made from (held, so that it is never another context at its address).
    private var lastContext: SessionContext? = nil
    private var lastPlace: SessionPlace? = nil

    /// `SessionPlace(session)`, the last one made again while the context and its session id are the same
    /// (its other facts never change).
    private func place(_ session: SessionContext) -> SessionPlace {
        if let p = lastPlace, lastContext === session, p.sessionId == session.sessionId { return p }
        let p = SessionPlace(session)
        lastContext = session
        lastPlace = p
        return p
    }

    public func damagedLine(_ bytes: [UInt8], line: Int, session: SessionContext) {
        if isInert(bytes) {
            inertBytes += Int64(bytes.count)
            return
        }
        handle(.damaged(bytes, line, SessionPlace(session)), bytes: bytes.capacity + VerifyAnalysis.itemCost)
    }

    /// Bytes of lines and records that could raise nothing (`isInert`): counted as checked, never queued.
    private var inertBytes: Int64 = 0
    private var inertRecords = 0

    /// Whether raw text can raise no finding, decided at about the cost of reading it: no string (no
    /// `"` or `\`, so no name and nothing under a listed one), fewer brackets than the depth the JSON
    /// scan reports, and no credential stem (every detector starts from one). A file of `x` lines
    /// then costs a scan of its bytes, not a check handed to a worker per line.
    func isInert(_ bytes: [UInt8]) -> Bool {
        let scanner = worker.scanner
        return bytes.withUnsafeBufferPointer { b in
            guard let p = b.baseAddress else { return true }
            if memchr(p, 0x22, b.count) != nil || memchr(p, 0x5C, b.count) != nil { return false }
            if b.count >= scanner.maxJSONDepth {
                var open = 0
                for c in b where c == UInt8(ascii: "{") || c == UInt8(ascii: "[") { open += 1 }
                if open >= scanner.maxJSONDepth { return false }
            }
            return !scanner.hasStem(b)
        }
    }

    /// What a record holds while it waits for a worker: its text and tape, those of the copies a HAR
    /// entry was mapped to, and the item's own cost.
    static func cost(of record: Record) -> Int {
        var n = record.json.doc.heldBytes + VerifyAnalysis.itemCost
        for c in record.copies { n += c.doc.heldBytes }
        return n
    }

    /// Notes, `export.json`, backups: every file of an export is scanned.
    public var readsOtherFiles: Bool { true }

    public func otherText(_ bytes: [UInt8], line: Int, file: SessionContext) {
        if isInert(bytes) {
            inertBytes += Int64(bytes.count)
            return
        }
        handle(.other(bytes, line, SessionPlace(file)), bytes: bytes.capacity + VerifyAnalysis.itemCost)
    }

    /// Every entry's name: a credential in a file or folder name leaks like one in its content.
    /// Each part of the path is checked once per input (a folder once, not once per file in it).
    public func entryName(_ file: SessionContext) {
        let place = SessionPlace(file)
        let parts = SecretHitFinder.nameParts(file.entryName).filter { namesSeen.insert(place.input + "\u{0}" + $0.path) }
        guard !parts.isEmpty else { return }
        handle(.name(place, parts), bytes: file.entryName.utf8.count + VerifyAnalysis.itemCost)
    }

    /// Folder paths whose names were handed over, by `input \0 path` (long ones held as digests).
    private var namesSeen = SeenNames()

    public func blob(_ blob: BlobContent) {
        // A second copy under the same name (a duplicate archive entry) is checked too when its bytes differ.
        let key = VerifyWorker.blobKey(blob.input, blob.root, blob.name.lowercased())
        guard blobsChecked.insert(BlobCopy(key + "\u{0}" + blob.sha256)).inserted else { return }
        handle(.blob(blob), bytes: blob.bytes.capacity + VerifyAnalysis.itemCost)
    }

    /// Hands over what is batched and waits until every batch is applied.
    private func drain() { workers.drain() }

    public func finish() -> [Finding] {
        drain()
        return workers.withApplied { worker.finish() }
    }

    /// Forgets what the checks found so far (findings, counts, values, the blobs and names seen), so
    /// that the next input starts as a run of its own: a batch read input by input
    /// (`ExportReader.readEach`) reuses one analysis, its workers and scanners, for every input.
    public func startAfresh() {
        drain()
        workers.withApplied { worker.startAfresh() }
        blobsChecked = []
        namesSeen = SeenNames()
        inertBytes = 0
        inertRecords = 0
        lastContext = nil
        lastPlace = nil
    }

    /// Keep the raw values of what the checks find (in memory only, at most 100 000), so that a
    /// report can mask them wherever other analyses' text repeats them. Call before reading.
    public func keepSecretValues() {
        drain()
        workers.withApplied { worker.keepValues = true }
        workers.forEachState { $0.keepValues = true }
    }

    /// The raw values found so far (when `keepSecretValues()` was called), longest first. Never print
    /// them: they are for `SecretMask` replacement only.
    public var secretValues: [String] {
        drain()
        return workers.withApplied { worker.values.sorted { $0.utf8.count != $1.utf8.count ? $0.utf8.count > $1.utf8.count : $0 < $1 } }
    }
}

/// A blob's place, name and SHA-256 as two independent 64-bit FNV-1a digests (a 128-bit key: the
/// chance that two of a million blobs collide is below 10⁻²⁵).
struct BlobCopy: Hashable {
    let a: UInt64
    let b: UInt64

    init(_ text: String) {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b &+ UInt64(byte)) &* 0x9e37_79b9_7f4a_7c15
            b ^= b >> 29
        }
        self.a = a
        self.b = b
    }
}
