import Foundation
import Testing
@testable import SiftCore

/// An export of very many small session files: repeated findings are bounded per rule and input (not
/// only per file), and the session list per read; every bound reached says so.
@Suite struct InputBoundTests {
    static func finding(file: String, line: Int, fingerprint: String? = nil) -> Finding {
        Finding(
            rule: Rule("test.rule", .info, "a test rule").ref, severity: .low, input: "in", file: file, line: line,
            message: "m", fingerprint: fingerprint)
    }

    @Test func tallyBoundsARuleAcrossFiles() {
        var t = FindingTally(keep: 2, keepPerInput: 3)
        for i in 0..<10 { t.append(Self.finding(file: "f\(i)", line: 7)) }
        let all = t.findings
        #expect(all.count == 4)
        #expect(t.reachedInputBound)
        #expect(t.dropped == 7)
        let summary = all.last
        #expect(summary.map(FindingTally.isSummary) == true)
        #expect(summary?.file == nil)
        #expect(
            summary?.message
                == "7 more findings of this rule in this input, not listed (the first 3 findings and file summaries are); the first in f3 line 7, the last in f9 line 7"
        )
    }

    @Test func fileSummariesCountTowardTheInputBound() {
        var t = FindingTally(keep: 1, keepPerInput: 4)
        // Two files of three: one kept and one summary each (4 listed); the third file is counted for the input.
        for file in ["a", "b", "c"] { for line in 1...3 { t.append(Self.finding(file: file, line: line)) } }
        t.appendCounted(first: Self.finding(file: "d", line: 1), last: Self.finding(file: "d", line: 9), count: 9, severity: .medium)
        let all = t.findings
        #expect(all.count == 5, "\(all.map(\.message))")
        let input = all.first { $0.message.contains("in this input") }
        #expect(input?.message.hasPrefix("12 more findings") == true, "\(String(describing: input?.message))")
        #expect(input?.severity == .medium)
        #expect(input?.message.hasSuffix("the first in c line 1, the last in d line 9") == true)
        // A summary passes through another tally as it is.
        var outer = FindingTally(keep: 5, keepPerInput: 5)
        outer += all
        #expect(outer.findings.count == all.count)
        #expect(outer.findings.contains { $0.message == input?.message })
    }

    @Test func inputSummaryFingerprintNamesTheCountedSet() {
        func summary(_ order: [Int]) -> Finding? {
            var t = FindingTally(keep: 5, keepPerInput: 2)
            for i in order { t.append(Self.finding(file: "f\(i)", line: 1, fingerprint: "fp\(i)")) }
            return t.findings.first { $0.message.contains("in this input") }
        }
        let a = summary([1, 2, 3, 4, 5]), b = summary([1, 2, 5, 4, 3]), c = summary([1, 2, 3, 4, 6])
        #expect(a?.fingerprint?.hasPrefix("set:") == true)
        #expect(a?.fingerprint == b?.fingerprint)
        #expect(a?.fingerprint != c?.fingerprint)
    }

    /// A folder of `count` session files, each with a header, one log record and one blank line.
    static func manySessions(_ count: Int) throws -> TempExport {
        let export = try TempExport()
        for i in 0..<count {
            let id = String(format: "ses_00000000-0000-4000-8000-%012d", i)
            let header = TempExport.header.replacingOccurrences(of: TempExport.sessionId, with: id)
            let p = export.dir.appendingPathComponent("sessions/\(id).jsonl")
            try Data((header + "\n" + TempExport.log(1) + "\n\n").utf8).write(to: p)
        }
        return export
    }

    @Test func manySessionFilesKeepFindingsAndSummariesBounded() throws {
        let files = FindingTally.defaultKeepPerInput + 100
        let export = try Self.manySessions(files)
        defer { export.cleanup() }
        let reader = ExportReader()
        reader.maxListedSessions = 10
        let o = reader.read(inputs: [export.dir.path], analyses: [])
        let blank = o.findings.filter { $0.rule == "integrity.malformed-line" }
        #expect(blank.count == FindingTally.defaultKeepPerInput + 1)
        let summary = blank.first { FindingTally.isSummary($0) }
        #expect(
            summary?.message.hasPrefix("100 more findings of this rule in this input") == true, "\(String(describing: summary?.message))")
        // The session list is bounded; the totals count every session, and the bound is a finding.
        #expect(o.sessions.count == 10)
        #expect(o.sessionCount == files)
        #expect(o.totalSessions == files)
        #expect(o.recordCount == files)
        #expect(o.totalRecords == files)
        #expect(o.sessionsNotListed == files - 10)
        #expect(o.sessionsNotListedNote?.contains("the first 10 of \(files) are") == true)
        let notListed = o.findings.filter { $0.rule == "limits.sessions-not-listed" }
        #expect(notListed.count == 1)
        #expect(notListed.first?.severity == .info)
        // Not a partial read: every session was read and checked.
        #expect(!o.anyIncomplete)
    }

    @Test func keptSessionsAreTheChosenOnesAndTheFirstIdsAreNamed() throws {
        let export = try Self.manySessions(12)
        defer { export.cleanup() }
        let reader = ExportReader()
        reader.maxListedSessions = 3
        reader.keepsSession = { $0?.hasSuffix("000000000011") ?? false }
        let o = reader.read(inputs: [export.dir.path], analyses: [])
        #expect(o.sessionCount == 1)
        #expect(o.sessions.map(\.sessionId) == ["ses_00000000-0000-4000-8000-000000000011"])
        #expect(o.firstSessionIds.count == 5)
        #expect(!o.findings.contains { $0.rule == "limits.sessions-not-listed" })
    }
}
