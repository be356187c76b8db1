import Foundation
import SiftArchive
import Testing
@testable import SiftCLI

/// The leak matrix: an export with a credential in every field of every record type (names and
/// values, stored plain, percent-encoded, base64, gzip, in a blob, in a frame) and server logs with
/// credentials in their messages, run through the built binary: every command × every format it
/// declares × standard output, standard error and `-o`. No credential may appear, raw or in any
/// encoded form that decodes back to it.
///
/// A command joins by being in `PBSift.commands` (its formats come from its spec); `LeakMatrix.args`
/// says how to run it on the export, and the test fails for a command it does not know.
@Suite struct LeakMatrixTests {
    /// The export and logs, written once.
    static let fixture: LeakFixture? = try? LeakFixture()

    /// Every (command, format) pair the specs declare, for commands that read exports.
    static let cases: [LeakCase] = PBSift.commands.flatMap { c -> [LeakCase] in
        let spec = c.spec
        guard LeakMatrix.args[spec.name] != nil else { return [LeakCase(command: spec.name, format: nil)] }
        guard LeakMatrix.args[spec.name]! != nil else { return [] }
        return spec.formats.map { LeakCase(command: spec.name, format: $0) }
    }

    @Test(arguments: cases) func noCredentialReachesAnyOutput(_ c: LeakCase) throws {
        let fx = try #require(Self.fixture)
        guard let format = c.format, let makeArgs = LeakMatrix.args[c.command] ?? nil else {
            Issue.record("command '\(c.command)' is not in LeakMatrix.args: say how it runs on an export (or nil if it reads none)")
            return
        }
        let args = [c.command] + makeArgs(fx) + ["--format", format]
        // Standard output and standard error.
        let r = try Binary.run(args)
        #expect(r.status != 64, "usage error: \(r.err)")
        #expect(!r.out.isEmpty, "\(c) printed nothing")
        for (stream, text) in [("stdout", r.out), ("stderr", r.err)] {
            let leaks = fx.leaks(in: text)
            #expect(leaks.isEmpty, "\(c) \(stream) leaks \(leaks.joined(separator: ", "))")
        }
        // `-o`.
        let file = fx.dir.appendingPathComponent("out-\(c.command)-\(format)-\(UUID().uuidString)")
        let o = try Binary.run(args + ["-o", file.path])
        let written = String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self)
        #expect(!written.isEmpty, "\(c) -o wrote nothing")
        for (stream, text) in [("-o", written), ("stderr with -o", o.err), ("stdout with -o", o.out)] {
            let leaks = fx.leaks(in: text)
            #expect(leaks.isEmpty, "\(c) \(stream) leaks \(leaks.joined(separator: ", "))")
        }
    }

    /// `records --grep` matches the printed (masked) record: a guessed credential is never confirmed.
    @Test func grepCannotConfirmAGuessedSecret() throws {
        let fx = try #require(Self.fixture)
        for (field, value) in fx.secrets.prefix(12) {
            let r = try Binary.run(["records", fx.export.path, "--grep", NSRegularExpression.escapedPattern(for: value)])
            #expect(r.out.isEmpty, "records --grep confirms the credential in \(field)")
        }
    }

    /// `--session` matching no session names the sessions the export holds: their ids come from the
    /// export and are masked like any of its text.
    @Test func unmatchedSessionNamesNoCredential() throws {
        let fx = try #require(Self.fixture)
        for command in ["records", "waterfall", "report"] {
            let r = try Binary.run([command, fx.export.path, "--session", "ses_none"])
            #expect(r.status == 64 && r.err.contains("no session matches"), "\(command): \(r.status) \(r.err)")
            let leaks = fx.leaks(in: r.out + r.err)
            #expect(leaks.isEmpty, "\(command) --session leaks \(leaks.joined(separator: ", "))")
        }
    }

    /// `scrub` lists the files it changes: names inside the input (a session file's) are printed
    /// masked, on both streams.
    @Test func scrubListingNamesNoCredential() throws {
        let fx = try #require(Self.fixture)
        let dry = try Binary.run(["scrub", fx.export.path, "--dry-run"])
        let written = fx.dir.appendingPathComponent("scrubbed-\(UUID().uuidString)")
        let real = try Binary.run(["scrub", fx.export.path, "-o", written.path])
        #expect(dry.status == 0 && real.status == 0, "\(dry.err) \(real.err)")
        for (what, text) in [("--dry-run stdout", dry.out), ("--dry-run stderr", dry.err), ("-o stdout", real.out), ("-o stderr", real.err)]
        {
            let leaks = fx.leaks(in: text)
            #expect(leaks.isEmpty, "scrub \(what) leaks \(leaks.joined(separator: ", "))")
        }
    }

    /// With colour on, `report` says the same as without it (ANSI stripped), findings listed once.
    @Test func reportColourChangesNothingButColour() throws {
        let fx = try #require(Self.fixture)
        let plain = try Binary.run(["report", fx.export.path, "--logs", fx.logs.path, "--color", "never"]).out
        let colour = try Binary.run(["report", fx.export.path, "--logs", fx.logs.path, "--color", "always"]).out
        let stripped = colour.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        #expect(colour != plain)
        #expect(stripped == plain)
        #expect(plain.components(separatedBy: "Findings:").count == 2, "the findings are listed once")
    }
}

