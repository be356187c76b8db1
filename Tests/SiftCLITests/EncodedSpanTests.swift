import Foundation
import Testing
@testable import SiftCLI
import SiftCore

/// Credentials written encoded inside a string (base64 of either alphabet, hex, percent-encoded base64)
/// or glued to the text before them: `verify` reports each, naming the decoding in the location, with
/// the encoded run as the value, so `scrub` replaces the bytes that stand in the export. Encoded
/// text that holds no credential (prose, images, hashes, ids) is never reported. The cases are data,
/// run through the built binary; every credential is assembled at run time.
@Suite(.serialized) struct EncodedSpanTests {
    // MARK: values, assembled at run time

    /// `count` characters of a seeded generator over `alphabet`, starting with `head` (which makes
    /// the classes mix whatever the generator gives).
    static func random(
        _ seed: UInt64, _ count: Int, head: String = "Q7d",
        alphabet: String = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    ) -> String {
        let a = Array(alphabet)
        var x = seed &* 6364136223846793005 &+ 1442695040888963407
        var s = head
        while s.count < count {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            s.append(a[Int((x >> 33) % UInt64(a.count))])
        }
        return s
    }

    static let github = checksummedGitHub(3)
    /// GitHub's shape without its checksum.
    static let githubShape = "gh" + "p_" + random(3, 36)
    /// A GitHub token as GitHub issues them: 30 random characters, then their CRC-32 (computed here,
    /// bit by bit) in six base-62 digits.
    static func checksummedGitHub(_ seed: UInt64) -> String {
        let body = random(seed, 30)
        var crc: UInt32 = 0xFFFF_FFFF
        for b in body.utf8 {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        var v = UInt64(~crc), digits = ""
        let dict = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        for _ in 0..<6 {
            digits = String(dict[Int(v % 62)]) + digits
            v /= 62
        }
        return "gh" + "p_" + body + digits
    }
    static let stripe = "sk" + "_live_" + random(5, 24)
    static let aws = "AK" + "IA" + random(7, 16, head: "Z2", alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    /// Workspace and user ids that spell a sequence: the secret part after them is random.
    static let slack = "xo" + "xb-" + "1234567890-1234567890123-" + random(9, 24)

    /// A signed JWT: a JSON header and payload, base64url, and a random signature.
    static let jwt = b64url(#"{"alg":"HS256","typ":"JWT"}"#) + "." + b64url(#"{"sub":"user-42","iat":1764400000}"#) + "." + random(17, 43)

    static func b64(_ s: String) -> String { Data(s.utf8).base64EncodedString() }
    static func b64(_ b: [UInt8]) -> String { Data(b).base64EncodedString() }
    static func b64url(_ s: String) -> String {
        b64(s).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    static func hex(_ s: String) -> String { s.utf8.map { String(format: "%02x", $0) }.joined() }
    /// Percent-encoding as most URL builders do it: `/` kept, `+` and `=` encoded.
    static func pct(_ s: String) -> String {
        s.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")) ?? s
    }
    /// Bytes of a seeded generator (random, image-like data).
    static func bytes(_ seed: UInt64, _ count: Int, head: [UInt8] = []) -> [UInt8] {
        var x = seed &* 6364136223846793005 &+ 1442695040888963407
        var out = head
        while out.count < count {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            out.append(UInt8(truncatingIfNeeded: x >> 40))
        }
        return out
    }

    // MARK: records

    static func json(_ s: String) -> String { VerifyBypassTests.json(s) }

    static func network(
        url: String = "https://api.example.test/v1/x", headers: [(String, String)] = [], body: String? = nil,
        requestId: String = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
    ) -> String {
        let hs = headers.map { #"{"name":\#(json($0.0)),"value":\#(json($0.1))}"# }.joined(separator: ",")
        let b =
            body.map { #"{"size":\#($0.utf8.count),"contentType":"application/json","encoding":"utf8","text":\#(json($0))}"# }
            ?? #"{"size":0}"#
        return
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","source":"sdk","kind":"http","category":"call","method":"POST","url":\#(json(url)),"state":"success","statusCode":200,"duration":0.1,"requestId":\#(json(requestId)),"request":{"headers":[\#(hs)],"body":\#(b)}}"#
    }

    static func log(_ message: String, metadata: String = "{}") -> String {
        #"{"type":"log","seq":1,"ts":"2026-11-29T10:15:03.500Z","level":"info","label":"x","message":\#(json(message)),"metadata":\#(metadata)}"#
    }

    static func body(_ object: [String: String]) -> String {
        "{" + object.sorted { $0.key < $1.key }.map { json($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
    }

    // MARK: cases

    struct Case: CustomStringConvertible {
        var name: String
        var line: String
        /// The rule and severity `verify` reports; nil: no `secret.*` or `redaction.*` finding at all.
        var rule: String?
        var severity: String? = nil
        /// What the finding's location ends with.
        var located: String? = nil
        /// Bytes that must not survive `scrub` (the encoded form as stored).
        var stored: String? = nil
        var description: String { name }
    }

    static let found: [Case] = [
        Case(
            name: "base64 JSON body value", line: network(body: body(["nested": b64(stripe)])),
            rule: "secret.stripe-key", severity: "critical", located: "$.nested (base64-decoded)", stored: b64(stripe)),
        Case(
            name: "base64 of text with a token in a body value", line: network(body: body(["data": b64("token " + github)])),
            rule: "secret.github-token", severity: "critical", located: "$.data (base64-decoded)", stored: b64("token " + github)),
        Case(
            name: "base64 header value", line: network(headers: [("X-Debug", b64(github))]),
            rule: "secret.github-token", located: "request.headers[X-Debug] (base64-decoded)", stored: b64(github)),
        Case(
            name: "percent-encoded base64 query value", line: network(url: "https://api.example.test/x?d=" + pct(b64(github + "!"))),
            rule: "secret.github-token", located: "?d (base64-decoded)", stored: pct(b64(github + "!"))),
        Case(
            name: "unpadded base64url with text glued around the key", line: network(body: body(["d": b64url("x" + aws + "?>")])),
            rule: "secret.aws-access-key", severity: "critical", located: "$.d (base64-decoded)", stored: b64url("x" + aws + "?>")),
        Case(
            name: "hex body value", line: network(body: body(["d": hex(github)])),
            rule: "secret.github-token", located: "$.d (hex-decoded)", stored: hex(github)),
        Case(
            name: "base64 in a log message", line: log("debug dump " + b64("auth=" + github) + " end"),
            rule: "secret.github-token", located: "log.message (base64-decoded)", stored: b64("auth=" + github)),
        Case(
            name: "base64 in a metadata value", line: log("m", metadata: #"{"blob":\#(json(b64(stripe)))}"#),
            rule: "secret.stripe-key", located: "(base64-decoded)", stored: b64(stripe)),
        Case(
            name: "base64 in a URL path segment", line: network(url: "https://api.example.test/v1/" + b64url(github) + "/x"),
            rule: "secret.github-token", located: "(base64-decoded)", stored: b64url(github)),
        Case(
            name: "base64 glued to a word", line: network(body: body(["d": "key_" + b64url("token " + github)])),
            rule: "secret.github-token", located: "(base64-decoded)", stored: b64url("token " + github)),
        Case(
            name: "hex inside base64", line: network(body: body(["d": b64(hex(github))])),
            rule: "secret.github-token", located: "$.d (base64-decoded, then hex-decoded)", stored: b64(hex(github))),
        Case(
            name: "percent-encoding inside base64",
            line: network(body: body(["d": b64("cb?t=" + pct(github).replacingOccurrences(of: "_", with: "%5F"))])),
            rule: "secret.github-token", located: "(base64-decoded, then percent-decoded)"),
        Case(
            name: "token glued to a word in a body value", line: network(body: body(["d": "abc" + github])),
            rule: "secret.github-token", severity: "critical", located: "$.d", stored: github),
        Case(
            name: "GitHub token glued on both sides, its checksum right",
            line: network(body: body(["d": "abc" + checksummedGitHub(13) + "Zq9"])),
            rule: "secret.github-token", severity: "critical", located: "$.d", stored: checksummedGitHub(13)),
        Case(
            name: "GitHub token in a run past 255 characters, its checksum right", line: log(checksummedGitHub(14) + random(15, 300)),
            rule: "secret.github-token", severity: "critical", stored: checksummedGitHub(14)),
        Case(
            name: "Slack token glued to a URL fragment", line: network(url: "https://a.example.test/x#frag" + slack),
            rule: "secret.slack-token", severity: "critical", stored: slack),
        Case(
            name: "Slack token alone in a URL fragment (ids spelling a sequence)", line: network(url: "https://a.example.test/x#" + slack),
            rule: "secret.slack-token", severity: "critical", stored: slack),
        Case(
            name: "Stripe key glued to a word", line: log("key=mask" + stripe), rule: "secret.stripe-key", severity: "critical",
            stored: stripe),
        Case(
            name: "AWS key id glued after a lowercase letter", line: log("id" + aws + " set"), rule: "secret.aws-access-key",
            severity: "critical", stored: aws),
        Case(
            name: "JWT glued after the request id's prefix", line: network(requestId: "req_" + jwt),
            rule: "secret.jwt", severity: "high", stored: jwt),
        Case(
            name: "JWT glued to a word in a log message", line: log("session=abc" + jwt + " refreshed"),
            rule: "secret.jwt", severity: "high", stored: jwt),
        Case(
            name: "fine-grained PAT glued to a word", line: log("pat:x" + "github" + "_pat_" + random(11, 22) + "_" + random(12, 59)),
            rule: "secret.github-pat", severity: "critical")
    ]

    static let clean: [Case] = [
        Case(
            name: "a prefix glued on both sides without a GitHub checksum", line: network(body: body(["d": "abc" + githubShape + "Zq9"])),
            rule: nil),
        Case(
            name: "eyJ glued to a word, its second part not JSON",
            line: log("x_eyJ" + random(18, 30) + "." + random(19, 40) + "." + random(20, 30)), rule: nil),
        Case(
            name: "base64 of prose",
            line: network(body: body(["d": b64("The quick brown fox jumps over the lazy dog, twice, for the test.")])), rule: nil),
        Case(name: "random base64", line: network(body: body(["d": b64(bytes(21, 96))])), rule: nil),
        Case(
            name: "image-like base64",
            line: network(
                body: body([
                    "avatar": "data:image/png;base64,"
                        + b64(bytes(22, 600, head: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52]))
                ])), rule: nil),
        Case(
            name: "JPEG-like base64 in a header",
            line: network(headers: [("X-Thumb", b64(bytes(23, 300, head: [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0x49, 0x46])))]),
            rule: nil),
        Case(
            name: "UUIDs and request ids",
            line: network(
                url: "https://api.example.test/v1/orders/6f1d2c3b-4e3b-4a57-9c2d-3e4f5a6b7c8d?req=req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b",
                body: body([
                    "id": "8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b", "ids": "8b0e4c2a6f1d4e3b9a571c2d3e4f5a6b_6f1d2c3b4e3b4a579c2d3e4f5a6b7c8d"
                ])), rule: nil),
        Case(
            name: "hashes",
            line: network(
                body: body([
                    "sha256": String(repeating: "9f86d081884c7d659a2feaa0c55ad015", count: 2),
                    "sha1": "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
                    "md5": "9e107d9d372bb6826bd81d3542a419d6",
                    "etag": "W/\"" + String(repeating: "a3f5c2d1", count: 8) + "\""
                ])), rule: nil),
        Case(name: "hex of prose", line: network(body: body(["d": hex("nothing secret in here, only words and numbers 12")])), rule: nil),
        Case(
            name: "base64 of a short word with a prefix in it",
            line: network(body: body(["d": b64("ghp_ is GitHub's prefix, sk_live_ is Stripe's")])), rule: nil),
        Case(
            name: "words holding sk_live and AKIA",
            line: log(
                "risk_live_monitoringEnabledForTenant2024 task_live_4f3a2b1c9d8e7f6a5b4c3d2e SLOVAKIAREGIONALOFFICE21 Slovakia wAKIAREGIONALNAMESXYZ"
            ), rule: nil),
        Case(
            name: "identifiers holding a GitHub prefix",
            line: log("uniform highp_precisionShaderConstantDefaultValueX1 and tghp_" + String(repeating: "a", count: 36)), rule: nil),
        Case(name: "a word before xoxb without its numeric id", line: log("sandboxoxb-notes-for-the-readme-and-the-changelog"), rule: nil),
        Case(
            name: "a URL path of words",
            line: network(url: "https://api.example.test/Users/Accounts/NotificationSettings/DefaultPreferences"), rule: nil)
    ]

    static func verify(_ path: String, _ extra: [String] = []) throws -> VerifyBypassTests.Verdict {
        try VerifyBypassTests.verify([path] + extra)
    }

    static func credentials(_ v: VerifyBypassTests.Verdict) -> [JSONValue] {
        v.findings.filter { ($0["rule"]?.string ?? "").hasPrefix("secret.") || ($0["rule"]?.string ?? "").hasPrefix("redaction.") }
    }

    @Test(arguments: found) func encodedOrGluedCredentialIsFound(_ c: Case) throws {
        let path = try VerifyBypassTests.session([c.line])
        let v = try Self.verify(path, ["--fail-on", "low"])
        let mine = v.findings.filter { $0["rule"]?.string == c.rule }
        #expect(!mine.isEmpty, "\(c.name): rules \(v.rules)")
        if let severity = c.severity { #expect(mine.contains { $0["severity"]?.string == severity }, "\(c.name): \(mine)") }
        if let located = c.located {
            #expect(
                mine.contains { ($0["location"]?.string ?? "").hasSuffix(located) },
                "\(c.name): \(mine.map { $0["location"]?.string ?? "" })")
        }
        #expect(v.status == 1)
        // The value is the encoded run, never printed: its preview shows four characters of it.
        let out = try Binary.run(["verify", path]).out
        if let stored = c.stored { #expect(!out.contains(stored.prefix(12)), "\(c.name): verify printed the stored form") }
        // scrub replaces what verify found: the copy holds no stored form and verifies clean.
        let copy = try makeTempDir().appendingPathComponent("scrubbed.jsonl").path
        let s = try Binary.run(["scrub", path, "-o", copy])
        #expect(s.status == 0, "\(c.name): \(s.err)")
        let text = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: copy))) ?? Data(), as: UTF8.self)
        if let stored = c.stored { #expect(!text.contains(stored), "\(c.name): scrub left the stored form") }
        let after = try Self.verify(copy, ["--fail-on", "low"])
        #expect(Self.credentials(after).isEmpty, "\(c.name): the scrubbed copy still has \(after.rules)")
    }

    @Test(arguments: clean) func encodedTextWithoutACredentialIsClean(_ c: Case) throws {
        let v = try Self.verify(try VerifyBypassTests.session([c.line]), ["--fail-on", "low"])
        #expect(
            Self.credentials(v).isEmpty,
            "\(c.name): \(v.findings.map { ($0["rule"]?.string ?? "") + " " + ($0["location"]?.string ?? "") })")
        #expect(v.status == 0)
    }

    /// A credential found as it stands is not found again decoded: a JWT (base64url parts) and a
    /// base64-wrapped JWT are one finding each.
    @Test func aRunADetectorMatchedIsNotDecodedAgain() throws {
        let header = Self.b64url(#"{"alg":"HS256","typ":"JWT"}"#)
        let payload = Self.b64url(#"{"sub":"1234567890","name":"A B","iat":1516239022}"#)
        let jwt = header + "." + payload + "." + Self.random(13, 43)
        let v = try Self.verify(try VerifyBypassTests.session([Self.network(body: Self.body(["a": jwt, "b": Self.b64(jwt)]))]))
        let rules = Self.credentials(v).compactMap { $0["rule"]?.string }.sorted()
        #expect(rules == ["secret.jwt", "secret.jwt-base64"], "\(rules)")
    }

    /// A random value under a credential-like name is the generic medium finding; once it decodes to a
    /// provider's token, that token's finding stands instead (one finding, critical).
    @Test func aDecodedTokenReplacesTheGenericFindingOnTheSameRun() throws {
        let v = try Self.verify(try VerifyBypassTests.session([Self.network(headers: [("X-Api-Token", Self.b64(Self.github))])]))
        let rules = Self.credentials(v).compactMap { $0["rule"]?.string }
        #expect(rules == ["secret.github-token"], "\(rules)")
    }
}
