import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

private typealias F = Fake

/// The provider families added from the providers' documented formats: (detector id, text, value).
/// Values are assembled at run time from a seeded generator; none is a literal.
let providerSamples: [(id: String, value: String, before: String, severity: Severity?)] = {
    var c: [(String, String, String, Severity?)] = []
    func add(_ id: String, _ v: String, before: String = "value: ", severity: Severity? = nil) { c.append((id, v, before, severity)) }
    var seed: UInt64 = 500
    func s(_ n: Int, _ a: String) -> String { seed += 1; return F.s(n, a, seed: seed) }
    add("azure-ad-client-secret", s(3, F.alnum) + "8" + "Q~" + s(34, F.alnum + "_~.-"))
    add("aws-bedrock-api-key", "ABSK" + "QmVkcm9ja0FQSUtleS" + s(100, F.b64))
    add("onepassword-service-account-token", "ops_" + "eyJ" + s(160, F.b64url))
    add(
        "onepassword-secret-key",
        "A3-" + s(6, F.upperDigit) + "-" + s(6, F.upperDigit) + "-" + s(5, F.upperDigit) + "-"
            + s(5, F.upperDigit) + "-" + s(5, F.upperDigit) + "-" + s(5, F.upperDigit))
    add("artifactory-api-key", "AKCp" + s(69, F.alnum))
    add("artifactory-reference-token", "cmVmdGtu" + s(56, F.b64url))
    add("planetscale-token", "pscale_" + "tkn_" + s(43, F.alnum))
    add("planetscale-token", "pscale_" + "pw_" + s(43, F.alnum))
    add("flyio-token", "fm2_" + s(200, F.b64))
    add("flyio-org-token", "fo1_" + s(43, F.b64url))
    add("easypost-api-key", "EZAK" + s(54, F.alnum))
    add("easypost-api-key", "EZTK" + s(54, F.alnum), severity: .high)
    add("artifactory-reference-token", "cmVmd" + s(59, F.alnum))
    add("twitter-bearer-token", String(repeating: "A", count: 22) + s(90, F.alnum + "%"))
    add("sonarqube-token", "squ_" + s(40, F.hexLower))
    add("sonarqube-token", "sqp_" + s(40, F.hexLower))
    add("vault-legacy-token", "s." + s(8, F.upper) + s(8, F.lower) + s(8, F.digits))
    add("shippo-api-token", "shippo_" + "live_" + s(40, F.hexLower))
    add("notion-token", "ntn_" + s(11, F.digits) + s(35, F.alnum))
    add("notion-legacy-token", "secret_" + s(43, F.alnum))
    add("huggingface-org-token", "api_" + "org_" + s(34, F.upper + F.lower))
    add(
        "teams-webhook",
        "acme.webhook.office.com/webhookb2/" + F.uuid(seed: 601) + "@" + F.uuid(seed: 602) + "/IncomingWebhook/"
            + s(32, F.hexLower) + "/" + F.uuid(seed: 603), before: "post to https://")
    add("brevo-api-key", "xkeysib-" + s(64, F.hexLower) + "-" + s(16, F.alnum))
    add("adafruit-io-key", "aio_" + s(28, F.alnum))
    add("clojars-token", "CLOJARS_" + s(60, F.alnum))
    add("duffel-token", "duffel_" + "live_" + s(43, F.b64url))
    add("dropbox-token", "sl.u." + s(140, F.b64url))
    add("frameio-token", "fio-u-" + s(64, F.b64url))
    add("flutterwave-secret-key", "FLWSECK-" + s(32, F.hexLower) + "-X")
    add("flutterwave-encryption-key", "FLWSECK" + "_TEST" + "-" + s(12, F.hexLower), severity: .high)
    add("flutterwave-encryption-key", "FLWSECK" + s(12, F.hexLower))
    add("duffel-token", "duffel_" + "test_" + s(43, F.b64url + "="), severity: .high)
    add("prefect-api-key", "pnu_" + s(36, F.alnum))
    add("readme-api-key", "rdme_" + s(70, F.alnum))
    add("rubygems-api-key", "rubygems_" + s(48, F.hexLower))
    add("scalingo-token", "tk-us-" + s(48, F.b64url))
    add("supabase-token", "sbp_" + s(40, F.hexLower))
    add("tailscale-key", "tskey-" + "auth-" + s(17, F.alnum) + "-" + s(33, F.alnum))
    add("typeform-token", "tfp_" + s(44, F.b64url))
    add("netlify-token", "nfp_" + s(36, F.alnum))
    add("buildkite-token", "bkua_" + s(40, F.hexLower))
    add("render-api-key", "rnd_" + s(32, F.alnum))
    add("groq-api-key", "gsk_" + s(52, F.alnum))
    add("replicate-token", "r8_" + s(37, F.alnum))
    add("perplexity-api-key", "pplx-" + s(48, F.alnum))
    add("xai-api-key", "xai-" + s(80, F.alnum))
    add("langsmith-api-key", "lsv2_" + "pt_" + s(32, F.hexLower) + "_" + s(10, F.hexLower))
    add("infracost-api-key", "ico-" + s(32, F.alnum))
    add("intra42-secret", "s-s4t2ud-" + s(64, F.hexLower))
    add("sourcegraph-token", "sgp_" + s(16, F.hexLower) + "_" + s(40, F.hexLower))
    add("harness-token", "pat." + s(22, F.b64url) + "." + s(24, F.hexLower) + "." + s(20, F.alnum))
    add("cloudflare-origin-ca-key", "v1.0-" + s(24, F.hexLower) + "-" + s(146, F.hexLower))
    add("mapbox-secret-token", "sk." + "eyJ" + s(60, F.b64url) + "." + s(22, F.b64url))
    add("pinecone-api-key", "pcsk_" + s(6, F.alnum) + "_" + s(64, F.alnum))
    add("figma-token", "figd_" + s(40, F.b64url))
    add("bitbucket-app-password", "ATBB" + s(32, F.alnum))
    add("plaid-access-token", "access-" + "production-" + F.uuid(seed: 604))
    add("octopus-deploy-key", "API-" + s(27, F.upperDigit))
    add("nuget-api-key", "oy2" + s(43, F.lower + F.digits))
    add("defined-networking-key", "dnkey-" + s(26, F.upperDigit) + "-" + s(52, F.upperDigit))
    add("circleci-token", "CCIPAT_" + s(22, F.alnum) + "_" + s(40, F.hexLower))
    add("contentful-token", "CFPAT-" + s(43, F.b64url))
    add("linear-oauth-token", "lin_" + "oauth_" + s(64, F.hexLower))
    add("mailersend-token", "mlsn." + s(64, F.alnum))
    add("alibaba-access-key", "LTAI" + s(20, F.alnum))
    add("zapier-webhook", "hooks.zapier.com/hooks/catch/" + s(7, F.digits) + "/" + s(6, F.lower + F.digits), before: "https://")
    let jwt = Fake.jwtHeader(seed: 99) + ".eyJ" + s(40, F.b64url) + "." + s(43, F.b64url)
    add("jwt-base64", Base64.encode(Array(jwt.utf8)))
    add("jwt", Fake.jwtHeader(seed: 99) + ".eyJ" + s(40, F.b64url) + ".")
    add("jwt", Fake.jwtHeader(seed: 99) + ".eyJ" + s(40, F.b64url), before: "token ")
    add("curl-user", "Pw" + s(10, F.alnum), before: "curl -u admin:")
    // Formats added with the real-token set (each from the provider's documented shape).
    add(
        "onepassword-secret-key",
        "A3-" + s(6, F.upperDigit) + "-" + s(11, F.upperDigit) + "-" + s(5, F.upperDigit) + "-"
            + s(5, F.upperDigit) + "-" + s(5, F.upperDigit))
    add(
        "aws-bedrock-short-term-key",
        "bedrock-api-key-"
            + Base64.encode(Array(("bedrock.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Credential=" + s(20, F.upperDigit)).utf8)))
    add("adobe-client-secret", "p8e-" + s(32, F.alnum))
    add("openshift-token", "sha256~" + s(43, F.b64url))
    add("facebook-access-token", "EAAC" + s(160, F.alnum))
    add("facebook-access-token", "EAA" + "G" + s(180, F.alnum))
    add("facebook-access-token", "EAA" + "B" + s(120, F.alnum))
    add("gitlab-runner-registration-token", "GR1348941" + s(20, F.b64url))
    add("gitlab-session-cookie", "_gitlab_session=" + s(32, F.hexLower), before: "Cookie: ")
    add("grafana-api-key", "eyJrIjoi" + s(90, F.b64))
    add("settlemint-token", "sm_" + "pat_" + s(16, F.alnum))
    add("maxmind-license-key", s(6, F.alnum) + "_" + s(29, F.alnum) + "_mmk")
    add(
        "authress-key",
        "sc_" + s(10, F.lower + F.digits) + "." + s(4, F.lower) + ".acc_" + s(12, F.lower + F.digits) + "." + s(50, F.b64url))
    add("softlayer-api-key", s(64, F.hexLower), before: "https://api.softlayer.com/soap/v3/")
    add(
        "discord-bot-token-bare",
        Base64.encode(Array(("1" + s(17, F.digits)).utf8)).replacingOccurrences(of: "=", with: "") + "." + s(6, F.b64url) + "."
            + s(38, F.b64url))
    // A first part that decodes to no id, as scanners write the token: the exact lengths and a start
    // an id's base64 has (`OTUy`).
    add("discord-bot-token-bare", "OTUy" + s(20, F.alnum) + "." + s(6, F.alnum) + "." + s(27, F.alnum))
    add("sendgrid-api-key", "SG." + s(66, F.alnum))
    add("sourcegraph-token", "sgp_" + "local_" + s(40, F.hexLower))
    add("provider-keyed-secret", s(40, F.alnum), before: "cloudflare: ")
    // Signatures inside the value: Microsoft's identifiable Azure keys (Storage, Functions, Service
    // Bus, DevOps), New Relic's license key, DeepL's free key, Bitwarden and Zoho tokens.
    add("azure-identifiable-key", s(76, F.b64) + "+AS" + "t" + s(5, F.b64) + "A==")
    add("azure-identifiable-key", s(44, F.b64url) + "AzF" + "u" + s(5, F.b64url) + "w==")
    add("azure-identifiable-key", s(33, F.b64) + "+AS" + "b" + s(6, F.b64) + "=")
    add("azure-identifiable-key", s(76, F.alnum) + "AZD" + "O" + s(4, F.alnum))
    add("new-relic-license-key", s(36, F.hexLower) + "NRA" + "L")
    add("deepl-api-key", F.uuid(seed: 610) + ":f" + "x")
    add("bitwarden-access-token", "0." + F.uuid(seed: 611) + "." + s(30, F.alnum) + ":" + s(22, F.b64) + "==")
    add("zoho-oauth-token", "1000." + s(32, F.hexLower) + "." + s(32, F.hexLower))
    add("inngest-signing-key", "signkey-" + "prod-" + s(64, F.hexLower))
    add("onesignal-api-key", "os_v2_" + "app_" + s(113, F.lower + "234567"))
    add("calcom-api-key", "cal_" + "live_" + s(32, F.hexLower))
    add("checkout-secret-key", "sk_" + "sbox_" + s(26, F.lower + F.digits), severity: .high)
    return c.map { (id: $0.0, value: $0.1, before: $0.2, severity: $0.3) }
}()

