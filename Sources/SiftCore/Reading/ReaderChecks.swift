import Foundation
import SiftArchive

/// One session file's findings per rule, for the problems a line can repeat (blank or damaged lines,
/// seq gaps, frames): the first `keep` of a rule are built in full, the rest only counted (their worst
/// severity, the first and the last line), and handed to the input's tally once at the end of the
/// file (`FindingTally.appendCounted`). Gigabytes of damaged lines cost a count each, not a finding.
struct RepeatedFindings {
    let keep: Int
    // One entry per rule, side by side: plain numbers, so noting a line copies no finding (a struct
    // of slots holding each first finding cost a thousand instructions a line in retains alone).
    private var rules: [ReaderRule] = []
    private var kept: [Int] = []
    private var counted: [Int] = []
    private var severity: [Severity] = []
    private var lastLine: [Int] = []
    private var lastSeq: [Int?] = []
    private var first: [Finding?] = []

    init(keep: Int) { self.keep = keep }

    /// Notes `count` findings of `rule` on lines `line`, `line + 1`, …; `make(line)` builds the one on a
    /// line (only called for the kept ones and the first counted one).
    mutating func note(
        _ rule: ReaderRule, _ severity: Severity, line: Int, seq: Int? = nil, count: Int = 1,
        into tally: inout FindingTally, make: (Int) -> Finding
    ) {
        // A few rules per file, each a literal: equal strings share storage, so this compares words.
        var i = 0
        while i < rules.count && rules[i] != rule { i += 1 }
        if i == rules.count {
            rules.append(rule)
            kept.append(0)
            counted.append(0)
            self.severity.append(severity)
            lastLine.append(line)
            lastSeq.append(nil)
            first.append(nil)
        }
        var n = 0
        while n < count && kept[i] < keep {
            tally.append(make(line + n))
            kept[i] += 1
            n += 1
        }
        guard n < count else { return }
        if counted[i] == 0 {
            first[i] = make(line + n)
            self.severity[i] = severity
        } else if severity > self.severity[i] {
            self.severity[i] = severity
        }
        counted[i] += count - n
        lastLine[i] = line + count - 1
        lastSeq[i] = seq
    }

    /// Hands the counted findings to `tally`.
    func flush(into tally: inout FindingTally) {
        for i in rules.indices where counted[i] > 0 {
            guard let f = first[i] else { continue }
            var last = f
            last.line = lastLine[i]
            last.seq = lastSeq[i]
            last.recordId = nil
            tally.appendCounted(first: f, last: last, count: counted[i], severity: severity[i])
        }
    }
}

/// Tracks `seq` in write order: a gap means records were lost, a repeat that one was altered or replayed.
/// The seqs seen are kept bounded (`SeqSeen`).
struct SequenceChecker {
    private var last: Int?
    private var seen = SeqSeen()
    private var damagedSinceLast = 0

    struct Problem {
        var rule: ReaderRule
        var message: String
    }

    mutating func start(at seq: Int) {
        last = seq
        seen.insert(seq)
    }

    /// `count` lines that could not be read sit here; a gap of that many seqs is explained by them.
    mutating func damaged(_ count: Int = 1) { damagedSinceLast &+= count }

    mutating func check(_ seq: Int?) -> Problem? {
        guard let seq else {
            return Problem(rule: ReaderRule.seqGap, message: "record has no seq")
        }
        defer { damagedSinceLast = 0 }
        if !seen.insert(seq) {
            return Problem(rule: ReaderRule.seqDuplicate, message: "seq \(seq) appears more than once")
        }
        // `seq` comes from `JSONValue.int` (|seq| < 9e15), so none of this can overflow.
        let expected = (last ?? 0) + 1
        let previous = last
        last = max(last ?? seq, seq)
        if previous == nil && seq <= 1 { return nil }
        if seq > expected {
            let missing = seq - expected
            if missing <= damagedSinceLast { return nil }
            return Problem(
                rule: ReaderRule.seqGap,
                message: missing == 1 ? "seq \(expected) is missing" : "seq \(expected)–\(seq - 1) missing (\(missing) records)")
        }
        if seq < expected {
            return Problem(rule: ReaderRule.seqGap, message: "seq \(seq) comes after seq \(expected - 1): out of order")
        }
        return nil
    }
}

/// The seqs of one session file seen so far, bounded: the run written in order (one range, however
/// long) and a set of the others, emptied when it reaches `maxOthers` (older repeats are then missed).
struct SeqSeen {
    static let maxOthers = 1 << 19
    private var run: ClosedRange<Int>?
    private var others = Set<Int>()

    /// Inserts `v`; false when it was already there. (`|v| < 9e15`: `v + 1` cannot overflow.)
    @discardableResult
    mutating func insert(_ v: Int) -> Bool {
        guard let r = run else {
            run = v...v
            return true
        }
        if r.contains(v) || others.contains(v) { return false }
        if v == r.upperBound + 1 {
            var top = v
            while others.remove(top + 1) != nil { top += 1 }
            run = r.lowerBound...top
            return true
        }
        if others.count >= SeqSeen.maxOthers { others.removeAll(keepingCapacity: true) }
        others.insert(v)
        return true
    }
}

/// Remembers whether the wrapped source threw (so a problem is reported once, by whoever saw it first).
final class ThrowMarker: ByteSource {
    let inner: ByteSource
    /// Whether it threw, held apart from the source (`readFailed` keeps only this).
    final class Flag: @unchecked Sendable { // set by the thread reading, read after it let go of the source
        fileprivate(set) var threw = false
    }
    let flag = Flag()
    var threw: Bool { flag.threw }
    init(_ inner: ByteSource) { self.inner = inner }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        do {
            return try inner.read(into: buffer)
        } catch {
            flag.threw = true
            throw error
        }
    }
}
