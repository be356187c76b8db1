import Foundation
import SiftArchive

/// How much a finding matters. Ordered: `info` < `low` < `medium` < `high` < `critical`.
public enum Severity: String, Sendable, CaseIterable, Comparable, Codable {
    case info, low, medium, high, critical

    public var rank: Int {
        switch self {
        case .info: 0
        case .low: 1
        case .medium: 2
        case .high: 3
        case .critical: 4
        }
    }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One observation about an input, with a stable rule id and where it was made.
///
/// Findings are data, not errors: a report lists them all, sorted, and the exit status
/// compares the worst of them with `--fail-on`.
public struct Finding: Sendable, Hashable {
    /// The declared rule the finding was raised for.
    public let ruleID: RuleID
    /// Stable lowercase rule id, e.g. `integrity.seq-gap`, `secret.jwt`.
    public var rule: String { ruleID.id }
    public var severity: Severity
    /// The input path as given on the command line.
    public var input: String
    /// The file inside the input (session file, blob, archive entry), when there is one.
    public var file: String?
    public var sessionId: String?
    /// The record's `seq`, when known.
    public var seq: Int?
    /// 1-based line in `file`.
    public var line: Int?
    public var recordId: String?
    /// Where inside the record: `request.headers[Authorization]`, `response.body $.a.b`, …
    public var location: String?
    /// One lowercase sentence; never contains a secret.
    public var message: String
    /// Masked preview of a secret value: at most its first 4 characters and its length.
    public var preview: String?
    /// Stable fingerprint of a secret value (`sha256:` + 16 hex digits).
    public var fingerprint: String?
    /// Which value the finding is about, within this run only: a keyed hash under a key made for the
    /// process and never kept, so findings of one value count as one (a password at two places has
    /// two `loc:` fingerprints) without a way back to it. Never printed.
    public var valueKey: UInt64?

    /// A finding of a declared rule (`rule.ref`, or `catalogue[id]`): there is no way to raise one
    /// from an id as text.
    public init(
        rule: RuleID, severity: Severity, input: String, file: String? = nil, sessionId: String? = nil,
        seq: Int? = nil, line: Int? = nil, recordId: String? = nil, location: String? = nil,
        message: String, preview: String? = nil, fingerprint: String? = nil
    ) {
        self.ruleID = rule
        self.severity = severity
        self.input = input
        self.file = file
        self.sessionId = sessionId
        self.seq = seq
        self.line = line
        self.recordId = recordId
        self.location = location
        self.message = message
        self.preview = preview
        self.fingerprint = fingerprint
    }

    /// Deterministic report order: input, file, line, seq, rule, location, message.
    public static func reportOrder(_ a: Finding, _ b: Finding) -> Bool {
        if a.input != b.input { return a.input < b.input }
        if (a.file ?? "") != (b.file ?? "") { return (a.file ?? "") < (b.file ?? "") }
        if (a.line ?? 0) != (b.line ?? 0) { return (a.line ?? 0) < (b.line ?? 0) }
        if (a.seq ?? -1) != (b.seq ?? -1) { return (a.seq ?? -1) < (b.seq ?? -1) }
        if a.rule != b.rule { return a.rule < b.rule }
        if (a.location ?? "") != (b.location ?? "") { return (a.location ?? "") < (b.location ?? "") }
        return a.message < b.message
    }

    /// The finding as a JSON object (absent fields are omitted).
    public var json: JSONOut {
        var o: [String: JSONOut] = [
            "rule": .string(rule), "severity": .string(severity.rawValue),
            "input": .string(input), "message": .string(message)
        ]
        if let file { o["file"] = .string(file) }
        if let sessionId { o["sessionId"] = .string(sessionId) }
        if let seq { o["seq"] = .int(seq) }
        if let line { o["line"] = .int(line) }
        if let recordId { o["recordId"] = .string(recordId) }
        if let location { o["location"] = .string(location) }
        if let preview { o["preview"] = .string(preview) }
        if let fingerprint { o["fingerprint"] = .string(fingerprint) }
        return .object(o)
    }
}

/// Never print a secret: helpers that turn one into something safe to show.
public enum SecretMask {
    /// At most the first 4 characters (fewer for a short value: never more than a quarter of it),
    /// then `…` and the length: `eyJh…(412 chars)`.
    /// The preview of a value that shows nothing of it, not even its length.
    public static let hidden = "…(value hidden)"

    public static func preview(_ value: String) -> String {
        // A value a brute force could enumerate shows nothing of itself, not even its length.
        if isGuessable(value) { return hidden }
        let chars = Array(value)
        let shown = min(4, chars.count / 4)
        let head = String(chars.prefix(shown)).unicodeScalars.map { s -> String in
            (s.value < 0x20 || s.value == 0x7F) ? "?" : String(s)
        }.joined()
        return "\(head)…(\(chars.count) chars)"
    }

    /// Whether a value is small enough to enumerate (a PIN, a one-time code, a short or one-class
    /// password): its character classes give fewer than 100 bits of search space. Its fingerprint must
    /// then be keyed, and its preview shows nothing.
    public static func isGuessable(_ value: String) -> Bool {
        var digit = false, lower = false, upper = false, other = false, wide = false
        var n = 0
        for u in value.unicodeScalars {
            n += 1
            switch u.value {
            case 0x30...0x39: digit = true
            case 0x61...0x7A: lower = true
            case 0x41...0x5A: upper = true
            case 0x20..<0x7F: other = true
            default: wide = true
            }
        }
        guard n > 0 else { return true }
        var alphabet = 0.0
        if digit { alphabet += 10 }
        if lower { alphabet += 26 }
        if upper { alphabet += 26 }
        if other { alphabet += 33 }
        if wide { alphabet += 1000 }
        // Repeats shrink the space: count distinct characters too.
        let distinct = Set(value.unicodeScalars).count
        let bits = Double(n) * log2(max(alphabet, 2))
        return bits < 100 || distinct < 8
    }

    /// `sha256:` and the first 16 hex digits of SHA-256 over the value's UTF-8 bytes: stable across
    /// runs and machines, and not reversible for a real credential.
    public static func fingerprint(_ value: String) -> String {
        "sha256:" + SHA256.hexDigest(Array(value.utf8)).prefix(16)
    }
}