/// Provider families whose keys have no prefix: the provider's name beside a value of the key's shape.
let contextSamples: [(text: String, value: String)] = {
    var c: [(String, String)] = []
    var seed: UInt64 = 700
    func s(_ n: Int, _ a: String) -> String { seed += 1; return F.s(n, a, seed: seed) }
    for (name, len, alphabet) in [
        ("TWILIO_AUTH_TOKEN", 32, F.hexLower), ("OKTA_API_TOKEN", 42, F.b64url), ("DATADOG_APP_KEY", 40, F.hexLower),
        ("ALGOLIA_ADMIN_KEY", 32, F.hexLower), ("PAGERDUTY_TOKEN", 20, F.alnum), ("SNYK_TOKEN", 36, F.alnum),
        ("CLOUDFLARE_API_TOKEN", 40, F.b64url), ("MAILGUN_SECRET", 36, F.alnum), ("ZENDESK_API_TOKEN", 40, F.alnum),
        ("CONTENTFUL_TOKEN", 43, F.b64url), ("POSTMARK_SERVER_TOKEN", 36, F.alnum), ("AUTH0_CLIENT_SECRET", 64, F.b64url)
    ] {
        let v = s(len, alphabet)
        c.append((name + "=" + v, v))
    }
    return c
}()

/// Clean values: placeholders per provider, vendors' documented example keys, realistic decoys.
let cleanCorpus: [String] = {
    var n: [String] = []
    // Placeholders.
    n += [
        "ghp_" + String(repeating: "x", count: 36), "ghp_" + String(repeating: "X", count: 36),
        "glpat-" + String(repeating: "X", count: 20),
        "AKIA" + String(repeating: "X", count: 16), "AKIA" + "IOSFODNN7" + "EXAMPLE", "sk_" + "live_" + String(repeating: "0", count: 24),
        "xoxb-" + "your-bot-token-here-please", "npm_" + String(repeating: "a", count: 36), "AIza" + String(repeating: "X", count: 35),
        "pscale_" + "tkn_" + String(repeating: "x", count: 43), "ntn_" + "12345678901" + "abcdefghijklmnopqrstuvwxyz012345678",
        "sk-proj-" + "your_api_key_here_" + String(repeating: "x", count: 30), "hf_" + String(repeating: "x", count: 34),
        "gsk_" + String(repeating: "X", count: 52), "EZAK" + String(repeating: "0", count: 54),
        "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        "Authorization: Bearer " + "YOUR_ACCESS_TOKEN_HERE", "api_key=" + "abcdefghijklmnopqrstuvwxyz",
        "token=" + "1234567890abcdef1234567890abcdef", "password=" + "********", "DD_API_KEY=" + String(repeating: "0", count: 32),
        "tskey-" + "auth-" + String(repeating: "x", count: 40), "sbp_" + String(repeating: "0", count: 40)
    ]
    // Decoys: ids, hashes, versions, dates, images.
    for k in 0..<12 { n.append(F.uuid(seed: 800 + UInt64(k))) }
    for k in 0..<6 { n.append(F.s(40, F.hexLower, seed: 820 + UInt64(k))) }
    for k in 0..<6 { n.append(F.s(64, F.hexLower, seed: 830 + UInt64(k))) }
    for k in 0..<4 { n.append("W/\"" + F.s(32, F.hexLower, seed: 840 + UInt64(k)) + "\"") }
    for k in 0..<4 {
        n.append("00-" + F.s(32, F.hexLower, seed: 850 + UInt64(k)) + "-" + F.s(16, F.hexLower, seed: 860 + UInt64(k)) + "-01")
    }
    n += [
        "data:image/png;base64,iVBORw0KGgo" + F.s(300, F.b64, seed: 870), "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1_1 like Mac OS X)",
        "2026-11-29T10:15:04.881Z", "req_" + F.uuid(seed: 871), "ses_" + F.uuid(seed: 872), "v4.2.0-512",
        "the token expired, sign in again",
        "Basic authentication failed", "password must be at least 12 characters", "eyJhbGciOi", "sha256:" + F.s(64, F.hexLower, seed: 873),
        "sl.com is a domain", "API-docs", "pat.example.com", "secret_santa_2026", "oy2 is short", "ops_team", "A3-notakey",
        "curl -u admin:$PASSWORD https://x.test", "access-token-expired", "r8_short", "rnd_seed_value",
        "https://user@github.com/org/repo.git", "key-value store", "sk-1234", "Q~ marks the spot",
        F.s(24, F.hexLower, seed: 874), "ObjectId(\"" + F.s(24, F.hexLower, seed: 875) + "\")", "git " + F.s(7, F.hexLower, seed: 876)
    ]
    return n
}()

