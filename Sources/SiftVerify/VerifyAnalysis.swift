import SiftArchive
import SiftCore

import Dispatch
import Foundation

/// Where a record was read: the session facts a finding needs, copied when the record is handed over
/// (the reader keeps filling its `SessionContext` while the worker runs).
struct SessionPlace: Sendable {
    var input: String
    var file: String
    var root: String
    var sessionId: String?
    var blobsAvailable: Bool

    init(_ s: SessionContext) {
        input = s.input.path
        file = s.file
        root = s.root
        sessionId = s.sessionId
        blobsAvailable = s.blobsAvailable
    }

    func finding(_ rule: String, _ severity: Severity, line: Int?, seq: Int?, recordId: String?, location: String, message: String,
                 preview: String?, fingerprint: String?) -> Finding {
        Finding(rule: VerifyRules.catalogue[rule], severity: severity, input: input, file: file, sessionId: sessionId, seq: seq,
                line: line, recordId: recordId, location: location, message: message, preview: preview,
                fingerprint: fingerprint)
    }
}

/// The `verify` analysis: checks every record it is handed and every blob once against the SDK's
/// redaction contract and the credential detectors, and returns the findings from `finish()`.
///
/// Blob findings are reported once for every record that references the blob (blobs may arrive before
/// or after those records), and once on their own when no record references them.
///
/// With `parallel` (the default) the checks run on a second thread while the reader parses the next
/// lines; records go over in batches of about 1 MiB and at most 8 MiB of line and blob bytes are in flight, and `finish()` waits for them.
public final class VerifyAnalysis: Analysis {
    public let config: VerifyConfig
    let worker: VerifyWorker
    private let parallel: Bool
    private let queue = DispatchQueue(label: "pbsift.verify")
    private let budget = ByteBudget(limit: 8 << 20)

    /// A verify analysis with the contract lists extended and detectors disabled as `config` says.
    public init(config: VerifyConfig = VerifyConfig(), parallel: Bool = true) {
        self.config = config
        self.worker = VerifyWorker(config: config)
        self.parallel = parallel
    }

    /// The number of value-shape detectors enabled.
    public var detectorCount: Int { worker.scanner.engine.detectors.count }
    /// Records checked (header lines included).
    public var recordsScanned: Int { flush(); return queue.sync { worker.recordsScanned } }
    /// Distinct blobs checked.
    public var blobsScanned: Int { flush(); return queue.sync { worker.blobsScanned } }
    /// Bytes of record lines and blobs checked.
    public var bytesScanned: Int64 { flush(); return queue.sync { worker.bytesScanned } }

    /// Work handed to the worker in batches (one wake-up per batch, not per record).
    enum Item: Sendable {
        case record(Record, SessionPlace)
        case damaged([UInt8], Int, SessionPlace)
        case other([UInt8], Int, SessionPlace)
        case name(SessionPlace)
        case blob(BlobContent)
    }
    private var batch: [Item] = []
    private var batchBytes = 0
    private static let batchBytesLimit = 1 << 20
    private static let batchCountLimit = 512
    /// What an item costs in flight beyond its bytes (its place, its record): a blank line is not free,
    /// or a file of them queues batches without bound while the worker falls behind.
    private static let itemCost = 256

    public func record(_ record: Record, session: SessionContext) {
        let place = SessionPlace(session)
        guard parallel else { worker.record(record, session: place); return }
        batch.append(.record(record, place))
        batchBytes += record.json.doc.bytes.count + VerifyAnalysis.itemCost
        if batchBytes >= VerifyAnalysis.batchBytesLimit || batch.count >= VerifyAnalysis.batchCountLimit { flush() }
    }

    public func damagedLine(_ bytes: [UInt8], line: Int, session: SessionContext) {
        let place = SessionPlace(session)
        guard parallel else { worker.damagedLine(bytes, line: line, session: place); return }
        batch.append(.damaged(bytes, line, place))
        batchBytes += bytes.count + VerifyAnalysis.itemCost
        if batchBytes >= VerifyAnalysis.batchBytesLimit || batch.count >= VerifyAnalysis.batchCountLimit { flush() }
    }

    /// Notes, `export.json`, backups: every file of an export is scanned.
    public var readsOtherFiles: Bool { true }

