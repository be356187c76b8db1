import Foundation

/// Keeps a run's findings bounded, however many lines repeat the same problem: per rule and file, the
/// first `keep` findings in full; the rest are counted, with their worst severity and the first and
/// last places, and become one summary finding at the end. A gigabyte of blank lines costs a count.
public struct FindingTally: Sendable {
    /// Findings kept in full per rule and file.
    public static let defaultKeep = 50

    struct Key: Hashable {
        var input: String
        var file: String?
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
    }

    public let keep: Int
    private var kept: [Finding] = []
    private var perKey: [Key: Int] = [:]
    private var overflow: [Key: Overflow] = [:]

    public init(keep: Int = FindingTally.defaultKeep) { self.keep = max(1, keep) }

    /// Adds one finding (kept, or counted once its rule and file have `keep`). A summary another
    /// tally made (an analysis bounds its own findings) is kept as it is.
    public mutating func append(_ f: Finding) {
        if FindingTally.isSummary(f) {
            kept.append(f)
            return
        }
        let key = Key(input: f.input, file: f.file, rule: f.rule)
        let n = perKey[key, default: 0]
        if n < keep {
            perKey[key] = n + 1
            kept.append(f)
            return
        }
        var o = overflow[key] ?? Overflow(severity: f.severity, first: f, last: f)
        o.count += 1
        o.severity = max(o.severity, f.severity)
        o.last = f
        if let fp = f.fingerprint {
            o.fingerprinted += 1
            o.digest &+= FindingTally.hash(f.rule + "\u{0}" + fp)
        }
        overflow[key] = o
    }

    /// Counts `count` findings past the kept ones without building each: the first of them is `first`,
    /// the last `last` (same rule, input and file, no fingerprint). A reader that bounds a file's
    /// repeated problems itself hands the overflow over once.
    public mutating func appendCounted(first: Finding, last: Finding, count: Int, severity: Severity) {
        guard count > 0 else { return }
        let key = Key(input: first.input, file: first.file, rule: first.rule)
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

    /// Whether `f` is a summary a tally made.
    public static func isSummary(_ f: Finding) -> Bool {
        f.recordId == nil && f.preview == nil && f.message.contains(summaryPhrase)
    }

    public static func += (tally: inout FindingTally, findings: [Finding]) {
        for f in findings { tally.append(f) }
    }

    /// How many findings were counted but not kept.
    public var dropped: Int { overflow.values.reduce(0) { $0 + $1.count } }

    /// The kept findings, then one summary per rule and file that passed `keep`: its worst severity,
    /// the count, and where the first and last of them were.
    public var findings: [Finding] {
        var out = kept
        for (key, o) in overflow {
            let places = o.first.line.flatMap { a in o.last.line.map { b in "; lines \(a) to \(b)" } } ?? ""
            let digest = String(o.digest, radix: 16)
            out.append(Finding(rule: o.last.ruleID, severity: o.severity, input: key.input, file: key.file,
                               sessionId: o.last.sessionId, seq: o.last.seq, line: o.last.line,
                               message: "\(o.count) more finding\(o.count == 1 ? "" : "s")\(FindingTally.summaryPhrase)\(keep) are)\(places)",
                               fingerprint: o.fingerprinted > 0 ? "set:" + String(repeating: "0", count: 16 - digest.count) + digest : nil))
        }
        return out
    }
}

/// A list of messages that keeps the first `keep` and counts the rest (an input's errors).
public struct BoundedMessages: Sendable {
    public let keep: Int
    public private(set) var kept: [String] = []
    public private(set) var dropped = 0

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
