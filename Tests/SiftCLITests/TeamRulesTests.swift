import Foundation
import Testing

/// A team's own rules (`--rules` with a gitleaks config or pbsift's JSON form, `rules` in the config
/// file), through the built binary: found by verify and masked by scrub like pbsift's own; a rule
/// that does not compile, misses its example or finds its counterexample is a usage error naming it;
/// a pattern that backtracks stops at its budget and says so (exit 2), never hangs.
@Suite(.serialized) struct TeamRulesTests {
    /// The credential the team's rule describes, assembled at test time.
    static let key = "acme_" + ["k3v9q2", "m8x1z7", "p4w6r0", "t5y2u8", "b7n3c1", "hd"].joined()

    /// An export folder whose one event carries `note` in an attribute.
    static func export(note: String) throws -> URL {
        let dir = try makeTempDir()
        let event =
            #"{"type":"event","seq":3,"ts":"2026-11-29T10:15:04.000Z","name":"client.configured","attributes":{"note":"# + jsonString(note)
            + "}}"
        let url = dir.appendingPathComponent(Fixture.sessionId + ".jsonl")
        try Data((Fixture.clean + [event]).joined(separator: "\n").appending("\n").utf8).write(to: url)
        return dir
    }

    static func jsonString(_ s: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [s]), as: UTF8.self).dropFirst().dropLast().description
    }

    static func file(_ name: String, _ text: String) throws -> String {
        let url = try makeTempDir().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static let gitleaks = """
        title = "acme"
        [extend]
        useDefault = true

        [[rules]]
        id = "acme-api-key"
        description = "ACME API key"
        regex = '''acme_(?P<key>[a-z0-9]{32})'''
        secretGroup = 1
        keywords = ["acme_"]
        entropy = 3.0
        examples = ["client = acme_\(String(repeating: "9a8b7c6d", count: 4))"]
        counterexamples = ["acme_short"]

        [[rules.allowlists]]
        stopwords = ["deadbeef"]

        [[rules]]
        id = "key-files"
        path = '''\\.pem$'''
        """

    @Test func aGitleaksRuleIsFoundAndMasked() throws {
        let rules = try Self.file("gitleaks.toml", Self.gitleaks)
        let dir = try Self.export(note: "configured the client with " + Self.key)
        let clean = try Binary.run(["verify", "-q", dir.path])
        #expect(clean.status == 0, "\(clean.out)")
        let r = try Binary.run(["verify", "--rules", rules, "--json", dir.path])
        #expect(r.status == 1, "\(r.err)")
        #expect(r.out.contains("\"secret.team.acme-api-key\""))
        #expect(!r.out.contains(String(Self.key.dropFirst(5))))
        // What the file says that an export cannot use is said, not dropped.
        #expect(r.err.contains("[extend] is not followed"))
        #expect(r.err.contains("rule 'key-files' matches file paths only"))
        // Every format names the rule; SARIF declares it.
        let sarif = try Binary.run(["verify", "-q", "--rules", rules, "--format", "sarif", dir.path])
        #expect(sarif.out.contains("\"secret.team.acme-api-key\""), "\(sarif.out.prefix(400))")
        let listed = try Binary.run(["rules", "--rules", rules])
        #expect(listed.out.contains("secret.team.acme-api-key"))
        // scrub masks what verify finds.
        let out = try makeTempDir().appendingPathComponent("copy").path
        let s = try Binary.run(["scrub", "-q", "--rules", rules, dir.path, "-o", out])
        #expect(s.status == 0, "\(s.err)")
        let copied = try String(contentsOfFile: out + "/" + Fixture.sessionId + ".jsonl", encoding: .utf8)
        #expect(!copied.contains(String(Self.key.dropFirst(5))))
    }

    @Test func aStopwordLetsAValueThrough() throws {
        let rules = try Self.file("gitleaks.toml", Self.gitleaks)
        let dir = try Self.export(note: "acme_" + String(repeating: "deadbeef", count: 4))
        let r = try Binary.run(["verify", "-q", "--rules", rules, dir.path])
        #expect(r.status == 0, "\(r.out)")
    }

    @Test func theConfigFilesRulesRunToo() throws {
        let dir = try Self.export(note: Self.key)
        let config = try Self.file(
            ".pbsift.json",
            #"{"rules": [{"id": "acme-json", "pattern": "acme_([a-z0-9]{32})", "keywords": ["acme_"], "severity": "critical", "examples": ["acme_"#
                + String(repeating: "0a1b2c3d", count: 4) + #""]}]}"#)
        let r = try Binary.run(["verify", "-q", "--config", config, "--json", dir.path])
        #expect(r.status == 1)
        #expect(r.out.contains("\"secret.team.acme-json\""))
        #expect(r.out.contains("\"critical\""))
    }

    /// Each broken rule file and the words its usage error must hold (exit 64).
    static let broken: [(name: String, text: String, says: String)] = [
        (
            "bad-pattern.toml", "[[rules]]\nid = \"bad\"\nregex = \"acme_([a-z\"\nkeywords = [\"acme_\"]\n",
            "rule 'bad': the pattern does not compile"
        ),
        (
            "misses.toml", "[[rules]]\nid = \"miss\"\nregex = \"acme_[0-9]{40}\"\nkeywords = [\"acme_\"]\nexamples = [\"acme_abc\"]\n",
            "rule 'miss': does not find its example 1"
        ),
        (
            "finds.toml",
            "[[rules]]\nid = \"wide\"\nregex = \"acme_[a-z]+\"\nkeywords = [\"acme_\"]\ncounterexamples = [\"acme_public\"]\n",
            "rule 'wide': finds its counterexample 1"
        ),
        ("syntax.toml", "[[rules]]\nid = \"x\"\nregex = \"acme_\n", "line 3: a string is not closed on its line"),
        ("no-keyword.toml", "[[rules]]\nid = \"loose\"\nregex = \"[a-z]{32}\"\n", "rule 'loose': no keyword"),
        (
            "deep.toml",
            "[[rules]]\nid = \"d\"\nregex = \"ab_\"\nkeywords = " + String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
                + "\n",
            "arrays nested deeper than 32"
        ),
        (
            "twice.json", #"[{"id":"a","pattern":"ab_[0-9]+","keywords":["ab_"]},{"id":"a","pattern":"cd_","keywords":["cd_"]}]"#,
            "rule 'a': two rules have this id"
        ),
        (
            "group.json", #"[{"id":"g","pattern":"ab_[0-9]+","keywords":["ab_"],"secretGroup":2}]"#,
            "secretGroup 2, but the pattern has 0 group(s)"
        )
    ]

    @Test(arguments: broken.indices) func aBrokenRuleIsAUsageErrorNamingIt(_ k: Int) throws {
        let c = Self.broken[k]
        let rules = try Self.file(c.name, c.text)
        let dir = try Self.export(note: "nothing here")
        let r = try Binary.run(["verify", "-q", "--rules", rules, dir.path])
        #expect(r.status == 64, "\(c.name): \(r.err)")
        #expect(r.err.contains("pbsift: \(rules): "), "\(r.err)")
        #expect(r.err.contains(c.says), "\(c.name): \(r.err)")
    }

    /// A pattern that backtracks exponentially on the text: stopped at its budget, reported as a bound
    /// (exit 2) in about a second, never a hang and never "clean".
    @Test func aPathologicalPatternCostsABoundNotAHang() throws {
        let rules = try Self.file(
            "slow.toml", "[[rules]]\nid = \"slow\"\nregex = \"configured (a|aa)+(a|aa)+$\"\nkeywords = [\"configured\"]\n")
        // Its keyword three thousand times in one value: one budget for the value, not one per keyword.
        let dir = try Self.export(note: String(repeating: "configured " + String(repeating: "a", count: 30) + "! ", count: 3000))
        let start = Date()
        let r = try Binary.run(["verify", "--rules", rules, "--json", dir.path])
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(r.status == 2, "\(r.out)")
        #expect(r.out.contains("\"verify.bound\""))
        #expect(r.out.contains("the team rule slow stopped at its step budget"))
    }
}