    public func otherText(_ bytes: [UInt8], line: Int, file: SessionContext) {
        let place = SessionPlace(file)
        guard parallel else { worker.otherText(bytes, line: line, file: place); return }
        batch.append(.other(bytes, line, place))
        batchBytes += bytes.count + VerifyAnalysis.itemCost
        if batchBytes >= VerifyAnalysis.batchBytesLimit || batch.count >= VerifyAnalysis.batchCountLimit { flush() }
    }

    /// Every entry's name: a credential in a file or folder name leaks like one in its content.
    public func entryName(_ file: SessionContext) {
        let place = SessionPlace(file)
        guard parallel else { worker.entryName(place); return }
        batch.append(.name(place))
        batchBytes += place.file.utf8.count + VerifyAnalysis.itemCost
        if batchBytes >= VerifyAnalysis.batchBytesLimit || batch.count >= VerifyAnalysis.batchCountLimit { flush() }
    }

    public func blob(_ blob: BlobContent) {
        guard parallel else { worker.blob(blob); return }
        batch.append(.blob(blob))
        batchBytes += blob.bytes.count
        if batchBytes >= VerifyAnalysis.batchBytesLimit { flush() }
    }

    private func flush() {
        guard !batch.isEmpty else { return }
        let items = batch, size = batchBytes
        batch = []
        batchBytes = 0
        budget.acquire(size)
        let w = worker, b = budget
        queue.async {
            for item in items {
                switch item {
                case .record(let r, let place): w.record(r, session: place)
                case .damaged(let bytes, let line, let place): w.damagedLine(bytes, line: line, session: place)
                case .other(let bytes, let line, let place): w.otherText(bytes, line: line, file: place)
                case .name(let place): w.entryName(place)
                case .blob(let blob): w.blob(blob)
                }
            }
            b.release(size)
        }
    }

    public func finish() -> [Finding] {
        flush()
        queue.sync {}
        return worker.finish()
    }

    /// Keep the raw values of what the checks find (in memory only, at most 100 000), so that a
    /// report can mask them wherever other analyses' text repeats them. Call before reading.
    public func keepSecretValues() { queue.sync { worker.keepValues = true } }

    /// The raw values found so far (when `keepSecretValues()` was called), longest first. Never print
    /// them: they are for `SecretMask` replacement only.
    public var secretValues: [String] {
        flush()
        return queue.sync { worker.values.sorted { $0.utf8.count != $1.utf8.count ? $0.utf8.count > $1.utf8.count : $0 < $1 } }
    }
}

/// Bytes in flight between the reader and the worker; `acquire` waits while over the limit (one item
/// larger than the limit still passes when nothing else is in flight).
final class ByteBudget: @unchecked Sendable {
    private let limit: Int
    private var used = 0
    private let cond = NSCondition()

    init(limit: Int) { self.limit = limit }

    func acquire(_ n: Int) {
        cond.lock()
        while used > 0 && used + n > limit { cond.wait() }
        used += n
        cond.unlock()
    }

    func release(_ n: Int) {
        cond.lock()
        used -= n
        cond.broadcast()
        cond.unlock()
    }
}

/// The checks themselves, run on one thread at a time.
final class VerifyWorker: @unchecked Sendable {
    let config: VerifyConfig
    let scanner: ContentScanner

    /// Per rule and file the first findings in full, the rest counted (`FindingTally`): an export with
    /// a credential on every line costs a count, not a finding per line. Filtered before they are counted.
    private var findings = FindingTally()
    /// The raw secret values found, kept only when asked (for masking other renderers' text), bounded.
    var keepValues = false
    var values = Set<String>()
    static let maxValues = 100_000

    /// Findings of each blob, by `input \0 root \0 hex`.
    private var blobHits: [String: [BlobHit]] = [:]
    private var blobFiles: [String: (input: String, file: String)] = [:]
    private var blobRefs: [BlobRef] = []
    private var blobShas: [String: Set<String>] = [:]

    private(set) var recordsScanned = 0
    private(set) var blobsScanned = 0
    private(set) var bytesScanned: Int64 = 0

    private struct BlobHit {
        var rule: String
        var severity: Severity
        var location: String
        var message: String
        var preview: String?
        var fingerprint: String?
    }

