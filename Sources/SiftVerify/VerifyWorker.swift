import SiftArchive
import SiftCore
import Dispatch
import Foundation

/// One part of an entry's path (`SecretHitFinder.nameParts`).
typealias NamePart = (path: String, name: String, isFolder: Bool)

/// What checking some items found, before it is applied to the run's results (`VerifyWorker.apply`).
struct VerifyOutput: @unchecked Sendable {
    /// Findings in the order they were made, not yet filtered or counted.
    var findings: [Finding] = []
    /// Raw values of those findings (when kept), in order.
    var values: [String] = []
    var blobRefs: [VerifyWorker.BlobRef] = []
    var blobs: [VerifyWorker.BlobResult] = []
    var records = 0
    var bytes: Int64 = 0
}

/// The checks themselves (`record`, `blob`…, each leaving what it found in `out`), and the results of a
/// run (`apply`, `finish`). A worker thread owns one for its checks; the run's results live in another.
final class VerifyWorker: @unchecked Sendable {
    let config: VerifyConfig
    let scanner: ContentScanner

    /// What the checks found since `takeOutput()`.
    private var out = VerifyOutput()

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

    private(set) var recordsScanned = 0
    private(set) var blobsScanned = 0
    private(set) var bytesScanned: Int64 = 0

    struct BlobHit {
        var rule: RuleID
        var severity: Severity
        var location: String
        var message: String
        var preview: String?
        var fingerprint: String?
        var valueKey: UInt64? = nil
    }

    struct BlobRef {
        var key: String
        var input: String
        var file: String
        var sessionId: String?
        var seq: Int?
        var line: Int
        var recordId: String?
    }

    /// One blob's check.
    struct BlobResult {
        var key: String
        var input: String
        var file: String
        var bytes: Int64
        var hits: [BlobHit]
    }

    init(config: VerifyConfig) {
        self.config = config
        self.scanner = ContentScanner(config: config)
    }

    /// Forgets the run's results (`VerifyAnalysis.startAfresh`); the configuration and scanner stay.
    func startAfresh() {
        out = VerifyOutput()
        findings = FindingTally()
        values = []
        blobHits = [:]
        blobFiles = [:]
        blobRefs = []
        recordsScanned = 0
        blobsScanned = 0
        bytesScanned = 0
    }

    /// Hands over what the checks found since the last call.
    func takeOutput() -> VerifyOutput {
        defer { out = VerifyOutput() }
        return out
    }

    /// Adds what some checks found to the run's results (outputs are applied in the order of their items).
    func apply(_ o: VerifyOutput) {
        recordsScanned += o.records
        bytesScanned += o.bytes
        for f in o.findings { add(f, to: &findings) }
        if keepValues {
            for v in o.values where values.count < VerifyWorker.maxValues { values.insert(v) }
        }
        blobRefs += o.blobRefs
        for b in o.blobs {
            blobsScanned += 1
            bytesScanned += b.bytes
            // Only a blob with findings is remembered: an export of a hundred thousand clean blobs costs nothing here.
            guard !b.hits.isEmpty else { continue }
            var hits: [BlobHit] = blobHits[b.key] ?? []
            var seen = Set(hits.map { $0.rule.id + "\u{0}" + $0.location + "\u{0}" + ($0.fingerprint ?? $0.message) })
            for h in b.hits where seen.insert(h.rule.id + "\u{0}" + h.location + "\u{0}" + (h.fingerprint ?? h.message)).inserted {
                hits.append(h)
            }
            blobHits[b.key] = hits
            blobFiles[b.key] = (b.input, b.file)
        }
    }

