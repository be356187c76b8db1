import SiftCore

/// One value `verify` reports, with the rule that reported it: for commands that rewrite an export
/// (`scrub`), which must find exactly what `verify` finds, in records and in blob bytes.
public struct SecretHit: Sendable, Hashable {
    /// The raw value (never print it).
    public var value: String
    public var rule: String
    public var severity: Severity
    /// Where in the record (`request.headers[Cookie]`).
    public var location: String
    public init(value: String, rule: String, severity: Severity, location: String) {
        self.value = value
        self.rule = rule
        self.severity = severity
        self.location = location
    }

    /// `SecretMask.fingerprint(value)`.
    public var fingerprint: String { SecretMask.fingerprint(value) }
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

    /// How many times the checks stopped at a bound (`verify.bound`): bytes they did not check.
    public private(set) var bounds = 0

    private func collect() -> [SecretHit] {
        bounds += worker.scanner.hits.filter(\.bound).count
        let disabled = worker.config.disabledDetectors
        var seen = Set<String>()
        var out: [SecretHit] = []
        for h in worker.scanner.hits where !h.value.isEmpty && !disabled.contains(h.rule) {
            if h.rule.hasPrefix("secret."), disabled.contains(String(h.rule.dropFirst(7))) { continue }
            guard seen.insert(h.rule + "\u{0}" + h.value).inserted else { continue }
            out.append(SecretHit(value: h.value, rule: h.rule, severity: h.severity, location: h.location))
        }
        return out
    }
}
