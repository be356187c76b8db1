import Foundation
import Testing
import SiftCore
import SiftArchive
@testable import SiftCorrelate

@Suite struct ScannerTests {
    func scanner(
        _ ids: [String], chunk: Int = 1 << 20, maxLine: Int = 1 << 20, segment: Int64 = 64 << 20,
        windows: [(lo: Double, hi: Double)] = [], users: [String] = []
    ) -> LogScanner {
        var o = ScanOptions()
        o.chunkBytes = chunk
        o.maxLineBytes = maxLine
        o.segmentBytes = segment
        return LogScanner(
            request: ScanRequest(ids: RequestIDSet(ids.compactMap(RequestID.init)), windows: windows, userIds: users), options: o)
    }

    /// A log of `n` platform lines, one request id each (`rid(k)`), one second apart.
    func platformLog(_ n: Int, start: Double = 1_764_411_300) -> String {
        (0..<n).map { k in
            "{\"ts\": \"\(Timestamp.format(start + Double(k)))\", \"level\": \"info\", \"request_id\": \"\(rid(k))\", \"status\": 200, \"duration_ms\": \(k).5, \"user_id\": \"usr_\(k % 3)\", \"msg\": \"request completed\"}\n"
        }.joined()
    }

    @Test func findsOnlyWantedIdsWithLineNumbers() {
        let dir = tempDir()
        write(dir + "/api.log", platformLog(50))
        let r = scanner([rid(3), rid(40), rid(999)]).scan(paths: [dir + "/api.log"])
        #expect(r.lines.map(\.line) == [4, 41])
        #expect(r.lines.map { $0.ids[0].description } == [rid(3), rid(40)])
        #expect(r.lines[0].parsed.durationMs == 3.5)
        #expect(r.files[0].lines == 50)
        #expect(r.files[0].format == .platform)
        #expect(r.files[0].matchedLines == 2)
        #expect(r.allErrors.isEmpty)
    }