    func record(_ record: Record, session: SessionPlace) {
        // Records as every command counts them: a session's header is checked, not counted.
        if record.type != .session { out.records += 1 }
        out.bytes += Int64(record.json.doc.bytes.count)
        var refs: [String] = []
        scan(record, refs: &refs)
        let duplicates = record.json.doc.duplicateKeys()
        if !duplicates.isEmpty {
            // Readers disagree on which copy of a repeated name counts: check the record once per
            // copy, up to the line's budget of later copies.
            let checked = JSONDocument.laterCopiesChecked(duplicates, bytes: record.json.doc.bytes.count)
            scanner.hits += VerifyWorker.duplicateHits(duplicates, checked: checked)
            var all = scanner.hits
            // In each later document the other copies are renamed out of the way (`message` →
            // `_essage`); what sits under a renamed copy was already checked, under its own name, in
            // the record itself, so only what the kept copies add is taken.
            let renamed = checked > 0 ? record.json.doc.setAsideNames(duplicates) : []
            for doc in record.json.doc.laterCopies(duplicates, limit: checked) {
                var more: [String] = []
                scan(Record(line: record.line, json: doc.root), refs: &more)
                refs += more
                all += scanner.hits.filter { !Self.underRenamedCopy($0.location, renamed) }
            }
            scanner.hits = all
        }
        if !record.duplicateNames.isEmpty || !record.copies.isEmpty {
            // Mapped from input that held a name twice (a HAR entry): each copy was mapped on its own.
            var all = scanner.hits
            for d in record.duplicateNames {
                let checked =
                    d.checked >= d.count
                    ? "every copy was checked"
                    : d.checked <= 1 ? "only the first copy was checked" : "the first \(d.checked) copies were checked"
                all.append(
                    RawHit(
                        rule: VerifyRule.duplicateKey.id, severity: .high, location: d.place,
                        value: "", message: "the name '\(clipName(d.name))' appears \(d.count) times in one object; \(checked)",
                        bound: true))
                if d.checked < d.count {
                    all.append(
                        RawHit(
                            rule: VerifyRule.bound.id, severity: .high, location: d.place, value: "",
                            message: "copies of '\(clipName(d.name))' past the first \(d.checked) were not checked: each later copy is the "
                                + "whole entry checked again, up to \(JSONDocument.laterCopyBudget >> 20) MiB and 63 times an entry",
                            bound: true))
                }
            }
            for copy in record.copies {
                var more: [String] = []
                scan(Record(line: record.line, json: copy), refs: &more)
                refs += more
                all += scanner.hits
            }
            scanner.hits = all
        }
        emit(session, line: record.line, seq: record.seq, recordId: record.id)
        if !refs.isEmpty && session.blobsAvailable {
            for hex in Set(refs) {
                out.blobRefs.append(
                    BlobRef(
                        key: VerifyWorker.blobKey(session.input, session.root, hex), input: session.input,
                        file: session.file, sessionId: session.sessionId, seq: record.seq, line: record.line,
                        recordId: record.id))
            }
        }
    }

    /// A `verify.duplicate-key` finding per repeated name, and one `verify.bound` naming the copies
    /// not checked when the record's later copies checked (`checked`, see
    /// `JSONDocument.laterCopiesChecked`) do not reach every copy of every name.
    /// A copy whose value is written as an earlier copy's is checked with it: only copies with values
    /// of their own count against `checked`.
    static func duplicateHits(_ duplicates: [JSONDocument.DuplicateName], checked: Int) -> [RawHit] {
        var hits: [RawHit] = []
        var unchecked: [String] = []
        for d in duplicates {
            let n = d.ranges.count
            let whole = d.distinct.count <= checked + 1
            let alike = d.distinct.count < n ? ", \(d.distinct.count) values written differently" : ""
            if !whole { unchecked.append("'\(clipName(d.name))' (\(n) copies\(alike))") }
            let firstCopies =
                d.distinct.count < n
                ? "the copies holding its first \(checked + 1) values were"
                : checked == 0 ? "only the first copy was" : "the first \(checked + 1) copies were"
            hits.append(
                RawHit(
                    rule: VerifyRule.duplicateKey.id, severity: .high, location: "record", value: "",
                    message: "the name '\(clipName(d.name))' appears \(n) times in one object; "
                        + (whole ? "every copy was checked" : "\(firstCopies) checked"),
                    bound: true))
        }
        if !unchecked.isEmpty {
            let names = unchecked.prefix(3).joined(separator: ", ") + (unchecked.count > 3 ? " and \(unchecked.count - 3) more names" : "")
            hits.append(
                RawHit(
                    rule: VerifyRule.bound.id, severity: .high, location: "record", value: "",
                    message: "copies of \(names) past the first \(checked + 1) were not checked: each later copy is the whole "
                        + "record checked again, up to \(JSONDocument.laterCopyBudget >> 20) MiB and 63 times a record",
                    bound: true))
        }
        return hits
    }

    /// Whether a location path (`headers.Authorization`, `body.user[0].token`) passes through one of
    /// `renamed`, a name as `JSONDocument.laterCopies` renames the copies it sets aside.
    static func underRenamedCopy(_ location: String, _ renamed: Set<String>) -> Bool {
        location.split(whereSeparator: { $0 == "." || $0 == "[" }).contains { renamed.contains(String($0)) }
    }

