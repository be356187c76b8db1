import Foundation
import SiftArchive
import SiftCore
import Testing
@testable import SiftCLI

/// A credential stored in a form the masking does not undo where it stands (a JSON `\u` escape in
/// a body's text) is never printed; `scrub` replaces it however it is stored (escaped, with `+`
/// for a space in a query, gzip in gzip), so `verify --fail-on low` passes on the copy.
@Suite struct EncodedFormTests {
    static let token = "gh" + "p_" + String(repeating: "e5cP", count: 9)
    static let password = "Plain" + "Secret" + "42x"

    static func network(_ seq: Int, url: String = "https://api.example.test/v1/x", body: String) -> String {
        #"{"type":"network","seq":\#(seq),"ts":"2026-11-29T10:15:0\#(seq).000Z","id":"rec_\#(seq)","source":"sdk","kind":"http","category":"call","method":"POST","url":"\#(url)","state":"success","statusCode":200,"duration":0.1,"request":{"headers":[],"body":\#(body)}}"#
    }

    static func text(_ t: String) -> String {
        var q = ""
        JSONOut.quote(t, into: &q)
        return #"{"size":\#(t.utf8.count),"contentType":"application/json","encoding":"utf8","text":\#(q)}"#
    }

    /// `{"x":"gh\u0070_…"}` and `{"token":"\u0050lain…"}` as a body's text: decoded, each is a credential.
    static var escapedToken: String { #"{"x":"gh\u0070"# + String(token.dropFirst(3)) + #""}"# }
    static var escapedPassword: String { #"{"token":"\u0050"# + String(password.dropFirst()) + #""}"# }

    static func export() throws -> String {
        let gz2 = try DeflateStream.gzip(try DeflateStream.gzip(Array(#"{"token":"\#(password)"}"#.utf8)))
        let b64 = #"{"size":\#(gz2.count),"contentType":"application/octet-stream","encoding":"base64","data":"\#(Base64.encode(gz2))"}"#
        return try Fixture.write([
            Fixture.header(),
            network(1, body: text(escapedToken)),
            network(2, body: text(escapedPassword)),
            network(3, url: "https://api.example.test/v1/x?token=\(password)+more", body: #"{"size":0}"#),
            network(4, body: b64),
            network(5, url: "https://api.example.test/v1/x?x=" + twice(token), body: #"{"size":0}"#),
            network(
                6, url: "https://api.example.test/v1/x?redirect=" + every("https://b.example.test/cb?token=" + password),
                body: #"{"size":0}"#)
        ])
    }

    /// Every byte as `%XX`; and that again (a value percent-encoded twice).
    static func every(_ s: String) -> String { s.utf8.map { String(format: "%%%02X", $0) }.joined() }
    static func twice(_ s: String) -> String { every(every(s)) }

    /// A query value percent-encoded twice, and a URL with a listed parameter inside a query value
    /// (a redirect target), are found, masked in place, and replaced by `scrub`.
    @Test func nestedQueryValuesAreFoundAndMasked() throws {
        let path = try Self.export()
        let v = runCLI(["verify", path])
        #expect(v.out.contains("?x") && v.out.contains("?redirect ?token"), "\(v.out)")
        let w = runCLI(["waterfall", path, "--format", "csv"])
        #expect(w.out.contains("?x=***") && w.out.contains("?redirect=***"), "\(w.out)")
        #expect(!w.out.contains(Self.twice(Self.token)) && !w.out.contains(Self.every("https://b.example.test/cb?token=" + Self.password)))
        // `records` and `har` print the URL as a text: masked there too.
        for args in [["records", path], ["har", path]] {
            let r = runCLI(args)
            #expect(!r.out.contains(Self.twice(Self.token).prefix(60)), "\(args) prints the twice-encoded token")
        }
    }

    /// A HAR websocket message sent as binary (base64) holding a listed field: `records` prints the
    /// record whole, and the message's base64 text decodes back to the value, so it goes.
    @Test func base64WebSocketMessageIsNotPrinted() throws {
        let b64 = Data(#"{"token":"\#(Self.password)"}"#.utf8).base64EncodedString()
        let entry = HARFixture.entry(
            url: "wss://api.example.test/socket",
            extra: ["_webSocketMessages": [["type": "receive", "time": 1.0, "opcode": 2, "data": b64]]])
        let path = try HARFixture.write(HARFixture.document(creator: "WebInspector", entries: [entry]))
        #expect(runCLI(["verify", path]).status == 1)
        for args in [["records", path], ["records", path, "--format", "csv"]] {
            let r = runCLI(args)
            #expect(!r.out.contains(b64.prefix(24)) && !Self.leaks(r.out), "\(args) prints the message:\n\(r.out)")
        }
    }

    /// The token's distinctive middle, in any output: the escaped form spells all of it but one letter.
    static func leaks(_ s: String) -> Bool {
        s.contains(String(token.dropFirst(8).prefix(16))) || s.contains(String(password.dropFirst(2)))
    }

    @Test func escapedCredentialIsNeverPrinted() throws {
        let path = try Self.export()
        for args in [
            ["records", path], ["records", path, "--format", "csv"], ["har", path], ["show", path, "1"], ["show", path, "2", "--json"]
        ] {
            let r = runCLI(args)
            #expect(!Self.leaks(r.out) && !Self.leaks(r.err), "\(args.joined(separator: " ")) prints the credential:\n\(r.out)")
        }
    }

    @Test func scrubReplacesEveryStoredForm() throws {
        let path = try Self.export()
        let before = runCLI(["verify", path, "--fail-on", "low"])
        #expect(before.status == 1)
        let out = try makeTempDir().appendingPathComponent("scrubbed.jsonl")
        let s = runCLI(["scrub", path, "-o", out.path])
        #expect(s.status == 0, "\(s.err)")
        let after = runCLI(["verify", out.path, "--fail-on", "low"])
        #expect(after.status == 0, "verify finds in scrub's copy:\n\(after.out)")
        let bytes = String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self)
        #expect(!Self.leaks(bytes))
    }

    /// `har` checks a record once, not once per transaction: a record with thousands of
    /// transactions (each an entry) took minutes, growing with the square of their number.
    @Test func harScansARecordOncePerRecord() throws {
        let tx = #"{"fetchStart":"2026-11-29T10:15:02.000Z","responseEnd":"2026-11-29T10:15:03.000Z"}"#
        let txs = Array(repeating: tx, count: 4000).joined(separator: ",")
        let line =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"r1","method":"GET","url":"https://a.example.test/","state":"success","statusCode":200,"duration":0.1,"metrics":{"transactions":[\#(txs)]}}"#
        let path = try Fixture.write([Fixture.header(), line])
        let start = Date()
        let r = runCLI(["har", path])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.components(separatedBy: "\"_recordId\":\"r1\"").count == 4001)
        #expect(Date().timeIntervalSince(start) < 60)
    }
}
