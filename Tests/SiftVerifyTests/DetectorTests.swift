import Foundation
import SiftTestSupport
import Testing
@testable import SiftCore
@testable import SiftVerify

/// One detector case: the text scanned and the value expected to be found in it.
struct DetectorCase: Sendable, CustomTestStringConvertible {
    var id: String
    var text: String
    var value: String
    var severity: Severity? = nil
    var hints: String? = nil
    var testDescription: String { id }
}

private typealias F = Fake

/// Positives: every detector, each with a value assembled at run time.
let positiveCases: [DetectorCase] = {
    var c: [DetectorCase] = []
    func add(
        _ id: String, _ value: String, before: String = "value: ", after: String = " end", severity: Severity? = nil, hints: String? = nil
    ) {
        c.append(DetectorCase(id: id, text: before + value + after, value: value, severity: severity, hints: hints))
    }
    let jwt = Fake.jwtHeader(seed: 1) + ".eyJ" + F.s(40, F.b64url, seed: 2) + "." + F.s(43, F.b64url, seed: 3)
    add("jwt", jwt)
    add("bearer", F.s(32, F.alnum, seed: 4), before: "Authorization: Bearer ")
    add("basic-auth", Base64.encode(Array(("alice" + ":" + "pw" + "12345678").utf8)), before: "Authorization: Basic ")
    add(
        "encoded-user-password", Base64.encode(Array(("johndoe" + ":" + F.s(14, F.alnum, seed: 61)).utf8)), before: "\"user_auth\": \"",
        after: "\"")
    add("encoded-user-password", Base64.encode(Array(("ci-bot" + ":" + "Tr0ub4dor&3").utf8)), before: "_auth=", after: "\n")
    let pem =
        "-----BEGIN " + "RSA PRIVATE KEY-----\n" + F.s(64, F.b64, seed: 5) + "\n" + F.s(64, F.b64, seed: 6) + "\n-----END "
        + "RSA PRIVATE KEY-----"
    add("pem-private-key", pem)
    let pem2 = "-----BEGIN " + "PRIVATE KEY-----\\n" + F.s(64, F.b64, seed: 7) + "\\n-----END " + "PRIVATE KEY-----"
    // The armour says what it holds, whatever the body: words in place of the key, critical still.
    add("pem-private-key", "-----BEGIN " + "PRIVATE KEY-----\nanything\n-----END " + "PRIVATE KEY-----", severity: .critical)
    // Cut short, as documentation does: key material still, critical.
    let cut = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + F.s(20, F.b64, seed: 60) + "...\n-----END " + "RSA PRIVATE KEY-----"
    add("pem-private-key", cut, severity: .critical)
    add("private-key-json", pem2, before: "{\"type\": \"service_account\", \"private_key\": \"", after: "\"}")
    add("aws-access-key", "AKIA" + F.s(16, F.upperDigit, seed: 8))
    add("aws-access-key", "ASIA" + F.s(16, F.upperDigit, seed: 9))
    add("aws-secret-key", F.s(40, F.b64, seed: 10), before: "aws_secret_access_key = ")
    add("aws-secret-key", F.s(40, F.b64, seed: 11), before: "", after: "", hints: "awsSecretAccessKey")
    add("palbase-user-token", "pbu_" + F.s(43, F.b64url, seed: 12))
    add("palbase-project-key", "pbk_" + "live_" + F.s(32, F.alnum, seed: 13))
    add("palbase-project-key", "pbk_" + "test_" + F.s(32, F.alnum, seed: 14), severity: .high)
    for (k, p) in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].enumerated() { add("github-token", p + F.s(36, F.alnum, seed: 15 + UInt64(k))) }
    add("github-pat", "github_" + "pat_" + F.s(82, F.alnum + "_", seed: 21))
    add("gitlab-token", "glpat-" + F.s(20, F.b64url, seed: 22))
    add("gitlab-token", "glptt-" + F.s(40, F.b64url, seed: 23))
    add("slack-token", "xoxb-" + F.s(12, F.digits, seed: 24) + "-" + F.s(12, F.digits, seed: 25) + "-" + F.s(24, F.alnum, seed: 26))
    add(
        "slack-token", "xapp-1-" + F.s(11, F.upperDigit, seed: 27) + "-" + F.s(13, F.digits, seed: 28) + "-" + F.s(64, F.hexLower, seed: 29)
    )
    add(
        "slack-webhook",
        "hooks.slack.com/services/T" + F.s(8, F.upperDigit, seed: 30) + "/B" + F.s(8, F.upperDigit, seed: 31) + "/"
            + F.s(24, F.alnum, seed: 32), before: "post to https://")
    add("stripe-key", "sk_" + "live_" + F.s(24, F.alnum, seed: 33))
    add("stripe-key", "rk_" + "live_" + F.s(24, F.alnum, seed: 34))
    add("stripe-key", "sk_" + "test_" + F.s(24, F.alnum, seed: 35), severity: .high)
    add("stripe-webhook-secret", "whsec_" + F.s(32, F.alnum, seed: 36))
    add("google-api-key", "AIza" + F.s(35, F.b64url, seed: 37))
    add("google-oauth-access-token", "ya29." + F.s(60, F.b64url, seed: 38))
    add("google-oauth-refresh-token", "1//0" + F.s(60, F.b64url, seed: 39))
    add("google-oauth-client-secret", "GOCSPX-" + F.s(28, F.b64url, seed: 40))
    add("twilio-api-key", "SK" + F.s(32, F.hexLower, seed: 41))
    add("twilio-account-credentials", "AC" + F.s(32, F.hexLower, seed: 42), before: "twilio sid ", after: " auth token follows")
    add("sendgrid-api-key", "SG." + F.s(22, F.b64url, seed: 43) + "." + F.s(43, F.b64url, seed: 44))
    add("npm-token", "npm_" + F.s(36, F.alnum, seed: 45))
    add("pypi-token", "pypi-" + "AgEIcHlwaS5vcmc" + F.s(160, F.b64url, seed: 46))
    add(
        "azure-sas", F.s(43, F.alnum, seed: 47) + "%3D",
        before: "see https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&se=2026-12-01&sp=r&sig=", after: " for the file")
    add(
        "azure-storage-key", F.s(86, F.b64, seed: 48) + "==", before: "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=",
        after: ";EndpointSuffix=core.windows.net")
    add("mailgun-api-key", "key-" + F.s(32, F.hexLower, seed: 49))
    add("mailchimp-api-key", F.s(32, F.hexLower, seed: 50) + "-us12")
    for (k, p) in ["shpat_", "shpss_", "shpca_", "shppa_"].enumerated() {
        add("shopify-token", p + F.s(32, F.hexLower, seed: 51 + UInt64(k)))
    }
    add("digitalocean-token", "dop_" + "v1_" + F.s(64, F.hexLower, seed: 55))
    add("heroku-api-key", F.uuid(seed: 56), before: "HEROKU_API_KEY=")
    add("heroku-api-key", F.uuid(seed: 57), before: "", after: "", hints: "herokuApiKey")
    add("datadog-api-key", F.s(32, F.hexLower, seed: 58), before: "DD_API_KEY=")
    add("anthropic-api-key", "sk-ant-" + "api03-" + F.s(93, F.b64url, seed: 59))
    add("openai-api-key", "sk-proj-" + F.s(56, F.b64url, seed: 60) + "T3Blbk" + "FJ" + F.s(56, F.b64url, seed: 59))
    add("openai-api-key", "sk-" + F.s(20, F.alnum, seed: 61) + "T3Blbk" + "FJ" + F.s(20, F.alnum, seed: 62))
    add("huggingface-token", "hf_" + F.s(34, F.alnum, seed: 63))
    add(
        "discord-bot-token", "M" + F.s(23, F.b64url, seed: 64) + "." + F.s(6, F.b64url, seed: 65) + "." + F.s(27, F.b64url, seed: 66),
        before: "discord bot token ")
    add(
        "discord-webhook", "discord.com/api/webhooks/" + F.s(18, F.digits, seed: 67) + "/" + F.s(68, F.b64url, seed: 68), before: "https://"
    )
    add("telegram-bot-token", F.s(10, F.digits, seed: 69) + ":AA" + F.s(33, F.b64url, seed: 70))
    add("square-token", "sq0atp-" + F.s(22, F.b64url, seed: 71))
    add("square-token", "EAAA" + F.s(60, F.alnum, seed: 72))
    add("braintree-token", "access_token$" + "production$" + F.s(16, F.lower + F.digits, seed: 73) + "$" + F.s(32, F.hexLower, seed: 74))
    add("firebase-fcm-server-key", "AAAA" + F.s(7, F.b64url, seed: 75) + ":APA91b" + F.s(134, F.b64url, seed: 76))
    add("atlassian-api-token", "ATATT3" + F.s(186, F.b64url, seed: 77))
    add("linear-api-key", "lin_" + "api_" + F.s(40, F.alnum, seed: 78))
    add("doppler-token", "dp.pt." + F.s(43, F.alnum, seed: 79))
    add("vault-token", "hvs." + F.s(90, F.b64url, seed: 80))
    add("terraform-cloud-token", F.s(14, F.alnum, seed: 81) + ".atlasv1." + F.s(67, F.b64url, seed: 82))
    add("new-relic-key", "NRAK-" + F.s(27, F.upperDigit, seed: 83))
    add("sentry-token", "sntrys_" + "eyJ" + F.s(80, F.b64, seed: 84) + "_" + F.s(43, F.b64, seed: 83))
    add(
        "sentry-token", F.s(32, F.hexLower, seed: 85), before: "dsn https://" + F.s(32, F.hexLower, seed: 86) + ":",
        after: "@o1.ingest.sentry.io/1")
    add("age-secret-key", "AGE-SECRET-KEY-1" + F.s(58, F.upperDigit, seed: 87))
    add("grafana-token", "glsa_" + F.s(32, F.alnum, seed: 88) + "_" + F.s(8, F.hexLower, seed: 89))
    add("postman-api-key", "PMAK-" + F.s(24, F.hexLower, seed: 90) + "-" + F.s(34, F.hexLower, seed: 91))
    add("pulumi-token", "pul-" + F.s(40, F.hexLower, seed: 92))
    add("dynatrace-token", "dt0c01." + F.s(24, F.upperDigit, seed: 93) + "." + F.s(64, F.upperDigit, seed: 94))
    add("databricks-token", "dapi" + F.s(32, F.hexLower, seed: 95))
    add("url-userinfo", "S3cr" + "etPw9", before: "connecting to postgres://admin:", after: "@db.internal:5432/app")
    add("password-in-url", "Pw" + "9876xyz", before: "GET https://x.test/login?user=a&password=", after: " 200")
    add("password-assignment", "hunter" + "2", before: "login failed for bob password=", after: " retry")
    add("password-assignment", "hunter" + "2", before: "", after: "", hints: "userPassword")
    // A password's short names as a name's last word.
    for (k, (name, close)) in [
        ("db_pwd = ", "\n"), ("ibm-cloud-pwd = ", "\n"), ("cloudant_pw='", "'"), ("USER_PW=", "\n"), ("sl_pass=\"", "\""),
        ("mysql_pass: ", "\n")
    ].enumerated() {
        add("password-assignment", "Tr0" + F.s(14, F.alnum, seed: 340 + UInt64(k)), before: name, after: close, severity: .high)
    }
    // A value built by a template is no literal: low, and says so.
    add("password-assignment", "p4ss-${DB_SUFFIX}", before: "password = \"", after: "\"", severity: .low)
    // Symbols in a chosen password are not a reference, whatever marks they hold.
    add("password-assignment", "m{{h}o)p${e]nob(ody[finds>-_$#thisone}}", before: "password = \"", after: "\"", severity: .high)
    add("generic-secret", "tok-${API_TOKEN_SUFFIX}-x", before: "api_token = \"", after: "\"", severity: .low)
    // A provider's name written in words before `key`, the value its key's shape: high.
    add("provider-keyed-secret", F.s(44, F.alnum, seed: 346), before: "ibm-cloud-key: ", after: "\n", severity: .high)
    // A bean's property in XML; Redis's password with no user; a secret whose name starts `next`;
    // Laravel's key after its encoding's name.
    add("password-assignment", "rcBr" + F.s(12, F.alnum, seed: 348), before: "<property name=\"password\" value=\"", after: "\"/>")
    add("url-userinfo", "1rOh" + F.s(20, F.alnum, seed: 349), before: "redis://:", after: "@cache.internal:6379/0")
    // A password of one or two characters anywhere, or of three to a documentation host: an example's, low.
    add("url-userinfo", "b", before: "new URL('https://a:", after: "@host.example.org/?abc')", severity: .low)
    add("url-userinfo", "x" + "yz", before: "new URL('https://abc:", after: "@example.com')", severity: .low)
    add("generic-secret", F.s(43, F.alnum, seed: 350) + "=", before: "NEXTAUTH_SECRET=", after: "\n", severity: .high)
    add("generic-secret", F.s(43, F.alnum, seed: 351) + "=", before: "APP_KEY=base64:", after: "\n", severity: .high)
    // `ibm` inside another word (`libmagic`) names no IBM key: its shapes don't govern the value.
    add("generic-secret", F.s(32, F.alnum, seed: 347), before: "libmagic_token = \"", after: "\"", severity: .high)
    add("generic-secret", F.s(32, F.alnum, seed: 96), before: "client_token=", after: "&x=1")
    // A bare `key` named by the word before it: whose key it is.
    add("generic-secret", F.s(64, F.hexLower, seed: 481), before: "secret key: ", after: "\n", severity: .high)
    add("generic-secret", F.s(64, F.hexLower, seed: 482), before: "private key = ", after: "\n", severity: .high)
    // An example's pair in a Basic header (`test:test`, `user:pass`), an example's password in a query: low.
    add("basic-auth", Base64.encode(Array(("te" + "st:te" + "st").utf8)), before: "Authorization: Basic ", severity: .low)
    add("basic-auth", Base64.encode(Array(("user" + ":pass").utf8)), before: "Proxy-Authorization: Basic ", severity: .low)
    add("password-in-url", "b" + "ar", before: "POST /token?grant_type=password&username=foo&password=", severity: .low)
    // A credential's own name and a number: a placeholder, low.
    add("generic-secret", "token" + "123", before: "StaticCredentials(token=\"", after: "\")", severity: .low)
    add("password-assignment", "password" + "123", before: "password: \"", after: "\",", severity: .low)
    // A scheme that says it carries a key (Opsgenie's `GenieKey`, DeepL's): the value after it, a UUID too.
    add("generic-secret", F.uuid(seed: 352), before: "Authorization: GenieKey ", after: "\n", severity: .high)
    add("generic-secret", F.s(40, F.alnum, seed: 353), before: "Authorization: Zoho-oauthtoken ", after: "\n", severity: .high)
    // A key named for its role: Azure's subscription key, a license key, PagerDuty's routing key (32 hex digits).
    add("generic-secret", F.s(32, F.hexLower, seed: 354), before: "Ocp-Apim-Subscription-Key: ", after: "\n", severity: .high)
    add("generic-secret", F.s(32, F.hexLower, seed: 355), before: "license_key = \"", after: "\"", severity: .high)
    add("generic-secret", F.s(32, F.hexLower, seed: 356), before: "\"routing_key\": \"", after: "\"", severity: .high)
    add("generic-secret", F.s(40, F.alnum, seed: 97), before: "", after: "", severity: .high, hints: "stripeSecret")
    for p in providerSamples { add(p.id, p.value, before: p.before, severity: p.severity) }
    add("sql-password", "Tr0ub4dor" + F.s(6, F.alnum, seed: 330), before: "CREATE USER 'app'@'%' IDENTIFIED BY '", after: "';")
    // Formats added with their shape as data (MoreProviderDetectors).
    add("docker-hub-token", "dckr_" + "pat_" + F.s(27, F.b64url, seed: 300))
    add("openrouter-api-key", "sk-or-" + "v1-" + F.s(64, F.hexLower, seed: 301))
    add("posthog-personal-api-key", "phx_" + F.s(43, F.alnum, seed: 302))
    add("posthog-project-key", "phc_" + F.s(43, F.alnum, seed: 303), severity: .info)
    add("hubspot-private-app-token", "pat-" + "na1-" + F.uuid(seed: 304))
    add("nvidia-api-key", "nvapi-" + F.s(64, F.b64url, seed: 306))
    add("langfuse-secret-key", "sk-lf-" + F.uuid(seed: 310))
    add("langfuse-public-key", "pk-lf-" + F.uuid(seed: 311), severity: .info)
    add("supabase-publishable-key", "sb_" + "publishable_" + F.s(31, F.b64url, seed: 313), severity: .info)
    add("razorpay-key", "rzp_" + "live_" + F.s(14, F.alnum, seed: 314))
    add("tencent-cloud-secret-id", "AKID" + F.s(32, F.alnum, seed: 315))
    add("yandex-cloud-api-key", "AQVN" + F.s(36, F.b64url, seed: 316))
    add("dbt-cloud-token", "dbtc_" + F.s(40, F.b64url, seed: 317))
    add("honeycomb-api-key", "hcaik_" + F.s(58, F.alnum, seed: 318))
    add("deno-deploy-token", "ddp_" + F.s(36, F.alnum, seed: 319))
    add("trigger-dev-key", "tr_" + "prod_" + F.s(20, F.alnum, seed: 320))
    add("browserbase-api-key", "bb_" + "live_" + F.s(27, F.b64url, seed: 322))
    add("tavily-api-key", "tvly-" + "dev-" + F.s(32, F.alnum, seed: 323))
    add("anyscale-api-key", "esecret_" + F.s(30, F.alnum, seed: 324))
    add("paddle-api-key", "pdl_" + "live_apikey_" + F.s(40, F.alnum, seed: 325))
    add("segment-public-api-token", "sgp_" + F.s(64, F.alnum, seed: 326))
    add("new-relic-browser-key", "NRJS-" + F.s(19, F.hexLower, seed: 327))
    add("vercel-token", "vcp_" + F.s(40, F.alnum, seed: 328))
    add("twitch-oauth-token", "oauth:" + F.s(30, F.lowerDigit, seed: 329))
    add("launchdarkly-key", "api-" + F.uuid(seed: 332))
    add("launchdarkly-mobile-key", "mob-" + F.uuid(seed: 333), severity: .info)
    add("elevenlabs-api-key", "sk_" + "a" + F.s(47, F.hexLower, seed: 334))
    add("gocardless-token", "live_" + F.s(40, F.b64url, seed: 335))
    add("crates-io-token", "cio" + F.s(32, F.alnum, seed: 336))
    add("woocommerce-key", "ck_" + "7" + F.s(39, F.hexLower, seed: 341))
    add("mollie-api-key", "live_" + F.s(30, F.alnum, seed: 342))
    add("apify-api-token", "apify_api_" + F.s(36, F.alnum, seed: 343))
    add("e2b-api-key", "e2b_" + F.s(40, F.hexLower, seed: 344))
    add("resend-api-key", "re_" + F.s(8, F.alnum, seed: 345) + "_" + F.s(24, F.alnum, seed: 346))
    add("axiom-token", "xaat-" + F.uuid(seed: 347))
    add("scaleway-access-key", "SCW" + F.s(17, F.upperDigit, seed: 348))
    add("mandrill-api-key", "md-" + F.s(22, F.alnum, seed: 349))
    add("intercom-access-token", Base64.encode(Array(("tok:" + F.uuid(seed: 350) + ":1:0").utf8)))
    add("salesforce-access-token", "00D" + F.s(12, F.alnum, seed: 351) + "!" + F.s(96, F.alnum + "._", seed: 352))
    add("jina-api-key", "jina_" + F.s(60, F.alnum, seed: 353))
    add("polar-access-token", "polar_oat_" + F.s(43, F.alnum, seed: 354))
    add("honeybadger-token", "hbp_" + F.s(36, F.alnum, seed: 355))
    add("bitbucket-data-center-token", "BBDC-" + F.s(44, F.alnum, seed: 356))
    add("clickhouse-cloud-secret-key", "4b1d" + F.s(38, F.alnum, seed: 357))
    add("typeform-token", "tfp_" + F.s(44, F.alnum, seed: 358) + "=_" + F.s(14, F.alnum, seed: 359))
    add("dropbox-token", "sl." + "b" + F.s(134, F.b64url, seed: 360))
    add("airtable-pat", "pat" + F.s(14, F.alnum, seed: 370) + "." + F.s(64, F.hexLower, seed: 371))
    add("xata-api-key", "xau_" + F.s(32, F.alnum, seed: 372))
    add("zuplo-api-key", "zpka_" + F.s(32, F.hexLower, seed: 373) + "_" + F.s(8, F.hexLower, seed: 374))
    add("deepseek-api-key", "sk-" + F.s(32, F.hexLower, seed: 445))
    add("openai-style-secret-key", "sk-" + "Ab1" + F.s(45, F.alnum, seed: 450))
    add("aws-session-token", "IQoJb3JpZ2luX2Vj" + "E" + F.s(300, F.b64, seed: 453) + "=")
    add("aws-session-token", "FwoGZXIvYXdz" + "E" + F.s(200, F.b64, seed: 454))
    add("langsmith-legacy-key", "ls__" + F.s(32, F.hexLower, seed: 455))
    add("akamai-edgegrid-token", "akab-" + F.s(16, F.lower + F.digits, seed: 466) + "-" + F.s(16, F.lower + F.digits, seed: 467))
    add("mysql-cli-password", "Xk9" + F.s(13, F.alnum, seed: 464), before: "mysql -u root -p", after: " shop")
    add("mysql-cli-password", "Xk9" + F.s(13, F.alnum, seed: 465), before: "mysqldump --user=app --password=", after: " shop")
    add(
        "putty-private-key",
        "PuTTY-User-Key-File-" + "3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n" + F.s(64, F.b64, seed: 456)
            + "\n" + F.s(4, F.b64, seed: 457) + "\nPrivate-Lines: 1\n" + F.s(44, F.b64, seed: 458) + "\nPrivate-MAC: "
            + F.s(64, F.hexLower, seed: 459), before: "", after: "\n", severity: .critical)
    // A private key's DER in base64 without armour: PKCS#8 RSA, PKCS#1 RSA, SEC1 EC, an encrypted
    // PKCS#8 key (PBES2) and a PKCS#12 bundle, each a header of its kind and random bytes after it.
    func der(_ head: [UInt8], _ n: Int, seed: UInt64) -> String {
        var g = SeededGenerator(seed: seed)
        return Base64.encode(head + (0..<n).map { _ in UInt8(g.below(256)) })
    }
    let pkcs8 =
        [0x30, 0x82, 0x04, 0xBD, 0x02, 0x01, 0x00, 0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01] as [UInt8]
    add("der-private-key", der(pkcs8, 600, seed: 470), before: "private_key=", after: "\n")
    add("der-private-key", der([0x30, 0x82, 0x04, 0xA4, 0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00], 600, seed: 471), before: "key ")
    add("der-private-key", der([0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20], 112, seed: 472), before: "")
    let pbes2 = [0x30, 0x82, 0x05, 0x2D, 0x30, 0x57, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0D] as [UInt8]
    add("der-private-key", der(pbes2, 400, seed: 473))
    add("der-private-key", der([0x30, 0x82, 0x09, 0xCF, 0x02, 0x01, 0x03, 0x30, 0x82, 0x09, 0x85], 600, seed: 474), before: "p12: ")
    add("der-private-key", "b3BlbnNzaC1rZXktdjE" + "AAAAABG5vbmUAAAAEbm9uZQ" + F.s(120, F.b64, seed: 475))
    add(
        "jwk-private-key", F.s(43, F.b64url, seed: 476),
        before: #"{"kty":"EC","crv":"P-256","x":""# + F.s(43, F.b64url, seed: 477) + #"","y":""# + F.s(43, F.b64url, seed: 478)
            + #"","d":""#,
        after: #""}"#)
    add("jwk-private-key", F.s(43, F.b64url, seed: 479), before: #"{"kty": "oct", "k": ""#, after: #"", "alg": "HS256"}"#)
    // Bitcoin keys in base58check: WIF (uncompressed, compressed) and a BIP32 extended private key.
    add("crypto-wallet-private-key", F.base58Check([0x80] + F.bytes(32, seed: 490)), before: "wif ")
    add("crypto-wallet-private-key", F.base58Check([0x80] + F.bytes(32, seed: 491) + [0x01]), before: "key: ")
    add(
        "crypto-wallet-private-key",
        F.base58Check([0x04, 0x88, 0xAD, 0xE4] + [UInt8](repeating: 0, count: 9) + F.bytes(32, seed: 492) + [0] + F.bytes(32, seed: 493)),
        before: "seed: ")
    add("instagram-access-token", "IGQV" + "J" + F.s(160, F.b64url, seed: 486))
    add("instagram-access-token", "IGAA" + F.s(140, F.b64url, seed: 487))
    add("atlassian-api-token", "ATCTT3xFfGN0" + F.s(180, F.b64url, seed: 488) + "=" + F.s(8, "0123456789ABCDEF", seed: 489))
    add("netrc-password", "Zq7" + F.s(17, F.alnum, seed: 460), before: "machine api.acme.io\n  login deploy\n  password ", after: "\n")
    add("twilio-account-credentials", "AC" + F.s(32, F.hexLower, seed: 451) + ":" + F.s(32, F.hexLower, seed: 452), before: "pair ")
    add("lob-api-key", "live_" + F.s(35, F.hexLower, seed: 446))
    add("lob-api-key", "test_" + F.s(35, F.hexLower, seed: 447), severity: .high)
    add("packagist-token", "packagist_uut_" + F.s(68, F.hexLower, seed: 375))
    add("infisical-service-token", "st." + F.uuid(seed: 379) + "." + F.s(32, F.hexLower, seed: 380) + "." + F.s(32, F.hexLower, seed: 381))
    add("asana-pat", "1/1" + F.s(15, F.digits, seed: 382) + ":" + F.s(32, F.hexLower, seed: 383))
    add("asana-pat", "2/1" + F.s(15, F.digits, seed: 384) + "/" + F.s(16, F.digits, seed: 385) + ":" + F.s(32, F.hexLower, seed: 386))
    add("doppler-token", "dp.st." + "prd." + F.s(40, F.alnum, seed: 387))
    add("docker-hub-token", "dckr_oat_" + F.s(32, F.alnum, seed: 388))
    add("yandex-cloud-static-key", "YC" + F.s(38, F.alnum, seed: 368))
    add("yandex-iam-token", "t1." + F.s(60, F.b64url, seed: 361) + "." + F.s(86, F.b64url, seed: 362))
    add(
        "authress-key",
        "sc_" + F.s(20, F.alnum, seed: 363) + "." + F.s(4, F.alnum, seed: 364) + ".acc_" + F.s(16, F.lower, seed: 365) + "."
            + F.s(60, F.b64, seed: 366))
    add(
        "mapbox-public-token", "pk.eyJ1IjoiYWNtZSIsImEiOiJjbHgwYWJjZGVmZ2hpamtsbW5vcHFyc3QifQ" + "." + F.s(22, F.alnum, seed: 369),
        severity: .info)
    // A short user name: the Mapbox secret token is shorter than 80.
    add("mapbox-secret-token", "sk.eyJ1IjoiYWNtZSIsImEiOiJjbHgwYWJjZGVmZ2hpamtsbW5vcHFyc3QifQ" + "." + F.s(22, F.alnum, seed: 367))
    add("together-api-key", "tgp_" + "v1_" + F.s(43, F.b64url, seed: 343))
    add("neon-api-key", "napi_" + F.s(64, F.alnum, seed: 344))
    add("amazon-mws-token", "amzn." + "mws." + F.uuid(seed: 345))
    add("session-cookie", F.s(40, F.alnum, seed: 340), before: "curl -H 'Cookie: theme=dark; _app_session=", after: "; x=1'")
    add("clickup-token", "pk_" + "8" + F.s(7, F.digits, seed: 338) + "_" + F.s(32, F.upperDigit, seed: 339))
    // A Kubernetes Secret's data block, from its first value to its last, before or after `kind:`.
    let secretValue = F.s(24, F.b64, seed: 340) + "=="
    add("kubernetes-secret", secretValue, before: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: ", after: "\n")
    add(
        "kubernetes-secret", secretValue + "\n  token: " + secretValue,
        before: "apiVersion: v1\ndata:\n  password: ", after: "\nkind: Secret\nmetadata:\n  name: db\n")
    add(
        "kubernetes-secret", secretValue + "\", \"token\": \"" + secretValue,
        before: "{\"apiVersion\": \"v1\", \"data\": {\"password\": \"", after: "\"}, \"kind\": \"Secret\"}")
    return c
}()

/// Strings that must never be reported: ids, hashes, near misses of each detector.
let negativeCases: [String] = {
    var n: [String] = [
        "***", "Bearer ***", "Basic ***", "req_" + Fake.uuid(seed: 1), Fake.uuid(seed: 2),
        "cache key: " + Fake.s(64, Fake.hexLower, seed: 483),
        // An extended public key, a Bitcoin address, and a WIF key whose checksum fails.
        "xpub "
            + Fake.base58Check(
                [0x04, 0x88, 0xB2, 0x1E] + [UInt8](repeating: 0, count: 9) + Fake.bytes(32, seed: 494) + [2] + Fake.bytes(32, seed: 495)),
        "address " + Fake.base58Check([0x00] + Fake.bytes(20, seed: 496)),
        "wif " + String(Fake.base58Check([0x80] + Fake.bytes(32, seed: 497) + [0x01]).dropLast()) + "z",
        "public key: " + Fake.s(64, Fake.hexLower, seed: 484),
        "partition key = " + Fake.s(64, Fake.hexLower, seed: 485),
        // Public halves and certificates in base64 DER: a SEQUENCE inside the SEQUENCE, no version.
        "cert "
            + Base64.encode(
                [0x30, 0x82, 0x02, 0xF9, 0x30, 0x82, 0x01, 0xE1, 0xA0, 0x03, 0x02, 0x01, 0x02, 0x02, 0x14]
                    + Array(repeating: 0x5A, count: 300)),
        "pub "
            + Base64.encode(
                [0x30, 0x82, 0x01, 0x22, 0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
                    + Array(repeating: 0x33, count: 270)),
        #"{"keys":[{"kty":"RSA","e":"AQAB","kid":"k1","n":""# + Fake.s(342, Fake.b64url, seed: 480) + #""}]}"#,
        Fake.s(40, Fake.hexLower, seed: 3), Fake.s(64, Fake.hexLower, seed: 4), "sha256:" + Fake.s(64, Fake.hexLower, seed: 5),
        "W/\"" + Fake.s(32, Fake.hexLower, seed: 6) + "\"", "\"" + Fake.s(27, Fake.alnum, seed: 7) + "\"",
        "data:image/png;base64,iVBORw0KGgo" + Fake.s(400, Fake.b64, seed: 8),
        "ses_" + Fake.uuid(seed: 9), "rec_0c1d2e3f", "usr_123", "env_prod_eu",
        "the token expired, please sign in again", "Bearer token expired", "Basic authentication failed",
        "password: incorrect", "password=***", "your password must be 12 characters", "reset password",
        "eyJhbGciOi", "eyJ" + Fake.s(30, Fake.b64url, seed: 10),
        "AKIA" + Fake.s(15, Fake.upperDigit, seed: 11), "AKIA" + Fake.s(20, Fake.upperDigit, seed: 12), "AKIAIOSFODNN7EXAMPLE",
        Fake.s(40, Fake.b64, seed: 13), "pbu_" + Fake.s(20, Fake.b64url, seed: 14), "pbk_live_short",
        "ghp_" + Fake.s(10, Fake.alnum, seed: 15), "xoxb-notatoken", "sk_live_abc", "AIza" + Fake.s(20, Fake.b64url, seed: 16),
        "SK" + Fake.s(31, Fake.hexLower, seed: 17), "AC" + Fake.s(32, Fake.hexLower, seed: 18),
        "key-" + Fake.s(31, Fake.hexLower, seed: 19), "en-us1", "monkey-" + Fake.s(32, Fake.hexLower, seed: 20),
        "hf_short", "https://user@github.com/org/repo.git", "https://user:***@example.test/",
        "sk-" + Fake.s(48, Fake.lower, seed: 21), "https://example.test/?sig=abc", "-----BEGIN PUBLIC KEY-----\nMIIB",
        "-----BEGIN CERTIFICATE-----\n" + Fake.s(64, Fake.b64, seed: 22), "1//comment", "SG.abc.def",
        "heroku " + Fake.s(20, Fake.alnum, seed: 23), "DD_API_KEY=***", "2026-11-29T10:15:04.881Z",
        "{\"token_type\": \"Bearer\", \"expires_in\": 3600}", "client_token=short", "request_id=" + Fake.uuid(seed: 24),
        "tokenType=" + Fake.s(32, Fake.alnum, seed: 25), "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1_1 like Mac OS X)",
        "dapi" + Fake.s(31, Fake.hexLower, seed: 26), "pul-" + Fake.s(39, Fake.hexLower, seed: 27),
        "Cookie: theme=dark; _ga=GA1.2.1234567890.1795956903", "Set-Cookie: session=***; Path=/; HttpOnly"
    ]
    n.append("ETag: \"" + Fake.s(40, Fake.hexLower, seed: 28) + "\"")
    // The shapes' near misses: a version `t1.` then short parts, `sl.` before a word, `.acc_` alone.
    // Near the new shapes: a fraction and a date, a version path, a session id's `st.`, `0.` and a number.
    n += ["1/2 cup of flour", "/v1/2026/11/29:" + Fake.s(32, Fake.hexLower, seed: 46), "st.louis 2026", "0.5 s elapsed", "pattern.match()"]
    n += ["YCombinator" + Fake.s(29, Fake.lower, seed: 45), "t1.5 released", "see sl.no 4 for details", "cost.acc_total = 12"]
    // Under an auth name, base64 that is not user and chosen password: a word pair, a placeholder.
    n.append("auth: " + Base64.encode(Array("user:pass".utf8)))
    // Words that end in `pass` and are not a password's name; IBM's name over a value of none of its shapes.
    n += ["bypass = " + Fake.s(20, Fake.alnum, seed: 47), "compass: " + Fake.s(20, Fake.alnum, seed: 48)]
    // Swift's optional type after a password's name; a home-relative path.
    n += ["var password: String? = nil", "password-store: ~/.password-store"]
    // A page's token by its name; a short value after `base64:` under a bare key's name.
    n += ["NextToken=" + Fake.s(32, Fake.alnum, seed: 64), "CACHE_KEY=base64:aGVsbG8="]
    // A provider's name on an id of its own, the value of its key's shape.
    n += [
        "heroku_app_id = \"" + Fake.uuid(seed: 60) + "\"", "datadog_trace_id: " + Fake.s(32, Fake.hexLower, seed: 61),
        "IBM_ACCOUNT_ID=" + Fake.s(32, Fake.hexLower, seed: 62), "ibm_trace_id: " + Fake.s(32, Fake.hexLower, seed: 63)
    ]
    // A pass that admits or renders; the working directory in `PWD`; nginx's upstream.
    n += [
        "render_pass = \"ShadowMapPass2\"", "boarding_pass: \"BP-2026-" + Fake.s(6, Fake.upperDigit, seed: 59) + "\"",
        "PWD=/home/runner/work/app/app", "OLDPWD=~/Projects/shop-ios", "proxy_pass http://backend:8080;"
    ]
    n.append("ibm_iam_key: " + Fake.s(49, Fake.alnum, seed: 49))
    // Code and its documentation that name a credential without holding one: a type, a member path,
    // a constant, a comparison of two names, the verb `pass`, a docstring's `Required.`, a sentence
    // about the password, tokens that lock or make a call idempotent, a type's path, a namespace.
    n += [
        "token = Punctuation", "def f(self, tokens: ParseResults) -> None:", "token.line = self._state.tokenStartLine",
        "secret: Optional. Secret is the credential to use", "\"AccessToken\": \"ACCESS_TOKEN\",",
        "console.log(aliceSecret === bobSecret);",
        "Pass `-Dpamconfdir=no` to meson", "password: Required. Password of the domain administrator.", "password: FilterOrBool = False",
        "ADMIN_USER_PASSWORD_AUTH = \"ADMIN_USER_PASSWORD_AUTH\"", "const password = 'Password used to generate key';",
        "\"LockToken\": \"" + Fake.uuid(seed: 82) + "\"", "--client-request-token " + Fake.uuid(seed: 83),
        "\"AWS::ApiGateway::ApiKey\": \"" + Fake.s(16, Fake.hexLower, seed: 84) + "\"", "_SECRET_NAMESPACE = 'oauth2client:secrets#ns'",
        "headers = {'Authorization': v4auth_header}", "password: SecretStr", "token = TEST_DATA_BASE64",
        // A list of names, an enum's label, a date, a subscript, a format's slot, a .netrc line in code.
        "'HTTPPasswordMgrWithPriorAuth', 'AbstractBasicAuthHandler',", "INCORRECT_PASSWD = \"Incorrect\"",
        "\"PasswordLastUsed\": \"2016-09-08T21:47:36Z\",", "password_with_required_char = password[: -len(required)]",
        "dme_url += '?username=%s&password=%s&id=%s'", "f.write('machine foo.example.com login bar password pass')",
        // A member of `cls`, a constant naming another, a format's `%(TOKEN)s`, a syntax's description.
        "'client_secret': cls._CLIENT_SECRET,", "ENV_VAR_AUTH_TOKEN = 'AWS_CONTAINER_AUTHORIZATION_TOKEN'",
        "'{\"access_token\":\"%(TOKEN)s\"}'", "help=\"a proxy in the form scheme://[user:passwd@]proxy.server:port\"",
        // A device's push token told in words.
        "APNs device token: " + Fake.s(64, Fake.hexLower, seed: 85)
    ]
    // Signatures out of place: an Azure service's four characters one place off or inside a longer
    // run, NRAL after 35 hex digits, :fx after no UUID, Zoho's hex one short, Bitwarden's secret too short.
    n += [
        Fake.s(75, Fake.b64, seed: 70) + "+AS" + "t" + Fake.s(6, Fake.b64, seed: 71) + "==",
        Fake.s(120, Fake.b64, seed: 72) + "APIM" + Fake.s(40, Fake.b64, seed: 73),
        Fake.s(35, Fake.hexLower, seed: 74) + "NRAL", "ratio 16:9 vs 4:3 in " + Fake.s(12, Fake.hexLower, seed: 75) + ":fx",
        "1000." + Fake.s(31, Fake.hexLower, seed: 77) + "." + Fake.s(32, Fake.hexLower, seed: 78),
        "0." + Fake.uuid(seed: 79) + ".short:abc", "fc-" + Fake.s(31, Fake.hexLower, seed: 80), "fc-event fc-daygrid",
        "os_v2_app_" + Fake.s(20, Fake.lower, seed: 81)
    ]
    // Discord's shape a length off: a 23-character first part, a 5-character stamp, a 26-character HMAC.
    n += [
        "OTUy" + Fake.s(19, Fake.alnum, seed: 50) + "." + Fake.s(6, Fake.alnum, seed: 51) + "." + Fake.s(27, Fake.alnum, seed: 52),
        "OTUy" + Fake.s(20, Fake.alnum, seed: 53) + "." + Fake.s(5, Fake.alnum, seed: 54) + "." + Fake.s(27, Fake.alnum, seed: 55),
        "OTUy" + Fake.s(20, Fake.alnum, seed: 56) + "." + Fake.s(6, Fake.alnum, seed: 57) + "." + Fake.s(26, Fake.alnum, seed: 58)
    ]
    n.append("\"oauth\": \"" + Base64.encode(Array(Fake.s(30, Fake.alnum, seed: 43).utf8)) + "\"")
    // A hex digest holding ClickHouse's `4b1d`: no upper case.
    n.append(Fake.s(6, Fake.hexLower, seed: 41) + "4b1d" + Fake.s(38, Fake.hexLower, seed: 42))
    // A ConfigMap's data is not secret; a Secret's block with no value holds nothing.
    n.append("apiVersion: v1\nkind: ConfigMap\ndata:\n  theme: " + Fake.s(24, Fake.b64, seed: 31) + "\n")
    n.append("apiVersion: v1\nkind: Secret\ntype: Opaque\ndata:\n")
    // GitLab bodies past 50 characters with no routable token's `.version.checksum` tail.
    n.append("glsoat-" + Fake.s(51, Fake.alnum + "_", seed: 29))
    n.append("GR1348941" + Fake.s(51, Fake.alnum + "_", seed: 30))
    // A provider's name beside where its key is used, or who holds it: not the key.
    n += [
        "github: \"https://github.com/" + Fake.s(12, Fake.lower, seed: 37) + "/" + Fake.s(10, Fake.lower, seed: 38) + "\"",
        "sentry: " + Fake.s(8, Fake.lower, seed: 39) + "@" + Fake.s(8, Fake.lower, seed: 40) + ".example"
    ]
    // Prefix, length and alphabet fit, but the body is one class of characters (all lower case, all
    // digits): each of these detectors' own check turns it down.
    n += [
        "hf_" + Fake.s(34, Fake.lower, seed: 29), "ntn_" + Fake.s(46, Fake.lower, seed: 30), "secret_" + Fake.s(43, Fake.lower, seed: 31),
        "aio_" + Fake.s(28, Fake.lower, seed: 32), "rnd_" + Fake.s(32, Fake.lower, seed: 33), "ATBB" + Fake.s(32, Fake.lower, seed: 34),
        "API-" + Fake.s(28, Fake.digits, seed: 35), "LTAI" + Fake.s(16, Fake.lower, seed: 36)
    ]
    return n
}()

@Suite struct DetectorTests {
    @Test func catalogueHasAtLeastFortyDetectorsWithUniqueIds() {
        let ids = detectorCatalogue.map(\.id)
        #expect(ids.count >= 40)
        #expect(Set(ids).count == ids.count)
        for d in detectorCatalogue { #expect(d.rule.id == "secret." + d.id || d.rule.family == .redaction) }
    }

    @Test func everyDetectorSaysWhyItsSeverity() {
        for d in detectorCatalogue { #expect(!(d.declaration.severityWhy ?? "").isEmpty, "\(d.id)") }
    }

    @Test func everyDetectorHasAPositiveCase() {
        let covered = Set(positiveCases.map(\.id))
        for d in detectorCatalogue { #expect(covered.contains(d.id), "no positive case for \(d.id)") }
    }

    @Test(arguments: positiveCases)
    func findsPositive(_ c: DetectorCase) {
        let hits = detect(c.text, hints: c.hints)
        let mine = hits.filter { $0.id == c.id }
        #expect(mine.count == 1, "\(c.id): got \(hits.map(\.id))")
        #expect(mine.first?.value == c.value, "\(c.id): matched a different span")
        if let s = c.severity { #expect(mine.first?.severity == s) }
    }

    @Test(arguments: negativeCases.indices)
    func ignoresNegative(_ i: Int) {
        let hits = detect(negativeCases[i])
        #expect(hits.isEmpty, "case \(i): \(hits.map(\.id))")
    }

    @Test func contextDetectorsNeedTheirContext() {
        // A bare 40-character run and a bare UUID are never secrets without a name nearby.
        #expect(detect(Fake.s(40, Fake.b64, seed: 30)).isEmpty)
        #expect(detect(Fake.uuid(seed: 31)).isEmpty)
        #expect(detect(Fake.s(32, Fake.hexLower, seed: 32)).isEmpty)
        #expect(detect(Fake.s(32, Fake.alnum, seed: 33)).isEmpty)
        #expect(!detect(Fake.s(32, Fake.alnum, seed: 33), hints: "apiSecret").isEmpty)
        #expect(detect(Fake.s(32, Fake.alnum, seed: 33), hints: "tokenType").isEmpty)
        #expect(detect(Fake.s(32, Fake.alnum, seed: 33), hints: "keyId").isEmpty)
        for name in ["nextPageToken", "pushToken", "deviceToken", "syncToken", "cursorToken", "stripePublishableKey"] {
            #expect(detect(Fake.s(40, Fake.alnum, seed: 34), hints: name).isEmpty, "\(name)")
        }
        #expect(detect("At least 8 characters", hints: "passwordRequirements").isEmpty)
        #expect(!detect("Tr0ub4dor&3", hints: "passwordRequirements").isEmpty)
    }

    @Test func byteSetRanges() {
        let s = ByteSet("a-c,\\-")
        #expect(
            s.contains(UInt8(ascii: "b")) && s.contains(UInt8(ascii: "-")) && s.contains(UInt8(ascii: "\\"))
                && s.contains(UInt8(ascii: ",")))
        #expect(!s.contains(UInt8(ascii: "A")) && !s.contains(UInt8(ascii: "d")))
        #expect(!Sets.pemBody.contains(UInt8(ascii: "@")))
    }

    @Test func specificDetectorWinsOverlap() {
        let jwt = Fake.jwtHeader(seed: 1) + ".eyJ" + Fake.s(40, Fake.b64url, seed: 2) + "." + Fake.s(43, Fake.b64url, seed: 3)
        let hits = detect("Authorization: Bearer " + jwt)
        #expect(hits.map(\.id) == ["jwt"])
    }

    @Test func costDoesNotDependOnDetectorCount() {
        // A string with no anchor runs no detector at all: only the prefilter pass.
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 100)
        #expect(detect(text).isEmpty)
    }

    @Test func hostileRepetitionIsBounded() {
        let text = String(repeating: "eyJ.", count: 50_000) + String(repeating: "AKIA", count: 50_000)
        let start = Date()
        _ = detect(text)
        #expect(Date().timeIntervalSince(start) < 10)
    }
}

/// The line prefilter (anchor stems over the raw record line) must let every detector through, however
/// the value is escaped: in a log message, in an inline JSON body (escaped twice), with `\/` escapes.
@Suite struct PrefilterTests {
    static let cases = positiveCases.filter { $0.hints == nil }

    /// A guessable value's fingerprint is keyed or located, never its hash (see `Fingerprint`).
    /// A guessable value, or a password whatever its length, is fingerprinted by where it stands.
    static func sameValue(_ fp: String?, _ value: String, rule: String = "") -> Bool {
        let byPlace = SecretMask.isGuessable(value) || Fingerprint.isPassword(RuleID(rule), place: "")
        return byPlace ? fp?.hasPrefix("loc:") == true : fp == SecretMask.fingerprint(value)
    }

    @Test(arguments: cases)
    func everyDetectorSurvivesThePrefilter(_ c: DetectorCase) throws {
        let rule = detectorCatalogue.first { $0.id == c.id }?.rule.id ?? ""
        let inLog = try Harness.run([Harness.log(message: c.text)])
        #expect(inLog.contains { $0.rule == rule && PrefilterTests.sameValue($0.fingerprint, c.value, rule: rule) }, "log: \(c.id)")
        let body = JSONOut.object(["note": .string(c.text)]).render(pretty: false)
        let inBody = try Harness.run([Harness.network(responseBody: Harness.textBody(body))])
        #expect(inBody.contains { $0.rule == rule && PrefilterTests.sameValue($0.fingerprint, c.value, rule: rule) }, "body: \(c.id)")
        // A writer that escapes every slash (Foundation's JSONSerialization does).
        let slashed = body.replacingOccurrences(of: "/", with: "\\/")
        let inSlashed = try Harness.run([Harness.network(responseBody: Harness.textBody(slashed))])
        #expect(
            inSlashed.contains { $0.rule == rule && PrefilterTests.sameValue($0.fingerprint, c.value, rule: rule) },
            "escaped slashes: \(c.id)")
    }
}

/// The scanner's cache of key facts answers only for the exact bytes it was filled with.
@Suite struct KeyCacheTests {
    @Test func aCollidingKeyIsLookedUpNotTakenFromTheCache() {
        let scanner = ContentScanner(config: VerifyConfig())
        func info(_ key: String, hash: UInt64) -> (listed: Bool, hints: NameHints) {
            var k = key
            return k.withUTF8 { scanner.keyInfo($0, hash: hash) }
        }
        let hash: UInt64 = 0x1234_5678_9abc_def1
        #expect(info("id", hash: hash).listed == false)
        #expect(info("password", hash: hash).listed == true, "same hash, other bytes: not the cached answer")
        #expect(info("id", hash: hash).listed == false)
        let long = "x" + String(repeating: "y", count: 40) + "password"
        #expect(info(long, hash: hash).listed == info(long, hash: hash).listed)
    }
}