    /// A line that is not a record: its bytes read as raw text.
    func damagedLine(_ bytes: [UInt8], line: Int, session: SessionPlace) {
        out.bytes += Int64(bytes.count)
        scanner.hits.removeAll(keepingCapacity: true)
        scanner.rawText(bytes, location: "line (not a record; read as text)")
        // A record that is not strict JSON only because of a number (`NaN`, `007`, `0x1F`…) is also
        // read field by field, so its contract fields are checked by name (an Authorization header's
        // value holds no shape of its own). A value both readings found is reported as the record's
        // reading names it (its field and rule); what only the raw text found is kept too.
        if let repaired = TolerantNumbers.repair(bytes), let doc = try? JSONDocument(bytes: repaired, maxDepth: 512, maxValues: 1 << 20),
            doc.root.isObject
        {
            let raw = scanner.hits
            scanner.hits.removeAll(keepingCapacity: true)
            var refs: [String] = []
            scan(Record(line: line, json: doc.root), refs: &refs)
            let seen = Set(scanner.hits.map(\.value))
            scanner.hits += raw.filter { $0.bound || !seen.contains($0.value) }
        }
        emit(session, line: line, seq: nil, recordId: nil)
    }

    /// A line of a file that is neither a session file nor a blob, read as text.
    func otherText(_ bytes: [UInt8], line: Int, file: SessionPlace) {
        out.bytes += Int64(bytes.count)
        scanner.hits.removeAll(keepingCapacity: true)
        scanner.rawText(bytes, location: "file (not a session file or blob; read as text)")
        emit(file, line: line, seq: nil, recordId: nil)
    }

    /// An entry's name: the parts of its path not checked before (`SecretHitFinder.nameParts`), every
    /// folder on its path, then the file's own name. A finding names the file or folder (`file`), its
    /// location is `file name` or `folder name`.
    func entryName(_ place: SessionPlace, parts: [NamePart]) {
        for part in parts {
            scanner.hits.removeAll(keepingCapacity: true)
            scanner.rawText(Array(part.name.utf8), location: part.isFolder ? "folder name" : "file name")
            let at = SessionPlace(
                input: place.input, file: SessionContext.heldName(part.path), root: place.root, sessionId: nil,
                blobsAvailable: place.blobsAvailable)
            emit(at, line: nil, seq: nil, recordId: nil)
        }
    }

    /// Turns the scanner's hits into findings (one per rule, place and value).
    /// `recordId` is read only when there is a hit (most records have none).
    private func emit(_ session: SessionPlace, line: Int?, seq: Int?, recordId readId: @autoclosure () -> String?) {
        guard !scanner.hits.isEmpty else { return }
        let recordId = readId()
        var seen = Set<String>()
        for h in scanner.hits {
            if h.bound {
                guard seen.insert(h.rule.id + "\u{0}" + h.location + "\u{0}" + h.message).inserted else { continue }
                out.findings.append(
                    session.finding(
                        h.rule, h.severity, at: (line, seq, recordId), location: h.location,
                        message: h.message, preview: nil, fingerprint: nil))
                continue
            }
            let fp = Fingerprint.of(
                h.value, rule: h.rule, place: (session.sessionId ?? session.file) + "\u{0}" + h.location,
                key: config.fingerprintKey)
            guard seen.insert(h.rule.id + "\u{0}" + h.location + "\u{0}" + fp).inserted else { continue }
            if keepValues && !h.value.isEmpty { out.values.append(h.value) }
            var f = session.finding(
                h.rule, h.severity, at: (line, seq, recordId), location: h.location,
                message: h.message, preview: Fingerprint.preview(h.value, rule: h.rule, place: h.location), fingerprint: fp)
            f.valueKey = Fingerprint.valueKey(h.value)
            out.findings.append(f)
        }
        scanner.hits.removeAll(keepingCapacity: true)
    }

    /// Runs every check of one record; the hits are left in `scanner.hits`, blob names in `refs`.
    func scan(_ record: Record, refs: inout [String]) {
        scanner.hits.removeAll(keepingCapacity: true)
        let skip = record.type == .network ? VerifyWorker.inlineTexts(record.json) : []
        let j = record.json
        // The line's stems are looked for where a check asks (`beginRecord`), while the line is read here.
        j.doc.bytes.withUnsafeBufferPointer { line in
            scanner.beginRecord(line, of: j.doc, skip: skip)
            defer { scanner.endRecord() }
            switch record.type {
            case .network: network(j, refs: &refs)
            case .log: log(j)
            case .event: event(j)
            case .frame: frame(j)
            case .session, .other: generic(j)
            }
        }
    }

