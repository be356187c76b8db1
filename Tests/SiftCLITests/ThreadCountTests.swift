import Foundation
import Testing
@testable import SiftCLI

/// Work done side by side (lines parsed on worker threads, sessions redacted and requests rendered in
/// parallel) is handed back in input order: every output is byte for byte the same with one thread
/// (`PBSIFT_THREADS=1`) as with several.
@Suite struct ThreadCountTests {
    /// A folder of `sessions` session files, each with `requests` network records (metrics, a
    /// credential in some URLs), a damaged line and a seq gap.
    static func export(sessions: Int, requests: Int) throws -> URL {
        let dir = try makeTempDir()
        let folder = dir.appendingPathComponent("sessions")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for s in 0..<sessions {
            let id = "ses_0000000\(s)-3b8d-4c52-9a41-0d6e2f7b9c13"
            var lines = [Fixture.header().replacingOccurrences(of: Fixture.sessionId, with: id)]
            var seq = 1
            for i in 0..<requests {
                if i == requests / 2 { lines.append("{\"type\":\"network\",\"seq\":\(seq),"); seq += 2 }
                let ms = 100 + (i * 37 + s * 11) % 900
                let start =
                    "2026-11-29T10:\(15 + i / 3000 % 40):\(String(format: "%02d", (i / 50) % 60)).\(String(format: "%03d", (i * 7) % 1000))Z"
                let query = i % 7 == 0 ? "?access_token=\(ReadingBoundsTests.token(i + s * 1000))" : "?page=\(i)"
                let state = i % 97 == 3 ? "pending" : (i % 13 == 0 ? "failure" : "success")
                lines.append(
                    #"{"type":"network","seq":\#(seq),"ts":"\#(start)","id":"rec_\#(s)_\#(i)","source":"sdk","kind":"http","category":"call","label":"orders.list","method":"GET","url":"https://api\#(i % 5).example.test/v1/orders/\#(i)\#(query)","state":"\#(state)","statusCode":\#(state == "failure" ? 503 : 200),"duration":\#(Double(ms) / 1000),"request":{"headers":{"X-Request-Id":"req_\#(s)_\#(i)"}},"response":{"body":{"size":\#(i * 3)}},"metrics":{"taskStart":"\#(start)","transactions":[{"fetchStart":"\#(start)","domainLookupStart":"\#(start)","responseEnd":"\#(start)","networkProtocol":"h2","remoteAddress":"10.0.0.\#(i % 250)"}]}}"#
                )
                seq += 1
            }
            let text = lines.joined(separator: "\n") + "\n"
            try text.write(to: folder.appendingPathComponent(id + ".jsonl"), atomically: true, encoding: .utf8)
        }
        return dir
    }

    @Test(arguments: ["inspect", "waterfall", "verify", "report"])
    func oneThreadAndManyWriteTheSame(_ command: String) throws {
        let dir = try Self.export(sessions: 3, requests: 900)
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = packageRoot.appendingPathComponent("samples")
        let inputs = [
            dir.path, samples.appendingPathComponent("export-incident.zip").path,
            samples.appendingPathComponent("damaged").path
        ]
        for format in ["json", "text"] {
            for input in inputs {
                let one = try Binary.run([command, "--format", format, input], env: ["PBSIFT_THREADS": "1"])
                let many = try Binary.run([command, "--format", format, input], env: ["PBSIFT_THREADS": "4"])
                #expect(one.status == many.status, "\(command) \(format) \(input)")
                #expect(one.out == many.out, "\(command) \(format) \(input)")
                #expect(one.err == many.err, "\(command) \(format) \(input)")
                #expect(!one.out.isEmpty)
            }
        }
    }

    /// The log scan follows the same setting: one thread and four join the same lines.
    @Test func correlateWithOneThreadAndManyWritesTheSame() throws {
        let samples = packageRoot.appendingPathComponent("samples")
        let args = [
            "correlate", "--format", "json", samples.appendingPathComponent("export-incident.zip").path,
            "--logs", samples.appendingPathComponent("logs").path
        ]
        let one = try Binary.run(args, env: ["PBSIFT_THREADS": "1"])
        let many = try Binary.run(args, env: ["PBSIFT_THREADS": "4"])
        #expect(one.status == many.status)
        #expect(one.out == many.out)
        #expect(one.err == many.err)
        #expect(!one.out.isEmpty)
    }
}
