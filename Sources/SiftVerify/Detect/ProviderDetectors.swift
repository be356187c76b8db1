import SiftCore

// Provider token families taken from each provider's documented token format (prefix, alphabet,
// length). Every detector is anchored on a literal, so the engine's byte-pair table still decides in
// one pass which of them run.

private func b(_ s: String) -> [UInt8] { Array(s.utf8) }

/// `[A-Za-z0-9_~.-]`: the alphabet of Microsoft Entra client secrets.
private let entraSecret = ByteSet("A-Za-z0-9_~.-")
private let pathish = ByteSet("A-Za-z0-9_@/-")
private let tailscaleBody = ByteSet("A-Za-z0-9-")
private let sourcegraphBody = ByteSet("a-fA-F0-9_")
private let pineconeBody = ByteSet("A-Za-z0-9_-")
private let alnumUpper = ByteSet("A-Z0-9")
private let lowerDigit = ByteSet("a-z0-9")

/// `prefix` + exactly `first.count` bytes of `first.bytes`, then `sep` + `second.count` bytes of `second.bytes`.
private func twoPart(
    _ id: String, _ title: String, _ sev: Severity, _ prefixes: [String],
    _ first: (bytes: ByteSet, count: Int), _ sep: UInt8, _ second: (bytes: ByteSet, count: ClosedRange<Int>),
    lowPrefixes: [String] = []
) -> Detector {
    let set = first.bytes, len = first.count, set2 = second.bytes, len2 = second.count
    let low = Set(lowPrefixes.map(b))
    return Detector(id, title, sev, anchors: prefixes) { t, p, plen in
        guard t.boundaryBefore(p) else { return nil }
        let a = t.run(p + plen, set, max: len + 1)
        guard a == len, p + plen + a < t.count, t[p + plen + a] == sep else { return nil }
        let c = t.run(p + plen + a + 1, set2, max: len2.upperBound + 1)
        guard len2.contains(c) else { return nil }
        var m = DetMatch(start: p, end: p + plen + a + 1 + c)
        if low.contains(Array(t.b[p..<(p + plen)])) { m.testMode = true }
        return m
    }
}

