import Foundation
import SiftCore
import SiftWaterfall
import Testing

/// Throughput of the waterfall analysis on a large session file. Runs only when
/// `PBSIFT_BENCH_FILE` names a JSON Lines file (see `bench/waterfall-bench.sh`); build in release.
@Suite struct BenchTests {
    static let file = ProcessInfo.processInfo.environment["PBSIFT_BENCH_FILE"]

    @Test(.enabled(if: file != nil)) func analysisThroughput() throws {
        guard let path = Self.file, let h = FileHandle(forReadingAtPath: path) else { return }
        defer { try? h.close() }
        let clock = ContinuousClock()
        let c = WaterfallCollector()
        var bytes = 0
        var lines = 0
        var damaged = 0
        let start = clock.now
        c.beginSession(input: path, file: path, sessionId: nil)
        var carry: [UInt8] = []
        while true {
            let chunk = h.readData(ofLength: 8 << 20)
            if chunk.isEmpty { break }
            bytes += chunk.count
            var buf = carry
            buf.reserveCapacity(carry.count + chunk.count)
            chunk.withUnsafeBytes { buf.append(contentsOf: $0) }
            var lineStart = 0
            buf.withUnsafeBufferPointer { b in
                var i = 0
                while i < b.count {
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
            carry = Array(buf[lineStart...])
        }
        c.endSession(sessionId: nil, launchedAt: nil)
        let findings = c.finish()
        let analysed = clock.now - start
        let report = WaterfallReport(sessions: c.sessions, findings: findings)
        let summarised = clock.now - start
        let json = WaterfallRender.json(report)
        let rendered = clock.now - start
        func secs(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let mb = Double(bytes) / 1_000_000
        let requests = c.sessions.reduce(0) { $0 + $1.requests.count }
        print(String(format: "bench: %.1f MB, %d lines (%d damaged), %d requests, %d findings", mb, lines, damaged, requests, findings.count))
        print(String(format: "bench: read+parse+analyse %.2f s = %.1f MB/s", secs(analysed), mb / secs(analysed)))
        print(String(format: "bench: + summary %.2f s = %.1f MB/s", secs(summarised), mb / secs(summarised)))
        print(String(format: "bench: + json render (%.1f MB) %.2f s = %.1f MB/s", Double(json.utf8.count) / 1e6, secs(rendered), mb / secs(rendered)))
        #expect(requests > 0)
    }
}
