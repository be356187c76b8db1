import SiftCore

// More self-identifying provider formats, each a prefix and a body of a documented alphabet and
// length (`prefixed`: the shape is data, and `RuleExampleTests` makes each one's examples from it).
// Values public by design (a PostHog project key, a Langfuse or Supabase publishable key) are `info`.
// A prefix of three common letters (`pat`, `sk_`) would wake on every `path` and `task_` of a clean
// export: such prefixes are anchored with the body's first character where it is narrow (ElevenLabs'
// `sk_` and a hex digit, ClickUp's `pk_` and a digit), and Airtable and Mollie are found by name
// (`ProviderNames`), not by prefix.

private let tokenBody = ByteSet("A-Za-z0-9_-")
private let uuidBody = ByteSet("0-9a-fA-F-")

func moreProviderDetectors() -> [Detector] {
    var d: [Detector] = []
    // Personal tokens have 27 characters; organization tokens run longer.
    d.append(prefixed("docker-hub-token", "Docker Hub access token", .critical, ["dckr_pat_", "dckr_oat_"], tokenBody, length: 27...40))
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
    d.append(prefixed("nvidia-api-key", "NVIDIA API key", .high, ["nvapi-"], tokenBody, length: 64...64))
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
    // Airtable personal access tokens: `pat`, a 14-character id, `.`, 64 hex digits.
    d.append(
        prefixed(
            "airtable-pat", "Airtable personal access token", .high, ["pat"], ByteSet("A-Za-z0-9."), length: 79...79,
            check: { t, s, e in
                t[s + 17] == UInt8(ascii: ".") && mixed(t, s + 3, s + 17) && t.run(s + 18, .hexLower, max: 65) == 64
            }))
    d.append(prefixed("xata-api-key", "Xata API key", .high, ["xau_"], .alnum, length: 32...64, check: { t, s, e in mixed(t, s + 4, e) }))
    // Zuplo API keys: `zpka_`, 32 hex digits, `_`, 8 hex digits.
    d.append(
        prefixed(
            "zuplo-api-key", "Zuplo API key", .high, ["zpka_"], ByteSet("a-f0-9_"), length: 41...41,
            check: { t, s, _ in t[s + 37] == UInt8(ascii: "_") && t.run(s + 5, .hexLower, max: 33) == 32 }))
    d.append(
        prefixed(
            "packagist-token", "Packagist API or update token", .high, ["packagist_uut_", "packagist_out_", "packagist_ort_"], .hexLower,
            length: 60...80))
    // Asana personal access tokens: `1/<user id>:<32 hex>`, or `2/<user id>/<app id>:<32 hex>`. Anchored
    // on the user id's first digit, `1` as Asana's ids are now (`1/` alone stands in every `/v1/` path).
    var asana = Detector("asana-pat", "Asana personal access token", .high, anchors: ["1/1", "2/1"]) { t, p, len in
        guard t.boundaryBefore(p, ByteSet("A-Za-z0-9/.:")) else { return nil }
        var i = p + 2
        let user = t.run(i, .digit, max: 21)
        guard (10...20).contains(user) else { return nil }
        i += user
        if t[p] == UInt8(ascii: "2") {
            guard i < t.count, t[i] == UInt8(ascii: "/") else { return nil }
            let app = t.run(i + 1, .digit, max: 21)
            guard (10...20).contains(app) else { return nil }
            i += 1 + app
        }
        guard i < t.count, t[i] == UInt8(ascii: ":"), t.run(i + 1, .hexLower, max: 33) == 32, t.boundaryAt(i + 33) else { return nil }
        return DetMatch(start: p, end: i + 33, secretFrom: i + 1)
    }
    asana.declaredShortest = 2 + 10 + 1 + 32
    asana.declaration.looksAt =
        "1/ and a user id, or 2/, a user id, / and an app id (10–20 digits each, the user's from 1), :, 32 hex digits"
    d.append(asana)
    // Infisical service tokens: `st.`, the token's UUID, `.`, 32 hex digits, `.`, 32 hex digits.
    var infisical = Detector("infisical-service-token", "Infisical service token", .high, anchors: ["st."]) { t, p, len in
        guard t.boundaryBefore(p, ByteSet("A-Za-z0-9.")), p + 3 + 36 + 66 <= t.count else { return nil }
        let id = UnsafeBufferPointer(rebasing: t.b[(p + 3)..<(p + 39)])
        guard Shape.isUUID(id), t[p + 39] == UInt8(ascii: "."), t.run(p + 40, .hexLower, max: 33) == 32,
            t[p + 72] == UInt8(ascii: "."), t.run(p + 73, .hexLower, max: 33) == 32
        else { return nil }
        return DetMatch(start: p, end: p + 105, secretFrom: p + 40)
    }
    infisical.declaredShortest = 105
    infisical.declaration.looksAt = "st., a UUID, ., 32 hex digits, ., 32 hex digits"
    d.append(infisical)
    // A Yandex Cloud static access key's secret: `YC` and 38 of base64url, all three classes.
    d.append(
        prefixed(
            "yandex-cloud-static-key", "Yandex Cloud static access key secret", .high, ["YC"], tokenBody, length: 38...38,
            check: { t, s, e in mixedAll(t, s + 2, e) }))
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
    d.append(
        prefixed(
            "segment-public-api-token", "Segment public API token", .high, ["sgp_"], .alnum, length: 64...64,
            check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(prefixed("new-relic-browser-key", "New Relic browser API key", .high, ["NRJS-"], .hexLower, length: 19...19))
    d.append(
        prefixed(
            "vercel-token", "Vercel access token", .high, ["vcp_", "vci_", "vca_", "vcr_", "vck_"], .alnum, length: 24...80,
            check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(
        prefixed(
            "twitch-oauth-token", "Twitch OAuth token", .high, ["oauth:"], lowerDigit, length: 30...30,
            check: { t, s, e in mixed(t, s + 6, e) }))
    d.append(
        prefixed(
            "launchdarkly-key", "LaunchDarkly access token or server-side SDK key", .high, ["api-", "sdk-"], uuidBody, length: 36...36,
            check: { t, s, e in Shape.isUUID(UnsafeBufferPointer(rebasing: t.b[(e - 36)..<e])) }))
    d.append(
        prefixed(
            "launchdarkly-mobile-key", "LaunchDarkly mobile key (public by design: shipped in apps)", .info, ["mob-"], uuidBody,
            length: 36...36, check: { t, s, e in Shape.isUUID(UnsafeBufferPointer(rebasing: t.b[(e - 36)..<e])) }))
    d.append(
        prefixed(
            "elevenlabs-api-key", "ElevenLabs API key", .high, hexDigits.map { "sk_" + $0 }, .hexLower, length: 47...47))
    d.append(
        prefixed(
            "gocardless-token", "GoCardless access token", .critical, ["live_"], tokenBody, length: 40...40,
            tuning: .init(before: .word), check: { t, s, e in mixed(t, s + 5, e) }))
    d.append(
        prefixed(
            "crates-io-token", "crates.io API token", .high, ["cio"], .alnum, length: 32...32, check: { t, s, e in mixed(t, s + 3, e) }))
    d.append(
        prefixed(
            "clickup-token", "ClickUp personal API token", .high, (1...9).map { "pk_\($0)" }, clickupBody, length: 38...48,
            check: { t, s, e in
                // `pk_<user id>_<32 of [A-Z0-9]>`.
                let id = t.run(s + 3, .digit, max: 16)
                return id >= 5 && s + 3 + id < e && t[s + 3 + id] == UInt8(ascii: "_") && e - (s + 4 + id) == 32
                    && t.run(s + 4 + id, .upperDigit, max: 33) == 32
            }))
    d.append(
        prefixed(
            "woocommerce-key", "WooCommerce REST API consumer key or secret", .high, hexDigits.flatMap { ["ck_" + $0, "cs_" + $0] },
            .hexLower, length: 39...39))
    d.append(
        prefixed(
            "mollie-api-key", "Mollie API key", .critical, ["live_", "test_"], .alnum, length: 30...30,
            tuning: .init(before: .word, lowPrefixes: ["test_"]),
            check: { t, s, e in
                // `test_UserCanSignInWithAPasskey1`: a test's name in CamelCase words, not a key.
                mixed(t, s + 5, e) && !ValueJudgement.isCamelWords(UnsafeBufferPointer(rebasing: t.b[(s + 5)..<e]))
            }))
    d.append(
        prefixed(
            "together-api-key", "Together AI API key", .high, ["tgp_v1_"], tokenBody, length: 30...80,
            check: { t, s, e in mixed(t, s + 7, e) }))
    d.append(
        prefixed("neon-api-key", "Neon API key", .high, ["napi_"], .alnum, length: 40...80, check: { t, s, e in mixed(t, s + 5, e) }))
    d.append(
        prefixed(
            "amazon-mws-token", "Amazon Marketplace Web Service auth token", .high, ["amzn.mws."], uuidBody, length: 36...36,
            check: { t, s, e in Shape.isUUID(UnsafeBufferPointer(rebasing: t.b[(e - 36)..<e])) }))
    d.append(
        prefixed(
            "apify-api-token", "Apify API token", .high, ["apify_api_"], .alnum, length: 36...36, check: { t, s, e in mixed(t, s + 10, e) })
    )
    d.append(prefixed("e2b-api-key", "E2B API key", .high, ["e2b_"], .hexLower, length: 40...40))
    d.append(
        prefixed(
            "resend-api-key", "Resend API key", .high, ["re_"], ByteSet("A-Za-z0-9_"), length: 33...33,
            check: { t, s, e in
                // `re_` + 8 + `_` + 24: a code name (`re_compile_…`) is words, not this.
                t[s + 11] == UInt8(ascii: "_") && t.run(s + 3, .alnum, max: 9) == 8 && t.run(s + 12, .alnum, max: 25) == 24
                    && mixed(t, s + 3, e)
            }))
    d.append(
        prefixed(
            "axiom-token", "Axiom API or personal token", .high, ["xaat-", "xapt-"], uuidBody, length: 36...36,
            check: { t, s, e in Shape.isUUID(UnsafeBufferPointer(rebasing: t.b[(e - 36)..<e])) }))
    d.append(
        prefixed(
            "scaleway-access-key", "Scaleway access key id", .high, ["SCW"], .upperDigit, length: 17...17,
            check: { t, s, e in mixed(t, s + 3, e) }))
    d.append(
        prefixed(
            "mandrill-api-key", "Mandrill (Mailchimp Transactional) API key", .high, ["md-"], tokenBody, length: 22...22,
            check: { t, s, e in mixed(t, s + 3, e) }))
    d.append(
        prefixed(
            "intercom-access-token", "Intercom access token", .high, ["dG9rO"], ByteSet("A-Za-z0-9+/="), length: 50...80,
            check: { t, s, e in
                // base64 of `tok:` and the token's text.
                let whole = UnsafeBufferPointer(rebasing: t.b[s..<(s + (e - s) / 4 * 4)])
                guard let text = Base64.decode(bytes: whole), text.count >= 36 else { return false }
                return text.starts(with: Array("tok:".utf8)) && text.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
            }))
    d.append(
        prefixed(
            "salesforce-access-token", "Salesforce access token (session id)", .high, ["00D"], salesforceBody, length: 100...130,
            check: { t, s, e in
                // `00D` + the org id's rest (12 or 15) + `!` + the session's 96 or so characters.
                let org = t.run(s + 3, .alnum, max: 16)
                guard org == 12 || org == 15, t[s + 3 + org] == UInt8(ascii: "!") else { return false }
                let rest = s + 4 + org
                return e - rest >= 80 && t.run(rest, ByteSet("A-Za-z0-9._"), max: e - rest + 1) == e - rest && mixed(t, rest, e)
            }))
    d.append(
        prefixed("jina-api-key", "Jina AI API key", .high, ["jina_"], tokenBody, length: 40...80, check: { t, s, e in mixed(t, s + 5, e) }))
    d.append(
        prefixed(
            "polar-access-token", "Polar access token", .high, ["polar_oat_", "polar_pat_"], tokenBody, length: 30...80,
            check: { t, s, e in mixed(t, s + 10, e) }))
    d.append(
        prefixed(
            "honeybadger-token", "Honeybadger personal auth token", .high, ["hbp_"], .alnum, length: 30...40,
            check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(
        prefixed(
            "bitbucket-data-center-token", "Bitbucket Data Center HTTP access token", .high, ["BBDC-"], ByteSet("A-Za-z0-9+/_-"),
            length: 40...50, check: { t, s, e in mixed(t, s + 5, e) }))
    // Yandex Cloud IAM tokens: `t1.`, a header run, `.`, then 86 of base64url (padding allowed).
    var yandex = Detector("yandex-iam-token", "Yandex Cloud IAM token", .high, anchors: ["t1."]) { t, p, len in
        guard t.boundaryBefore(p, tokenBody) else { return nil }
        let head = t.run(p + len, tokenBody, max: 400)
        var i = p + len + head
        i += t.run(i, ByteSet("="), max: 2)
        guard head >= 8, i < t.count, t[i] == UInt8(ascii: ".") else { return nil }
        let sig = t.run(i + 1, tokenBody, max: 87)
        guard sig == 86 else { return nil }
        var end = i + 1 + sig
        end += t.run(end, ByteSet("="), max: 2)
        guard t.boundaryAt(end, tokenBody), mixedAll(t, i + 1, i + 1 + sig) else { return nil }
        return DetMatch(start: p, end: end, secretFrom: p + len)
    }
    yandex.declaredShortest = 3 + 8 + 1 + 86
    yandex.declaration.looksAt = "t1., 8 or more of [A-Za-z0-9_-], ., 86 of [A-Za-z0-9_-] (= padding allowed)"
    d.append(yandex)
    // ClickHouse Cloud's API secret: `4b1d` and 38 letters and digits of all three classes (a hex
    // digest that happens to hold `4b1d` has no upper case). The anchor fits in a request id's UUID,
    // but the 42 characters a match needs do not: the id's shortcut stays sound.
    d.append(
        prefixed(
            "clickhouse-cloud-secret-key", "ClickHouse Cloud API secret key", .high, ["4b1d"], .alnum, length: 38...38,
            check: { t, s, e in mixedAll(t, s + 4, e) }))
    // DeepSeek API keys: `sk-` and 32 lowercase hex digits, standing alone (OpenAI's `sk-` keys are
    // longer and carry their own marker). Anchored with the first digit: `sk-` stands in `disk-`.
    d.append(
        prefixed(
            "deepseek-api-key", "DeepSeek API key", .high, hexDigits.map { "sk-" + $0 }, .hexLower, length: 31...31,
            check: { t, _, e in t.boundaryAt(e, tokenBody) }))
    // `sk-` and 48 letters and digits of all three classes: the secret key of an OpenAI-style API
    // (OpenAI's keys before `sk-proj-`, and the services that copied their form). Anchored with the
    // body's first character.
    d.append(
        prefixed(
            "openai-style-secret-key", "OpenAI-style API secret key", .high, alnumChars.map { "sk-" + $0 }, .alnum, length: 47...47,
            check: { t, s, e in t.boundaryAt(e, tokenBody) && mixedAll(t, s + 3, e) }))
    // AWS STS session tokens: base64 whose first bytes are fixed by their encoding (`IQoJb3JpZ2luX2Vj`
    // decodes to `…origin_ec`, the older `FwoGZXIvYXdz` to `…aws`), hundreds of characters long.
    d.append(
        prefixed(
            "aws-session-token", "AWS STS session token", .high, ["IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE"], .b64pad,
            length: 100...4000, check: { t, _, e in t.boundaryAt(e, .b64pad) }))
    // LangSmith's earlier API keys: `ls__` and 32 hex digits.
    d.append(
        prefixed(
            "langsmith-legacy-key", "LangSmith API key (earlier form)", .high, ["ls__"], .hexLower, length: 32...32,
            check: { t, _, e in t.boundaryAt(e, tokenBody) }))
    // A PuTTY private key file: its header, then `Private-Lines:` and the key's lines (encrypted or
    // not, a private key is one).
    var putty = Detector("putty-private-key", "PuTTY private key file", .critical, anchors: ["PuTTY-User-Key-File-"]) { t, p, len in
        guard let lines = t.find(puttyPrivateLines, p + len, p + len + 8192) else { return nil }
        var e = lines + puttyPrivateLines.count
        e += t.run(e, spaceOnly, max: 4)
        let digits = t.run(e, .digit, max: 3)
        guard (1...2).contains(digits) else { return nil }
        var count = 0
        for k in e..<(e + digits) { count = count * 10 + Int(t[k] - 0x30) }
        // The line that names the count, then that many lines of the key, then the MAC line when it
        // follows: the match ends where the last of them ends (a real line break or a JSON `\n`).
        // A key file's lines are short (64 characters of base64): a line is followed for 256 bytes at
        // most and the whole file for 16 KiB, so no anchor costs more than that whatever follows it.
        let limit = Swift.min(t.count, p + 16384)
        func lineEnd(_ from: Int) -> Int {
            var i = from
            let stop = Swift.min(limit, from + 256)
            while i < stop && !t.breaksLine(at: i) { i += 1 }
            return i
        }
        func nextLine(_ end: Int) -> Int {
            if end < limit && t[end] == UInt8(ascii: "\\") { return Swift.min(limit, end + 2) }
            var i = end
            if i < limit && t[i] == 0x0D { i += 1 }
            if i < limit && t[i] == 0x0A { i += 1 }
            return i
        }
        e = lineEnd(e)
        for _ in 0..<count where e < limit { e = lineEnd(nextLine(e)) }
        let after = nextLine(e)
        if t.has(puttyPrivateMAC, at: after) { e = lineEnd(after) }
        return DetMatch(start: p, end: e)
    }
    putty.declaration.looksAt = "PuTTY-User-Key-File-, then Private-Lines: within 8 KiB, through the key's lines and the MAC"
    d.append(putty)
    // A `.netrc` entry: `machine <host> login <user> password <password>`, on one line or several.
    var netrc = Detector("netrc-password", "password in a .netrc entry", .high, anchors: ["machine "], generic: true) { t, p, len in
        guard t.boundaryBefore(p) else { return nil }
        var i = p + len
        var sawLogin = false
        // Up to five tokens after `machine`: the host, `login` and the user, `password` and the value.
        for _ in 0..<6 {
            i += t.run(i, ByteSet.space, max: 8)
            let w = t.run(i, netrcToken, max: 256)
            guard w > 0 else { return nil }
            if (w == 8 && t.has(passwordWord, at: i)) || (w == 6 && t.has(passwdWord, at: i)) {
                guard sawLogin else { return nil }
                var v = i + w
                v += t.run(v, spaceOrTab, max: 8)
                var l = t.run(v, netrcToken, max: 257)
                // The entry written from code ends at the literal's close (`… password pass')`).
                while l > 0 && literalClose.contains(t[v + l - 1]) { l -= 1 }
                guard l >= 4, l <= 256 else { return nil }
                let value = UnsafeBufferPointer(rebasing: t.b[v..<(v + l)])
                guard ValueJudgement.fitsPassword(value, quoted: true) else { return nil }
                if ValueJudgement.isPlaceholderWord(value) {
                    return DetMatch(start: v, end: v + l, severity: .low, reason: "looks like a placeholder (a word for a password)")
                }
                return DetMatch(start: v, end: v + l)
            }
            if w == 5, t.has(loginWord, at: i) { sawLogin = true }
            i += w
        }
        return nil
    }
    netrc.declaration.looksAt = "machine <host> login <user> password <value>, a .netrc entry"
    d.append(netrc)
    // A MySQL or MariaDB client's password on its command line: `mysql -u root -p<password>` (the
    // value glued to `-p`; `-p` alone asks for it) or `--password=<password>`.
    var mysql = Detector(
        "mysql-cli-password", "password on a MySQL command line", .high,
        anchors: ["mysql ", "mysqldump ", "mysqladmin ", "mariadb ", "mysqlimport ", "mysqlsh "], generic: true
    ) { t, p, len in
        guard t.boundaryBefore(p) else { return nil }
        var i = p + len
        let end = Swift.min(t.count, i + 512)
        while i < end {
            if t.breaksLine(at: i) { return nil }
            let c = t[i]
            var v = -1
            if c == 0x20 && i + 3 < t.count && t[i + 1] == UInt8(ascii: "-") && t[i + 2] == UInt8(ascii: "p") && t[i + 3] != 0x20 {
                v = i + 3
            } else if c == 0x20 && t.has(longPasswordOption, at: i) {
                v = i + longPasswordOption.count
            }
            if v >= 0 {
                var s = v, stop = UInt8(0x20)
                if s < t.count && (t[s] == UInt8(ascii: "'") || t[s] == UInt8(ascii: "\"")) { stop = t[s]; s += 1 }
                var e = s
                while e < end && t[e] != stop && t[e] != 0x0A && t[e] != 0x0D && !(stop == 0x20 && t[e] == UInt8(ascii: "\"")) { e += 1 }
                let value = UnsafeBufferPointer(rebasing: t.b[s..<e])
                return e - s >= 4 && ValueJudgement.fitsPassword(value, quoted: true) ? DetMatch(start: s, end: e) : nil
            }
            i += 1
        }
        return nil
    }
    mysql.declaration.looksAt = "mysql, mysqldump, mysqladmin, mariadb …: -p<password> glued, or --password=<password>, on the same line"
    d.append(mysql)
    // Akamai EdgeGrid client and access tokens (`.edgerc`): `akab-`, 16 characters, `-`, 16 characters.
    d.append(
        prefixed(
            "akamai-edgegrid-token", "Akamai EdgeGrid client or access token", .high, ["akab-"], ByteSet("a-z0-9-"),
            length: 33...33,
            check: { t, s, e in t[s + 21] == UInt8(ascii: "-") && t.run(s + 5, lowerDigit, max: 17) == 16 && t.boundaryAt(e, tokenBody) }))
    // Lob secret API keys: `live_` or `test_` and 35 hex digits (the publishable `live_pub_` keys are
    // public by design and not matched).
    d.append(
        prefixed(
            "lob-api-key", "Lob secret API key", .high, hexDigits.flatMap { ["live_" + $0, "test_" + $0] }, .hexLower,
            length: 34...34, tuning: .init(lowPrefixes: hexDigits.map { "test_" + $0 }),
            check: { t, _, e in t.boundaryAt(e, tokenBody) }))
    // Inngest signing keys: `signkey-`, the environment, `-`, 64 hex digits.
    d.append(
        prefixed(
            "inngest-signing-key", "Inngest signing key", .high, ["signkey-prod-", "signkey-test-", "signkey-branch-"], .hexLower,
            length: 64...64, tuning: .init(lowPrefixes: ["signkey-test-"])))
    // OneSignal's REST API keys since 2024: `os_v2_app_` or `os_v2_org_` and base32.
    d.append(
        prefixed(
            "onesignal-api-key", "OneSignal REST API key", .high, ["os_v2_app_", "os_v2_org_"], ByteSet("a-z2-7"), length: 40...200,
            check: { t, s, e in t.run(s + 10, .digit, max: 200) < e - s - 10 && t.boundaryAt(e, tokenBody) }))
    d.append(prefixed("calcom-api-key", "Cal.com API key", .high, ["cal_live_"], .hexLower, length: 32...32))
    // Checkout.com secret keys of its sandbox (`sk_sbox_`; live keys have no prefix of their own).
    d.append(
        prefixed(
            "checkout-secret-key", "Checkout.com secret key", .high, ["sk_sbox_"], lowerDigit, length: 26...40,
            tuning: .init(lowPrefixes: ["sk_sbox_"]),
            check: { t, s, e in
                let body = UnsafeBufferPointer(rebasing: t.b[(s + 8)..<e])
                return body.contains(where: ByteSet.lower.contains) && body.contains(where: ByteSet.digit.contains)
            }))
    return d
}

private let salesforceBody = ByteSet("A-Za-z0-9!._")
private let lowerDigit = ByteSet("a-z0-9")
private let clickupBody = ByteSet("A-Z0-9_")
private let hexDigits = "0123456789abcdef".map { String($0) }
/// A `.netrc` token: anything but white space (and a JSON string's quote or escape).
private let netrcToken = ByteSet("!#-[]-~")
private let spaceOrTab = ByteSet(" \t")
private let literalClose = ByteSet("'\")],;")
private let puttyPrivateLines = Array("Private-Lines:".utf8)
private let puttyPrivateMAC = Array("Private-MAC:".utf8)
private let passwordWord = Array("password".utf8)
private let passwdWord = Array("passwd".utf8)
private let loginWord = Array("login".utf8)
private let longPasswordOption = Array(" --password=".utf8)
private let alnumChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".map { String($0) }
