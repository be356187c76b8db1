import Foundation
@_spi(Testing) import SiftCore
import SiftTestSupport
import SiftVerify
import Testing

/// The one redactor and the escapers that run after it.
@Suite struct RedactionTests {
    /// A GitHub token, assembled at run time.
    static let token = "gh" + "p_" + String(repeating: "a1B2", count: 9)

    @Test func untrustedNeverPrintsItself() {
        let u = Untrusted("secret " + Self.token)
        #expect(!"\(u)".contains(Self.token))
        #expect(!String(describing: u).contains(Self.token))
        #expect(!String(reflecting: u).contains(Self.token))
    }

    @Test func textIsRedactedWhateverItsForm() {
        let r = Redactor.verify()
        let t = Self.token
        #expect(!r.text(Untrusted("user " + t + " signed in")).value.contains(t))
        #expect(r.text(Untrusted("nothing to hide")).value == "nothing to hide")
        // Percent-encoded: the stored form decodes to the token.
        let pct = t.utf8.map { String(format: "%%%02X", $0) }.joined()
        let out = r.text(Untrusted("see /x?q=" + pct)).value
        #expect(!out.contains(pct) && !out.contains(t))
        // A value a verify pass found, whatever its shape.
        let known = Redactor.verify(known: ["hunter2-long"])
        #expect(known.text(Untrusted("password hunter2-long here")).value == "password " + SecretMask.preview("hunter2-long") + " here")
    }

    @Test func urlsAreRedactedByTheirStructure() {
        let r = Redactor.verify()
        #expect(r.url(Untrusted("https://u:pw@a.example/p?token=abc&q=1#f")).value == "https://a.example/p?token=***&q=1#f")
        #expect(!r.url(Untrusted("https://a.example/" + Self.token + "/x")).value.contains(Self.token))
        #expect(r.url(Untrusted("https://a.example/p?q=" + Self.token)).value == "https://a.example/p?q=***")
    }

    @Test func namesAreRedactedInJSON() {
        let r = Redactor.verify()
        let out = r.json(.object([Self.token: .string("v"), "k": .array([.string(Self.token)])])).value.render(pretty: false)
        #expect(!out.contains(Self.token))
    }

    @Test func findingsAreRedacted() {
        let f = Finding(
            rule: Rule("integrity.unknown-type", .info, "a test rule").ref, severity: .info, input: "x",
            location: "request.body $." + Self.token,
            message: "unknown record type '\(Self.token)'")
        let g = f.redacted(by: .verify())
        #expect(!(g.location ?? "").contains(Self.token) && !g.message.contains(Self.token))
    }

    @Test func csvHasNoRawControlCharacters() {
        let hostile = "a\u{1B}]52;c;aGk=\u{07}b\r\u{1B}]8;;http://x\u{1B}\\c\u{202E}d\u{85}"
        let cell = Escape.csvField(hostile)
        #expect(!cell.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
        #expect(!cell.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) })
        #expect(cell.contains("\\x1b]52"))
    }

    @Test func xmlHasNoBidiOrC1() {
        let out = Escape.xml("a\u{202E}b\u{2066}c\u{85}d\u{1B}e")
        #expect(
            !out.unicodeScalars.contains {
                (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
                    || (0x2066...0x2069).contains($0.value) || $0.value == 0x1B
            })
        #expect(out.contains("\\u{202e}"))
    }
}

extension RedactionTests {
    @Test func redactingTwiceChangesNothing() {
        let r = Redactor.verify()
        for text in [
            "for AWSAccessKeyId=" + "AKIA" + "IOSFODNN7EXAMPLE" + " done", "token=" + "abcdef123456 and more",
            "user " + Self.token, "{\"password\":\"hunter2-long\"}"
        ] {
            let once = r.text(Untrusted(text)).value
            #expect(once != text)
            #expect(r.text(Untrusted(once)).value == once, "\(once)")
        }
    }
}

/// Once a header or cookie value is known to be secret, so is each secret it is made of: the bare
/// token of `Bearer X`, the pair and the password of `Basic X`, each cookie value. Every copy of
/// them in any other text is masked, not only the one beside its scheme or name.
@Suite struct KnownValuePartsTests {
    static func random(_ seed: UInt64, _ n: Int) -> String {
        var g = SeededGenerator(seed: seed)
        let a = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        return String((0..<n).map { _ in a[g.below(a.count)] })
    }

    @Test func thePartsOfAKnownValueAreMaskedAlone() {
        let token = Self.random(11, 32), sid = Self.random(12, 24), password = Self.random(13, 14)
        let basic = Base64.encode(Array(("deploy:" + password).utf8))
        let r = Redactor.identity(known: ["Bearer " + token, "sid=" + sid + "; lang=en", "Basic " + basic])
        let text = "retry with \(token), cookie \(sid), user deploy/\(password), raw \(basic)"
        let out = r.text(text.untrusted).value
        for secret in [token, sid, password, basic] { #expect(!out.contains(secret), "\(out)") }
        #expect(out.contains("deploy/") && out.contains("retry with "))
        // Short parts (`lang=en`) are not secrets alone.
        #expect(Redactor.identity(known: ["sid=" + sid + "; lang=en"]).text("lang en".untrusted).value == "lang en")
    }
}