func providerDetectors() -> [Detector] {
    var d: [Detector] = []
    // Microsoft Entra ID (Azure AD) client secret: 3 characters, a digit, `Q~`, then 31–34 characters.
    d.append(
        Detector("azure-ad-client-secret", "Microsoft Entra ID (Azure AD) client secret", .critical, anchors: ["Q~"]) { t, p, _ in
            guard p >= 4, ByteSet.digit.contains(t[p - 1]), t.runBack(p - 1, entraSecret, max: 3) == 3, t.boundaryBefore(p - 4, entraSecret)
            else { return nil }
            let l = t.run(p + 2, entraSecret, max: 35)
            guard (31...34).contains(l), mixed(t, p + 2, p + 2 + l) else { return nil }
            return DetMatch(start: p - 4, end: p + 2 + l)
        })
    // Amazon Bedrock API keys: long-term `ABSK` + base64 of `BedrockAPIKey-…`; short-term `bedrock-api-key-` + base64.
    d.append(
        prefixed(
            "aws-bedrock-api-key", "Amazon Bedrock API key", .critical, ["ABSKQmVkcm9ja0FQSUtleS"],
            .b64pad, length: 40...4096))
    // Short-term: `bedrock-api-key-` + base64 of a presigned `bedrock.amazonaws.com/…` URL.
    d.append(
        prefixed(
            "aws-bedrock-short-term-key", "Amazon Bedrock short-term API key", .critical, ["bedrock-api-key-"], .b64pad, length: 28...8192
        ) { t, s, e in
            let body = UnsafeBufferPointer(rebasing: t.b[(s + 16)..<(s + 16 + (e - s - 16) / 4 * 4)])
            guard let dec = Base64.decode(bytes: body) else { return false }
            return dec.starts(with: Array("bedrock.amazonaws.com".utf8))
        })
    d.append(
        prefixed(
            "onepassword-service-account-token", "1Password service account token", .critical, ["ops_eyJ"],
            ByteSet("A-Za-z0-9+/=_-"), length: 100...4096))
    d.append(
        Detector("onepassword-secret-key", "1Password account Secret Key", .critical, anchors: ["A3-"]) { t, p, _ in
            guard t.boundaryBefore(p) else { return nil }
            // `A3-XXXXXX-XXXXXX-XXXXX-XXXXX-XXXXX-XXXXX`, or the newer `A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX`.
            func groups(_ lengths: [Int]) -> Int? {
                var i = p + 3
                for (k, len) in lengths.enumerated() {
                    guard t.run(i, alnumUpper, max: len + 1) == len else { return nil }
                    i += len
                    if k < lengths.count - 1 { guard i < t.count, t[i] == UInt8(ascii: "-") else { return nil }; i += 1 }
                }
                return i
            }
            guard let i = groups([6, 6, 5, 5, 5, 5]) ?? groups([6, 11, 5, 5, 5]) else { return nil }
            return DetMatch(start: p, end: i)
        })
    d.append(prefixed("artifactory-api-key", "JFrog Artifactory API key", .high, ["AKCp"], .alnum, length: 69...69))
    // Base64 of `reft…`: 64 characters in all.
    d.append(prefixed("artifactory-reference-token", "JFrog Artifactory reference token", .high, ["cmVmd"], .b64url, length: 59...59))
    // X (Twitter) app-only bearer token: 22 `A`s (zero bytes in base64), then the token (`%` as encoded).
    d.append(
        prefixed(
            "twitter-bearer-token", "X (Twitter) app-only bearer token", .high, ["AAAAAAAAAAAAAAAAAAAAA"], ByteSet("A-Za-z0-9%"),
            length: 60...160, check: { t, s, e in mixed(t, s + 22, e) }))
    d.append(
        prefixed(
            "sonarqube-token", "SonarQube or SonarCloud token", .high, ["squ_", "sqp_", "sqa_"], .alnum, length: 40...40))
    // Vault's tokens before 1.10: `s.` (service) and `b.` (batch) + 24 characters, all three classes mixed.
    d.append(
        prefixed(
            "vault-legacy-token", "HashiCorp Vault token (before 1.10)", .high, ["s.", "b."], .alnum, length: 24...24,
            tuning: .init(before: ByteSet("A-Za-z0-9._/-")),
            check: { t, s, e in
                let body = UnsafeBufferPointer(rebasing: t.b[(s + 2)..<e])
                return body.contains(where: ByteSet.lower.contains) && body.contains(where: ByteSet.upper.contains)
                    && body.contains(where: ByteSet.digit.contains)
            }))
    d.append(
        prefixed(
            "planetscale-token", "PlanetScale token or password", .critical, ["pscale_tkn_", "pscale_pw_", "pscale_oauth_"],
            ByteSet("A-Za-z0-9_.=-"), length: 32...64))
    d.append(prefixed("flyio-token", "Fly.io access token", .critical, ["fm1r_", "fm1a_", "fm2_"], .b64pad, length: 40...8192))
    d.append(prefixed("flyio-org-token", "Fly.io organization token", .critical, ["fo1_"], .b64url, length: 43...43))
    d.append(
        prefixed(
            "easypost-api-key", "EasyPost API key", .high, ["EZAK", "EZTK"], .alnum, length: 54...54, tuning: .init(lowPrefixes: ["EZTK"])))
    d.append(
        prefixed(
            "shippo-api-token", "Shippo API token", .high, ["shippo_live_", "shippo_test_"], .hexLower, length: 40...40,
            tuning: .init(lowPrefixes: ["shippo_test_"])))
    d.append(
        prefixed(
            "notion-token", "Notion integration token", .high, ["ntn_"], .alnum, length: 46...46, check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(
        prefixed(
            "notion-legacy-token", "Notion integration token (legacy)", .high, ["secret_"], .alnum, length: 43...43,
            check: { t, s, e in
                mixed(t, s + 7, e)
            }))
    d.append(prefixed("huggingface-org-token", "Hugging Face organization token", .high, ["api_org_"], ByteSet("A-Za-z"), length: 34...34))
    d.append(
        Detector(
            "teams-webhook", "Microsoft Teams incoming webhook URL", .high,
            anchors: [".webhook.office.com/webhookb2/", "outlook.office.com/webhook/"]
        ) { t, p, len in
            let l = t.run(p + len, pathish, max: 400)
            guard l >= 60, t.find(b("/IncomingWebhook/"), p + len, p + len + l) != nil else { return nil }
            // The tenant's subdomain before `.webhook.office.com`.
            let back = t.has(b(".webhook."), at: p) ? t.runBack(p, ByteSet("A-Za-z0-9-"), max: 63) : 0
            return DetMatch(start: p - back, end: p + len + l)
        })
    d.append(
        twoPart(
            "brevo-api-key", "Brevo (Sendinblue) API key", .high, ["xkeysib-", "xsmtpsib-"], (.hexLower, 64),
            UInt8(ascii: "-"), (.alnum, 16...16)))
    d.append(
        prefixed("adafruit-io-key", "Adafruit IO key", .high, ["aio_"], .alnum, length: 28...28, check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(prefixed("clojars-token", "Clojars deploy token", .high, ["CLOJARS_"], .alnum, length: 60...60))
    d.append(
        prefixed(
            "duffel-token", "Duffel access token", .high, ["duffel_live_", "duffel_test_"], ByteSet("A-Za-z0-9_=-"),
            length: 43...43,
            tuning: .init(lowPrefixes: ["duffel_test_"])))
    d.append(
        prefixed(
            "dropbox-token", "Dropbox short-lived access token", .high, ["sl."], ByteSet("A-Za-z0-9_=.-"), length: 120...1400,
            check: { t, s, e in mixed(t, s + 3, e) && t.run(s + 3, .lower, max: e - s) < e - s - 3 }))
    d.append(prefixed("frameio-token", "Frame.io token", .high, ["fio-u-"], ByteSet("A-Za-z0-9_=-"), length: 64...64))
    d.append(
        twoPart(
            "flutterwave-secret-key", "Flutterwave secret key", .high, ["FLWSECK-", "FLWSECK_TEST-"], (.hexLower, 32),
            UInt8(ascii: "-"), (ByteSet("X"), 1...1), lowPrefixes: ["FLWSECK_TEST-"]))
    // The encryption key: the prefix and 12 characters (`FLWSECK_TEST` + `a1b2…`, a `-` between or not).
    d.append(
        prefixed(
            "flutterwave-encryption-key", "Flutterwave encryption key", .high,
            ["FLWSECK-", "FLWSECK_TEST-", "FLWSECK", "FLWSECK_TEST"], ByteSet("a-hA-H0-9"), length: 12...12,
            tuning: .init(lowPrefixes: ["FLWSECK_TEST-", "FLWSECK_TEST"]), check: { t, _, e in mixed(t, e - 12, e) }))
    d.append(prefixed("prefect-api-key", "Prefect API key", .high, ["pnu_"], .alnum, length: 36...36))
    d.append(prefixed("readme-api-key", "ReadMe API key", .high, ["rdme_"], .alnum, length: 70...70))
    d.append(prefixed("rubygems-api-key", "RubyGems API key", .high, ["rubygems_"], .hexLower, length: 48...48))
    d.append(prefixed("scalingo-token", "Scalingo API token", .high, ["tk-us-"], .b64url, length: 48...48))
    d.append(prefixed("supabase-token", "Supabase access token or secret key", .critical, ["sbp_", "sb_secret_"], .b64url, length: 30...64))
    d.append(
        prefixed(
            "tailscale-key", "Tailscale key", .critical,
            ["tskey-auth-", "tskey-api-", "tskey-client-", "tskey-scim-", "tskey-webhook-"], tailscaleBody, length: 30...80))
    d.append(prefixed("typeform-token", "Typeform personal access token", .high, ["tfp_"], ByteSet("A-Za-z0-9_.=-"), length: 40...80))
    d.append(prefixed("netlify-token", "Netlify personal access token", .high, ["nfp_"], .alnum, length: 36...40))
    d.append(prefixed("buildkite-token", "Buildkite API token", .high, ["bkua_"], .hexLower, length: 40...40))
    d.append(
        prefixed("render-api-key", "Render API key", .high, ["rnd_"], .alnum, length: 32...32, check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(prefixed("groq-api-key", "Groq API key", .critical, ["gsk_"], .alnum, length: 52...52))
    d.append(prefixed("replicate-token", "Replicate API token", .high, ["r8_"], .alnum, length: 37...37))
    d.append(prefixed("perplexity-api-key", "Perplexity API key", .high, ["pplx-"], .alnum, length: 48...48))
    d.append(prefixed("xai-api-key", "xAI API key", .high, ["xai-"], .alnum, length: 80...80))
    d.append(
        twoPart(
            "langsmith-api-key", "LangSmith API key", .high, ["lsv2_pt_", "lsv2_sk_"], (.hexLower, 32), UInt8(ascii: "_"),
            (.hexLower, 10...10)))
    // `ico-` after a `.` is a file name's extension (`box.ico-7a38….png`), not a key.
    d.append(
        prefixed(
            "infracost-api-key", "Infracost API key", .high, ["ico-"], .alnum, length: 32...32, tuning: .init(before: ByteSet("A-Za-z0-9."))
        ))
    d.append(prefixed("intra42-secret", "42 Intra client secret", .high, ["s-s4t2ud-", "s-s4t2af-"], .hexLower, length: 64...64))
    // `sgp_` + 40 hex, `sgp_local_` + 40 hex, or `sgp_` + 16 hex + `_` + 40 hex.
    d.append(
        prefixed(
            "sourcegraph-token", "Sourcegraph access token", .high, ["sgp_local_", "sgp_"], sourcegraphBody, length: 40...80,
            check: { t, s, e in
                let body = t.has(b("sgp_local_"), at: s) ? s + 10 : s + 4
                let n = e - body
                if n == 40 { return t.run(body, .hex, max: 41) == 40 }
                return n == 57 && t.run(body, .hex, max: 17) == 16 && t[body + 16] == UInt8(ascii: "_")
                    && t.run(body + 17, .hex, max: 41) == 40
            }))
    d.append(
        Detector("harness-token", "Harness access token", .high, anchors: ["pat.", "sat."]) { t, p, _ in
            guard t.boundaryBefore(p) else { return nil }
            let a = t.run(p + 4, .b64url, max: 23)
            guard a == 22, t.has(b("."), at: p + 4 + a) else { return nil }
            let c = t.run(p + 5 + a, .alnum, max: 25)
            guard c == 24, t.has(b("."), at: p + 5 + a + c) else { return nil }
            let e = t.run(p + 6 + a + c, .alnum, max: 21)
            guard e == 20 else { return nil }
            return DetMatch(start: p, end: p + 6 + a + c + e)
        })
    d.append(
        twoPart(
            "cloudflare-origin-ca-key", "Cloudflare Origin CA key", .high, ["v1.0-"], (.hexLower, 24), UInt8(ascii: "-"),
            (.hexLower, 146...146)))
    // A Mapbox public token (`pk.` and the same parts) is meant to ship in apps and pages.
    d.append(
        prefixed(
            "mapbox-public-token", "Mapbox public token (public by design)", .info, ["pk.eyJ"], ByteSet("A-Za-z0-9_.-"),
            length: 60...300, check: mapboxParts))
    // `sk.` + the base64url of `{"u":"<user>","a":"<id>"}` + `.` + the signature: a short user name
    // makes the whole as short as 70.
    d.append(
        prefixed(
            "mapbox-secret-token", "Mapbox secret token", .high, ["sk.eyJ"], ByteSet("A-Za-z0-9_.-"), length: 60...300,
            check: mapboxParts))
    d.append(prefixed("pinecone-api-key", "Pinecone API key", .high, ["pcsk_"], pineconeBody, length: 60...100))
    d.append(prefixed("figma-token", "Figma personal access token", .high, ["figd_"], .b64url, length: 40...60))
    d.append(
        prefixed(
            "bitbucket-app-password", "Atlassian Bitbucket app password", .high, ["ATBB"], .alnum, length: 28...40,
            check: { t, s, e in
                mixed(t, s + 4, e)
            }))
    d.append(
        Detector(
            "plaid-access-token", "Plaid access token", .high,
            anchors: ["access-production-", "access-development-", "access-sandbox-"]
        ) { t, p, len in
            guard t.boundaryBefore(p), Shape.isUUID(t.b, p + len) else { return nil }
            var m = DetMatch(start: p, end: p + len + 36)
            if t.has(b("access-sandbox-"), at: p) { m.testMode = true }
            return m
        })
    d.append(
        prefixed(
            "octopus-deploy-key", "Octopus Deploy API key", .high, ["API-"], alnumUpper, length: 26...28,
            check: { t, s, e in
                t.run(s + 4, .upper, max: 64) < e - s - 4 && t.run(s + 4, .digit, max: 64) < e - s - 4
            }))
    d.append(prefixed("nuget-api-key", "NuGet API key", .high, ["oy2"], lowerDigit, length: 43...43))
    d.append(
        twoPart(
            "defined-networking-key", "Defined Networking API key", .high, ["dnkey-"], (alnumUpper, 26), UInt8(ascii: "-"),
            (alnumUpper, 52...52)))
    d.append(prefixed("circleci-token", "CircleCI personal API token", .high, ["CCIPAT_"], .b64url, length: 40...80))
    d.append(prefixed("contentful-token", "Contentful personal access token", .high, ["CFPAT-"], .b64url, length: 43...43))
    d.append(prefixed("linear-oauth-token", "Linear OAuth token", .high, ["lin_oauth_"], .hexLower, length: 64...64))
    d.append(prefixed("mailersend-token", "MailerSend API token", .high, ["mlsn."], .alnum, length: 64...70))
    d.append(
        prefixed(
            "alibaba-access-key", "Alibaba Cloud AccessKey ID", .high, ["LTAI"], .alnum, length: 12...20,
            check: { t, s, e in
                mixed(t, s + 4, e)
            }))
    d.append(
        prefixed("zapier-webhook", "Zapier webhook URL", .high, ["hooks.zapier.com/hooks/catch/"], ByteSet("A-Za-z0-9/"), length: 10...80))
    // A JWT wrapped in base64 (`eyJ` encodes to `ZXlK`): decoded and checked as a JWT.
    d.append(
        Detector("jwt-base64", "JSON Web Token wrapped in base64", .high, anchors: ["ZXlK"]) { t, p, _ in
            guard t.boundaryBefore(p, .b64) else { return nil }
            let l = t.run(p, .b64pad, max: 16384)
            guard l >= 40, let dec = Base64.decode(bytes: UnsafeBufferPointer(rebasing: t.b[p..<(p + l)])) else { return nil }
            let found = dec.withUnsafeBufferPointer { buf -> Bool in
                let inner = ScanInput(b: buf, hints: [])
                return jwtShape(inner, 0) != nil
            }
            return found ? DetMatch(start: p, end: p + l) : nil
        })
    // `curl -u user:password` (and `--user`).
    d.append(
        Detector(
            "curl-user", "credentials on a curl command line (-u user:password)", .high, anchors: ["-u ", "--user "],
            generic: true
        ) { t, p, len in
            guard p == 0 || t[p - 1] == 0x20 || t[p - 1] == 0x09 else { return nil }
            var i = p + len
            while i < t.count && t[i] == 0x20 { i += 1 }
            var quote: UInt8 = 0
            if i < t.count && (t[i] == UInt8(ascii: "'") || t[i] == UInt8(ascii: "\"")) { quote = t[i]; i += 1 }
            var e = i, colon = -1
            while e < t.count && e < i + 256 {
                let c = t[e]
                if quote != 0 ? c == quote : (c == 0x20 || c == 0x09 || c == 0x0A || c == UInt8(ascii: "\"")) { break }
                if c == UInt8(ascii: ":") && colon < 0 { colon = e }
                e += 1
            }
            // `--user "<user>":"<password>"`: each part quoted on its own.
            var pwStart = colon + 1
            if colon < 0, quote != 0, e + 1 < t.count, t[e] == quote, t[e + 1] == UInt8(ascii: ":") {
                colon = e
                pwStart = e + 2
                if pwStart < t.count && t[pwStart] == quote { pwStart += 1 }
                var k = pwStart
                while k < t.count && k < pwStart + 256 && t[k] != quote && t[k] != 0x20 && t[k] != 0x0A { k += 1 }
                e = k
                guard e - pwStart >= 3 else { return nil }
                let user = UnsafeBufferPointer(rebasing: t.b[i..<colon]), pw = UnsafeBufferPointer(rebasing: t.b[pwStart..<e])
                guard !curlTemplated(user), ValueJudgement.fitsPassword(pw, quoted: true), !ValueJudgement.isPlaceholderWord(pw) else {
                    return nil
                }
                return DetMatch(start: pwStart, end: e)
            }
            guard colon >= i else { return nil }
            // `-u "token:"`: a key used as the user name with no password, as Stripe and others document.
            if e == colon + 1 {
                let user = UnsafeBufferPointer(rebasing: t.b[i..<colon])
                return colon > i && ValueJudgement.fitsToken(user, quoted: true) ? DetMatch(start: i, end: colon) : nil
            }
            // `-u ":password"`: no user name, the password alone.
            if colon == i {
                let pw = UnsafeBufferPointer(rebasing: t.b[(colon + 1)..<e])
                return e - colon > 6 && ValueJudgement.fitsPassword(pw, quoted: true) && !ValueJudgement.isPlaceholderWord(pw)
                    && t[colon + 1] != UInt8(ascii: "$") ? DetMatch(start: colon + 1, end: e) : nil
            }
            guard e - colon > 3, t[colon + 1] != UInt8(ascii: "$") else { return nil }
            // `-u user:pass`, `-u <user:password>`, `--user "{{ … }}"`, `neo4j:[PASSWORD]`: documentation.
            let user = UnsafeBufferPointer(rebasing: t.b[i..<colon]), pw = UnsafeBufferPointer(rebasing: t.b[(colon + 1)..<e])
            guard !curlTemplated(user), ValueJudgement.fitsPassword(pw, quoted: true), !ValueJudgement.isPlaceholderWord(pw) else {
                return nil
            }
            return DetMatch(start: colon + 1, end: e)
        })
    d.append(
        prefixed(
            "adobe-client-secret", "Adobe client secret", .high, ["p8e-"], .alnum, length: 32...32,
            check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(
        prefixed(
            "openshift-token", "OpenShift user token", .high, ["sha256~"], .b64url, length: 43...43,
            check: { t, s, e in mixed(t, s + 7, e) }))
    d.append(
        prefixed(
            // `EAA` and a letter of the app's (`EAAG` of the Graph API Explorer, `EAAB`, `EAAJ`, …; `EAAA`
            // is Square's), then 100 characters or more.
            "facebook-access-token", "Facebook (Meta) access token", .high,
            "BCDEFGHIJKLMNOPQRSTUVWXYZ".map { "EAA" + String($0) }, .alnum, length: 100...400,
            check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(
        prefixed(
            "gitlab-runner-registration-token", "GitLab runner registration token", .critical, ["GR1348941"],
            ByteSet("A-Za-z0-9_-"), length: 20...50))
    d.append(prefixed("gitlab-session-cookie", "GitLab session cookie", .high, ["_gitlab_session="], .alnum, length: 32...32))
    d.append(prefixed("grafana-api-key", "Grafana API key", .high, ["eyJrIjoi"], .b64pad, length: 70...400))
    // Instagram user access tokens: `IGQV…` (Basic Display) and `IGAA…` (Instagram Login), 100 or more of base64url.
    d.append(
        prefixed(
            "instagram-access-token", "Instagram access token", .high, ["IGQV", "IGAA"], .b64url, length: 100...400,
            check: { t, s, e in mixed(t, s + 4, e) }))
    d.append(
        prefixed(
            "settlemint-token", "SettleMint access token", .high, ["sm_pat_", "sm_aat_", "sm_sat_"], .alnum, length: 16...16,
            check: { t, s, e in mixed(t, s + 7, e) }))
    // MaxMind license key: 6 characters, `_`, 29 characters, `_mmk`.
    d.append(
        Detector("maxmind-license-key", "MaxMind license key", .high, anchors: ["_mmk"]) { t, p, _ in
            guard p >= 36, t.boundaryAt(p + 4, .alnum) else { return nil }
            let s = p - 36
            guard t.boundaryBefore(s, .b64url), t.run(s, .alnum, max: 6) == 6, t[s + 6] == UInt8(ascii: "_"),
                t.run(s + 7, .alnum, max: 29) == 29, mixed(t, s + 7, p)
            else { return nil }
            return DetMatch(start: s, end: p + 4)
        })
    // Authress service client key: `sc_…` `.` `…` `.acc_…` `.` secret.
    d.append(
        Detector("authress-key", "Authress service client key", .high, anchors: [".acc_", ".acc-"]) { t, p, _ in
            // The client and key ids are written in either case (`sc_Ab12…`).
            let back = t.runBack(p, ByteSet("A-Za-z0-9_."), max: 48)
            let s = p - back
            let lead = String(decoding: t.b[s..<Swift.min(p, s + 9)], as: UTF8.self).lowercased()
            guard ["sc_", "ext_", "scauth_", "authress_"].contains(where: { lead.hasPrefix($0) }), t.boundaryBefore(s) else {
                return nil
            }
            let l = t.run(p + 5, ByteSet("A-Za-z0-9-"), max: 33)
            guard (10...32).contains(l), p + 5 + l < t.count, t[p + 5 + l] == UInt8(ascii: ".") else { return nil }
            let k = t.run(p + 6 + l, ByteSet("A-Za-z0-9+/_=-"), max: 121)
            guard (30...120).contains(k) else { return nil }
            return DetMatch(start: s, end: p + 6 + l + k)
        })
    d.append(
        Detector("softlayer-api-key", "IBM SoftLayer API key in a SOAP URL", .high, anchors: ["softlayer.com/soap/v3"]) { t, p, len in
            var i = p + len
            if t.has(b(".1"), at: i) { i += 2 }
            guard i < t.count, t[i] == UInt8(ascii: "/"), t.run(i + 1, .hexLower, max: 65) == 64 else { return nil }
            return DetMatch(start: i + 1, end: i + 65)
        })
    // A Kubernetes Secret's `data:` or `stringData:` block: every value in it is secret by
    // definition, whatever its name; the match runs from the first value to the last.
    d.append(
        Detector(
            "kubernetes-secret", "value in a Kubernetes Secret's data", .high,
            anchors: ["kind: Secret", "kind: \"Secret\"", "\"kind\": \"Secret\"", "\"kind\":\"Secret\""]
        ) { t, p, len in
            t[p] == UInt8(ascii: "\"") ? kubernetesSecretJSON(t, p, len) : kubernetesSecretData(t, p, len)
        })
    // A Discord bot token with no name beside it: `<base64 of the bot's numeric id>.<6>.<27+>`. The
    // first part decoding to 17 to 20 digits is what makes a bare run of this shape one.
    var discordAnchors: [String] = []
    for pair in ["MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"] {
        for third in "AEIMQUYcgk" { discordAnchors.append(pair + String(third)) }
    }
    // Some anchors (`Mzk`, `Nzk`) can stand in the base64 decoding of a request id, but a match spans
    // 23 + 1 + 6 + 1 + 27 bytes, more than an id or its decoding holds: the id's shortcut stays sound.
    var discord = Detector("discord-bot-token-bare", "Discord bot token", .high, anchors: discordAnchors) { t, p, _ in
        guard t.boundaryBefore(p, .b64url) else { return nil }
        let a = t.run(p, .b64url, max: 29)
        guard (23...28).contains(a), p + a < t.count, t[p + a] == UInt8(ascii: ".") else { return nil }
        let b2 = t.run(p + a + 1, .b64url, max: 8)
        guard (6...7).contains(b2), p + a + 1 + b2 < t.count, t[p + a + 1 + b2] == UInt8(ascii: ".") else { return nil }
        let c = t.run(p + a + 2 + b2, .b64url, max: 60)
        guard (27...60).contains(c) else { return nil }
        let m = DetMatch(start: p, end: p + a + 2 + b2 + c)
        let id = UnsafeBufferPointer(rebasing: t.b[p..<(p + a / 4 * 4)])
        if let digits = Base64.decode(bytes: id), digits.count >= 15, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return m }
        // A first part that does not decode to digits: still the token's exact shape, as scanners
        // write it (an id's 24 to 26, a 6-character stamp, an HMAC of 27 or 38), two character
        // classes at least in the first and last parts.
        guard (24...26).contains(a), b2 == 6, c == 27 || c == 38, mixed(t, p, p + a), mixed(t, p + a + 2 + b2, m.end) else {
            return nil
        }
        return m
    }
    discord.declaredShortest = 23 + 1 + 6 + 1 + 27
    d.append(discord)
    return d
}

/// A Mapbox token's parts after `pk.eyJ` or `sk.eyJ`: the payload, `.`, and a signature of more
/// than 16 characters.
@Sendable private func mapboxParts(_ t: ScanInput, _ s: Int, _ e: Int) -> Bool {
    t.find([UInt8(ascii: ".")], s + 6, e).map { e - $0 > 16 } ?? false
}

/// A curl user name that is documentation's stand-in: `$USER`, `<user>`, `[USER]`, `{user}`,
/// `{{ user }}` (a GUID in braces, `{acd3…}`, holds digits and is a user's id).
private func curlTemplated(_ user: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let first = user.first else { return true }
    if first == UInt8(ascii: "$") || first == UInt8(ascii: "<") || first == UInt8(ascii: "[") { return true }
    return first == UInt8(ascii: "{") && !user.contains { ByteSet.digit.contains($0) }
}

/// A JWT at `p`: `eyJ…` header, `.`, `eyJ…` or any payload, and a signature; also an unsigned token
/// (`header.payload.` with `alg: none`) and a two-part `header.payload` whose payload is JSON too.
func jwtShape(_ t: ScanInput, _ p: Int) -> DetMatch? {
    guard t.has(b("eyJ"), at: p) else { return nil }
    // Glued to the text before it (`req_eyJ…`, `token=abceyJ…`): a token all the same when its header
    // and its payload are both JSON objects (`eyJ` is base64url for `{"`) and the header is long
    // enough to name an algorithm; random base64 has no `.` to split it in two such parts.
    let glued = !t.boundaryBefore(p, .b64url)
    let s1 = t.run(p, .b64url, max: 4096)
    guard s1 >= (glued ? 16 : 10), p + s1 < t.count, t[p + s1] == UInt8(ascii: ".") else { return nil }
    let p2 = p + s1 + 1
    let s2 = t.run(p2, .b64url, max: 16384)
    guard s2 >= 10 else { return nil }
    let payloadIsJSON = t.has(b("eyJ"), at: p2)
    // The header is a JSON object: its base64url decodes to `{"…}`. One damaged in a few bytes
    // (`{"alg":'\x9ez","typ":"JWT"}`) still is, when the payload decodes to a whole object.
    let header = UnsafeBufferPointer(rebasing: t.b[p..<(p + s1)])
    guard
        jwtHeaderIsObject(header)
            || (payloadIsJSON && jwtHeaderIsObject(header, damage: 8)
                && jwtHeaderIsObject(UnsafeBufferPointer(rebasing: t.b[p2..<(p2 + s2)])))
    else { return nil }
    if glued && !payloadIsJSON { return nil }
    if p2 + s2 < t.count, t[p2 + s2] == UInt8(ascii: ".") {
        let p3 = p2 + s2 + 1
        let s3 = t.run(p3, .b64url, max: 4096)
        if s3 >= 8 { return DetMatch(start: p, end: p3 + s3) }
        // Unsigned: an empty signature after a JSON payload.
        return payloadIsJSON && s3 == 0 ? DetMatch(start: p, end: p3) : nil
    }
    // Two parts, both JSON objects.
    return payloadIsJSON && s2 >= 16 ? DetMatch(start: p, end: p2 + s2) : nil
}

/// Whether a JWT header's base64url text decodes to a whole JSON object (`{"alg":…}`; white space
/// before the closing brace allowed): a run that only starts like one (`eyJhbasdGci…`) is not a token.
/// With `damage: n`, up to one byte in `n` may be neither (a header garbled in a few bytes).
func jwtHeaderIsObject(_ h: UnsafeBufferPointer<UInt8>, damage: Int = 0) -> Bool {
    guard h.count <= 16384, let dec = Base64.decode(bytes: h) else { return false }
    guard dec.count >= 2, dec[0] == UInt8(ascii: "{"), dec[1] == UInt8(ascii: "\"") || damage == 0 else { return false }
    if damage > 0 {
        // Printable ASCII but for a few bytes: random base64 decodes mostly to bytes outside it.
        let bad = dec.reduce(0) { $0 + (($1 < 0x20 && $1 != 0x09 && $1 != 0x0A && $1 != 0x0D) || $1 >= 0x7F ? 1 : 0) }
        guard bad * damage <= dec.count else { return false }
    } else {
        // JSON text: no control byte but white space, and valid UTF-8 (random base64 decodes to neither).
        guard !dec.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
            String(validating: dec, as: UTF8.self) != nil
        else { return false }
    }
    var e = dec.count
    while e > 0 && (dec[e - 1] == 0x20 || dec[e - 1] == 0x0A || dec[e - 1] == 0x0D || dec[e - 1] == 0x09) { e -= 1 }
    return e > 0 && dec[e - 1] == UInt8(ascii: "}")
}

/// The values of a Kubernetes Secret manifest's `data:` or `stringData:` block, in the YAML document
/// around `kind: Secret` at `p` (documents end at `---`; at most 8 KiB either way): from the first
/// value's start to the last one's end, or nil when the block holds none.
func kubernetesSecretData(_ t: ScanInput, _ p: Int, _ len: Int) -> DetMatch? {
    let after = p + len
    guard after == t.count || t[after] == 0x0A || t[after] == 0x0D || t[after] == 0x20 else { return nil }
    // `kind:` opens its line (after indentation).
    let lineStart = p - t.runBack(p, spaces, max: 64)
    guard lineStart == 0 || t[lineStart - 1] == 0x0A else { return nil }
    let separator: [UInt8] = [0x0A, 0x2D, 0x2D, 0x2D]
    var lo = Swift.max(0, p - 8192)
    var k = p - 4
    while k >= lo {
        if t.has(separator, at: k) { lo = k + 4; break }
        k -= 1
    }
    let hi = t.find(separator, after, Swift.min(t.count, after + 8192)) ?? Swift.min(t.count, after + 8192)
    var first = -1, last = -1
    var blockIndent = -1
    var i = lo
    while i < hi {
        var e = i
        while e < hi && t[e] != 0x0A { e += 1 }
        let indent = t.run(i, spaces, max: e - i)
        let c = i + indent
        var lineEnd = e
        if lineEnd > c && t[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        if c < lineEnd {
            if blockIndent >= 0 && indent > blockIndent {
                // `name: value` (a quoted value read inside its quotes).
                if let colon = t.find([0x3A, 0x20], c, lineEnd) {
                    var vs = colon + 2
                    while vs < lineEnd && t[vs] == 0x20 { vs += 1 }
                    var ve = lineEnd
                    while ve > vs && t[ve - 1] == 0x20 { ve -= 1 }
                    if ve - vs >= 2 && (t[vs] == 0x22 || t[vs] == 0x27) && t[ve - 1] == t[vs] { vs += 1; ve -= 1 }
                    // A mask, a scrubbed copy's placeholder or a template reference holds no secret.
                    if ve > vs && !ValueJudgement.isReference(UnsafeBufferPointer(rebasing: t.b[vs..<ve])) {
                        if first < 0 { first = vs }
                        last = ve
                    }
                }
            } else if let block = [dataKey, stringDataKey].first(where: { t.has($0, at: c) }) {
                let colonEnd = c + block.count
                blockIndent = t.run(colonEnd, spaces, max: lineEnd - colonEnd) == lineEnd - colonEnd ? indent : -1
            } else {
                blockIndent = -1
            }
        }
        i = e + 1
    }
    guard first >= 0 else { return nil }
    return DetMatch(start: first, end: last)
}

private let spaces = ByteSet(" ")
private let dataKey = Array("data:".utf8)
private let stringDataKey = Array("stringData:".utf8)

/// The string values of a Kubernetes Secret written as JSON (`kubectl get secret -o json`): the
/// `"data"` or `"stringData"` object of the object whose `"kind"` is `"Secret"` at `p`, looked for
/// within 8 KiB either way; from the first value's start to the last one's end.
func kubernetesSecretJSON(_ t: ScanInput, _ p: Int, _ len: Int) -> DetMatch? {
    let lo = Swift.max(0, p - 8192), hi = Swift.min(t.count, p + len + 8192)
    for key in [Array("\"data\"".utf8), Array("\"stringData\"".utf8)] {
        var at = lo
        while let k = t.find(key, at, hi) {
            at = k + key.count
            var i = at
            while i < hi && (t[i] == 0x20 || t[i] == 0x0A || t[i] == 0x0D || t[i] == 0x09) { i += 1 }
            guard i < hi, t[i] == UInt8(ascii: ":") else { continue }
            i += 1
            while i < hi && (t[i] == 0x20 || t[i] == 0x0A || t[i] == 0x0D || t[i] == 0x09) { i += 1 }
            guard i < hi, t[i] == UInt8(ascii: "{") else { continue }
            // The object's members: `"name": "value"` pairs, no nesting in a Secret's data.
            var first = -1, last = -1
            var j = i + 1
            var strings = 0
            while j < hi && t[j] != UInt8(ascii: "}") {
                guard t[j] == UInt8(ascii: "\"") else {
                    j += 1
                    continue
                }
                var e = j + 1
                while e < hi && t[e] != UInt8(ascii: "\"") { e += t[e] == UInt8(ascii: "\\") ? 2 : 1 }
                guard e < hi else { break }
                strings += 1
                // Every second string is a value.
                if strings % 2 == 0 && e > j + 1
                    && !ValueJudgement.isReference(UnsafeBufferPointer(rebasing: t.b[(j + 1)..<e]))
                {
                    if first < 0 { first = j + 1 }
                    last = e
                }
                j = e + 1
            }
            if first >= 0 { return DetMatch(start: first, end: last) }
        }
    }
    return nil
}
