import Foundation
import SiftCore
import SiftWaterfall
import SiftVerify
import Testing

/// Throughput of the waterfall analysis on a large session file. Runs only when
/// `PBSIFT_BENCH_FILE` names a JSON Lines file (see `bench/waterfall-bench.sh`); build in release.
@Suite struct BenchTests {
    static let file = ProcessInfo.processInfo.environment["PBSIFT_BENCH_FILE"]

    @Test(.enabled(if: file != nil)) func analysisThroughput() throws {
        guard let path = Self.file else { return }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let clock = ContinuousClock()
        let c = WaterfallCollector()
        var bytes = 0
        var lines = 0
        var damaged = 0
        let start = clock.now
        c.beginSession(input: path, file: path, sessionId: nil)
        // One reused buffer: [0, filled) holds unread bytes; a line never crosses the buffer's end
        // (the buffer grows when one line is longer than it).
        var buf = [UInt8](repeating: 0, count: 4 << 20)
        var filled = 0
        while true {
            if filled == buf.count { buf += [UInt8](repeating: 0, count: buf.count) }
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n <= 0 { break }
            bytes += n
            filled += n
            var lineStart = 0
            buf.withUnsafeBufferPointer { b in
                var i = 0
                while i < filled {
                    if b[i] == 0x0A {
                        lines += 1
                        if let doc = try? JSONDocument(bytes: Array(b[lineStart..<i])), doc.root.isObject {
                            c.add(Record(line: lines, json: doc.root))
                        } else {
                            damaged += 1
                        }
                        lineStart = i + 1
                    }
                    i += 1
                }
            }
            buf.withUnsafeMutableBufferPointer { b in
                _ = memmove(b.baseAddress!, b.baseAddress! + lineStart, filled - lineStart)
            }
            filled -= lineStart
        }
        c.endSession(sessionId: nil, launchedAt: nil)
        let findings = c.finish()
        let analysed = clock.now - start
        let report = WaterfallReport(sessions: c.sessions, findings: findings, redactor: .verify())
        let summarised = clock.now - start
        let json = WaterfallRender.json(report)
        let rendered = clock.now - start
        func secs(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let mb = Double(bytes) / 1_000_000
        let requests = c.sessions.reduce(0) { $0 + $1.requests.count }
        print(
            String(format: "bench: %.1f MB, %d lines (%d damaged), %d requests, %d findings", mb, lines, damaged, requests, findings.count))
        print(String(format: "bench: read+parse+analyse %.2f s = %.1f MB/s", secs(analysed), mb / secs(analysed)))
        print(String(format: "bench: + summary %.2f s = %.1f MB/s", secs(summarised), mb / secs(summarised)))
        print(
            String(
                format: "bench: + json render (%.1f MB) %.2f s = %.1f MB/s", Double(json.utf8.count) / 1e6, secs(rendered),
                mb / secs(rendered)))
        #expect(requests > 0)
    }
}
