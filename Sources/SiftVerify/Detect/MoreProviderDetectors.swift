import SiftCore

// More self-identifying provider formats, each a prefix and a body of a documented alphabet and
// length (`prefixed`: the shape is data, and `RuleExampleTests` makes each one's examples from it).
// Values public by design (a PostHog project key, a Langfuse or Supabase publishable key) are `info`.
// Prefixes that are words (`live_`, `test_`) need no word character before them and a random body.

private let tokenBody = ByteSet("A-Za-z0-9_-")
private let uuidBody = ByteSet("0-9a-fA-F-")

func moreProviderDetectors() -> [Detector] {
    var d: [Detector] = []
    d.append(prefixed("docker-hub-token", "Docker Hub access token", .critical, ["dckr_pat_", "dckr_oat_"], tokenBody, length: 27...27))
    d.append(prefixed("openrouter-api-key", "OpenRouter API key", .critical, ["sk-or-v1-"], .hexLower, length: 64...64))
    d.append(prefixed("posthog-personal-api-key", "PostHog personal API key", .high, ["phx_"], .alnum, length: 43...43))
    d.append(
        prefixed(
            "posthog-project-key", "PostHog project API key (public by design: it only sends events)", .info, ["phc_"], .alnum,
            length: 43...43))
    d.append(
        prefixed(
            "hubspot-private-app-token", "HubSpot private app access token", .critical, ["pat-na1-", "pat-eu1-", "pat-ap1-"], uuidBody,
            length: 36...36, check: { t, s, e in Shape.isUUID(UnsafeBufferPointer(rebasing: t.b[(e - 36)..<e])) }))
    d.append(
        prefixed(
            "crates-io-token", "crates.io API token", .high, ["cio"], .alnum, length: 32...32, check: { t, s, e in mixed(t, s + 3, e) }))
    d.append(prefixed("nvidia-api-key", "NVIDIA API key", .high, ["nvapi-"], tokenBody, length: 64...64))
    d.append(prefixed("elevenlabs-api-key", "ElevenLabs API key", .high, ["sk_"], .hexLower, length: 48...48))
    d.append(
        prefixed(
            "gocardless-token", "GoCardless access token", .critical, ["live_", "sandbox_"], ByteSet("A-Za-z0-9_=-"), length: 40...40,
            tuning: .init(before: .word, lowPrefixes: ["sandbox_"]), check: { t, s, e in randomBody(t, e - 40, e) }))
    d.append(
        prefixed(
            "mollie-api-key", "Mollie API key", .critical, ["live_", "test_"], .alnum, length: 30...30,
            tuning: .init(before: .word, lowPrefixes: ["test_"]), check: { t, s, e in randomBody(t, e - 30, e) }))
    d.append(prefixed("langfuse-secret-key", "Langfuse secret key", .high, ["sk-lf-"], uuidBody, length: 36...36))
    d.append(
        prefixed("langfuse-public-key", "Langfuse public key (public by design)", .info, ["pk-lf-"], uuidBody, length: 36...36))
    d.append(
        prefixed(
            "supabase-publishable-key", "Supabase publishable key (public by design)", .info, ["sb_publishable_"], tokenBody,
            length: 20...64))
    d.append(
        prefixed(
            "razorpay-key", "Razorpay API key id", .high, ["rzp_live_", "rzp_test_"], .alnum, length: 14...14,
            tuning: .init(lowPrefixes: ["rzp_test_"])))
    d.append(
        prefixed(
            "tencent-cloud-secret-id", "Tencent Cloud SecretId", .high, ["AKID"], .alnum, length: 32...32,
            check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(
        prefixed(
            "yandex-cloud-api-key", "Yandex Cloud API key", .critical, ["AQVN"], tokenBody, length: 35...38,
            check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(prefixed("dbt-cloud-token", "dbt Cloud service or personal token", .high, ["dbtc_", "dbtu_"], tokenBody, length: 30...80))
    d.append(
        prefixed(
            "honeycomb-api-key", "Honeycomb API or ingest key", .high, ["hcaik_", "hcxik_", "hcxmk_", "hcamk_"], .alnum, length: 50...70
        ))
    d.append(prefixed("deno-deploy-token", "Deno Deploy access token", .high, ["ddp_", "ddw_"], .alnum, length: 36...36))
    d.append(
        prefixed(
            "trigger-dev-key", "Trigger.dev secret key", .high, ["tr_prod_", "tr_stg_", "tr_dev_", "tr_pat_"], .alnum, length: 20...40,
            tuning: .init(lowPrefixes: ["tr_dev_"]), check: { t, s, e in mixed(t, s, e) }))
    d.append(prefixed("browserbase-api-key", "Browserbase API key", .high, ["bb_live_"], tokenBody, length: 20...40))
    d.append(
        prefixed(
            "tavily-api-key", "Tavily API key", .high, ["tvly-dev-", "tvly-prod-", "tvly-"], .alnum, length: 32...32,
            check: { t, s, e in mixed(t, e - 32, e) }))
    d.append(prefixed("anyscale-api-key", "Anyscale API key", .high, ["esecret_"], .alnum, length: 20...60))
    d.append(
        prefixed(
            "paddle-api-key", "Paddle API key", .critical, ["pdl_live_apikey_", "pdl_sdbx_apikey_"], ByteSet("A-Za-z0-9_"),
            length: 20...80, tuning: .init(lowPrefixes: ["pdl_sdbx_apikey_"])))
    // Airtable personal access token: `pat`, 14 characters, `.`, 64 hex digits.
    d.append(
        Detector("airtable-pat", "Airtable personal access token", .critical, anchors: ["pat"]) { t, p, len in
            guard t.boundaryBefore(p), t.run(p + 3, .alnum, max: 15) == 14, p + 17 < t.count, t[p + 17] == UInt8(ascii: "."),
                t.run(p + 18, .hexLower, max: 65) == 64, mixed(t, p + 3, p + 17)
            else { return nil }
            return DetMatch(start: p, end: p + 82, secretFrom: p + 18)
        })
    // ClickUp personal token: `pk_`, the user's number, `_`, 32 characters of `[A-Z0-9]`.
    d.append(
        Detector("clickup-token", "ClickUp personal API token", .high, anchors: ["pk_"]) { t, p, _ in
            guard t.boundaryBefore(p) else { return nil }
            let n = t.run(p + 3, .digit, max: 13)
            guard (4...12).contains(n), p + 3 + n < t.count, t[p + 3 + n] == UInt8(ascii: "_"),
                t.run(p + 4 + n, .upperDigit, max: 33) == 32
            else { return nil }
            return DetMatch(start: p, end: p + 36 + n, secretFrom: p + 4 + n)
        })
    return d
}
