import Foundation

/// Keeps a run's findings bounded, however many lines or files repeat the same problem: per rule and
/// file, the first `keep` findings in full; the rest are counted, with their worst severity and the
/// first and last places, and become one summary finding at the end. Per rule and input, at most
/// `keepPerInput` findings and file summaries are listed; past that (an export of a hundred thousand
/// session files, each with the same problem) the rest become one summary for the input. A gigabyte of
/// blank lines costs a count, and so does a hundred thousand files of them.
public struct FindingTally: Sendable {
    /// Findings kept in full per rule and file.
    public static let defaultKeep = 50
    /// Findings and file summaries listed per rule and input.
    public static let defaultKeepPerInput = 1000
    /// Credential findings (the `secret`, `redaction` and `policy` families) are each listed, with its
    /// record, up to this many per rule and file and per rule and input: a CI job reading `--json`
    /// sees which records leaked. Past it (a hostile export with a token on every line) the rest are
    /// counted like any other rule's, so memory keeps a ceiling.
    public static let credentialKeep = 100_000

    /// Whether findings of `rule` are listed in full up to `credentialKeep`.
    static func listedInFull(_ rule: RuleID) -> Bool {
        guard let family = RuleFamily(ruleId: rule.id) else { return false }
        return family.isLeak || family == .policy
    }

    struct Key: Hashable {
        var input: String
        var file: String?
        var rule: String
    }
    struct InputKey: Hashable {
        var input: String
        var rule: String
    }
    struct Overflow {
        var count = 0
        var severity: Severity
        var first: Finding
        var last: Finding
        /// Of the counted findings, those with a fingerprint, and an order-free digest of their
        /// baseline keys (rule and fingerprint): the summary's own fingerprint, so a baseline that
        /// accepts a summary stops accepting it once the set of findings behind it changes.
        var fingerprinted = 0
        var digest: UInt64 = 0

        mutating func add(_ f: Finding, counting n: Int = 1) {
            count += n
            severity = max(severity, f.severity)
            last = f
            if let fp = f.fingerprint {
                fingerprinted += 1
                digest &+= FindingTally.hash(f.rule + "\u{0}" + fp)
            }
        }

        var fingerprint: String? {
            guard fingerprinted > 0 else { return nil }
            let hex = String(digest, radix: 16)
            return "set:" + String(repeating: "0", count: 16 - hex.count) + hex
        }
    }

    public let keep: Int
    public let keepPerInput: Int
    private var kept: [Finding] = []
    private var perKey: [Key: Int] = [:]
    private var overflow: [Key: Overflow] = [:]
    /// Per rule and input: findings kept in full plus file summaries started.
    private var listed: [InputKey: Int] = [:]
    private var inputOverflow: [InputKey: Overflow] = [:]

    /// Credential findings kept per rule and file, and listed per rule and input (`credentialKeep` by default).
    public let credentialKeep: Int

    public init(
        keep: Int = FindingTally.defaultKeep, keepPerInput: Int = FindingTally.defaultKeepPerInput,
        credentialKeep: Int = FindingTally.credentialKeep
    ) {
        self.keep = max(1, keep)
        self.keepPerInput = max(1, keepPerInput)
        self.credentialKeep = max(1, credentialKeep)
    }

    /// Whether one more line (a finding in full, or a file's summary) of `rule` fits the input's bound;
    /// counts it when it does.
    private mutating func list(_ key: InputKey, bound: Int) -> Bool {
        let n = listed[key, default: 0]
        guard n < bound else { return false }
        listed[key] = n + 1
        return true
    }

    /// Adds one finding (kept, or counted once its rule and file have `keep`, or its rule and input
    /// `keepPerInput`). A summary another tally made (an analysis bounds its own findings) is kept as it is.
    /// `counting`: how many findings `f` stands for (a summary of its own, such as the waterfall's
    /// per-session one), counted as that many when it is not listed.
    public mutating func append(_ f: Finding, counting weight: Int = 1) {
        if FindingTally.isSummary(f) {
            kept.append(f)
            return
        }
        let key = Key(input: f.input, file: f.file, rule: f.rule)
        let inputKey = InputKey(input: f.input, rule: f.rule)
        let (keep, perInput) = bounds(f.ruleID)
        let n = perKey[key, default: 0]
        if n < keep {
            guard list(inputKey, bound: perInput) else {
                countForInput(inputKey, f, n: weight)
                return
            }
            perKey[key] = n + 1
            kept.append(f)
            return
        }
        if overflow[key] == nil {
            guard list(inputKey, bound: perInput) else {
                countForInput(inputKey, f, n: weight)
                return
            }
            overflow[key] = Overflow(severity: f.severity, first: f, last: f)
        }
        overflow[key]?.add(f, counting: weight)
    }

    /// How many findings of `rule` are kept per file, and listed per input.
    private func bounds(_ rule: RuleID) -> (keep: Int, perInput: Int) {
        FindingTally.listedInFull(rule) ? (max(keep, credentialKeep), max(keepPerInput, credentialKeep)) : (keep, keepPerInput)
    }