    /// Checks a blob (the caller skips a copy already checked: same name, same bytes).
    func blob(_ blob: BlobContent) {
        let hex = blob.name.lowercased()
        let key = VerifyWorker.blobKey(blob.input, blob.root, hex)
        scanner.hits.removeAll(keepingCapacity: true)
        let location = "blob sha256:\(clipName(hex))"
        blob.bytes.withUnsafeBufferPointer {
            scanner.content($0, contentType: nil, location: location, depth: 0)
        }
        if !blob.complete && Int64(blob.bytes.count) < blob.size {
            scanner.bound("only the first \(blob.bytes.count) of the blob's \(blob.size) bytes were checked", location: location)
        }
        var hits: [BlobHit] = []
        for h in scanner.hits {
            if h.bound {
                hits.append(
                    BlobHit(rule: h.rule, severity: h.severity, location: h.location, message: h.message, preview: nil, fingerprint: nil))
                continue
            }
            let fp = Fingerprint.of(h.value, rule: h.rule, place: blob.root + "\u{0}" + h.location, key: config.fingerprintKey)
            hits.append(
                BlobHit(
                    rule: h.rule, severity: h.severity, location: h.location, message: h.message,
                    preview: Fingerprint.preview(h.value, rule: h.rule, place: h.location), fingerprint: fp,
                    valueKey: Fingerprint.valueKey(h.value)))
        }
        scanner.hits.removeAll(keepingCapacity: true)
        out.blobs.append(BlobResult(key: key, input: blob.input, file: blob.file, bytes: Int64(blob.bytes.count), hits: hits))
    }

    /// Counts `f` unless a disabled detector or an allowed fingerprint drops it.
    private func add(_ f: Finding, to tally: inout FindingTally) {
        if config.reports(f) { tally.append(f) }
    }

    func finish() -> [Finding] {
        var out = findings
        var referenced = Set<String>()
        for ref in blobRefs {
            guard let hits = blobHits[ref.key] else { continue }
            referenced.insert(ref.key)
            for h in hits {
                var f = Finding(
                    rule: h.rule, severity: h.severity, input: ref.input, file: ref.file, sessionId: ref.sessionId,
                    seq: ref.seq, line: ref.line, recordId: ref.recordId, location: h.location,
                    message: h.message + " (in a blob this record references)",
                    preview: h.preview, fingerprint: h.fingerprint)
                f.valueKey = h.valueKey
                add(f, to: &out)
            }
        }
        for (key, hits) in blobHits where !referenced.contains(key) && !hits.isEmpty {
            let where_ = blobFiles[key]
            for h in hits {
                var f = Finding(
                    rule: h.rule, severity: h.severity, input: where_?.input ?? "", file: where_?.file,
                    location: h.location, message: h.message + " (in a blob no record references)",
                    preview: h.preview, fingerprint: h.fingerprint)
                f.valueKey = h.valueKey
                add(f, to: &out)
            }
        }
        return out.findings.sorted(by: Finding.reportOrder)
    }