    private struct BlobRef {
        var key: String
        var input: String
        var file: String
        var sessionId: String?
        var seq: Int?
        var line: Int
        var recordId: String?
    }

    init(config: VerifyConfig) {
        self.config = config
        self.scanner = ContentScanner(config: config)
    }

    func record(_ record: Record, session: SessionPlace) {
        recordsScanned += 1
        bytesScanned += Int64(record.json.doc.bytes.count)
        var refs: [String] = []
        scan(record, refs: &refs)
        let duplicates = record.json.doc.duplicateKeys()
        if !duplicates.isEmpty {
            // Readers disagree on which copy of a repeated name counts: check the record once per copy.
            for d in duplicates {
                scanner.hits.append(RawHit(rule: "verify.duplicate-key", severity: .high, location: "record",
                                           value: "", message: "the name '\(clipName(d.name))' appears \(d.ranges.count) times in one object; every copy was checked",
                                           bound: true))
            }
            let copies = min(duplicates.map(\.ranges.count).max() ?? 1, 64)
            var all = scanner.hits
            for k in 1..<max(copies, 2) {
                var bytes = record.json.doc.bytes
                for d in duplicates {
                    let keep = min(k, d.ranges.count - 1)
                    for (j, r) in d.ranges.enumerated() where j != keep && !r.isEmpty { bytes[r.lowerBound] = UInt8(ascii: "_") }
                }
                guard let doc = try? JSONDocument(bytes: bytes) else { continue }
                var more: [String] = []
                scan(Record(line: record.line, json: doc.root), refs: &more)
                refs += more
                all += scanner.hits
            }
            scanner.hits = all
        }
        emit(session, line: record.line, seq: record.seq, recordId: record.id)
        if !refs.isEmpty && session.blobsAvailable {
            for hex in Set(refs) {
                blobRefs.append(BlobRef(key: VerifyWorker.blobKey(session.input, session.root, hex), input: session.input,
                                        file: session.file, sessionId: session.sessionId, seq: record.seq, line: record.line,
                                        recordId: record.id))
            }
        }
    }

    /// A line that is not a record: its bytes read as raw text.
    func damagedLine(_ bytes: [UInt8], line: Int, session: SessionPlace) {
        bytesScanned += Int64(bytes.count)
        scanner.hits.removeAll(keepingCapacity: true)
        scanner.rawText(bytes, location: "line (not a record; read as text)")
        emit(session, line: line, seq: nil, recordId: nil)
    }

    /// A line of a file that is neither a session file nor a blob, read as text.
    func otherText(_ bytes: [UInt8], line: Int, file: SessionPlace) {
        bytesScanned += Int64(bytes.count)
        scanner.hits.removeAll(keepingCapacity: true)
        scanner.rawText(bytes, location: "file (not a session file or blob; read as text)")
        emit(file, line: line, seq: nil, recordId: nil)
    }

    /// Folder paths whose names were checked, by `input \0 path`: a folder is checked once, not once per file in it.
    private var namesSeen = Set<String>()

    /// An entry's name, each part once per input: every folder on its path, then the file's own name.
    /// A finding names the file or folder (`file`), its location is `file name` or `folder name`.
    func entryName(_ place: SessionPlace) {
        for part in SecretHitFinder.nameParts(place.file) {
            guard namesSeen.insert(place.input + "\u{0}" + part.path).inserted else { continue }
            scanner.hits.removeAll(keepingCapacity: true)
            scanner.rawText(Array(part.name.utf8), location: part.isFolder ? "folder name" : "file name")
            var at = place
            at.file = part.path
            at.sessionId = nil
            emit(at, line: nil, seq: nil, recordId: nil)
        }
    }

    /// Turns the scanner's hits into findings (one per rule, place and value).
    private func emit(_ session: SessionPlace, line: Int?, seq: Int?, recordId: String?) {
        guard !scanner.hits.isEmpty else { return }
        var seen = Set<String>()
        for h in scanner.hits {
            if h.bound {
                guard seen.insert(h.rule + "\u{0}" + h.location + "\u{0}" + h.message).inserted else { continue }
                add(session.finding(h.rule, h.severity, line: line, seq: seq, recordId: recordId, location: h.location,
                                     message: h.message, preview: nil, fingerprint: nil), to: &findings)
                continue
            }
            let fp = Fingerprint.of(h.value, rule: h.rule, place: (session.sessionId ?? session.file) + "\u{0}" + h.location,
                                    key: config.fingerprintKey)
            guard seen.insert(h.rule + "\u{0}" + h.location + "\u{0}" + fp).inserted else { continue }
            if keepValues && values.count < VerifyWorker.maxValues && !h.value.isEmpty { values.insert(h.value) }
            add(session.finding(h.rule, h.severity, line: line, seq: seq, recordId: recordId, location: h.location,
                                 message: h.message, preview: SecretMask.preview(h.value), fingerprint: fp), to: &findings)
        }
        scanner.hits.removeAll(keepingCapacity: true)
    }