/// Places the SDK's redaction does not cover, each a record line holding `text`.
func plantings(_ text: String, seq: Int) -> [String] {
    let json = JSONOut.object(["data": .object(["note": .string(text)])]).render(pretty: false)
    let encodedPath = text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? text
    let encodedQuery = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    return [
        Harness.network(seq: seq, responseBody: Harness.textBody(json)),
        Harness.log(seq: seq, message: "request failed: " + text),
        Harness.log(seq: seq, message: "ok", metadata: .object(["context": .string(text)])),
        Harness.network(seq: seq, url: "https://api.example.test/v1/" + encodedPath + "/items"),
        Harness.network(seq: seq, url: "https://api.example.test/v1/search?q=" + encodedQuery),
        Harness.network(seq: seq, requestHeaders: [("X-Debug", text)]),
        Harness.network(seq: seq, error: "upstream said: " + text),
        Harness.network(seq: seq, requestBody: Harness.textBody("a=1&note=" + encodedQuery, "application/x-www-form-urlencoded")),
        Harness.network(seq: seq, responseBody: Harness.base64Body(Array(json.utf8), "application/json")),
        Harness.event(seq: seq, attributes: .object(["detail": .string(text)])),
        // A binary (protobuf-like) body: a length-prefixed string among non-UTF-8 bytes.
        Harness.network(
            seq: seq,
            responseBody: Harness.base64Body(
                [0x00, 0x00, 0x00, 0x00, 0x80, 0x0A, 0xFF] + Array(text.utf8) + [0x12, 0xFE, 0x00],
                "application/grpc"))
    ]
}