    /// Each file says the units its durations were read in and whether its times were whole seconds.
    @Test func aFileSaysTheUnitsItWasReadIn() {
        let dir = tempDir()
        write(
            dir + "/echo.log",
            #"{"time":"2026-11-29T12:55:03.748+00:00","id":"\#(rid(1))","method":"GET","uri":"/v1/x","status":200,"latency":101000000,"latency_human":"101ms"}"#
                + "\n")
        write(
            dir + "/nginx.log",
            #"127.0.0.1 - - [29/Nov/2026:12:55:03 +0000] "GET /v1/x HTTP/1.1" 200 12 "-" "ua" 0.101 "\#(rid(2))""# + "\n")
        let r = scanner([rid(1), rid(2)]).scan(paths: [dir + "/echo.log", dir + "/nginx.log"])
        #expect(r.files.map(\.readUnits.duration) == [["ns"], ["s"]])
        #expect(r.files.map(\.readUnits.timesToTheSecond) == [false, true])
        #expect(r.lines.map(\.parsed.durationUnit) == ["ns", "s"])
        let report = Correlator.correlate(requests: [], sessions: [], scan: r)
        let text = CorrelationRender.text(report)
        #expect(text.contains("read: time, status, duration (ns)"), "\(text)")
        #expect(text.contains("read: time (to the second), status, duration (s)"))
        let json = CorrelationRender.json(report).render(pretty: false)
        #expect(json.contains(#""durationUnits":["ns"]"#) && json.contains(#""timesToTheSecond":true"#))
    }

    @Test func nearMissesDoNotMatch() {
        let dir = tempDir()
        let uuid = "8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
        let wanted = "req_" + uuid
        write(
            dir + "/a.log",
            """
            2026-11-29 10:15:02,123 INFO req-\(uuid) dash instead of underscore
            2026-11-29 10:15:02,124 INFO \(uuid) no prefix
            2026-11-29 10:15:02,125 INFO req_\(uuid.dropLast()) 35 characters
            2026-11-29 10:15:02,126 INFO req_\(uuid)7 a longer token
            2026-11-29 10:15:02,127 INFO req_req_\(uuid) doubled prefix still holds the id
            2026-11-29 10:15:02,128 INFO REQ_\(uuid) uppercase prefix
            2026-11-29 10:15:02,129 INFO req_\(uuid.uppercased()) uppercase hex is the same id
            """)
        let r = scanner([wanted]).scan(paths: [dir + "/a.log"])
        #expect(r.lines.map(\.line) == [5, 7])
        #expect(r.files[0].lines == 7)
    }

    @Test func idSplitAcrossEveryChunkBoundary() {
        let dir = tempDir()
        let text = platformLog(20)
        write(dir + "/api.log", text)
        let want = (0..<20).filter { $0 % 3 == 0 }.map(rid)
        let reference = scanner(want).scan(paths: [dir + "/api.log"])
        #expect(reference.lines.count == 7)
        // Every chunk size from tiny to larger than a line: ids and lines straddle the reads everywhere.
        for chunk in [1, 2, 3, 5, 7, 13, 39, 40, 41, 64, 100, 255, 256, 1000] {
            let r = scanner(want, chunk: chunk, maxLine: 4096).scan(paths: [dir + "/api.log"])
            #expect(r.lines == reference.lines, "chunk \(chunk)")
            #expect(r.files[0].lines == 20)
            #expect(r.files[0].bytes == Int64(text.utf8.count))
        }
    }

    @Test func segmentsOfALargeFileGiveTheSameResult() {
        let dir = tempDir()
        let text = platformLog(400) + "last line without newline \(rid(7))"
        write(dir + "/big.log", text)
        let want = [rid(0), rid(7), rid(199), rid(200), rid(399)]
        let whole = scanner(want).scan(paths: [dir + "/big.log"])
        #expect(whole.lines.map(\.line) == [1, 8, 200, 201, 400, 401])
        for segment: Int64 in [1, 97, 1000, 5000, 40_000] {
            let r = scanner(want, chunk: 333, maxLine: 4096, segment: segment).scan(paths: [dir + "/big.log"])
            #expect(r.lines == whole.lines, "segment \(segment)")
            #expect(r.files[0].lines == 401)
            #expect(r.files[0].bytes == Int64(text.utf8.count))
        }
    }

    @Test func overlongLinesAreStreamedForTheirIds() {
        let dir = tempDir()
        let long =
            "{\"ts\": \"2026-11-29T10:15:04Z\", \"msg\": \"" + String(repeating: "x", count: 5000) + "\", \"request_id\": \"\(rid(1))\"}\n"
        write(dir + "/a.log", platformLog(2) + long + platformLog(3))
        let r = scanner([rid(1), rid(2)], chunk: 100, maxLine: 1000).scan(paths: [dir + "/a.log"])
        #expect(r.files[0].longLines == 1)
        #expect(r.files[0].lines == 6)
        #expect(r.files[0].bytes == Int64((platformLog(2) + long + platformLog(3)).utf8.count))
        // rid(1) in line 2 and in the long line 3 (its id read as the line streamed by); rid(2) at line 6.
        #expect(r.lines.map(\.line) == [2, 3, 5, 6])
        #expect(r.lines[1].ids.map(\.description) == [rid(1)])
        #expect(r.lines[1].parsed.ts == Timestamp.parse("2026-11-29T10:15:04Z"))
        #expect(r.lines[1].parsed.status == nil)
        #expect(r.allErrors.isEmpty)
    }

    /// An id cut by every possible read boundary inside a long line is still seen, once; a near miss never.
    @Test func idsInLongLinesAcrossEveryCut() {
        let dir = tempDir()
        for cut in 0..<45 {
            let pad = String(repeating: "y", count: 300 + cut)
            let text = pad + " " + rid(7) + " " + pad + " req_" + rid(8).dropFirst(4).uppercased() + "x " + rid(9) + "\n" + platformLog(1)
            write(dir + "/c.log", text)
            let r = scanner([rid(7), rid(8), rid(9)], chunk: 64, maxLine: 100).scan(paths: [dir + "/c.log"])
            #expect(r.lines.count == 1, "cut \(cut)")
            #expect(r.lines.first?.ids.map(\.description) == [rid(7), rid(9)], "cut \(cut)")
            #expect(r.files[0].lines == 2)
            #expect(r.files[0].bytes == Int64(text.utf8.count))
        }
    }

    @Test func foldersAreWalkedSortedWithoutFollowingLinks() throws {
        let dir = tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/logs/b", withIntermediateDirectories: true)
        write(dir + "/logs/b/z.log", "2026-11-29T10:15:02Z \(rid(1))\n")
        write(dir + "/logs/a.log", "2026-11-29T10:15:02Z \(rid(1))\n")
        write(dir + "/outside.log", "2026-11-29T10:15:02Z \(rid(1))\n")
        try FileManager.default.createSymbolicLink(atPath: dir + "/logs/link.log", withDestinationPath: dir + "/outside.log")
        write(dir + "/logs/c.log.zst", bytes: [0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0])
        #expect(mkfifo(dir + "/logs/b/pipe.log", 0o600) == 0)
        let r = scanner([rid(1)]).scan(paths: [dir + "/logs", dir + "/missing.log"])
        #expect(r.files.map(\.file) == [dir + "/logs/a.log", dir + "/logs/b/z.log"])
        #expect(r.lines.count == 2)
        // As in an export's folder: a link or a FIFO inside is never opened, and is named.
        #expect(
            Set(r.errors) == [
                dir + "/logs/link.log: a symbolic link; skipped, never followed (a link named on the command line is "
                    + "followed: to read a folder of links, name its files: --logs \(dir)/logs/*.log)",
                dir + "/logs/b/pipe.log: a fifo; skipped, never opened",
                dir + "/logs/c.log.zst: zstd-compressed, which is not read: decompress it to standard input (--logs -)",
                dir + "/missing.log: cannot read: No such file or directory"
            ])
    }