/// One cell of the matrix.
struct LeakCase: Sendable, CustomTestStringConvertible, CustomStringConvertible {
    var command: String
    var format: String?
    var description: String { "\(command) --format \(format ?? "?")" }
    var testDescription: String { description }
}

enum LeakMatrix {
    /// How each command runs on the fixture (nil: it reads no export).
    static let args: [String: (@Sendable (LeakFixture) -> [String])?] = [
        "inspect": { [$0.export.path] },
        "verify": { [$0.export.path] },
        "records": { [$0.export.path] },
        "waterfall": { [$0.export.path] },
        "correlate": { [$0.export.path, "--logs", $0.logs.path] },
        "report": { [$0.export.path, "--logs", $0.logs.path] },
        "show": { [$0.export.path, "1", "--logs", $0.logs.path] },
        "har": { [$0.export.path] },
        // Against the clean sample (every route of the leak export is new) and against itself reversed.
        "diff": { [packageRoot.appendingPathComponent("samples/export-clean").path, $0.export.path] },
        "merge": { [$0.batch.path] },
        "rules": nil,
        // scrub writes an export, not a report: its output is checked by ScrubTests (verify finds nothing).
        "scrub": nil,
        "completions": nil
    ]
}

/// An export and server logs with a credential in every field; built at test time.
final class LeakFixture: @unchecked Sendable {
    let dir: URL
    let export: URL
    let logs: URL
    /// The JSON Lines a report of the export wrote (`merge`'s input).
    var batch = URL(fileURLWithPath: "/")
    /// (field, value): every planted credential.
    private(set) var secrets: [(String, String)] = []

    static let sessionId = "ses_0b7a1e5f-3b8d-4c52-9a41-0d6e2f7b9c13"
    static let requestId = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"

    /// A GitHub-token-shaped credential, distinct per field.
    private func shaped(_ field: String) -> String {
        let v = "gh" + "p_" + String(format: "%04d", secrets.count) + String(repeating: "a1B2", count: 8)
        secrets.append((field, v))
        return v
    }

    /// A credential with no shape (found only through the contract's names).
    private func plain(_ field: String) -> String {
        let v = "Plain" + "Cred" + String(format: "%04d", secrets.count) + "zQ"
        secrets.append((field, v))
        return v
    }

