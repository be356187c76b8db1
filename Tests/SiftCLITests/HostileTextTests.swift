import Foundation
import Testing

/// Credentials planted where a printed line is built from several fields, cut to a width, or
/// derived from another value: none may reach any output, whole or in part.
@Suite struct HostileTextTests {
    /// Credentials assembled at run time: a GitHub token, an AWS key id, a plain password.
    static let github = "gh" + "p_" + String(repeating: "Qz7Lm", count: 7) + "X"
    static let aws = "AK" + "IA" + "QZ7LM2XN4RT6VB8P"
    static let slack = "xo" + "xb-" + "12345678901-109876543210-" + String(repeating: "mQ3z", count: 6)
    static let password = "Pw" + String(repeating: "r4Nd", count: 4) + "!9"

    /// The parts of a credential no output may hold: its middle, long enough to identify it.
    static func pieces(_ v: String) -> [String] {
        let b = Array(v)
        return stride(from: 4, to: max(5, b.count - 10), by: 3).map { String(b[$0..<min(b.count, $0 + 10)]) }
    }

    static func expectAbsent(_ values: [String], in text: String, _ what: String) {
        for v in values {
            for p in pieces(v) {
                #expect(!text.contains(p), "\(what) holds part of a planted credential: …\(p)…")
            }
        }
    }

    static func net(_ seq: Int, url: String, extra: String = "") -> String {
        #"{"type":"network","seq":\#(seq),"ts":"2026-11-29T10:15:0\#(seq).000Z","id":"rec_\#(seq)","source":"app","kind":"http","category":"app","label":"x","method":"GET","url":"\#(url)","state":"failure","statusCode":503,"duration":0.1,"requestId":"req_8b0e4c2a-6f1d-4e3b-9a57-00000000000\#(seq)"\#(extra)}"#
    }

    /// A session whose failed requests carry credentials in a URL's userinfo, fragment, query
    /// name, percent-encoded path and past the width a timeline cuts at, and whose log message
    /// holds one where a line is cut.
    static func session() throws -> String {
        let pct = github.utf8.map { String(format: "%%%02X", $0) }.joined()
        let longPath = "https://a.example.test/" + String(repeating: "p", count: 90) + "/" + slack
        return try Fixture.write([
            Fixture.header(),
            net(1, url: "https://\(password):x@a.example.test/p"),
            net(2, url: "https://a.example.test/p?\(aws)=1#\(slack)"),
            net(3, url: "https://a.example.test/v1/\(pct)"),
            net(4, url: longPath),
            #"{"type":"log","seq":5,"ts":"2026-11-29T10:15:05.000Z","level":"error","label":"l","message":"\#(String(repeating: "m", count: 225)) \#(github)"}"#,
            net(
                6, url: "https://a.example.test/c",
                extra: #","request":{"headers":[{"name":"Cookie","value":"sid=\#(password)"}],"body":{"size":0}}"#),
            #"{"type":"\#(aws)","seq":7,"ts":"2026-11-29T10:15:07.000Z"}"#
        ])
    }

    static func logs() throws -> String {
        let url = try makeTempDir().appendingPathComponent("api.log")
        let line = { (n: Int, path: String) in
            #"{"ts":"2026-11-29T10:15:0\#(n).000Z","level":"info","request_id":"req_8b0e4c2a-6f1d-4e3b-9a57-00000000000\#(n)","method":"GET","path":"\#(path)","status":503,"duration_ms":1.0,"msg":"done"}"#
        }
        try Data((line(1, "/v1/\(aws)") + "\n" + line(2, "/v1/x?access_token=\(password)") + "\n").utf8).write(to: url)
        return url.path
    }

    static let commands: [[String]] = [
        ["report", "-f", "text"], ["report", "-f", "json"], ["report", "-f", "markdown"], ["report", "-f", "html"],
        ["show", "1"], ["show", "2", "-f", "json"], ["show", "3", "-f", "markdown"], ["show", "4"], ["show", "7"],
        ["waterfall", "-f", "json"], ["waterfall", "-f", "csv"], ["waterfall", "-f", "text"],
        ["correlate", "-f", "json"], ["correlate", "-f", "csv"], ["correlate", "-f", "text"],
        ["har"], ["records"]
    ]

    @Test(arguments: commands)
    func noPartOfAPlantedCredentialIsPrinted(_ command: [String]) throws {
        let file = try Self.session()
        var args = [command[0], file] + command.dropFirst()
        if ["report", "show", "correlate"].contains(command[0]) { args += ["--logs", try Self.logs()] }
        let r = runCLI(args)
        Self.expectAbsent([Self.github, Self.aws, Self.slack, Self.password], in: r.out + r.err, args.joined(separator: " "))
    }

    /// A tar entry that is a link: its name and target are named on standard error, masked.
    @Test func linkNamesInAnArchiveAreMasked() throws {
        let name = "PalbeConsole/link-" + Self.github
        var header = [UInt8](repeating: 0, count: 512)
        for (i, b) in name.utf8.prefix(100).enumerated() { header[i] = b }
        for (i, b) in "0000644\0".utf8.enumerated() { header[100 + i] = b }
        for (i, b) in "00000000000\0".utf8.enumerated() { header[124 + i] = b }
        header[156] = UInt8(ascii: "2")
        for (i, b) in ("/etc/" + Self.aws).utf8.prefix(100).enumerated() { header[157 + i] = b }
        for (i, b) in "ustar\u{0}00".utf8.enumerated() { header[257 + i] = b }
        for i in 148..<156 { header[i] = 0x20 }
        let sum = header.reduce(0) { $0 + Int($1) }
        for (i, b) in String(format: "%06o\0 ", sum).utf8.enumerated() { header[148 + i] = b }
        let url = try makeTempDir().appendingPathComponent("export.tar")
        try Data(header + [UInt8](repeating: 0, count: 1024)).write(to: url)
        let r = runCLI(["inspect", url.path])
        #expect(r.err.contains("link"))
        Self.expectAbsent([Self.github, Self.aws], in: r.out + r.err, "inspect of a tar with a link")
        // scrub refuses the input (exit 2) and says why, through the same redactor.
        let s = runCLI(["scrub", url.path, "--dry-run"])
        #expect(s.status == 2 && s.err.contains("link"), "\(s.err)")
        Self.expectAbsent([Self.github, Self.aws], in: s.out + s.err, "scrub of a tar with a link")
    }
}