    /// Runs every check of one record; the hits are left in `scanner.hits`, blob names in `refs`.
    func scan(_ record: Record, refs: inout [String]) {
        scanner.hits.removeAll(keepingCapacity: true)
        scanner.beginLine(record.json.doc.bytes, skip: record.type == .network ? VerifyWorker.inlineTexts(record.json) : [])
        let j = record.json
        switch record.type {
        case .network: network(j, refs: &refs)
        case .log: log(j)
        case .event: event(j)
        case .frame: frame(j)
        case .session, .other: generic(j)
        }
    }

    func blob(_ blob: BlobContent) {
        let hex = blob.name.lowercased()
        let key = VerifyWorker.blobKey(blob.input, blob.root, hex)
        // A second copy under the same name (a duplicate archive entry) is checked too when its bytes differ.
        if blobHits[key] != nil && blobShas[key]?.contains(blob.sha256) ?? true { return }
        blobShas[key, default: []].insert(blob.sha256)
        blobsScanned += 1
        bytesScanned += Int64(blob.bytes.count)
        scanner.hits.removeAll(keepingCapacity: true)
        let location = "blob sha256:\(clipName(hex))"
        blob.bytes.withUnsafeBufferPointer {
            scanner.content($0, contentType: nil, location: location, depth: 0)
        }
        if !blob.complete && Int64(blob.bytes.count) < blob.size {
            scanner.bound("only the first \(blob.bytes.count) of the blob's \(blob.size) bytes were checked", location: location)
        }
        var out: [BlobHit] = blobHits[key] ?? []
        var seen = Set(out.map { $0.rule + "\u{0}" + $0.location + "\u{0}" + ($0.fingerprint ?? $0.message) })
        for h in scanner.hits {
            if h.bound {
                guard seen.insert(h.rule + "\u{0}" + h.location + "\u{0}" + h.message).inserted else { continue }
                out.append(BlobHit(rule: h.rule, severity: h.severity, location: h.location, message: h.message, preview: nil, fingerprint: nil))
                continue
            }
            let fp = Fingerprint.of(h.value, rule: h.rule, place: blob.root + "\u{0}" + h.location, key: config.fingerprintKey)
            guard seen.insert(h.rule + "\u{0}" + h.location + "\u{0}" + fp).inserted else { continue }
            out.append(BlobHit(rule: h.rule, severity: h.severity, location: h.location, message: h.message,
                               preview: SecretMask.preview(h.value), fingerprint: fp))
        }
        scanner.hits.removeAll(keepingCapacity: true)
        blobHits[key] = out
        blobFiles[key] = (blob.input, blob.file)
    }

    /// Counts `f` unless a disabled detector or an allowed fingerprint drops it.
    private func add(_ f: Finding, to tally: inout FindingTally) {
        let disabled = config.disabledDetectors
        if disabled.contains(f.rule) { return }
        if f.rule.hasPrefix("secret."), disabled.contains(String(f.rule.dropFirst(7))) { return }
        if let fp = f.fingerprint, config.allowFingerprints.contains(fp) { return }
        tally.append(f)
    }