    static func json(_ o: Any) -> String {
        String(
            decoding: (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data(),
            as: UTF8.self)
    }

    /// Every byte as `%XX`.
    static func percentAll(_ s: String) -> String { s.utf8.map { String(format: "%%%02X", $0) }.joined() }

    /// A gzip member holding `bytes` in one stored deflate block.
    static func gzipStored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        let n = UInt16(bytes.count)
        out += [1, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)]
        out += bytes
        let crc = CRC32.checksum(bytes)
        for k in 0..<4 { out.append(UInt8((crc >> (8 * UInt32(k))) & 0xFF)) }
        for k in 0..<4 { out.append(UInt8((UInt32(bytes.count) >> (8 * UInt32(k))) & 0xFF)) }
        return out
    }

    init() throws {
        dir = try makeTempDir()
        let root = dir.appendingPathComponent("PalbeConsole")
        export = root
        logs = dir.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sessions"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)

        let t = { (s: Int) in String(format: "2026-11-29T10:15:%02d.000Z", s) }
        var lines: [String] = []
        lines.append(
            Self.json([
                "type": "session", "seq": 0, "ts": t(1), "formatVersion": 1, "sessionId": Self.sessionId, "launchedAt": t(1),
                "app": ["bundleId": shaped("app.bundleId"), "version": shaped("app.version"), "build": "512"],
                "sdk": ["name": "palbe-swift", "version": "3.1.0"],
                "device": [
                    "model": shaped("device.model"), "system": shaped("device.system"), "locale": "en_GB", "timeZone": "Europe/London"
                ],
                "environmentRef": shaped("environmentRef"), "userId": shaped("userId")
            ]))

        // The blob: a body stored aside, holding a credential.
        let blobBytes = Array(Self.json(["token": shaped("blob.token"), "pad": String(repeating: "x", count: 100)]).utf8)
        let hex = SHA256.hexDigest(blobBytes)
        let blobDir = root.appendingPathComponent("blobs").appendingPathComponent(String(hex.prefix(2)))
        try FileManager.default.createDirectory(at: blobDir, withIntermediateDirectories: true)
        try Data(blobBytes).write(to: blobDir.appendingPathComponent(hex))

        let bodyJSON = Self.json([shaped("request.body key"): shaped("request.body value"), "password": plain("request.body password")])
        let base64Body = Data(Self.json(["access": shaped("response.body base64")]).utf8).base64EncodedString()
        let gzipBody = Data(Self.gzipStored(Array(Self.json(["k": shaped("request.body gzip")]).utf8))).base64EncodedString()
        let tx: [String: Any] = [
            "fetchStart": t(2), "requestStart": t(2), "requestEnd": t(2), "responseStart": t(3), "responseEnd": t(3),
            "networkProtocol": shaped("metrics.networkProtocol"), "reusedConnection": false, "fetchType": shaped("metrics.fetchType"),
            "remoteAddress": shaped("metrics.remoteAddress"), "remotePort": 443, "tlsVersion": shaped("metrics.tlsVersion"),
            "statusCode": 503, "url": "https://api.example.test/v1/" + shaped("metrics.url path") + "?code=" + plain("metrics.url code")
        ]
        let pct = shaped("url percent-encoded")
        lines.append(
            Self.json([
                "type": "network", "seq": 1, "ts": t(3), "id": shaped("network.id"), "source": shaped("network.source"),
                "kind": shaped("network.kind"), "category": shaped("network.category"), "label": shaped("network.label"),
                "method": shaped("network.method"),
                "url": "https://user:" + plain("url userinfo") + "@api.example.test/v1/" + shaped("url path") + "?q=" + shaped("url query")
                    + "&token=" + plain("url token") + "&p=" + Self.percentAll(pct),
                "state": shaped("network.state"), "statusCode": 503, "duration": 0.9,
                "requestId": Self.requestId, "echoedRequestId": shaped("network.echoedRequestId"),
                "error": ["domain": shaped("error.domain"), "code": -1, "description": "failed with " + shaped("error.description")],
                "request": [
                    "headers": [
                        ["name": "Authorization", "value": plain("header Authorization")],
                        ["name": shaped("header name"), "value": "x"],
                        ["name": "X-Other", "value": shaped("header value")]
                    ],
                    "body": ["size": bodyJSON.utf8.count, "contentType": "application/json", "encoding": "utf8", "text": bodyJSON]
                ],
                "response": [
                    "headers": [["name": "Location", "value": "https://a.example/cb?access_token=" + plain("Location access_token")]],
                    "body": ["size": 40, "contentType": "application/json", "encoding": "base64", "data": base64Body]
                ],
                "metrics": ["taskStart": t(2), "taskEnd": t(3), "redirectCount": 0, "transactions": [tx]]
            ]))
        lines.append(
            Self.json([
                "type": "network", "seq": 2, "ts": t(4), "id": "rec_2", "source": "app", "kind": "http", "category": "app",
                "method": "POST", "url": "https://api.example.test/v1/upload", "state": "failure", "statusCode": 500, "duration": 0.2,
                "requestId": shaped("network.requestId"),
                "request": [
                    "headers": [], "body": ["size": 60, "contentType": "application/octet-stream", "encoding": "base64", "data": gzipBody]
                ],
                "response": [
                    "headers": [],
                    "body": [
                        "size": blobBytes.count, "contentType": "application/json", "blob": "sha256:" + hex,
                        "storedSize": blobBytes.count
                    ]
                ]
            ]))
        lines.append(
            Self.json([
                "type": "network", "seq": 3, "ts": t(5), "id": "rec_3", "method": "GET", "url": "https://api.example.test/v1/x",
                "state": "success", "statusCode": 200, "duration": 0.1,
                "request": ["headers": [], "body": ["size": 10, "encoding": shaped("body.encoding"), "text": "x"]],
                "response": ["headers": [], "body": ["size": 10, "blob": "sha256:" + shaped("body.blob reference")]]
            ]))
        lines.append(
            Self.json([
                "type": "log", "seq": 4, "ts": t(6), "level": shaped("log.level"), "label": shaped("log.label"),
                "message": "token is " + shaped("log.message"),
                "metadata": [
                    shaped("log.metadata key"): "v", "password": plain("log.metadata password"), "n": ["deep": shaped("log.metadata deep")]
                ],
                "error": ["type": "URLError", "description": shaped("log.error")]
            ]))
        lines.append(Self.json(["type": "log", "seq": 5, "ts": shaped("log.ts"), "level": "info", "message": "bad time"]))
        lines.append(
            Self.json([
                "type": "event", "seq": 6, "ts": t(7), "name": shaped("event.name"),
                "attributes": [shaped("event.attributes key"): shaped("event.attributes value")]
            ]))
        lines.append(
            Self.json([
                "type": "frame", "seq": 7, "ts": t(8), "direction": "out", "topic": shaped("frame.topic"), "event": "phx_join", "size": 20,
                "body": ["access_token": shaped("frame.body access_token"), "user": shaped("frame.body user")]
            ]))
        lines.append(
            Self.json(["type": shaped("record type"), "seq": 8, "ts": t(9), shaped("unknown.field name"): shaped("unknown.field value")]))
        lines.append(
            Self.json([
                "type": "log", "seq": 9, "ts": t(10), "level": "error",
                "message": "see " + Self.percentAll(shaped("log.message percent-encoded"))
            ]))

        // Base64 in free text and in a metadata value: the decoded form is the credential.
        lines.append(
            Self.json([
                "type": "log", "seq": 10, "ts": t(11), "level": "error",
                "message": "b64 " + Data(("k=" + shaped("log.message base64")).utf8).base64EncodedString(),
                "metadata": ["blob": Data(shaped("log.metadata base64").utf8).base64EncodedString()]
            ]))

        try Data((lines.joined(separator: "\n") + "\n").utf8)
            .write(to: root.appendingPathComponent("sessions").appendingPathComponent(Self.sessionId + ".jsonl"))
        // A session file whose name is a credential (names inside an export are data).
        try Data(
            (Self.json([
                "type": "session", "seq": 0, "ts": t(1), "formatVersion": 1, "sessionId": "ses_" + shaped("session id"),
                "launchedAt": t(1)
            ]) + "\n").utf8
        )
        .write(to: root.appendingPathComponent("sessions").appendingPathComponent(shaped("session file name") + ".jsonl"))

        let logLines = [
            Self.json([
                "ts": "2026-11-29T10:15:02.500Z", "level": "error", "request_id": Self.requestId, "method": "GET",
                "path": "/v1/x", "status": 503, "duration_ms": 38.2, "user_id": "usr_1", "msg": "upstream said " + shaped("server.msg")
            ]),
            Self.json([
                "ts": "2026-11-29T10:15:02.600Z", "level": shaped("server.level"), "request_id": Self.requestId,
                "msg": "retry with token=" + plain("server.msg token")
            ]),
            "2026-11-29T10:15:02.700Z WARN request_id=\(Self.requestId) auth " + shaped("server.plain line"),
            // A stack trace after a line: kept with it, its cause shown.
            "2026-11-29T10:15:02.800Z ERROR request_id=\(Self.requestId) charge failed",
            "Traceback (most recent call last):",
            "  File \"/app/pay.py\", line 9, in charge with key " + shaped("server.trace frame"),
            "AuthenticationError: Invalid API Key provided: " + shaped("server.trace cause")
        ]
        try Data((logLines.joined(separator: "\n") + "\n").utf8).write(to: logs.appendingPathComponent("api.log"))

        // What `merge` reads: the JSON Lines a report of the export wrote.
        batch = dir.appendingPathComponent("batch.jsonl")
        _ = try Binary.run(["report", export.path, "--logs", logs.path, "--format", "jsonl", "-o", batch.path])
    }

    /// The planted credentials found in `text`: raw, percent-encoded, or inside a base64 run
    /// (plain or gzip) that decodes to them.
    func leaks(in text: String) -> [String] {
        var out: [String] = []
        let decodedForms = LeakFixture.decodedForms(of: text)
        for (field, v) in secrets {
            if text.contains(v) { out.append(field); continue }
            if text.contains(LeakFixture.percentAll(v)) { out.append(field + " (percent-encoded)"); continue }
            if text.lowercased().contains(v.utf8.map { String(format: "%02x", $0) }.joined()) { out.append(field + " (hex)"); continue }
            let middle = v.dropFirst((v.count - 12) / 2).prefix(12)
            if text.contains(middle) { out.append(field + " (a 12-character piece)"); continue }
            if decodedForms.contains(where: { $0.contains(v) }) { out.append(field + " (encoded)") }
        }
        return out
    }

    /// The text percent-decoded, and every base64 run in it decoded (inflated when gzip).
    static func decodedForms(of text: String) -> [String] {
        var forms: [String] = []
        if let p = text.removingPercentEncoding { forms.append(p) }
        let b64 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
        var run = ""
        func flush() {
            defer { run = "" }
            guard run.count >= 16 else { return }
            for shift in 0..<4 {
                var s = String(run.dropFirst(shift)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                s = s.replacingOccurrences(of: "=", with: "")
                s = String(s.prefix(s.count - s.count % 4))
                guard let d = Data(base64Encoded: s) else { continue }
                let bytes = [UInt8](d)
                forms.append(String(decoding: bytes, as: UTF8.self))
                if bytes.starts(with: [0x1F, 0x8B]) {
                    let src = GzipSource(wrapping: MemorySource(bytes), limit: 1 << 20)
                    var inflated: [UInt8] = []
                    var buf = [UInt8](repeating: 0, count: 65536)
                    while true {
                        let n = (try? buf.withUnsafeMutableBytes { try src.read(into: $0) }) ?? 0
                        if n <= 0 { break }
                        inflated += buf[0..<n]
                    }
                    forms.append(String(decoding: inflated, as: UTF8.self))
                }
            }
        }
        for ch in text {
            if b64.contains(ch) { run.append(ch) } else { flush() }
        }
        flush()
        return forms
    }
}