    /// The folder walk has the export walker's entry bound.
    @Test func folderWalkIsBoundedByEntries() throws {
        let dir = tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/logs", withIntermediateDirectories: true)
        for k in 0..<5 { write(dir + "/logs/\(k).log", "2026-11-29T10:15:02Z \(rid(1))\n") }
        var s = scanner([rid(1)])
        s.options.maxEntries = 3
        let r = s.scan(paths: [dir + "/logs"])
        #expect(r.files.count == 3)
        #expect(r.errors.count == 1)
        #expect(r.errors.first?.contains("more than 3 entries under the folder") == true)
    }

    @Test func windowIdsAndUsers() {
        let dir = tempDir()
        write(dir + "/api.log", platformLog(10))
        let start = 1_764_411_300.0
        let r = scanner([rid(2)], windows: [(lo: start + 1, hi: start + 4)], users: ["usr_1", "usr_12"]).scan(paths: [dir + "/api.log"])
        // Lines 1...4 (k = 1..4) are in the window; rid(2) is wanted, so not recorded.
        #expect(r.seen.map(\.id.description) == [rid(1), rid(3), rid(4)])
        #expect(r.seen.map(\.userMask) == [1, 0, 1]) // usr_1 at k = 1, 4; `usr_12` never (k % 3)
    }

    @Test func gzipMultiMemberAndTruncated() throws {
        #expect(realGzip())
        let dir = tempDir()
        let a = try #require(gzip(platformLog(5)))
        let b = try #require(gzip(platformLog(5, start: 1_764_411_400)))
        write(dir + "/multi.log.gz", bytes: a + b)
        let r = scanner([rid(1), rid(4)]).scan(paths: [dir + "/multi.log.gz"])
        #expect(r.lines.map(\.line) == [2, 5, 7, 10])
        #expect(r.files[0].encoding == "gzip")
        #expect(r.files[0].error == nil)
        // Cut short: an error naming the file, and the lines before the cut still count.
        let big = try #require(gzip(platformLog(3000)))
        write(dir + "/cut.log.gz", bytes: Array(big.prefix(big.count / 2)))
        let c = scanner([rid(1), rid(2999)]).scan(paths: [dir + "/cut.log.gz"])
        #expect(c.lines.map(\.line) == [2])
        #expect(c.files[0].error?.hasPrefix(dir + "/cut.log.gz: ") == true)
        #expect(c.files[0].lines > 0)
    }

