import Foundation
import SiftCore
import Testing

/// `verify --follow`: the built binary fed through a pipe with pauses, and a file appended to and
/// rotated while it is followed.
@Suite(.serialized) struct FollowTests {
    static let token = "gh" + "p_" + ReadingBoundsTests.token(11)

    static func clean(_ seq: Int) -> String {
        #"{"type":"log","seq":\#(seq),"ts":"2026-11-29T10:15:02.000Z","level":"info","label":"tick","message":"record \#(seq)"}"#
    }

    static func leaky(_ seq: Int) -> String {
        #"{"type":"network","seq":\#(seq),"ts":"2026-11-29T10:15:02.000Z","id":"rec_\#(seq)","method":"GET","url":"https://api.example.test/v1/x","request":{"headers":[{"name":"Authorization","value":"Bearer \#(token)"}]}}"#
    }

    /// A running `pbsift verify --follow` whose standard output is read line by line as it comes.
    final class Running: @unchecked Sendable {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        private let lock = NSLock()
        private var lines: [(Date, String)] = []
        private var partial = ""

        init(_ args: [String]) throws {
            process.executableURL = try #require(Binary.url)
            process.arguments = args
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            output.fileHandleForReading.readabilityHandler = { [weak self] h in
                let d = h.availableData
                guard let self, !d.isEmpty else { return }
                self.lock.lock()
                self.partial += String(decoding: d, as: UTF8.self)
                while let nl = self.partial.firstIndex(of: "\n") {
                    self.lines.append((Date(), String(self.partial[..<nl])))
                    self.partial = String(self.partial[self.partial.index(after: nl)...])
                }
                self.lock.unlock()
            }
            try process.run()
        }

