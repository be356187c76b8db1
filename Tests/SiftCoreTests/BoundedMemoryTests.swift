import Foundation
import Testing
@testable import SiftCore
import SiftArchive

/// Repeated problems cost a count, not a finding each; the reader's per-file state stays bounded.
@Suite struct BoundedMemoryTests {
    @Test func blankLinesAreCountedNotListed() throws {
        let export = try TempExport()
        defer { export.cleanup() }
        let path = try export.writeSession(TempExport.header + "\n" + String(repeating: "\n", count: 20_000) + TempExport.log(1) + "\n")
        let outcome = ExportReader().read(inputs: [path], analyses: [])
        let blank = outcome.findings.filter { $0.rule == "integrity.malformed-line" }
        #expect(blank.count == FindingTally.defaultKeep + 1)
        let summary = try #require(blank.first { $0.message.contains("more finding") })
        #expect(summary.message.hasPrefix("\(20_000 - FindingTally.defaultKeep) more findings of this rule in this file"))
        #expect(summary.message.contains("lines \(2 + FindingTally.defaultKeep) to 20001"))
        #expect(summary.severity == .low)
        #expect(outcome.sessions.first?.damagedLines == 20_000)
    }

    @Test func tallyKeepsTheWorstSeverityOfWhatItCounts() {
        var tally = FindingTally(keep: 2)
        for i in 0..<10 {
            tally.append(
                Finding(
                    rule: Rule("r", .info, "a test rule").ref, severity: i == 7 ? .critical : .low, input: "in", file: "f", line: i,
                    message: "m"))
        }
        tally.append(Finding(rule: Rule("other", .info, "a test rule").ref, severity: .info, input: "in", file: "f", message: "m"))
        let all = tally.findings
        #expect(all.count == 4)
        #expect(tally.dropped == 8)
        #expect(all.contains { $0.rule == "r" && $0.severity == .critical && $0.message.hasPrefix("8 more findings") })
    }

    @Test func errorsAreBounded() {
        var list = BoundedMessages(keep: 3)
        for i in 0..<100 { list.append("e\(i)") }
        #expect(list.all == ["e0", "e1", "e2", "… and 97 more problems like these"])
    }

