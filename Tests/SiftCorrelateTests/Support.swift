import Foundation
import SiftTestSupport
import SiftCore
@testable import SiftCorrelate

/// A fresh temporary folder per test.
func tempDir(_ name: String = #function) -> String {
    Scratch.directory(name).path
}

func write(_ path: String, _ text: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
}

func write(_ path: String, bytes: [UInt8]) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
}

/// A deterministic request id from a small number.
func rid(_ n: Int) -> String {
    let hex = String(format: "%012x", n)
    return "req_0000\(String(format: "%04x", n & 0xffff))-1111-4222-8333-\(hex)"
}

/// Sessions and network records of session-file lines (header first), as the reader would hand them over.
func load(sessionLines lines: [String], input: String = "export", file: String = "sessions/s.jsonl") -> ([NetworkEntry], [SessionEntry]) {
    var requests: [NetworkEntry] = []
    var session = SessionEntry(input: input, file: file, sessionId: nil)
    for (k, line) in lines.enumerated() {
        guard let doc = try? JSONDocument(string: line) else { continue }
        let rec = Record(line: k + 1, json: doc.root)
        if let t = rec.ts {
            session.firstTs = min(session.firstTs ?? t, t)
            session.lastTs = max(session.lastTs ?? t, t)
        }
        if rec.type == .session {
            session.sessionId = rec.json["sessionId"]?.string
            session.userId = rec.json["userId"]?.string
            session.launchedAt = rec.json["launchedAt"]?.string.flatMap(Timestamp.parse)
        } else if rec.type == .network {
            requests.append(CorrelationAnalysis.entry(rec, input: input, file: file, sessionId: session.sessionId))
        }
    }
    return (requests, [session])
}

/// The format's clean example export, vendored by the core tests (`Tests/SiftCoreTests/Fixtures/PalbeConsole`).
let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("SiftCoreTests/Fixtures").path

/// The platform log lines of the example's requests (SESSION-FORMAT.md `examples/logs/api.log`).
let exampleLogLines = #"""
    {"ts": "2026-11-29T12:55:03.748000Z", "level": "info", "request_id": "req_c4e08e67-b822-463b-8e69-80ee651011cb", "method": "POST", "path": "/v1/auth/token", "status": 200, "duration_ms": 101.0, "user_id": "usr_123", "env": "env_prod_eu", "msg": "request completed"}
    {"ts": "2026-11-29T12:55:04.104500Z", "level": "info", "request_id": "req_e7fb3f46-c937-4388-967d-d69a83f614dc", "method": "GET", "path": "/v1/flags", "status": 200, "duration_ms": 11.0, "user_id": "usr_123", "env": "env_prod_eu", "msg": "request completed"}
    {"ts": "2026-11-29T12:55:04.551000Z", "level": "info", "request_id": "req_806aab3f-fd83-4569-9782-17876fdc5385", "method": "GET", "path": "/v1/oauth/callback", "status": 200, "duration_ms": 35.0, "user_id": "usr_123", "env": "env_prod_eu", "msg": "request completed"}
    {"ts": "2026-11-29T12:55:04.998000Z", "level": "info", "request_id": "req_219fc48e-6c1e-4b5e-bba0-7d05a009a92d", "method": "GET", "path": "/v1/catalog", "status": 200, "duration_ms": 257.0, "user_id": "usr_123", "env": "env_prod_eu", "msg": "request completed"}
    """#

/// A folder holding `logs/api.log` with the example's log lines; returns the folder.
func exampleLogsDir() -> String {
    let dir = tempDir("examplelogs")
    try? FileManager.default.createDirectory(atPath: dir + "/logs", withIntermediateDirectories: true)
    write(dir + "/logs/api.log", exampleLogLines + "\n")
    return dir
}

/// The example export's session lines, or nil when the fixture is missing.
func exampleSession() -> [String]? {
    let dir = examples + "/PalbeConsole/sessions"
    guard let name = try? FileManager.default.contentsOfDirectory(atPath: dir).first(where: { $0.hasSuffix(".jsonl") }),
        let text = try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)
    else { return nil }
    return text.split(separator: "\n").map(String.init)
}

/// Gzip bytes of `text` made with the system's `gzip` (nil when it is missing).
func gzip(_ text: String) -> [UInt8]? {
    let dir = tempDir("gz")
    let path = dir + "/in"
    write(path, text)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", "gzip -c -n '\(path)' > '\(path).gz'"]
    guard (try? p.run()) != nil else { return nil }
    p.waitUntilExit()
    guard p.terminationStatus == 0, let d = FileManager.default.contents(atPath: path + ".gz") else { return nil }
    return Array(d)
}

/// Whether `GzipSource` really inflates (main had a pass-through stub until the archive work lands).
func realGzip() -> Bool {
    guard let gz = gzip("hello\n") else { return false }
    let src = GzipSourceProbe.inflate(gz)
    return src == Array("hello\n".utf8)
}

import SiftArchive

enum GzipSourceProbe {
    static func inflate(_ bytes: [UInt8]) -> [UInt8]? {
        let g = GzipSource(wrapping: MemorySource(bytes), limit: nil)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            guard let n = try? buf.withUnsafeMutableBytes({ try g.read(into: $0) }) else { return nil }
            if n == 0 { break }
            out += buf[0..<n]
        }
        return out
    }
}