    @Test func readAheadDeliversEveryByteThenTheError() throws {
        final class Failing: ByteSource {
            var left: [UInt8]
            init(_ b: [UInt8]) { left = b }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
                if left.isEmpty { throw ArchiveError(.truncated, "gzip stream cut short") }
                let n = min(buffer.count, left.count, 7)
                for k in 0..<n { buffer[k] = left[k] }
                left.removeFirst(n)
                return n
            }
        }
        let bytes = (0..<10_000).map { UInt8($0 % 251) }
        let src = ReadAheadSource(Failing(bytes), bufferBytes: 100, depth: 2)
        var got: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 33)
        var thrown: Error?
        while true {
            do {
                let n = try buf.withUnsafeMutableBytes { try src.read(into: $0) }
                if n == 0 { break }
                got += buf[0..<n]
            } catch {
                thrown = error
                break
            }
        }
        #expect(got == bytes)
        #expect((thrown as? ArchiveError)?.problem == .truncated)
        let plain = ReadAheadSource(MemorySource(bytes), bufferBytes: 64, depth: 3)
        var all: [UInt8] = []
        while true {
            let n = try buf.withUnsafeMutableBytes { try plain.read(into: $0) }
            if n == 0 { break }
            all += buf[0..<n]
        }
        #expect(all == bytes)
        // A consumer that stops early: closing lets the thread end, and the source goes away.
        do {
            let early = ReadAheadSource(MemorySource([UInt8](repeating: 7, count: 1 << 20)), bufferBytes: 1024, depth: 2)
            _ = try buf.withUnsafeMutableBytes { try early.read(into: $0) }
            early.close()
        }
    }

    @Test func pipesAndLinksNamedOnTheCommandLine() throws {
        let dir = tempDir()
        let text = platformLog(30)
        write(dir + "/real.log", text)
        try FileManager.default.createSymbolicLink(atPath: dir + "/current.log", withDestinationPath: dir + "/real.log")
        let fifo = dir + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        writer.start()
        let r = scanner([rid(4), rid(29)], chunk: 64, maxLine: 4096).scan(paths: [dir + "/current.log", fifo])
        #expect(r.files.map(\.file) == [dir + "/current.log", fifo])
        #expect(r.files.map(\.encoding) == ["plain", "stream"])
        #expect(r.lines.map(\.line) == [5, 30, 5, 30])
        #expect(r.files.allSatisfy { $0.lines == 30 && $0.error == nil })
        // A gzip stream through a pipe is recognised by its first bytes.
        let gz = try #require(gzip(text))
        let gzFifo = dir + "/gzpipe"
        #expect(mkfifo(gzFifo, 0o600) == 0)
        let gzWriter = Thread {
            let fd = open(gzFifo, O_WRONLY)
            guard fd >= 0 else { return }
            _ = gz.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        gzWriter.start()
        let z = scanner([rid(4)]).scan(paths: [gzFifo])
        #expect(z.lines.map(\.line) == [5])
        #expect(z.files.first?.lines == 30)
    }

    @Test func aPipeNobodyWritesToEndsTheRunAndIsNamed() throws {
        let dir = tempDir()
        let fifo = dir + "/silent"
        #expect(mkfifo(fifo, 0o600) == 0)
        var o = ScanOptions()
        o.pipeWriterWait = 0.5
        let started = Date()
        let r = LogScanner(request: ScanRequest(ids: RequestIDSet([rid(4)].compactMap(RequestID.init)), windows: []), options: o)
            .scan(paths: [fifo])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(r.files.first?.error?.contains("no writer opened the pipe") == true, "\(r.files)")
        #expect(!r.serverSideRead)
    }

    @Test func aLogCompressedTwiceOrWithZlibIsRead() throws {
        let dir = tempDir()
        let text = platformLog(30)
        let once = try #require(gzip(text))
        write(dir + "/twice.log.gz", bytes: try DeflateStream.gzip(once))
        let z = try ZipWriter.rawDeflate(Array(text.utf8))
        var a: UInt32 = 1, b: UInt32 = 0
        for c in text.utf8 { a = (a + UInt32(c)) % 65521; b = (b + a) % 65521 }
        let adler = b << 16 | a
        write(
            dir + "/z.log",
            bytes: [0x78, 0x9C] + z + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)])
        for name in ["twice.log.gz", "z.log"] {
            let r = scanner([rid(4)]).scan(paths: [dir + "/" + name])
            #expect(r.lines.map(\.line) == [5], "\(name)")
            #expect(r.allErrors.isEmpty, "\(name): \(r.allErrors)")
        }
    }

    @Test func aFolderWithNoLogSaysTheServerSideWasNotChecked() throws {
        let dir = tempDir()
        write(dir + "/README", "how to read these logs\n")
        let r = scanner([rid(4)]).scan(paths: [dir])
        #expect(r.files.first?.readsAsLog == false)
        #expect(!r.serverSideRead)
        #expect(r.errors.contains { $0.contains("no server log line read") }, "\(r.errors)")
        write(dir + "/api.log", platformLog(3))
        let withLog = scanner([rid(4)]).scan(paths: [dir])
        #expect(withLog.serverSideRead && withLog.errors.isEmpty, "\(withLog.errors)")
    }

    @Test func hostileBytesAreBounded() {
        let dir = tempDir()
        // One 3 MB line without a newline, holding a wanted id: streamed, only its id read.
        write(dir + "/a-oneline.log", String(repeating: "x", count: 3_000_000) + " " + rid(1))
        // Prefixes everywhere, ids cut short, NULs, and random bytes.
        var junk = String(repeating: "req_req_req_0000-", count: 20_000) + "\n"
        junk += String(repeating: "\u{0}req_\(rid(1).dropFirst(4).dropLast())\n", count: 1000)
        write(dir + "/b-junk.log", junk)
        var g = SystemRandomNumberGenerator()
        var rnd = [UInt8](repeating: 0, count: 1 << 20)
        for k in rnd.indices { rnd[k] = UInt8.random(in: 0...255, using: &g) }
        write(dir + "/c-random.log", bytes: rnd)
        let r = scanner([rid(1)], chunk: 4096, maxLine: 1 << 20, windows: [(lo: 0, hi: 1e12)]).scan(paths: [dir])
        #expect(r.files.count == 3)
        #expect(r.files[0].longLines == 1)
        #expect(r.files[0].lines == 1)
        #expect(r.lines.map(\.line) == [1])
        #expect(r.lines.map(\.file) == [dir + "/a-oneline.log"])
        #expect(r.files[1].lines == 1001)
        #expect(r.allErrors.isEmpty)
    }
}
