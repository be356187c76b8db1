import SiftCore

/// One value `verify` reports, with the rule that reported it: for commands that rewrite an export
/// (`scrub`), which must find exactly what `verify` finds, in records and in blob bytes.
public struct SecretHit: Sendable, Hashable {
    /// The raw value (never print it).
    public var value: String
    public var rule: RuleID
    public var severity: Severity
    /// Where in the record (`request.headers[Cookie]`).
    public var location: String
    /// Where, as `verify` fingerprints a guessable value: the session (or file, or blob root) and
    /// the location (`at(session:)`); the location alone until then.
    public var place: String
    public init(value: String, rule: RuleID, severity: Severity, location: String) {
        self.value = value
        self.rule = rule
        self.severity = severity
        self.location = location
        self.place = location
    }

    /// The hit as found in a record of `session` (its id, else its file) or a blob of `root`: the
    /// place `verify` gives the same value.
    public func at(session: String) -> SecretHit {
        var h = self
        h.place = session + "\u{0}" + location
        return h
    }

    /// The value's fingerprint as `verify` gives it (`Fingerprint`): `sha256:` of a value with enough
    /// randomness; for a value a brute force could enumerate (a short password), `loc:` of the rule
    /// and where it stood, never a hash of the value, which would give it back.
    public var fingerprint: String { Fingerprint.of(value, rule: rule, place: place, key: nil) }
}

/// Runs `verify`'s checks on one record or one blob's bytes and returns the values they report.
public final class SecretHitFinder: @unchecked Sendable {
    private let worker: VerifyWorker

    public init(config: VerifyConfig = VerifyConfig()) {
        worker = VerifyWorker(config: config)
    }

    /// Every value the checks report in `record` (inline content; blob bodies are checked on their own).
    public func hits(in record: Record) -> [SecretHit] {
        var refs: [String] = []
        worker.scan(record, refs: &refs)
        defer { worker.scanner.hits.removeAll(keepingCapacity: true) }
        // A name held more than once: every copy is checked, as verify checks them, so a value under
        // a later copy (a second `password`, a header's second `value`) is found too.
        let duplicates = record.json.doc.duplicateKeys()
        var all = worker.scanner.hits
        // A record mapped from input that held a name twice (a HAR entry) carries each copy mapped
        // (as many as the budget of later copies let the reader map; the rest are a bound).
        if record.duplicateNames.contains(where: { $0.checked < $0.count }) {
            all.append(
                RawHit(
                    rule: VerifyRule.bound.id, severity: .high, location: "record", value: "",
                    message: "copies of a repeated name were not checked", bound: true))
        }
        for copy in record.copies {
            worker.scan(Record(line: record.line, json: copy), refs: &refs)
            all += worker.scanner.hits
        }
        worker.scanner.hits = all
        guard !duplicates.isEmpty else { return collect() }
        // Up to the line's budget of later copies, as verify checks them; past it a bound is counted.
        let checked = JSONDocument.laterCopiesChecked(duplicates, bytes: record.json.doc.bytes.count)
        all += VerifyWorker.duplicateHits(duplicates, checked: checked).filter { $0.rule == VerifyRule.bound.id }
        for doc in record.json.doc.laterCopies(duplicates, limit: checked) {
            worker.scanner.hits.removeAll(keepingCapacity: true)
            worker.scan(Record(line: record.line, json: doc.root), refs: &refs)
            all += worker.scanner.hits
        }
        worker.scanner.hits = all
        return collect()
    }

    /// Every value the checks report in a blob's bytes (decoded and inflated as `verify` does).
    public func hits(inContent bytes: [UInt8]) -> [SecretHit] {
        worker.scanner.hits.removeAll(keepingCapacity: true)
        bytes.withUnsafeBufferPointer { worker.scanner.content($0, contentType: nil, location: "blob", depth: 0) }
        defer { worker.scanner.hits.removeAll(keepingCapacity: true) }
        return collect()
    }

    /// Every value the checks report in a line read as text (a damaged line, a file that is neither a
    /// session file nor a blob, a HAR member outside the entries).
    public func hits(inText bytes: [UInt8]) -> [SecretHit] {
        worker.scanner.hits.removeAll(keepingCapacity: true)
        worker.scanner.rawText(bytes, location: "text")
        defer { worker.scanner.hits.removeAll(keepingCapacity: true) }
        return collect()
    }

    /// Every value the checks report in one part of an entry name (a file's or a folder's own name).
    public func hits(inName name: String) -> [SecretHit] {
        worker.scanner.hits.removeAll(keepingCapacity: true)
        worker.scanner.rawText(Array(name.utf8), location: "file name")
        defer { worker.scanner.hits.removeAll(keepingCapacity: true) }
        return collect()
    }

    /// The parts of an entry name to check: each folder on its path (with the path up to it) and the
    /// file's own name. A blob's name (`blobs/<hh>/<64 hex>`) is its hash, not a credential: it and its
    /// `<hh>` folder are left out.
    public static func nameParts(_ name: String) -> [(path: String, name: String, isFolder: Bool)] {
        let parts = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var out: [(String, String, Bool)] = []
        var path = ""
        let blob = parts.count >= 3 && parts[parts.count - 3] == "blobs" && isBlobHex(parts[parts.count - 1])
        for (i, p) in parts.enumerated() {
            path += (path.isEmpty ? "" : "/") + p
            if blob && i >= parts.count - 2 { continue }
            out.append((path, p, i < parts.count - 1))
        }
        return out
    }

    static func isBlobHex(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
    }

    /// How many times the checks stopped at a bound (`verify.bound`): bytes they did not check.
    package private(set) var bounds = 0

    private func collect() -> [SecretHit] {
        bounds += worker.scanner.hits.filter(\.bound).count
        let disabled = worker.config.disabledDetectors
        var seen = Set<String>()
        var out: [SecretHit] = []
        for h in worker.scanner.hits where !h.value.isEmpty && !disabled.contains(h.rule.id) {
            if h.rule.family == .secret, disabled.contains(String(h.rule.id.dropFirst(7))) { continue }
            guard seen.insert(h.rule.id + "\u{0}" + h.value).inserted else { continue }
            out.append(SecretHit(value: h.value, rule: h.rule, severity: h.severity, location: h.location))
        }
        return out
    }
}
