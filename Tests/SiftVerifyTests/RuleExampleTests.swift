import Foundation
import Testing
@testable import SiftVerify

/// Every prefixed detector carries its shape as data (`PrefixShape`); its examples are made from it at
/// test time: two that it must find (the shortest and a longer body of its alphabet, classes mixed)
/// and two or three it must not (a body one character short, the prefix glued inside a word, a body
/// one character past the longest). One test runs every example of every rule.
@Suite struct RuleExampleTests {
    /// A body of `n` bytes of the shape's alphabet, cycling through its character classes so that it
    /// mixes them (as random tokens do), never in a run or sequence a placeholder check would reject.
    static func body(_ shape: PrefixShape, _ n: Int, seed: Int) -> String {
        let all = shape.body.members
        let classes = [
            all.filter { $0 >= 0x61 && $0 <= 0x7A }, all.filter { $0 >= 0x41 && $0 <= 0x5A }, all.filter { $0 >= 0x30 && $0 <= 0x39 }
        ]
        .filter { !$0.isEmpty }
        let pools = classes.isEmpty ? [all] : classes
        var out: [UInt8] = []
        var x = UInt64(truncatingIfNeeded: seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407)
        for i in 0..<n {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let pool = pools[(i + Int(x >> 60)) % pools.count]
            out.append(pool[Int((x >> 33) % UInt64(pool.count))])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether detector `d` matches at the prefix that starts at `at` in `text`.
    static func finds(_ d: Detector, _ text: String, at: Int, prefix: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { b in
            d.match(ScanInput(b: b, hints: []), at, prefix.utf8.count) != nil
        }
    }

    /// Detectors whose check needs what a generated body cannot hold (a decoding, a checksum): their
    /// examples are the hand-made ones of `DetectorTests` and `CorpusTests`.
    /// (Bedrock's short-term key decodes to a presigned URL; GitLab's prefixes each have their own
    /// length; a Sourcegraph token is 40 hex digits, or 16 and 40 around a `_`; a HubSpot token ends
    /// in a UUID, as do LaunchDarkly's keys and Amazon MWS tokens; a ClickUp token is a user id, `_` and 32 characters;
    /// a Mapbox secret token is a payload, `.` and a signature; an Airtable token an id, `.` and 64 hex digits; a Zuplo key
    /// 32 and 8 hex digits around `_`; a Doppler service token names its environment; an Akamai token
    /// has its `-` at a set place.)
    static let checkedByContent: Set<String> = [
        "aws-bedrock-short-term-key", "gitlab-token", "sourcegraph-token", "hubspot-private-app-token", "launchdarkly-key",
        "launchdarkly-mobile-key", "clickup-token", "amazon-mws-token", "resend-api-key", "intercom-access-token",
        "salesforce-access-token", "axiom-token", "mapbox-secret-token", "mapbox-public-token", "airtable-pat", "zuplo-api-key",
        "doppler-token", "akamai-edgegrid-token"
    ]

    static var shaped: [Detector] { detectorCatalogue.filter { $0.shape != nil } }

    @Test func mostDetectorsAreData() {
        #expect(Self.shaped.count >= 80, "\(Self.shaped.count)")
    }

    @Test(arguments: shaped.map(\.id))
    func everyExampleOfTheRule(_ id: String) throws {
        let d = try #require(detectorCatalogue.first { $0.id == id })
        let shape = try #require(d.shape)
        guard !Self.checkedByContent.contains(id) else { return }
        for (k, prefix) in shape.prefixes.prefix(3).enumerated() {
            let lead = "value: "
            let at = lead.utf8.count
            let short = shape.length.lowerBound
            let long = min(shape.length.upperBound, short + 9)
            // Found: the shortest body and a longer one.
            for n in Set([short, long]) {
                let text = lead + prefix + Self.body(shape, n, seed: k * 31 + n) + " end"
                #expect(Self.finds(d, text, at: at, prefix: prefix), "\(id): \(prefix) + \(n) not found")
            }
            // Not found: one short; glued inside a word (unless the rule allows that); one too long.
            if short > 1 {
                let text = lead + prefix + Self.body(shape, short - 1, seed: k) + " end"
                #expect(!Self.finds(d, text, at: at, prefix: prefix), "\(id): \(prefix) + \(short - 1) found")
            }
            if !shape.glued, let glue = shape.before.members.first(where: { $0 >= 0x61 && $0 <= 0x7A }) {
                let text = lead + String(UnicodeScalar(glue)) + prefix + Self.body(shape, short, seed: k) + " end"
                #expect(!Self.finds(d, text, at: at + 1, prefix: prefix), "\(id): glued \(prefix) found")
            }
            if !shape.clamp, shape.length.upperBound < 600 {
                let n = shape.length.upperBound + 1
                let text = lead + prefix + Self.body(shape, n, seed: k) + " end"
                #expect(!Self.finds(d, text, at: at, prefix: prefix), "\(id): \(prefix) + \(n) found")
            }
        }
    }
}

/// Every provider the name rule knows (`secret.provider-keyed-secret`): a key of a key's shape under
/// the provider's name is found at high or above, in two spellings; a reference and a short word under
/// the same name are not.
@Suite struct ProviderNameExampleTests {
    static func hits(_ text: String) -> [DetHit] {
        let bytes = Array(text.utf8)
        var out: [DetHit] = []
        bytes.withUnsafeBufferPointer { b in _ = DetectorEngine.shared(disabled: []).scan(ScanInput(b: b, hints: []), into: &out) }
        return out
    }

    @Test func theListIsLong() {
        #expect(ProviderNames.providers.count >= 600, "\(ProviderNames.providers.count)")
        #expect(Set(ProviderNames.words).count == ProviderNames.words.count, "a word listed twice")
    }

    /// Providers whose keys have documented shapes (`KeyedFormats`, exclusive): a value of another
    /// shape under their name is not their key, so a generic key is rightly not found there.
    static let shaped = Set(KeyedFormats.all.filter(\.exclusive).map(\.word))

    @Test(arguments: ProviderNames.words.filter { w in !shaped.contains { w.hasPrefix($0) } })
    func everyProviderName(_ word: String) {
        let key = RuleExampleTests.body(
            PrefixShape(prefixes: [], body: .alnum, length: 32...32, lowPrefixes: [], checked: false, clamp: false), 32, seed: word.count)
        for text in ["\(word)_api_key = \"\(key)\"", "\(word.uppercased())_TOKEN: \(key)"] {
            #expect(Self.hits(text).contains { $0.severity >= .high }, "\(word): \(text) not found")
        }
        for text in ["\(word)_api_key = \"${\(word.uppercased())_API_KEY}\"", "\(word)_token: \"changeme\""] {
            #expect(Self.hits(text).isEmpty, "\(word): \(text) found")
        }
    }
}

/// A team rule's keywords become anchors in four casings; a case mapping that shortens one (the
/// Kelvin sign `K` lowercases to one byte) never gives the engine an anchor under two bytes.
@Suite struct TeamRuleAnchorTests {
    @Test func everyAnchorIsTwoBytesOrMore() throws {
        let rule = TeamRule(id: "kelvin", pattern: "x_[0-9]{4}", keywords: ["\u{212A}", "ab"])
        let compiled = try CompiledTeamRule(rule)
        #expect(compiled.anchors.allSatisfy { $0.utf8.count >= 2 }, "\(compiled.anchors)")
        #expect(compiled.anchors.contains("\u{212A}") && compiled.anchors.contains("AB"))
    }

    /// The engine holds anchors under 256 bytes: a long keyword is refused, and a long literal a
    /// pattern starts with stands in by its first 32 characters.
    @Test func longKeywordsAndLiteralsStayShort() throws {
        let long = String(repeating: "k", count: 300)
        #expect(throws: TeamRuleError.self) { try CompiledTeamRule(TeamRule(id: "long", pattern: "x", keywords: [long])) }
        let lit = try CompiledTeamRule(TeamRule(id: "lit", pattern: long + "[0-9]{4}", keywords: []))
        #expect(lit.anchors.allSatisfy { $0.utf8.count <= 32 })
    }
}