@Suite struct CorpusTests {
    /// Recall at the default `--fail-on high` and false alarms on clean values, over every planting.
    @Test func recallAndFalseAlarmsOnTheCorpus() throws {
        var lines: [String] = []
        var kind: [Int: Bool] = [:] // line -> positive?
        var seq = 1
        let positives =
            positiveCases.filter { $0.hints == nil && ($0.severity ?? .high) >= .high }.map(\.text)
            + providerSamples.filter { ($0.severity ?? .high) >= .high }.map { $0.before + $0.value + " end" }
            + contextSamples.map(\.text)
        for text in positives {
            for l in plantings(text, seq: seq) { lines.append(l); kind[lines.count] = true }
            seq += 1
        }
        for text in cleanCorpus {
            for l in plantings(text, seq: seq) { lines.append(l); kind[lines.count] = false }
            seq += 1
        }
        let findings = try Harness.run(lines)
        var highLines = Set<Int>(), anyLines = Set<Int>()
        for f in findings {
            guard let l = f.line else { continue }
            anyLines.insert(l)
            if f.severity >= .high { highLines.insert(l) }
        }
        let pos = kind.filter { $0.value }.keys, neg = kind.filter { !$0.value }.keys
        let recallHigh = Double(pos.filter { highLines.contains($0) }.count) / Double(pos.count)
        let recallAny = Double(pos.filter { anyLines.contains($0) }.count) / Double(pos.count)
        let falseHigh = Double(neg.filter { highLines.contains($0) }.count) / Double(neg.count)
        let falseAny = Double(neg.filter { anyLines.contains($0) }.count) / Double(neg.count)
        func pct(_ x: Double) -> String { String(format: "%.1f %%", x * 100) }
        print(
            "corpus: \(pos.count) positive plantings (\(positives.count) values), \(neg.count) clean plantings (\(cleanCorpus.count) values)"
        )
        print(
            "corpus: recall at --fail-on high \(pct(recallHigh)), any severity \(pct(recallAny)); false alarms at high \(pct(falseHigh)), any severity \(pct(falseAny))"
        )
        let missed = pos.filter { !highLines.contains($0) }.sorted().prefix(12).map { String(lines[$0 - 1].prefix(160)) }
        #expect(recallHigh >= 0.80, "missed: \(missed)")
        let alarms = neg.filter { highLines.contains($0) }.sorted().prefix(12).map { l in
            findings.filter { $0.line == l }.map { "\($0.rule) \($0.location ?? "")" }
        }
        #expect(falseHigh <= 0.02, "false alarms: \(alarms)")
    }

    /// Every new provider family has a positive in the detector table (see `positiveCases`).
    @Test(arguments: providerSamples.map(\.id))
    func providerFamilyIsFound(_ id: String) {
        for sample in providerSamples where sample.id == id {
            let hits = detect(sample.before + sample.value + " end")
            #expect(
                hits.contains {
                    $0.id == id && $0.value == sample.value
                        && $0.severity == (sample.severity ?? (detectorCatalogue.first { $0.id == id }?.severity ?? .high))
                },
                "\(id): \(hits.map { "\($0.id) \($0.severity)" })")
        }
    }

    /// Placeholders and vendors' example keys are never critical or high.
    @Test func placeholdersAreLow() {
        for text in cleanCorpus {
            let hits = detect(text)
            #expect(!hits.contains { $0.severity >= .high }, "\(text.prefix(40)): \(hits.map { "\($0.id) \($0.severity)" })")
        }
    }
}
