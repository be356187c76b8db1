import Foundation
import SiftTestSupport
import Testing
@testable import SiftCLI

/// Captured output of one in-memory run.
final class Capture: @unchecked Sendable {
    var out = ""
    var err = ""
}

struct RunResult {
    var status: Int32
    var out: String
    var err: String
}

/// Runs pbsift in memory.
func runCLI(_ args: [String], env: [String: String] = [:], stdoutTTY: Bool = false, stderrTTY: Bool = false) -> RunResult {
    let c = Capture()
    let io = CommandIO(
        stdout: { c.out += $0 }, stderr: { c.err += $0 }, stdoutIsTTY: stdoutTTY, stderrIsTTY: stderrTTY,
        environment: env)
    let status = PBSift.run(arguments: args, io: io)
    return RunResult(status: status, out: c.out, err: c.err)
}

/// The package root, from this file's path.
let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A fresh temporary folder for one test.
func makeTempDir() throws -> URL {
    Scratch.directory("cli")
}

/// Small session files written at test time.
enum Fixture {
    static let sessionId = "ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13"

    static func header(userId: String = "usr_123") -> String {
        #"{"type":"session","seq":0,"ts":"2026-11-29T10:15:01.004Z","formatVersion":1,"sessionId":"\#(sessionId)","launchedAt":"2026-11-29T10:15:01.002Z","app":{"bundleId":"com.acme.shop","version":"4.2.0","build":"512"},"sdk":{"name":"palbe-swift","version":"3.1.0"},"device":{"model":"iPhone16,1","system":"iOS 18.1.1","locale":"en_GB","timeZone":"Europe/London"},"environmentRef":"env_prod_eu","userId":"\#(userId)"}"#
    }

    static let network =
        #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","source":"sdk","kind":"http","category":"call","label":"orders.list","method":"GET","url":"https://api.example.test/v1/orders","state":"success","statusCode":200,"duration":0.120}"#
    static let log = #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.500Z","level":"info","label":"checkout","message":"cart loaded"}"#
    static let frame =
        #"{"type":"frame","seq":3,"ts":"2026-11-29T10:15:04.000Z","direction":"out","topic":"realtime:orders","event":"phx_join","size":20,"body":{"access_token":"***"}}"#

    /// A clean session: header, a network record, a log record.
    static var clean: [String] { [header(), network, log] }
    /// A session with a frame record (`policy.frame-in-export`, high).
    static var withFrame: [String] { [header(), network, log, frame] }

    /// Writes `lines` as `<sessionId>.jsonl` in a new temp folder; returns the file's path.
    static func write(_ lines: [String]) throws -> String {
        let dir = try makeTempDir()
        let url = dir.appendingPathComponent(sessionId + ".jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        return url.path
    }
}