    func finish() -> [Finding] {
        var out = findings
        var referenced = Set<String>()
        for ref in blobRefs {
            guard let hits = blobHits[ref.key] else { continue }
            referenced.insert(ref.key)
            for h in hits {
                add(Finding(rule: VerifyRules.catalogue[h.rule], severity: h.severity, input: ref.input, file: ref.file, sessionId: ref.sessionId,
                            seq: ref.seq, line: ref.line, recordId: ref.recordId, location: h.location,
                            message: h.message + " (in a blob this record references)",
                            preview: h.preview, fingerprint: h.fingerprint), to: &out)
            }
        }
        for (key, hits) in blobHits where !referenced.contains(key) && !hits.isEmpty {
            let where_ = blobFiles[key]
            for h in hits {
                add(Finding(rule: VerifyRules.catalogue[h.rule], severity: h.severity, input: where_?.input ?? "", file: where_?.file,
                            location: h.location, message: h.message + " (in a blob no record references)",
                            preview: h.preview, fingerprint: h.fingerprint), to: &out)
            }
        }
        return out.findings.sorted(by: Finding.reportOrder)
    }

    /// Raw ranges of the inline utf8 body texts of a network record, ascending.
    static func inlineTexts(_ j: JSONValue) -> [Range<Int>] {
        var out: [Range<Int>] = []
        for side in ["request", "response"] {
            guard let body = j[side]?["body"], body.isObject, body["blob"] == nil,
                  let enc = body["encoding"], enc.stringEquals("utf8"), let t = body["text"], t.isString else { continue }
            let r = t.rawBytes
            out.append(r.startIndex..<r.endIndex)
        }
        out.sort { $0.lowerBound < $1.lowerBound }
        return out.count == 2 && out[0].overlaps(out[1]) ? [] : out
    }

    static func blobKey(_ input: String, _ root: String, _ hex: String) -> String { input + "\u{0}" + root + "\u{0}" + hex }

    // MARK: - Record kinds

    private func network(_ j: JSONValue, refs: inout [String]) {
        j.forEachMember { key, v in
            switch key {
            case "type", "seq", "ts": scanner.plainField(v, key: key)
            case "url":
                if v.isString {
                    scanner.withStringBytes(v) { scanner.url($0, location: "request.url", queryRule: "redaction.query") }
                } else {
                    genericValue(v, key: key)
                }
            case "request", "response":
                guard v.isObject else { genericValue(v, key: key); return }
                v.forEachMember { k, x in
                    switch k {
                    case "headers" where x.isArray: scanner.headers(x, side: key)
                    case "body":
                        if let hex = scanner.body(x, location: "\(key).body") { refs.append(hex) }
                    default:
                        var loc = Loc(key, jsonPath: false)
                        loc.push(.key(k))
                        scanner.scanName(k) { loc.render() }
                        scanner.walk(x, &loc, names: nil, rule: "", what: "", listed: false, hints: scanner.hints(k))
                    }
                }
            case "metrics":
                guard v.isObject else { genericValue(v, key: key); return }
                v.forEachMember { k, x in
                    if k == "transactions" && x.isArray {
                        var i = 0
                        x.forEachElement { tr in
                            defer { i += 1 }
                            guard tr.isObject else { return }
                            tr.forEachMember { tk, tv in
                                // Every name is checked, the format's and any other (a credential used as a name).
                                scanner.scanName(tk) { "metrics.transactions[\(i)].\(clipName(tk))" }
                                if tk == "url" && tv.isString {
                                    scanner.withStringBytes(tv) {
                                        scanner.url($0, location: "metrics.transactions[\(i)].url", queryRule: "redaction.query")
                                    }
                                } else if tv.isString || tv.isObject || tv.isArray {
                                    var loc = Loc("metrics.transactions[\(i)]", jsonPath: false)
                                    loc.push(.key(tk))
                                    scanner.walk(tv, &loc, names: nil, rule: "", what: "", listed: false, hints: scanner.hints(tk))
                                }
                            }
                        }
                    } else {
                        var loc = Loc("metrics", jsonPath: false)
                        loc.push(.key(k))
                        scanner.scanName(k) { loc.render() }
                        scanner.walk(x, &loc, names: nil, rule: "", what: "", listed: false, hints: scanner.hints(k))
                    }
                }
            case "error": error(v)
            case "_webSocketMessages" where v.isArray: webSocketMessages(v)
            default: genericValue(v, key: key)
            }
        }
    }

