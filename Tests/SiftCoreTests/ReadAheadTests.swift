import Foundation
import SiftTestSupport
import Testing
@testable import SiftCore
import SiftArchive

/// The next session file of an input is read and parsed while the last lines of the one before are
/// checked: the analyses still see one file after the other, each whole, every other entry in its
/// place, in a folder and in an archive alike.
@Suite struct ReadAheadTests {
    /// Every call the reader makes, in order (records counted per run of one file).
    final class Trace: Analysis {
        var calls: [String] = []
        var readsOtherFiles: Bool { true }
        func beginSession(_ session: SessionContext) { calls.append("begin \(session.file)") }
        func record(_ record: Record, session: SessionContext) {
            let tag = "records \(session.file)"
            if let last = calls.last, last.hasPrefix(tag + " ") {
                let n = Int(last.dropFirst(tag.count + 1)) ?? 0
                calls[calls.count - 1] = "\(tag) \(n + 1)"
            } else {
                calls.append("\(tag) 1")
            }
        }
        func endSession(_ session: SessionContext) { calls.append("end \(session.file)") }
        func blob(_ blob: BlobContent) { calls.append("blob \(blob.file)") }
        func entryName(_ file: SessionContext) { calls.append("entry \(file.file)") }
        func otherText(_ bytes: [UInt8], line: Int, file: SessionContext) {
            if calls.last != "text \(file.file)" { calls.append("text \(file.file)") }
        }
    }

    /// Three session files long enough to be read on a thread of their own (over one batch of
    /// lines), a blob and a text file between them.
    static let entries: [(name: String, bytes: [UInt8])] = {
        func session(_ k: Int) -> [UInt8] {
            let id = "ses_0000000\(k)-3b8d-4c52-9a41-0d6e2f7b9c13"
            let header = TempExport.header.replacingOccurrences(of: TempExport.sessionId, with: id)
            return Array(([header] + (1...3000).map(TempExport.log)).joined(separator: "\n").utf8) + [0x0A]
        }
        let blob = Array("a blob".utf8)
        let hex = SHA256.hexDigest(blob)
        return [
            ("blobs/\(hex.prefix(2))/\(hex)", blob),
            ("notes.txt", Array("a note\n".utf8)),
            ("sessions/ses_00000001-3b8d-4c52-9a41-0d6e2f7b9c13.jsonl", session(1)),
            ("sessions/ses_00000002-3b8d-4c52-9a41-0d6e2f7b9c13.jsonl", session(2)),
            ("sessions/ses_00000003-3b8d-4c52-9a41-0d6e2f7b9c13.jsonl", session(3)),
            ("store.json", Array(#"{"budgetBytes": 134217728}"#.utf8))
        ]
    }()

    static let expected: [String] = {
        var out: [String] = []
        for (name, _) in entries {
            out.append("entry \(name)")
            if name.hasPrefix("blobs/") { out.append("blob \(name)") }
            if name == "notes.txt" || name == "store.json" { out.append("text \(name)") }
            if name.hasPrefix("sessions/") { out += ["begin \(name)", "records \(name) 3001", "end \(name)"] }
        }
        return out
    }()

    func read(_ path: String) -> (calls: [String], outcome: ReadOutcome) {
        let trace = Trace()
        let outcome = ExportReader().read(inputs: [path], analyses: [trace])
        return (trace.calls, outcome)
    }

    @Test func aFolderIsReadOneFileAfterTheOther() throws {
        let dir = Scratch.directory("readahead")
        for (name, bytes) in Self.entries {
            let url = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        let (calls, outcome) = read(dir.path)
        #expect(calls == Self.expected)
        #expect(outcome.sessions.map(\.recordCount) == [3000, 3000, 3000])
        #expect(outcome.inputs.first?.status == .ok)
    }

    @Test func anArchiveIsReadOneFileAfterTheOther() throws {
        var zip: [UInt8] = []
        let writer = ZipWriter { zip += $0 }
        for (name, bytes) in Self.entries { try writer.add(name: name, bytes: bytes) }
        try writer.finish()
        let path = Scratch.directory("readahead").appendingPathComponent("export.zip").path
        try Data(zip).write(to: URL(fileURLWithPath: path))
        let (calls, outcome) = read(path)
        #expect(calls == Self.expected)
        #expect(outcome.sessions.map(\.recordCount) == [3000, 3000, 3000])
        #expect(outcome.inputs.first?.status == .ok)
    }
}