    @Test func seqSetStaysSmallForFilesInOrderAndFindsRepeats() {
        var seen = SeqSeen()
        var fresh = 0
        for v in 0..<100_000 where seen.insert(v) { fresh += 1 }
        #expect(fresh == 100_000)
        do { let added = seen.insert(5); #expect(!added) }
        do { let added = seen.insert(99_999); #expect(!added) }
        // Out of order, then filled in: joins the run.
        do { let added = seen.insert(100_002); #expect(added) }
        do { let added = seen.insert(100_001); #expect(added) }
        do { let added = seen.insert(100_000); #expect(added) }
        do { let added = seen.insert(100_002); #expect(!added) }
        do { let added = seen.insert(-3); #expect(added) }
        do { let added = seen.insert(-3); #expect(!added) }
    }

    @Test func hostileNumbersNeverTrap() throws {
        // Every numeric field at the edges of what JSON can say: nothing may trap.
        let export = try TempExport()
        defer { export.cleanup() }
        let numbers = [
            "1e308", "-1e308", "9223372036854775807", "-9223372036854775808", "18446744073709551616",
            "1e-400", "0.5", "-0", "123456789012345678901234567890"
        ]
        var lines = [TempExport.header]
        for (i, n) in numbers.enumerated() {
            lines.append(
                #"{"type":"network","seq":\#(n),"ts":"2026-11-29T10:15:0\#(i).000Z","id":"rec_\#(i)","method":"GET","url":"https://a.test/x","state":"success","statusCode":\#(n),"duration":\#(n),"request":{"headers":[],"body":{"encoding":"utf8","text":"x","size":\#(n)}},"response":{"headers":[],"body":{"blob":"sha256:\#(String(repeating: "a", count: 64))","size":\#(n),"storedSize":\#(n),"truncated":true}}}"#
            )
            lines.append(#"{"type":"log","seq":\#(n),"ts":\#(n),"level":"info","message":"m"}"#)
        }
        let path = try export.writeSession(lines.joined(separator: "\n") + "\n")
        let outcome = ExportReader().read(inputs: [export.dir.path], analyses: [])
        #expect(outcome.sessions.count == 1)
        #expect(!outcome.findings.isEmpty)
        _ = path
        #expect(Human.duration(seconds: 1e300) == ">250000 years")
        #expect(Human.duration(seconds: .nan) == "?")
    }
}

/// A tally's summary carries an order-free digest of the fingerprints it counted, and a summary made
/// by one tally passes through another untouched.
@Suite struct FindingTallyDigestTests {
    static func finding(_ i: Int, fingerprint: String? = nil) -> Finding {
        Finding(
            rule: Rule("secret.test", .info, "a test rule").ref, severity: .high, input: "in", file: "f", line: i, message: "m",
            fingerprint: fingerprint)
    }

    @Test func summaryFingerprintNamesTheCountedSet() {
        func summary(_ order: [Int]) -> Finding? {
            var t = FindingTally(keep: 2, credentialKeep: 2)
            for i in order { t.append(Self.finding(i, fingerprint: "fp\(i)")) }
            return t.findings.first { FindingTally.isSummary($0) }
        }
        let a = summary([1, 2, 3, 4, 5]), b = summary([1, 2, 5, 4, 3]), c = summary([1, 2, 3, 4, 6])
        #expect(a?.fingerprint?.hasPrefix("set:") ?? false)
        #expect(a?.fingerprint == b?.fingerprint)
        #expect(a?.fingerprint != c?.fingerprint)
        var outer = FindingTally(keep: 2, credentialKeep: 2)
        outer += [Self.finding(1), Self.finding(2)] + (a.map { [$0] } ?? [])
        #expect(outer.findings.count == 3)
        #expect(outer.findings.contains { $0.message.hasPrefix("3 more findings") })
    }

    @Test func findingsWithoutFingerprintsMakeASummaryWithout() {
        var t = FindingTally(keep: 1, credentialKeep: 1)
        for i in 0..<5 { t.append(Self.finding(i)) }
        #expect(t.findings.count == 2)
        #expect(t.findings.allSatisfy { $0.fingerprint == nil })
    }

    /// Credential findings are each listed with their record up to `credentialKeep`, whatever `keep`
    /// says; past it they are counted like any other rule's, and the summary names the bound.
    @Test func credentialFindingsAreListedUpToTheirOwnBound() {
        var t = FindingTally(keep: 2, credentialKeep: 6)
        for i in 0..<10 { t.append(Self.finding(i, fingerprint: "fp\(i)")) }
        let listed = t.findings.filter { !FindingTally.isSummary($0) }
        #expect(listed.count == 6)
        #expect(
            t.findings.contains {
                FindingTally.isSummary($0) && $0.message.hasPrefix("4 more findings") && $0.message.contains("the first 6 are")
            })
        var other = FindingTally(keep: 2, credentialKeep: 6)
        for i in 0..<10 {
            other.append(
                Finding(
                    rule: Rule("integrity.test", .info, "a test rule").ref, severity: .low, input: "in", file: "f", line: i, message: "m"))
        }
        #expect(other.findings.filter { !FindingTally.isSummary($0) }.count == 2)
    }
}

/// A file that is neither a session file nor a blob, whose bytes stop part-way (here: a gzip stream
/// cut short, inflated by the reader): what was read is handed over, the error is a finding, and
/// the input is partial (exit 2). Never a silent end of the scan.
@Suite struct OtherFileReadErrorTests {
    final class Texts: Analysis {
        var lines = 0
        var readsOtherFiles: Bool { true }
        func otherText(_ bytes: [UInt8], line: Int, file: SessionContext) { lines += 1 }
    }

    @Test func failureMidReadIsAFindingAndLeavesTheInputPartial() throws {
        let text = (1...5000).map { "line \($0) of the notes" }.joined(separator: "\n")
        let whole = try DeflateStream.gzip(Array(text.utf8))
        let cut = Array(whole.prefix(whole.count / 2))
        let texts = Texts()
        let pass = InputPass(path: "in", limits: .default, analyses: [texts])
        pass.visit(ArchiveEntry(name: "notes.har.gz", rawName: "notes.har.gz", declaredSize: nil, source: MemorySource(cut)))
        #expect(pass.partial)
        #expect(texts.lines > 100 && texts.lines < 5000, "\(texts.lines)")
        #expect(pass.errors.all.contains { $0.hasPrefix("notes.har.gz: ") }, "\(pass.errors.all)")
        #expect(pass.findings.findings.contains { $0.rule == "archive.truncated" && $0.file == "notes.har.gz" })
    }

    @Test func nothingReadsOtherFilesUnlessAnAnalysisAsks() throws {
        final class Quiet: Analysis {
            var lines = 0
            func otherText(_ bytes: [UInt8], line: Int, file: SessionContext) { lines += 1 }
        }
        let quiet = Quiet()
        let pass = InputPass(path: "in", limits: .default, analyses: [quiet])
        pass.visit(ArchiveEntry(name: "notes.txt", rawName: "notes.txt", declaredSize: nil, source: MemorySource(Array("a\nb\n".utf8))))
        #expect(quiet.lines == 0)
        #expect(!pass.partial)
    }
}

/// Damaged lines cost little each: a run of blank lines is one event of the line reader, never seen by
/// the analyses, and a file's repeated problems are counted past the first ones, not built one by one
/// (50 MiB of newlines in a zip took minutes when each blank line was a finding handed on).
@Suite struct DamagedLineCostTests {
    final class Counter: Analysis {
        var damaged = 0
        var records = 0
        func damagedLine(_ bytes: [UInt8], line: Int, session: SessionContext) { damaged += 1 }
        func record(_ record: Record, session: SessionContext) { records += 1 }
    }

    @Test func aRunOfBlankLinesIsAFewEvents() throws {
        // Newlines and CRLF blank lines, across many chunk boundaries (the chunk is 16 KiB at first).
        let text =
            Array(String(repeating: "\n", count: 1_000_000).utf8) + Array(String(repeating: "\r\n", count: 1000).utf8)
            + Array("{}\n\n".utf8)
        var reader = LineReader(source: MemorySource(text), maxLine: 1 << 20)
        var events = 0
        var blank = 0
        var lastNumber = 0
        while let e = try reader.next() {
            events += 1
            switch e {
            case .blank(let number, let count):
                #expect(number == lastNumber + 1)
                blank += count
                lastNumber = number + count - 1
            case .line(let bytes, let number):
                #expect(bytes == Array("{}".utf8))
                #expect(number == lastNumber + 1)
                lastNumber = number
            default:
                Issue.record("unexpected \(e)")
            }
        }
        #expect(blank == 1_001_001)
        #expect(lastNumber == 1_001_002)
        // One event per chunk read at most (the chunk grows to 256 KiB), not one per line.
        #expect(events < 100, "\(events)")
    }

    @Test func blankLinesReachNoAnalysisAndDamagedOnesDo() throws {
        let export = try TempExport()
        defer { export.cleanup() }
        var text = TempExport.header + "\n"
        text += String(repeating: "\n", count: 300_000)
        text += String(repeating: "x\n", count: 2000)
        text += String(repeating: "[]\n", count: 2000)
        text += String(repeating: "\r\n", count: 100) + "  \n"
        let path = try export.writeSession(text)
        let counter = Counter()
        let outcome = ExportReader().read(inputs: [path], analyses: [counter])
        #expect(counter.damaged == 4000)
        #expect(counter.records == 1)
        #expect(outcome.sessions.first?.damagedLines == 304_101)
        let malformed = outcome.findings.filter { $0.rule == "integrity.malformed-line" }
        // Per severity the first ones in full; one summary per rule and file.
        let summaries = malformed.filter { FindingTally.isSummary($0) }
        #expect(summaries.count == 1)
        #expect(malformed.count == FindingTally.defaultKeep + 1)
        #expect(summaries.first?.message.hasPrefix("\(304_101 - FindingTally.defaultKeep) more findings") == true)
        #expect(summaries.first?.severity == .medium)
        #expect(summaries.first?.message.contains("lines \(2 + FindingTally.defaultKeep) to 304102") == true, "\(summaries)")
    }

    @Test func recordsWithoutSeqAreCountedPastTheFirst() throws {
        let export = try TempExport()
        defer { export.cleanup() }
        let path = try export.writeSession(TempExport.header + "\n" + String(repeating: "{}\n", count: 5000))
        let outcome = ExportReader().read(inputs: [path], analyses: [])
        let gaps = outcome.findings.filter { $0.rule == "integrity.seq-gap" }
        #expect(gaps.count == FindingTally.defaultKeep + 1)
        #expect(gaps.last.map(FindingTally.isSummary) == true || gaps.contains { FindingTally.isSummary($0) })
        #expect(
            gaps.contains { $0.message.hasPrefix("\(5000 - FindingTally.defaultKeep) more findings") && $0.message.contains("to 5001") })
    }
}

/// An input not read in full makes no claim about its blobs that the unread part could prove wrong.
@Suite struct PartialBlobClaimTests {
    @Test func aBlobWhoseSessionWasNotReadIsNoOrphan() throws {
        let export = try TempExport()
        defer { export.cleanup() }
        let body = Array("blob bytes".utf8)
        let hex = try export.writeBlob(body)
        let record =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","method":"GET","url":"https://a.test/","state":"success","statusCode":200,"response":{"body":{"size":10,"storedSize":10,"encoding":"blob","blob":"sha256:\#(hex)"}}}"#
        _ = try export.writeSession(TempExport.header + "\n" + record + "\n" + String(repeating: "x", count: 4096) + "\n")
        // Whole: referenced, no orphan.
        let whole = ExportReader().read(inputs: [export.dir.path], analyses: [])
        #expect(!whole.findings.contains { $0.rule == "integrity.blob-orphan" })
        // Lines over the bound are not read: the reference could sit in one.
        var limits = ReadLimits.default
        limits.maxLineBytes = 1024
        let cut = ExportReader(limits: limits).read(inputs: [export.dir.path], analyses: [])
        #expect(cut.inputs.first?.status == .partial)
        // The blob's reference was read here (the long line is after it): still no orphan.
        #expect(!cut.findings.contains { $0.rule == "integrity.blob-orphan" })
        // A second blob no read line names: not claimed while a line went unread; said so instead.
        _ = try export.writeBlob(Array("other".utf8))
        let again = ExportReader(limits: limits).read(inputs: [export.dir.path], analyses: [])
        #expect(!again.findings.contains { $0.rule == "integrity.blob-orphan" })
        #expect(
            again.inputs.first?.errors.contains { $0.hasPrefix("not checked: whether 1 blob is referenced") } == true,
            "\(again.inputs.first?.errors ?? [])")
        let full = ExportReader().read(inputs: [export.dir.path], analyses: [])
        #expect(full.findings.filter { $0.rule == "integrity.blob-orphan" }.count == 1)
    }

    @Test func aBlobInAnUnreadEntryIsNotMissing() throws {
        let export = try TempExport()
        defer { export.cleanup() }
        let blob = Array("blob bytes".utf8)
        let hex = SHA256.hexDigest(blob)
        let record =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","method":"GET","url":"https://a.test/","state":"success","statusCode":200,"response":{"body":{"size":10,"storedSize":10,"encoding":"blob","blob":"sha256:\#(hex)"}}}"#
        // The session first, then a large blob, then the referenced one: a read cut in the large one never
        // reaches it.
        var zip: [UInt8] = []
        let writer = ZipWriter { zip += $0 }
        try writer.add(name: "sessions/\(TempExport.sessionId).jsonl", bytes: Array((TempExport.header + "\n" + record + "\n").utf8))
        let padding = [UInt8](repeating: 0x41, count: 64 << 10)
        let padHex = SHA256.hexDigest(padding)
        try writer.add(name: "blobs/\(padHex.prefix(2))/\(padHex)", bytes: padding)
        try writer.add(name: "blobs/\(hex.prefix(2))/\(hex)", bytes: blob)
        try writer.finish()
        let path = export.dir.appendingPathComponent("cut.zip").path
        try Data(zip).write(to: URL(fileURLWithPath: path))
        let whole = ExportReader().read(inputs: [path], analyses: [])
        #expect(whole.inputs.first?.status == .ok)
        #expect(!whole.findings.contains { $0.rule == "integrity.blob-missing" })
        var limits = ReadLimits.default
        limits.maxInputBytes = 20 << 10
        let cut = ExportReader(limits: limits).read(inputs: [path], analyses: [])
        #expect(cut.inputs.first?.status == .partial)
        #expect(!cut.findings.contains { $0.rule == "integrity.blob-missing" })
        #expect(
            cut.inputs.first?.errors.contains { $0.hasPrefix("not checked: whether 1 referenced blob is in the export") } == true,
            "\(cut.inputs.first?.errors ?? [])")
    }
}

/// Lines parsed ahead of the checks are bounded in bytes, not only in batches: a file of 2 MiB lines
/// keeps one of them waiting, where four batches of one line each used to wait.
@Suite struct ParsedLinesBoundTests {
    @Test func longLinesWaitOneAtATime() throws {
        let line = Array(("{\"type\":\"log\",\"message\":\"" + String(repeating: "a", count: 2 << 20) + "\"}\n").utf8)
        var text: [UInt8] = []
        for _ in 0..<12 { text += line }
        let lines = ParsedLines(reader: LineReader(source: MemorySource(text), maxLine: 16 << 20), maxDepth: 64)
        defer { lines.finish() }
        _ = try lines.next()
        // Let the reading thread run as far ahead as it may.
        for _ in 0..<50 where lines.waitingBytes < line.count { usleep(10_000) }
        usleep(100_000)
        #expect(lines.waitingBytes <= line.count, "\(lines.waitingBytes)")
        var count = 1
        while try lines.next() != nil { count += 1 }
        #expect(count == 12)
    }

    /// A line of more values than the bound is refused (named), never parsed into a tape of any size.
    @Test func aLineOfTooManyValuesIsRefused() throws {
        let text = "[" + Array(repeating: "0", count: 1000).joined(separator: ",") + "]"
        #expect(throws: JSONParseError.self) { try JSONDocument(bytes: Array(text.utf8), maxValues: 500) }
        do {
            _ = try JSONDocument(bytes: Array(text.utf8), maxValues: 500)
        } catch {
            #expect(error.reason == .tooMany)
            #expect(error.message.contains("more than 500 JSON values"))
        }
        #expect((try? JSONDocument(bytes: Array(text.utf8), maxValues: 1001)) != nil)
        let object = "{" + (0..<1000).map { "\"k\($0)\":0" }.joined(separator: ",") + "}"
        #expect((try? JSONDocument(bytes: Array(object.utf8), maxValues: 1000)) == nil)
        #expect((try? JSONDocument(bytes: Array(object.utf8), maxValues: 2001)) != nil)
    }
}

/// Lines parsed on one thread or on several come back the same, in order.
@Suite struct ParsedLinesWorkersTests {
    @Test func oneWorkerAndManyGiveTheSameLines() throws {
        var text: [UInt8] = []
        for i in 0..<5000 {
            let line =
                i % 101 == 0
                ? "{\"type\":"
                : (i % 89 == 0 ? "" : "{\"type\":\"log\",\"seq\":\(i),\"message\":\"\(String(repeating: "x", count: i % 300))\"}")
            text += Array((line + "\n").utf8)
        }
        func read(_ workers: Int) throws -> [String] {
            let lines = ParsedLines(reader: LineReader(source: MemorySource(text), maxLine: 1 << 20), maxDepth: 64, workers: workers)
            defer { lines.finish() }
            var out: [String] = []
            while let (event, parsed) = try lines.next() {
                switch (event, parsed) {
                case (.line(let b, let n), .success(let doc)?): out.append("\(n) \(b.count) \(doc.root["seq"]?.int ?? -1)")
                case (.line(_, let n), .failure(let e)?): out.append("\(n) error \(e.message)")
                case (.blank(let n, let c), _): out.append("\(n) blank \(c)")
                default: out.append("other")
                }
            }
            return out
        }
        let one = try read(1)
        #expect(one.count > 4900)
        #expect(try read(4) == one)
        #expect(try read(2) == one)
    }

    /// A file that ends within the first batch is read and parsed on the caller's thread; its lines,
    /// and a read error after them, come back as from a longer file.
    @Test func aSmallFileIsReadInPlace() throws {
        final class Failing: ByteSource {
            var text: [UInt8]
            init(_ text: [UInt8]) { self.text = text }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
                guard !text.isEmpty else { throw ArchiveError(.truncated, "cut short") }
                let n = min(buffer.count, text.count)
                buffer.copyBytes(from: text[0..<n])
                text.removeFirst(n)
                return n
            }
        }
        let text = Array("{\"seq\":1}\n\n\n{\"seq\":\n{\"seq\":2}".utf8)
        for failing in [false, true] {
            let source: ByteSource = failing ? Failing(text) : MemorySource(text)
            let lines = ParsedLines(reader: LineReader(source: source, maxLine: 1 << 20), maxDepth: 64)
            var out: [String] = []
            var threw = false
            do {
                while let (event, parsed) = try lines.next() {
                    switch (event, parsed) {
                    case (.line(_, let n), .success(let doc)?), (.unterminated(_, let n), .success(let doc)?):
                        out.append("\(n) \(doc.root["seq"]?.int ?? -1)")
                    case (.line(_, let n), .failure?): out.append("\(n) error")
                    case (.blank(let n, let c), _): out.append("\(n) blank \(c)")
                    default: out.append("other")
                    }
                }
            } catch {
                threw = true
            }
            lines.finish()
            #expect(out == ["1 1", "2 blank 2", "4 error"] + (failing ? [] : ["5 2"]))
            #expect(threw == failing)
            #expect(lines.bytesRead == Int64(text.count))
        }
    }
}
