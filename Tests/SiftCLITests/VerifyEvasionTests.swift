import Foundation
import Testing
@testable import SiftCLI
import SiftCore

/// Credentials dressed to slip past the name lists and the shapes: each is reported by `verify` and
/// masked in `records` and `waterfall --format json`. Values are assembled at run time; none is a literal.
@Suite(.serialized) struct VerifyEvasionTests {
    /// A random-looking value of `count` characters from a seeded generator (no provider prefix).
    static func random(_ seed: UInt64, _ count: Int = 20) -> String {
        let a = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var x = seed &* 6364136223846793005 &+ 1442695040888963407
        var s = ""
        while s.count < count {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            s.append(a[Int((x >> 33) % UInt64(a.count))])
        }
        // Make sure the classes mix whatever the generator gave.
        return "Q7" + s.dropFirst(2)
    }

    /// A low-entropy secret no shape knows: only the name says what it is.
    static var plain: String { "letme" + "in" + "4821" }

    static func network(url: String, headers: String = "[]", body: String = "null") -> String {
        #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","source":"sdk","kind":"http","category":"call","method":"POST","url":"\#(url)","state":"success","statusCode":200,"duration":0.1,"request":{"headers":\#(headers),"body":\#(body)}}"#
    }

    static func log(_ message: String) -> String {
        #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.500Z","level":"info","label":"x","message":\#(VerifyBypassTests.json(message))}"#
    }

    /// `verify` reports `rule` (at `severity` when given); `records` and `waterfall --format json` never print `secret`.
    /// A medium finding alone leaves the exit status at 0 (the default threshold is high).
    static func check(
        _ line: String, secret: String, rule: String, severity: String? = nil, status: Int32 = 1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let path = try VerifyBypassTests.session([line])
        let v = try VerifyBypassTests.verify([path])
        let mine = v.findings.filter { $0["rule"]?.string == rule }
        #expect(!mine.isEmpty, "rules: \(v.rules)", sourceLocation: sourceLocation)
        if let severity { #expect(mine.contains { $0["severity"]?.string == severity }, sourceLocation: sourceLocation) }
        #expect(v.status == status, sourceLocation: sourceLocation)
        for args in [["records", path], ["waterfall", "--format", "json", path]] {
            let r = try Binary.run(args)
            #expect(!r.out.contains(secret) && !r.err.contains(secret), "\(args[0]) printed the value", sourceLocation: sourceLocation)
        }
    }

    @Test func headerNameWithWhiteSpaceIsStillListed() throws {
        for name in ["Authorization ", " X-Api-Key", "AUTHORIZATION\\t", "Cook ie"] {
            let headers = #"[{"name":"\#(name)","value":"\#(Self.plain)"}]"#
            try Self.check(Self.network(url: "https://api.example.test/x", headers: headers), secret: Self.plain, rule: "redaction.header")
        }
    }

    @Test func bracketedQueryNamesAreStillListed() throws {
        for name in ["token[]", "token[0]", "user[token]", "token%5B%5D", "auth[password][]"] {
            try Self.check(
                Self.network(url: "https://api.example.test/x?a=1&\(name)=\(Self.plain)"), secret: Self.plain,
                rule: "redaction.query")
        }
    }

    @Test func headerLinesInFreeTextAreSeen() throws {
        let v = Self.random(31)
        for text in [
            "curl -H 'X-Api-Key: \(v)' https://api.example.test", "curl -H \"Authorization: \(v)\" https://api.example.test",
            "X-API-KEY: \(v)", "APIKEY=\(v)", "curl -H 'Authorization: Token \(v)'", "form user[token]=\(v) sent",
            "retry token[0]=\(v)"
        ] {
            try Self.check(Self.log(text), secret: v, rule: "secret.generic-secret", severity: "high", status: 1)
        }
    }

    @Test func randomUserNameInURLUserinfoIsACredential() throws {
        let v = Self.random(41, 24)
        try Self.check(
            Self.network(url: "https://\(v)@git.example.test/repo.git"), secret: v, rule: "redaction.url-userinfo", severity: "medium",
            status: 0)
        try Self.check(
            Self.log("cloning https://\(v)@git.example.test/repo.git"), secret: v, rule: "redaction.url-userinfo", severity: "medium",
            status: 0)
        // A plain user name is not.
        let clean = try VerifyBypassTests.verify([
            try VerifyBypassTests.session([Self.log("cloning https://deploy@git.example.test/r.git")])
        ])
        #expect(clean.rules.isEmpty)
    }

    @Test func shortBearerValuesAreFound() throws {
        let v = Self.random(51, 15)
        try Self.check(Self.log("retrying with Bearer \(v) now"), secret: v, rule: "secret.bearer")
        let headers = #"[{"name":"X-Upstream","value":"Bearer \#(v)"}]"#
        try Self.check(Self.network(url: "https://api.example.test/x", headers: headers), secret: v, rule: "secret.bearer")
        for text in ["Bearer\t\(v)", "bearer: \(v)"] { try Self.check(Self.log(text), secret: v, rule: "secret.bearer") }
        // Prose after the word is not a token.
        let clean = try VerifyBypassTests.verify([try VerifyBypassTests.session([Self.log("Bearer authentication failed")])])
        #expect(clean.rules.isEmpty)
    }

    @Test func jsonSerialisedInAJSONStringIsWalked() throws {
        // {"data":"{\"token\":\"…\"}"} as the body text, which is itself a JSON string in the record.
        let inner = "{\"token\":\"" + Self.plain + "\"}"
        let outer = "{\"data\":" + VerifyBypassTests.json(inner) + "}"
        let body =
            #"{"size":\#(outer.utf8.count),"contentType":"application/json","encoding":"utf8","text":\#(VerifyBypassTests.json(outer))}"#
        try Self.check(Self.network(url: "https://api.example.test/x", body: body), secret: Self.plain, rule: "redaction.body-field")
        // Twice serialised, too.
        let twice = "{\"envelope\":" + VerifyBypassTests.json(outer) + "}"
        let body2 =
            #"{"size":\#(twice.utf8.count),"contentType":"application/json","encoding":"utf8","text":\#(VerifyBypassTests.json(twice))}"#
        try Self.check(Self.network(url: "https://api.example.test/x", body: body2), secret: Self.plain, rule: "redaction.body-field")
    }

    @Test func jsonSerialisedInAMetadataValueIsWalked() throws {
        let inner = "{\"token\":\"" + Self.plain + "\"}"
        let line =
            #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.500Z","level":"info","label":"x","message":"ok","metadata":{"payload":\#(VerifyBypassTests.json(inner))}}"#
        try Self.check(line, secret: Self.plain, rule: "redaction.metadata-field")
    }
}