    /// A HAR entry's WebSocket messages (Chrome's `_webSocketMessages`: `type`, `time`, `opcode`,
    /// `data`): socket traffic, where access tokens ride, read like a frame's body. A text message
    /// (`opcode` 1) is read as a (possibly cut) JSON document, so the body-field names apply; a binary
    /// one (`opcode` 2) is base64 and is decoded first. Every other member gets the detectors.
    private func webSocketMessages(_ v: JSONValue) {
        scanner.scanName("_webSocketMessages") { "_webSocketMessages" }
        var i = 0
        v.forEachElement { m in
            defer { i += 1 }
            let at = "_webSocketMessages[\(i)]"
            guard m.isObject else {
                var loc = Loc(at, jsonPath: false)
                scanner.walk(m, &loc, names: nil, rule: "", what: "", listed: false, hints: [])
                return
            }
            let binary = m["opcode"]?.int == 2
            m.forEachMember { k, x in
                scanner.scanName(k) { "\(at).\(clipName(k))" }
                if k == "data", x.isString {
                    let location = "\(at).data"
                    if binary, let decoded = x.string.flatMap(Base64.decode), !decoded.isEmpty {
                        let saved = scanner.rawRange
                        scanner.rawRange = nil
                        decoded.withUnsafeBufferPointer { scanner.content($0, contentType: nil, location: location, depth: 1) }
                        scanner.rawRange = saved
                    }
                    // The text as it stands too: a binary message's base64 can hold a value in its own right.
                    scanner.withStringBytes(x) { scanner.content($0, contentType: nil, location: location, depth: 0) }
                } else {
                    var loc = Loc(at, jsonPath: false)
                    loc.push(.key(k))
                    scanner.walk(x, &loc, names: nil, rule: "", what: "", listed: false, hints: scanner.hints(k))
                }
            }
        }
    }

    private func error(_ v: JSONValue) {
        guard v.isObject else { scanner.freeText(v, location: "error"); return }
        v.forEachMember { k, x in
            if k == "description" {
                scanner.freeText(x, location: "error.description")
            } else {
                var loc = Loc("error", jsonPath: false)
                loc.push(.key(k))
                scanner.walk(x, &loc, names: nil, rule: "", what: "", listed: false, hints: scanner.hints(k))
            }
        }
    }

    private func log(_ j: JSONValue) {
        j.forEachMember { key, v in
            switch key {
            case "type", "seq", "ts", "level": scanner.plainField(v, key: key)
            case "message": scanner.freeText(v, location: "log.message")
            case "metadata":
                var loc = Loc("log.metadata", jsonPath: true)
                scanner.walk(v, &loc, names: scanner.bodyNames, rule: "redaction.metadata-field", what: "log metadata key",
                             listed: false, hints: [])
            case "error": error(v)
            default: genericValue(v, key: key)
            }
        }
    }

    private func event(_ j: JSONValue) {
        j.forEachMember { key, v in
            switch key {
            case "type", "seq", "ts": scanner.plainField(v, key: key)
            case "attributes":
                var loc = Loc("event.attributes", jsonPath: true)
                scanner.walk(v, &loc, names: scanner.bodyNames, rule: "redaction.metadata-field", what: "event attribute",
                             listed: false, hints: [])
            default: genericValue(v, key: key)
            }
        }
    }

    private func frame(_ j: JSONValue) {
        j.forEachMember { key, v in
            switch key {
            case "type", "seq", "ts": scanner.plainField(v, key: key)
            case "body":
                if v.isString {
                    // A frame body kept as text: scan it as a (possibly cut) JSON document.
                    scanner.withStringBytes(v) { scanner.content($0, contentType: nil, location: "frame.body", depth: 0) }
                } else {
                    var loc = Loc("frame.body", jsonPath: true)
                    scanner.walk(v, &loc, names: scanner.bodyNames, rule: "redaction.body-field", what: "frame body field",
                                 listed: false, hints: [])
                }
            default: genericValue(v, key: key)
            }
        }
    }

    private func generic(_ j: JSONValue) {
        j.forEachMember { key, v in
            if key == "type" || key == "seq" || key == "ts" { scanner.plainField(v, key: key); return }
            genericValue(v, key: key)
        }
    }

    /// Any other field: the detectors, with the field name as context.
    private func genericValue(_ v: JSONValue, key: String) {
        scanner.scanName(key) { key }
        switch v.kind {
        case .string, .object, .array:
            var loc = Loc("", jsonPath: false)
            loc.push(.key(key))
            scanner.walk(v, &loc, names: nil, rule: "", what: "", listed: false, hints: scanner.hints(key))
        default: break
        }
    }
}