        func write(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        var seen: [(Date, String)] {
            lock.lock()
            defer { lock.unlock() }
            return lines
        }

        /// Waits up to `seconds` for `count` lines.
        func wait(for count: Int, seconds: Double) -> [(Date, String)] {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end, seen.count < count { usleep(5000) }
            return seen
        }

        func finish() -> (status: Int32, err: String) {
            process.waitUntilExit()
            output.fileHandleForReading.readabilityHandler = nil
            return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    @Test func aFindingIsPrintedWithin100msOfItsRecord() throws {
        let r = try Running(["verify", "--follow", "-"])
        for k in 1...20 { r.write(Self.clean(k)) }
        usleep(300_000)
        #expect(r.seen.isEmpty)
        let sent = Date()
        r.write(Self.leaky(21))
        let lines = r.wait(for: 1, seconds: 5)
        let first = try #require(lines.first)
        #expect(first.0.timeIntervalSince(sent) < 0.1, "\(first.0.timeIntervalSince(sent)) s")
        #expect(first.1.contains("seq 21") && !first.1.contains(Self.token), "\(first.1)")
        // The stream goes on; its end gives the exit status of what was seen.
        for k in 22...40 { r.write(Self.clean(k)) }
        r.input.fileHandleForWriting.closeFile()
        let (status, err) = r.finish()
        #expect(status == 1)
        #expect(err.contains("1 finding") && err.contains("40 records"), "\(err)")
    }

    @Test func ctrlCEndsTheStreamWithItsStatus() throws {
        let r = try Running(["verify", "--follow", "--json", "-"])
        r.write(Self.leaky(1))
        _ = r.wait(for: 1, seconds: 5)
        r.process.interrupt()
        let (status, err) = r.finish()
        #expect(status == 1, "\(err)")
        let line = try #require(r.seen.first?.1)
        #expect(try JSONDocument(string: line).root["rule"]?.string?.hasPrefix("redaction.") == true, "\(line)")
        #expect(!line.contains(Self.token))
    }

    @Test func aFileIsFollowedAcrossRotation() throws {
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("tail.jsonl").path
        try Data((Self.clean(1) + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let r = try Running(["verify", "--follow", path])
        usleep(300_000)
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        h.seekToEndOfFile()
        h.write(Data((Self.leaky(2) + "\n").utf8))
        try h.close()
        #expect(r.wait(for: 1, seconds: 5).count == 1)
        // Rotated: the file moved aside, a new one at the path.
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try Data((Self.leaky(3) + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let lines = r.wait(for: 2, seconds: 5)
        #expect(lines.count == 2 && lines.last?.1.contains("seq 3") == true, "\(lines.map(\.1))")
        r.process.terminate()
        let (status, err) = r.finish()
        #expect(status == 1)
        #expect(err.contains("rotated"), "\(err)")
    }

    /// Memory does not grow with the stream: the resident size after 100 000 records is within a few
    /// MiB of the size after the first 10 000.
    @Test func memoryStaysFlatOverALongStream() throws {
        let r = try Running(["verify", "--follow", "-"])
        let pid = r.process.processIdentifier
        func rssKiB() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        let batch = (0..<1000).map { Self.clean($0) }.joined(separator: "\n") + "\n"
        for _ in 0..<10 { r.input.fileHandleForWriting.write(Data(batch.utf8)) }
        usleep(500_000)
        let early = rssKiB()
        for _ in 0..<90 { r.input.fileHandleForWriting.write(Data(batch.utf8)) }
        usleep(500_000)
        let late = rssKiB()
        r.input.fileHandleForWriting.closeFile()
        let (status, err) = r.finish()
        #expect(status == 0 && err.contains("100000 records"), "\(err)")
        #expect(late - early < 8 << 10, "RSS \(early) KiB → \(late) KiB")
    }

    /// `records --follow`: each kept record at once, its credential masked, and a later record that
    /// repeats the value as free text masked too.
    @Test func recordsAreFollowedMasked() throws {
        let r = try Running(["records", "--follow", "-"])
        r.write(Self.leaky(1))
        let first = r.wait(for: 1, seconds: 5)
        #expect(first.count == 1 && !first[0].1.contains(Self.token), "\(first.map(\.1))")
        r.write(#"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.000Z","level":"error","message":"rejected \#(Self.token)"}"#)
        let both = r.wait(for: 2, seconds: 5)
        #expect(both.count == 2 && !both[1].1.contains(Self.token) && both[1].1.contains("rejected"), "\(both.map(\.1))")
        r.input.fileHandleForWriting.closeFile()
        #expect(r.finish().status == 0)
    }

    /// `waterfall --follow`: each request's row as its record arrives, its offset from the stream's
    /// first record, its credential masked.
    @Test func waterfallRowsComeAsTheirRecordsArrive() throws {
        let r = try Running(["waterfall", "--follow", "--json", "-"])
        r.write(Self.clean(1))
        usleep(200_000)
        #expect(r.seen.isEmpty)
        let sent = Date()
        r.write(
            #"{"type":"network","seq":2,"ts":"2026-11-29T10:15:03.000Z","id":"rec_2","method":"GET","url":"https://api.example.test/v1/x?token=\#(Self.token)","state":"success","statusCode":200,"duration":0.25}"#
        )
        let first = try #require(r.wait(for: 1, seconds: 5).first)
        #expect(first.0.timeIntervalSince(sent) < 0.5, "\(first.0.timeIntervalSince(sent)) s")
        let row = try JSONDocument(string: first.1).root
        #expect(row["seq"]?.int == 2 && row["durationMs"]?.double == 250 && row["offsetMs"]?.double == 750, "\(first.1)")
        #expect(!first.1.contains(Self.token))
        r.write(Self.leaky(3))
        #expect(r.wait(for: 2, seconds: 5).count == 2)
        r.input.fileHandleForWriting.closeFile()
        #expect(r.finish().status == 0)
        #expect(!r.seen.contains { $0.1.contains(Self.token) })
    }

    @Test func usageErrors() {
        #expect(runCLI(["waterfall", "--follow", "a", "b"]).status == 64)
        #expect(runCLI(["waterfall", "--follow", "-f", "svg", "-"]).status == 64)
        #expect(runCLI(["verify", "--follow", "a", "b"]).status == 64)
        #expect(runCLI(["verify", "--follow", "-f", "sarif", "-"]).status == 64)
        #expect(runCLI(["records", "--follow", "a", "b"]).status == 64)
    }
}
