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
        ])
    }

    /// The token's distinctive middle, in any output: the escaped form spells all of it but one letter.
    static func leaks(_ s: String) -> Bool {
        s.contains(String(token.dropFirst(8).prefix(16))) || s.contains(String(password.dropFirst(2)))
    }

    @Test func escapedCredentialIsNeverPrinted() throws {
        let path = try Self.export()
        for args in [["records", path], ["records", path, "--format", "csv"], ["har", path], ["show", path, "1"], ["show", path, "2", "--json"]] {
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
}