    /// Raw ranges of the inline utf8 body texts of a network record, ascending.
    static func inlineTexts(_ j: JSONValue) -> [Range<Int>] {
        j.doc.withTape { t -> [Range<Int>] in
            @inline(__always) func bytes(_ w: StaticString) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(start: w.utf8Start, count: w.utf8CodeUnitCount)
            }
            /// The raw range (quotes included) of a side's body text, read as `member` reads each name: the first.
            func text(_ side: Int?) -> Range<Int>? {
                guard let side, let body = t.member(side, "body"), t.kind(body) == .object else { return nil }
                var blob = false
                var enc: Int? = nil, text: Int? = nil
                t.forEachMember(body) { k, v in
                    if !blob && t.equals(k, bytes("blob")) {
                        blob = true
                    } else if enc == nil && t.equals(k, bytes("encoding")) {
                        enc = v
                    } else if text == nil && t.equals(k, bytes("text")) {
                        text = v
                    }
                }
                guard !blob, let enc, t.equals(enc, bytes("utf8")), let text, t.kind(text) == .string else { return nil }
                // The content's range widened by its quotes (`rawBytes`).
                let r = t.value(text).contentRange
                return (r.lowerBound - 1)..<(r.upperBound + 1)
            }
            let a = text(t.member(j.tapeIndex, "request")), b = text(t.member(j.tapeIndex, "response"))
            guard let a else { return b.map { [$0] } ?? [] }
            guard let b else { return [a] }
            if a.overlaps(b) { return [] }
            return a.lowerBound < b.lowerBound ? [a, b] : [b, a]
        }
    }

    static func blobKey(_ input: String, _ root: String, _ hex: String) -> String { input + "\u{0}" + root + "\u{0}" + hex }

    // MARK: - Record kinds

    /// `type`, `seq` or `ts`: a plain record field.
    @inline(__always) private static func isPlain(_ k: JSONValue) -> Bool {
        k.stringEquals("type") || k.stringEquals("seq") || k.stringEquals("ts")
    }

    /// The record fields a record kind reads in its own way; any other name is `.other`.
    enum Field {
        case plain, level, message, metadata, url, request, response, metrics, error, webSocketMessages, other
    }

    /// Which field a member name is, from its bytes read once (as `stringEquals` compares them: an
    /// escaped name decoded).
    static func field(_ k: JSONValue) -> Field {
        k.withStringUTF8 { field(bytes: $0) }
    }

    /// `field` of a name's bytes (as `withStringUTF8` gives them).
    static func field(bytes b: UnsafeBufferPointer<UInt8>) -> Field {
        @inline(__always) func eq(_ t: StaticString) -> Bool {
            b.count == t.utf8CodeUnitCount && memcmp(b.baseAddress!, t.utf8Start, b.count) == 0
        }
        switch b.count {
        case 2: return eq("ts") ? .plain : .other
        case 3: return eq("seq") ? .plain : eq("url") ? .url : .other
        case 4: return eq("type") ? .plain : .other
        case 5: return eq("level") ? .level : eq("error") ? .error : .other
        case 7: return eq("message") ? .message : eq("request") ? .request : eq("metrics") ? .metrics : .other
        case 8: return eq("metadata") ? .metadata : eq("response") ? .response : .other
        case 18: return eq("_webSocketMessages") ? .webSocketMessages : .other
        default: return .other
        }
    }

    // Member names are compared and classified where they stand on the tape (`forEachMemberName`);
    // their text is made only for a location or a message.

    private func network(_ j: JSONValue, refs: inout [String]) {
        j.forEachMemberName { key, v in
            let field = scanner.withNameBytes(key) { VerifyWorker.field(bytes: $0) }
            if field == .plain {
                scanner.plainField(v, name: key)
            } else if field == .url {
                if v.isString {
                    scanner.withStringBytes(v) { scanner.url($0, location: "request.url", queryRule: VerifyRule.query.id) }
                } else {
                    genericValue(v, name: key)
                }
            } else if field == .request || field == .response {
                let side = field == .request ? "request" : "response"
                guard v.isObject else { genericValue(v, name: key); return }
                v.forEachMemberName { k, x in
                    if k.stringEquals("headers") && x.isArray {
                        scanner.headers(x, side: side)
                    } else if k.stringEquals("body") {
                        if let hex = scanner.body(x, location: "\(side).body") { refs.append(hex) }
                    } else {
                        var loc = Loc(side, jsonPath: false)
                        loc.push(.name(k))
                        let facts = scanner.nameFacts(k)
                        scanner.scanName(k, facts: facts) { loc.render() }
                        scanner.walk(x, &loc, names: nil, rule: nil, what: "", listed: false, hints: facts.hints)
                    }
                }
            } else if field == .metrics {
                guard v.isObject else { genericValue(v, name: key); return }
                v.forEachMemberName { k, x in
                    if k.stringEquals("transactions") && x.isArray {
                        var i = 0
                        x.forEachElement { tr in
                            defer { i += 1 }
                            guard tr.isObject else { return }
                            tr.forEachMemberName { tk, tv in
                                // Every name is checked, the format's and any other (a credential used as a name).
                                let facts = scanner.nameFacts(tk)
                                func location() -> String { "metrics.transactions[\(i)].\(clipName(tk.string ?? ""))" }
                                scanner.scanName(tk, facts: facts, location: location)
                                if tk.stringEquals("url") && tv.isString {
                                    scanner.withStringBytes(tv) {
                                        scanner.url($0, location: "metrics.transactions[\(i)].url", queryRule: VerifyRule.query.id)
                                    }
                                } else if tv.isString {
                                    // `walk` of the string, its location made only when a check reports something.
                                    scanner.plainString(tv, hints: facts.hints, location: location)
                                } else if tv.isObject || tv.isArray {
                                    // Rendered `metrics.transactions[i].name`, only when a check reports something.
                                    var loc = Loc("metrics.transactions", jsonPath: false)
                                    loc.push(.index(i))
                                    loc.push(.name(tk))
                                    scanner.walk(tv, &loc, names: nil, rule: nil, what: "", listed: false, hints: facts.hints)
                                }
                            }
                        }
                    } else {
                        var loc = Loc("metrics", jsonPath: false)
                        loc.push(.name(k))
                        let facts = scanner.nameFacts(k)
                        scanner.scanName(k, facts: facts) { loc.render() }
                        scanner.walk(x, &loc, names: nil, rule: nil, what: "", listed: false, hints: facts.hints)
                    }
                }
            } else if field == .error {
                error(v)
            } else if field == .webSocketMessages && v.isArray {
                webSocketMessages(v)
            } else {
                genericValue(v, name: key)
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
                scanner.walk(m, &loc, names: nil, rule: nil, what: "", listed: false, hints: [])
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
                    scanner.walk(x, &loc, names: nil, rule: nil, what: "", listed: false, hints: scanner.hints(k))
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
                scanner.walk(x, &loc, names: nil, rule: nil, what: "", listed: false, hints: scanner.hints(k))
            }
        }
    }

    private func log(_ j: JSONValue) {
        j.forEachMemberName { key, v in
            let field = scanner.withNameBytes(key) { VerifyWorker.field(bytes: $0) }
            if field == .plain || field == .level {
                scanner.plainField(v, name: key)
            } else if field == .message {
                scanner.freeText(v, location: "log.message")
            } else if field == .metadata {
                var loc = Loc("log.metadata", jsonPath: true)
                scanner.walk(
                    v, &loc, names: scanner.bodyNames, rule: VerifyRule.metadataField.id, what: "log metadata key",
                    listed: false, hints: [])
            } else if field == .error {
                error(v)
            } else {
                genericValue(v, name: key)
            }
        }
    }

    private func event(_ j: JSONValue) {
        j.forEachMemberName { key, v in
            if VerifyWorker.isPlain(key) {
                scanner.plainField(v, name: key)
            } else if key.stringEquals("attributes") {
                var loc = Loc("event.attributes", jsonPath: true)
                scanner.walk(
                    v, &loc, names: scanner.bodyNames, rule: VerifyRule.metadataField.id, what: "event attribute",
                    listed: false, hints: [])
            } else {
                genericValue(v, name: key)
            }
        }
    }

    private func frame(_ j: JSONValue) {
        j.forEachMemberName { key, v in
            if VerifyWorker.isPlain(key) {
                scanner.plainField(v, name: key)
            } else if key.stringEquals("body") {
                if v.isString {
                    // A frame body kept as text: scan it as a (possibly cut) JSON document.
                    scanner.withStringBytes(v) { scanner.content($0, contentType: nil, location: "frame.body", depth: 0) }
                } else {
                    var loc = Loc("frame.body", jsonPath: true)
                    scanner.walk(
                        v, &loc, names: scanner.bodyNames, rule: VerifyRule.bodyField.id, what: "frame body field",
                        listed: false, hints: [])
                }
            } else {
                genericValue(v, name: key)
            }
        }
    }

    private func generic(_ j: JSONValue) {
        j.forEachMemberName { key, v in
            if VerifyWorker.isPlain(key) { scanner.plainField(v, name: key); return }
            genericValue(v, name: key)
        }
    }

    /// Any other field: the detectors, with the field name as context.
    private func genericValue(_ v: JSONValue, name: JSONValue) {
        let facts = scanner.nameFacts(name)
        scanner.scanName(name, facts: facts) { name.string ?? "" }
        switch v.kind {
        case .string:
            // `walk` of the string under `Loc("")` holding the name: its location is the name, cut.
            scanner.plainString(v, hints: facts.hints) { clipName(name.string ?? "") }
        case .object, .array:
            var loc = Loc("", jsonPath: false)
            loc.push(.name(name))
            scanner.walk(v, &loc, names: nil, rule: nil, what: "", listed: false, hints: facts.hints)
        default: break
        }
    }
}