    private mutating func countForInput(_ key: InputKey, _ f: Finding, n: Int) {
        if inputOverflow[key] == nil { inputOverflow[key] = Overflow(severity: f.severity, first: f, last: f) }
        inputOverflow[key]?.add(f, counting: n)
    }

    /// Counts `count` findings past the kept ones without building each: the first of them is `first`,
    /// the last `last` (same rule, input and file, no fingerprint). A reader that bounds a file's
    /// repeated problems itself hands the overflow over once.
    public mutating func appendCounted(first: Finding, last: Finding, count: Int, severity: Severity) {
        guard count > 0 else { return }
        let key = Key(input: first.input, file: first.file, rule: first.rule)
        let inputKey = InputKey(input: first.input, rule: first.rule)
        if overflow[key] == nil && !list(inputKey, bound: bounds(first.ruleID).perInput) {
            var o = inputOverflow[inputKey] ?? Overflow(severity: severity, first: first, last: last)
            o.count += count
            o.severity = max(o.severity, severity)
            o.last = last
            inputOverflow[inputKey] = o
            return
        }
        var o = overflow[key] ?? Overflow(severity: severity, first: first, last: last)
        o.count += count
        o.severity = max(o.severity, severity)
        o.last = last
        overflow[key] = o
    }

    /// FNV-1a over the bytes, then a 64-bit finaliser (the same in every process, unlike `Hasher`).
    static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        return h
    }

    static let summaryPhrase = " of this rule in this file, not listed (the first "
    static let inputSummaryPhrase = " of this rule in this input, not listed (the first "

    /// Whether `f` is a summary a tally made.
    public static func isSummary(_ f: Finding) -> Bool {
        f.recordId == nil && f.preview == nil && (f.message.contains(summaryPhrase) || f.message.contains(inputSummaryPhrase))
    }

    public static func += (tally: inout FindingTally, findings: [Finding]) {
        for f in findings { tally.append(f) }
    }

    /// How many findings were counted but not kept.
    public var dropped: Int {
        overflow.values.reduce(0) { $0 + $1.count } + inputOverflow.values.reduce(0) { $0 + $1.count }
    }

    /// Whether the per-input bound was reached for some rule (findings of whole files went unlisted).
    public var reachedInputBound: Bool { !inputOverflow.isEmpty }

    /// `file line 12`, `file`, or `line 12`: where a counted finding was.
    static func place(_ f: Finding) -> String {
        switch (f.file, f.line) {
        case let (file?, line?): return "\(file) line \(line)"
        case let (file?, nil): return file
        case let (nil, line?): return "line \(line)"
        case (nil, nil): return "the input"
        }
    }

    /// The kept findings, then one summary per rule and file that passed `keep`: its worst severity,
    /// the count, and where the first and last of them were; then one summary per rule and input that
    /// passed `keepPerInput`.
    public var findings: [Finding] {
        var out = kept
        for (key, o) in overflow {
            let places = o.first.line.flatMap { a in o.last.line.map { b in "; lines \(a) to \(b)" } } ?? ""
            out.append(
                Finding(
                    rule: o.last.ruleID, severity: o.severity, input: key.input, file: key.file,
                    sessionId: o.last.sessionId, seq: o.last.seq, line: o.last.line,
                    message:
                        "\(o.count) more finding\(o.count == 1 ? "" : "s")\(FindingTally.summaryPhrase)\(bounds(o.last.ruleID).keep) are)\(places)",
                    fingerprint: o.fingerprint))
        }
        for (key, o) in inputOverflow.sorted(by: { $0.key.rule < $1.key.rule }) {
            let places = "; the first in \(FindingTally.place(o.first)), the last in \(FindingTally.place(o.last))"
            out.append(
                Finding(
                    rule: o.last.ruleID, severity: o.severity, input: key.input, file: nil,
                    message:
                        "\(o.count) more finding\(o.count == 1 ? "" : "s")\(FindingTally.inputSummaryPhrase)\(bounds(o.last.ruleID).perInput) findings and file summaries are)\(places)",
                    fingerprint: o.fingerprint))
        }
        return out
    }
}

/// A list of messages that keeps the first `keep` and counts the rest (an input's errors).
public struct BoundedMessages: Sendable {
    public let keep: Int
    package private(set) var kept: [String] = []
    package private(set) var dropped = 0

    public init(keep: Int = 20) { self.keep = keep }

    public mutating func append(_ message: String) {
        if kept.count < keep { kept.append(message) } else { dropped += 1 }
    }

    public var isEmpty: Bool { kept.isEmpty }

    /// The kept messages, then `… and N more problems` when some were dropped.
    public var all: [String] {
        dropped == 0 ? kept : kept + ["… and \(dropped) more problem\(dropped == 1 ? "" : "s") like these"]
    }
}
