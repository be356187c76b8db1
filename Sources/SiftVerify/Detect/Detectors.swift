import SiftArchive
import SiftCore

/// Where one detector matched inside the scanned bytes.
struct DetMatch: Sendable, Equatable {
    var start: Int
    var end: Int
    /// Overrides the detector's severity (a signature under a key's name is `medium`).
    var severity: Severity? = nil
    /// A test-mode or sandbox key (`sk_test_…`): a secret still, that opens the account's test data,
    /// so it stands at high at most, never below, and says why.
    var testMode = false
    /// Why the detector itself rated the match below its rule (said in every format), when it did.
    var reason: String? = nil
    /// Where the secret part starts, when the match opens with public parts (a Slack token's ids):
    /// a placeholder is judged from there.
    var secretFrom: Int? = nil
    /// The detector could not finish here (a team rule's pattern past its step budget): why. The
    /// value is then reported unchecked (`verify.bound`), never clean.
    var unchecked: String? = nil
}

/// One value-shape credential detector: anchored on cheap literals (the prefilter), then a small
/// byte matcher confirms the shape around the anchor.
struct Detector: Sendable {
    /// `jwt`, `aws-access-key`, …; the rule id is `secret.<id>` unless `rule` says otherwise.
    let id: String
    /// The rule its hits are raised for, declared by this table row.
    let rule: RuleID
    /// The rule as `pbsift rules`, the man page and SARIF show it.
    var declaration: Rule
    /// What a prefixed detector matches, as data (`prefixed`): its examples are made from it.
    var shape: PrefixShape? = nil
    /// The fewest bytes any match spans, when a detector without a prefix shape declares it.
    var declaredShortest: Int? = nil
    /// The fewest bytes any match spans (0 when not known): a text shorter than that holds none.
    var shortest: Int { shape?.shortest ?? declaredShortest ?? 0 }
    let title: String
    let severity: Severity
    /// Case-sensitive literals (at least 2 bytes). The detector runs only where one appears.
    let anchors: [String]
    let match: @Sendable (ScanInput, Int, Int) -> DetMatch?
    /// Name hints that run `whole` over the entire value (detectors that need a name for context).
    let hintMask: NameHints
    let whole: (@Sendable (ScanInput) -> DetMatch?)?
    /// URL-structure detectors, skipped where the URL is parsed field by field.
    let urlStructural: Bool
    /// Generic (context) detectors lose an overlap to any specific one.
    let generic: Bool
    /// A match is what it says whatever its bytes look like (a private key's armour): never lowered as a placeholder.
    var neverPlaceholder = false

    init(
        _ id: String, _ title: String, _ severity: Severity, anchors: [String], rule: VerifyRule? = nil,
        hints: NameHints = [], whole: (@Sendable (ScanInput) -> DetMatch?)? = nil, urlStructural: Bool = false,
        generic: Bool = false, declaration: Rule? = nil, match: @escaping @Sendable (ScanInput, Int, Int) -> DetMatch?
    ) {
        self.id = id
        let declaration =
            declaration ?? rule?.rule
            ?? Rule(
                "secret." + id, severity, "A value has the shape of \("AEIOUaeiou".contains(title.first ?? "x") ? "an" : "a") \(title)",
                detail: generic
                    ? "Context detector: \(title). Reported only with a credential-like name nearby, never on shape or entropy alone."
                    : "Value-shape detector: \(title), found anywhere in a record, a body or a blob, under any name.",
                help: "Rotate the credential, then find which code path recorded it.")
        self.declaration = declaration
        if rule == nil && !generic && declaration.family == .secret {
            self.declaration.provider = Detector.providerNames[id] ?? Detector.provider(title)
        }
        if rule == nil { self.declaration.looksAt = Detector.looksAt[id] }
        self.declaration.severityWhy = Detector.severityWhy(id: id, title: title, severity: self.declaration.severity, generic: generic)
        self.rule = declaration.ref
        self.title = title
        self.severity = severity
        self.anchors = anchors
        self.match = match
        self.hintMask = hints
        self.whole = whole
        self.urlStructural = urlStructural
        self.generic = generic
    }
}

extension Detector {
    /// Why a detector's rule stands at its severity, said by `pbsift rules` and `docs/rules.md`.
    static func severityWhy(id: String, title: String, severity: Severity, generic: Bool) -> String {
        if let why = severityReasons[id] { return why }
        if title.contains("public by design") { return "public by design: it ships in every copy of an app or page" }
        switch severity {
        case .critical: return "alone, it opens the account or signs as it"
        case .high:
            return generic
                ? "a credential's name and a credential's shape agree" : "its provider's own format: a secret that opens the provider's API"
        case .medium: return "a lower-risk form: check what it opens"
        case .low, .info: return "not a secret on its own"
        }
    }

    private static let privateKeyWhy = "a private key, in any armour, encrypted or not: it signs or decrypts as its owner"
    private static let severityReasons: [String: String] = [
        "pem-private-key": privateKeyWhy, "private-key-json": privateKeyWhy, "der-private-key": privateKeyWhy,
        "jwk-private-key": privateKeyWhy, "crypto-wallet-private-key": privateKeyWhy,
        "google-api-key": "public by design in apps (a client key): a reminder to check its app and API restrictions",
        "url-userinfo": "a password in a URL: it opens what the URL names",
        "password-in-url": "a password in a URL: it opens what the URL names",
        "password-assignment": "a password's name beside a literal people choose: the name and the value agree",
        "sql-password": "a password a database will accept",
        "session-cookie": "a live session: whoever holds it is signed in",
        "jwt": "a bearer token: whoever holds it is its subject until it expires",
        "bearer": "a bearer credential: whoever holds it is let in",
        "basic-auth": "a user name and password, base64 is no protection",
        "encoded-user-password": "a user name and password, base64 is no protection"
    ]
}

/// A prefixed token's shape as data: prefixes, then a run of `body` bytes of `length`.
struct PrefixShape: Sendable {
    var prefixes: [String]
    var body: ByteSet
    var length: ClosedRange<Int>
    /// Test-mode prefixes (`sk_test_`).
    var lowPrefixes: [String]
    /// Whether a check beyond the shape decides too (a checksum, mixed classes, a decoding).
    var checked: Bool
    /// Whether a longer run still matches, cut at the longest length.
    var clamp: Bool
    /// Whether a match glued to the text before it may stand (`Glued`).
    var glued: Bool = false
    /// The bytes that may not stand just before the prefix.
    var before: ByteSet = .alnum

    /// The fewest bytes a match spans: the shortest prefix and the shortest body.
    var shortest: Int { (prefixes.map(\.utf8.count).min() ?? 0) + length.lowerBound }

    /// In a line: `ghp_, gho_ then 36–255 of [0-9A-Za-z]`.
    var described: String {
        let shown = prefixes.prefix(4).joined(separator: ", ") + (prefixes.count > 4 ? ", …" : "")
        let n = length.lowerBound == length.upperBound ? "\(length.lowerBound)" : "\(length.lowerBound)–\(length.upperBound)"
        return "\(shown) then \(n) of \(body.described)" + (checked ? ", checked" : "")
    }
}

extension Detector {
    /// Whose credential a title names: its leading capitalised words (`Amazon Bedrock API key` →
    /// `Amazon Bedrock`, `X (Twitter) app-only bearer token` → `X (Twitter)`).
    /// What the detectors that are not a prefix and a body look at (the others say it from their shape).
    static let looksAt: [String: String] = [
        "authress-key": "an account id, then .acc_ or .acc- and the key's parts",
        "aws-secret-key": "40 base64 characters, mixed, beside aws_secret, secret_access_key or SecretAccessKey",
        "azure-ad-client-secret": "3 characters, a digit, Q~, then 31–34 of [A-Za-z0-9_~.-], mixed",
        "azure-sas": "the sig= parameter of a URL (percent-encoded base64 signature)",
        "azure-storage-key": "AccountKey= in a connection string: 86 base64 characters and ==",
        "basic-auth": "after Basic (and Authorization): base64 that decodes to user:password, or any mixed value of 16+",
        "encoded-user-password":
            "after a name ending in auth (user_auth, _auth): base64 that decodes to user:password, the password chosen; anywhere: base64 decoding to user:password whole, a password of 8+ mixing letters with digits or cases",
        "bearer": "after Bearer: 16+ characters holding a digit or punctuation, or 8–15 mixed",
        "braintree-token": "access_token$production$ or $sandbox$, a merchant id, $, 32 hex digits",
        "brevo-api-key": "xkeysib- or xsmtpsib-, 64 hex digits, -, 16 of [0-9A-Za-z]",
        "cloudflare-origin-ca-key": "v1.0-, 24 hex digits, -, 146 hex digits",
        "curl-user": "-u or --user on a curl command line: user:password (or a key as the user)",
        "datadog-api-key": "32 hex digits (40 for an application key) beside datadog, dd_api_key or dd_app_key",
        "defined-networking-key": "dnkey-, 26 of [A-Z0-9], -, 52 of [A-Z0-9]",
        "discord-bot-token": "the bot id's base64, ., 6 characters, ., 27+ characters, beside discord or Bot",
        "discord-bot-token-bare": "the same three parts anywhere, the first decoding to 17–20 digits",
        "discord-webhook": "discord.com/api/webhooks/, an id, /, the token",
        "kubernetes-secret": "the values of a data: or stringData: block in the YAML or JSON document that says kind: Secret",
        "dynatrace-token": "dt0c01., 24 of [0-9A-Za-z], ., 64 of [0-9A-Za-z]",
        "firebase-fcm-server-key": "AAAA, 7 characters, :APA91b, 134 of [A-Za-z0-9_-]",
        "flutterwave-secret-key": "FLWSECK- or FLWSECK_TEST-, 32 hex digits, -X",
        "generic-secret": "a value of a key's shape and entropy beside a name that says token, secret, key, credential or authorization",
        "session-cookie":
            "a Cookie: or Set-Cookie: line, a cookie named for a session, sid, auth, token, jwt, remember or login, a token's shape",
        "github-token": "ghp_, gho_, ghu_, ghs_ or ghr_, then 36 of [0-9A-Za-z] whose last 6 are the CRC-32 of the 30 before",
        "grafana-token": "glsa_, 32 of [0-9A-Za-z], _, 8 hex digits; or glc_ and base64",
        "harness-token": "pat. or sat., an account id, ., a token id, ., 20 of [0-9A-Za-z]",
        "heroku-api-key": "HRKU- and 60 characters, or a UUID beside heroku",
        "jwt": "eyJ header (a JSON object), ., payload, ., signature; unsigned and two-part tokens too",
        "jwt-base64": "ZXlK: a JWT written in base64 again",
        "langsmith-api-key": "lsv2_pt_ or lsv2_sk_, 32 hex digits, _, 10 hex digits",
        "mailchimp-api-key": "32 hex digits, -us and a data-centre number",
        "maxmind-license-key": "6 characters, _, 29 characters, _mmk",
        "onepassword-secret-key": "A3- and six groups of [A-Z0-9] (6-6-5-5-5-5 or 6-11-5-5-5)",
        "openai-api-key": "sk-, sk-proj-, sk-svcacct- or sk-admin- with the T3BlbkFJ marker inside",
        "password-assignment": "a value people choose beside a name that says password, passwd, pwd, passcode or passphrase",
        "password-in-url": "a password, passwd, pwd or pass query parameter",
        "pem-private-key": "-----BEGIN … PRIVATE KEY----- armour, any form (PKCS#1, PKCS#8, EC, OpenSSH, PGP), encrypted or not",
        "plaid-access-token": "access-production-, access-development- or access-sandbox- and a UUID",
        "postman-api-key": "PMAK-, 24 hex digits, -, 34 hex digits",
        "private-key-json": "a private_key or privateKey member holding PEM armour",
        "sendgrid-api-key": "SG., 22 of [A-Za-z0-9_-], ., 43 of [A-Za-z0-9_-]",
        "sql-password": "the quoted password after IDENTIFIED BY in SQL (CREATE USER, ALTER USER, GRANT)",
        "sentry-token": "sntrys_ and a signed payload, sntryu_ and 64 hex digits, or the secret in a DSN",
        "slack-token": "xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, xoxo- or xapp- and the token's parts",
        "slack-webhook": "hooks.slack.com/services/T…/B…/ and 24 characters",
        "softlayer-api-key": "a user and 64 hex digits in a softlayer.com/soap/v3 URL",
        "square-token": "sq0atp- or sq0csp- and 22–43 characters, or EAAA and 60",
        "teams-webhook": "webhook.office.com/webhookb2/ and the ids up to /IncomingWebhook/",
        "telegram-bot-token": "8–10 digits, :AA, 33 of [A-Za-z0-9_-]",
        "terraform-cloud-token": "14 of [0-9A-Za-z], .atlasv1., 60–70 of [A-Za-z0-9_-]",
        "twilio-account-credentials": "AC and 32 hex digits beside an auth token, or followed by : and the 32-hex token",
        "twilio-api-key": "SK and 32 hex digits"
    ]

    /// Providers a title does not start with.
    static let providerNames: [String: String] = [
        "age-secret-key": "age", "npm-token": "npm", "xai-api-key": "xAI", "cloudflare-origin-ca-key": "Cloudflare",
        "alibaba-access-key": "Alibaba Cloud", "firebase-fcm-server-key": "Firebase", "adafruit-io-key": "Adafruit",
        "kubernetes-secret": "Kubernetes", "openai-style-secret-key": "OpenAI",
        "aws-session-token": "AWS", "putty-private-key": "PuTTY", "akamai-edgegrid-token": "Akamai"
    ]

    static func provider(_ title: String) -> String? {
        let stop: Set<String> = ["API", "OAuth", "PAT", "SDK", "SAS", "HMAC", "SMTP", "ID", "URL", "JSON", "PEM", "JWT", "SSH", "REST"]
        var words: [Substring] = []
        var inParens = false
        for w in title.split(separator: " ") {
            if inParens || w.hasPrefix("(") {
                words.append(w)
                inParens = !w.hasSuffix(")")
                continue
            }
            guard let f = w.first, f.isUppercase || f.isNumber, !stop.contains(String(w)) else { break }
            words.append(w)
        }
        let name = words.joined(separator: " ")
        return name.isEmpty ? nil : name
    }
}

/// Character classes of the matchers, built once.
enum Sets {
    static let pemLabel = ByteSet("A-Z0-9 ")
    static let pemBody = ByteSet("A-Za-z0-9+/=\r\n\t :,\\-")
    static let assignmentStop = ByteSet(" \t\r\n\"'&,;)}]<\\")
    /// A name in code, dotted (`getpass.getpass`, `request.form`).
    static let codeName = ByteSet("A-Za-z0-9_.")
    static let slackBody = ByteSet("A-Za-z0-9-")
    static let webhookPath = ByteSet("A-Za-z0-9_/")
    static let afterUrlOrWord = ByteSet("A-Za-z0-9/:")
    static let sasValue = ByteSet("A-Za-z0-9%+/=")
    static let uuidChars = ByteSet("0-9a-fA-F-")
    static let lowerDigit = ByteSet("a-z0-9")
    static let tokenWithEquals = ByteSet("A-Za-z0-9_=-")
    static let alnumDot = ByteSet("A-Za-z0-9.")
    static let newRelicBody = ByteSet("A-Za-z0-9_-")
    static let sentryBody = ByteSet("A-Za-z0-9+/=_")
    static let queryValueStop = ByteSet("&#\"' \t\r\n<>\\")
    static let authorityStop = ByteSet("/?#\"' \t\r\n<>\\")
    static let sendgridBody = ByteSet("A-Za-z0-9=_.-")
    static let authGap = ByteSet(" \t:\"'")
}

private func u(_ s: String) -> [UInt8] { Array(s.utf8) }

/// How a prefixed token's match is judged beyond its length: `before` the bytes that may not stand
/// just before the prefix (a word boundary); `lowPrefixes` prefixes of test-mode keys (`testMode`);
/// `clamp` a longer run still matches, cut at the longest length; `glued` whether a match whose
/// prefix follows a byte of `before` (`abcghp_…`, `#fragxoxb-…`) still stands (called with the
/// match's start and end); without it, such a match never does.
struct PrefixTuning {
    var before: ByteSet = .alnum
    var lowPrefixes: [String] = []
    var clamp = false
    var glued: Glued? = nil
    /// Why a match is public by design where it stands (a Firebase web config's key), if it is: `info`.
    var publicWhere: (@Sendable (ScanInput, Int, Int) -> String?)? = nil
    /// Why a match can't be the whole credential (a token cut before its signature), if it can't:
    /// `medium`, with the reason.
    var cutWhere: (@Sendable (ScanInput, Int, Int) -> String?)? = nil
}

/// `anchor` + a run of `body` bytes of `length` (longer runs are not this token unless clamped),
/// with word boundaries.
func prefixed(
    _ id: String, _ title: String, _ sev: Severity, _ prefixes: [String], _ body: ByteSet,
    length: ClosedRange<Int>, tuning: PrefixTuning = PrefixTuning(),
    check: (@Sendable (ScanInput, Int, Int) -> Bool)? = nil
) -> Detector {
    let before = tuning.before, lowPrefixes = tuning.lowPrefixes, clamp = tuning.clamp, glued = tuning.glued
    let publicWhere = tuning.publicWhere, cutWhere = tuning.cutWhere
    let min = length.lowerBound, max = length.upperBound
    let low = Set(lowPrefixes.map(u))
    var d = Detector(id, title, sev, anchors: prefixes) { t, p, len in
        let bounded = t.boundaryBefore(p, before)
        guard bounded || glued != nil else { return nil }
        let l = t.run(p + len, body, max: max + 1)
        guard l >= min else { return nil }
        if l > max && !clamp { return nil }
        let end = p + len + Swift.min(l, max)
        if !bounded, let glued, !glued.stands(t, p, end) { return nil }
        if let check, !check(t, p, end) { return nil }
        // A placeholder is judged on what follows the prefix (`GR1348941` + `123123…`).
        var m = DetMatch(start: p, end: end, secretFrom: p + len)
        if !low.isEmpty, low.contains(Array(t.b[p..<(p + len)])) { m.testMode = true }
        if let publicWhere, let reason = publicWhere(t, p, end) {
            m.severity = .info
            m.reason = reason
        } else if let cutWhere, let reason = cutWhere(t, p, end) {
            m.severity = .medium
            m.reason = reason
        }
        return m
    }
    d.shape = PrefixShape(
        prefixes: prefixes, body: body, length: length, lowPrefixes: lowPrefixes, checked: check != nil, clamp: clamp,
        glued: glued != nil, before: before)
    d.declaration.looksAt = d.shape?.described
    return d
}

/// A provider's key told in words: `Cohere API key: <value>`, `your mistral token is <value>`,
/// `pinecone key <value>`: the provider's name, then `key`, `API key`, `token`, `API token`, `access
/// token` or `secret`, then `:`, `=`, `is` or nothing, then a value of a key's shape (16 characters
/// or more).
func providerKeyInProse(_ t: ScanInput, _ p: Int, _ len: Int) -> DetMatch? {
    guard t.boundaryBefore(p), p + len < t.count else { return nil }
    var i = p + len
    // `Mailgun's key …`: the possessive belongs to the name.
    if t.has(u("'s "), at: i) { i += 2 }
    guard i < t.count, t[i] == 0x20 else { return nil }
    i += 1
    // A key word standing whole at `at`: where it ends.
    func keyWordEnd(_ at: Int) -> Int? {
        for words in proseKeyWords where t.containsCI(words, at, at + words.count) {
            let after = at + words.count
            if after < t.count, ByteSet.alnum.contains(t[after]) { continue }
            return after
        }
        return nil
    }
    var matched = false
    // Up to four short words may stand between (`Mailgun API with key …`, `stripe live secret key …`).
    for _ in 0..<5 {
        if let end = keyWordEnd(i) {
            i = end
            // `secret key`, `token secret`: the last of the key words names the value.
            if i + 1 < t.count, t[i] == 0x20, let next = keyWordEnd(i + 1) { i = next }
            matched = true
            break
        }
        let w = t.run(i, proseWord, max: 15)
        guard (1...14).contains(w), i + w < t.count, t[i + w] == 0x20 else { return nil }
        i += w + 1
    }
    guard matched, i < t.count, !ByteSet.alnum.contains(t[i]) else { return nil }
    while i < t.count && t[i] == 0x20 { i += 1 }
    if i < t.count && (t[i] == UInt8(ascii: ":") || t[i] == UInt8(ascii: "=")) { i += 1 }
    while i < t.count && t[i] == 0x20 { i += 1 }
    if t.containsCI(isWord, i, i + 3) { i += 3 }
    let m = wordedValue(t, from: i, limit: 1024, sentence: true)
    let v = UnsafeBufferPointer(rebasing: t.b[m.start..<m.end])
    guard v.count >= 16, ValueJudgement.fitsToken(v) else { return nil }
    return m
}

/// `mailgun <key>`: a provider's name, one or two spaces, then a plainly random key (mixed case and
/// digits, a random string's entropy, 32 characters or more: ids run shorter, a Firebase user id 28)
/// ending the line or followed by a space.
/// Only a random key counts: after a name alone, hex, a UUID, a number or a prefixed id
/// (`sentry 9f86…`, `stripe pi_3N…`) is an event's, an object's or a commit's id.
func providerThenKey(_ t: ScanInput, _ p: Int, _ len: Int) -> DetMatch? {
    let nameEnd = p + len + t.run(p + len, ByteSet.alnum, max: 49)
    guard t.boundaryBefore(p), nameEnd - p <= 48,
        ProviderNames.isProviderWord(UnsafeBufferPointer(rebasing: t.b[p..<nameEnd]))
    else { return nil }
    let gap = t.run(nameEnd, spaceOnly, max: 3)
    guard (1...2).contains(gap) else { return nil }
    let s = nameEnd + gap
    let l = t.run(s, providerKeyBytes, max: 257)
    guard (32...256).contains(l) else { return nil }
    let e = s + l
    if e < t.count, !ByteSet.space.contains(t[e]), !Sets.assignmentStop.contains(t[e]) { return nil }
    let v = UnsafeBufferPointer(rebasing: t.b[s..<e])
    // `pi_3N…`, `cus_…`: an object's id, its kind before `_`.
    if let u = v.firstIndex(of: UInt8(ascii: "_")), u - s <= 5, v[s..<u].allSatisfy({ ByteSet.lower.contains($0) }) { return nil }
    return ValueJudgement.isRandomKey(v) ? DetMatch(start: s, end: e) : nil
}
let spaceOnly = ByteSet(" ")
private let providerKeyBytes = ByteSet("A-Za-z0-9_+/=.-")

/// The value that starts at `from` (after spaces), up to the first byte that ends an assignment,
/// at most `limit` bytes; in a sentence (`sentence`), a full stop at its end is the sentence's.
func wordedValue(_ t: ScanInput, from: Int, limit: Int, sentence: Bool) -> DetMatch {
    var s = from
    while s < t.count && t[s] == 0x20 { s += 1 }
    var e = s
    let stop = Swift.min(t.count, s + limit)
    while e < stop && !Sets.assignmentStop.contains(t[e]) { e += 1 }
    if sentence && e > s && t[e - 1] == UInt8(ascii: ".") { e -= 1 }
    return DetMatch(start: s, end: e)
}

private let proseKeyWords = ["api key", "api token", "access token", "key", "token", "secret"].map(u)
private let proseWord = ByteSet("A-Za-z'")
private let isWord = u("is ")

/// The first session cookie of a `Cookie:` or `Set-Cookie:` line written out as text (a pasted
/// request, a curl `-H`): a pair whose name says session, sid, auth, token, jwt, remember or login
/// and whose value has a token's shape (16 characters or more, mixed). Other cookies (`theme=dark`,
/// `_ga=…`) and the attributes (`Path=/`, `HttpOnly`) are not credentials.
func sessionCookie(_ t: ScanInput, _ from: Int) -> DetMatch? {
    var i = from
    let limit = Swift.min(t.count, from + 8192)
    while i < limit && t[i] == 0x20 { i += 1 }
    while i < limit {
        var nameEnd = i
        while nameEnd < limit && t[nameEnd] != UInt8(ascii: "=") && t[nameEnd] != UInt8(ascii: ";") && !cookieLineEnd.contains(t[nameEnd]) {
            nameEnd += 1
        }
        guard nameEnd < limit, t[nameEnd] == UInt8(ascii: "=") || t[nameEnd] == UInt8(ascii: ";") else { return nil }
        var valueEnd = nameEnd
        if t[nameEnd] == UInt8(ascii: "=") {
            valueEnd = nameEnd + 1
            while valueEnd < limit && t[valueEnd] != UInt8(ascii: ";") && !cookieLineEnd.contains(t[valueEnd]) { valueEnd += 1 }
            let name = UnsafeBufferPointer(rebasing: t.b[i..<nameEnd])
            let value = UnsafeBufferPointer(rebasing: t.b[(nameEnd + 1)..<valueEnd])
            if sessionCookieWords.contains(where: { ScanInput(b: name, hints: []).containsCI($0, 0, name.count) }),
                value.count >= 16, value.count <= 4096,
                ValueJudgement.fitsToken(value)
                    || (value.count >= 24 && Shape.percentDecoded(value).count < value.count)
            {
                return DetMatch(start: nameEnd + 1, end: valueEnd)
            }
        }
        guard valueEnd < limit, t[valueEnd] == UInt8(ascii: ";") else { return nil }
        i = valueEnd + 1
        while i < limit && t[i] == 0x20 { i += 1 }
    }
    return nil
}

private let cookieLineEnd = ByteSet("\r\n\"'\\")
private let sessionCookieWords = ["sess", "sid", "auth", "token", "jwt", "remember", "login"].map(u)

private let firebaseConfigWords = ["authdomain", "firebaseapp.com", "firebaseconfig", "messagingsenderid"].map(u)

/// Whether the 36 bytes at `s` are a GitHub token's body: 30 random characters of `[0-9A-Za-z]` and
/// their CRC-32 in six base-62 digits (`0-9`, `A-Z`, `a-z`, most significant first), as GitHub has
/// issued them since 2021. One random run in 2^32 passes.
@Sendable func githubChecksum(_ t: ScanInput, _ s: Int) -> Bool {
    guard s >= 0, s + 36 <= t.count, t.run(s, .alnum, max: 36) == 36 else { return false }
    var sum: UInt64 = 0
    for i in (s + 30)..<(s + 36) {
        let c = t[i]
        let d: UInt8 = c <= UInt8(ascii: "9") ? c &- 48 : c <= UInt8(ascii: "Z") ? c &- 55 : c &- 61
        sum = sum * 62 + UInt64(d)
    }
    guard sum <= UInt64(UInt32.max) else { return false }
    let crc = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(t.b)[s..<(s + 30)])
    var c = CRC32()
    c.update(crc)
    return UInt64(c.value) == sum
}

/// Checks that a token mixes character classes (random tokens do; words and constants don't).
@Sendable func mixed(_ t: ScanInput, _ s: Int, _ e: Int) -> Bool {
    var lo = false, up = false, dg = false
    for i in s..<e {
        let c = t[i]
        if ByteSet.lower.contains(c) {
            lo = true
        } else if ByteSet.upper.contains(c) {
            up = true
        } else if ByteSet.digit.contains(c) {
            dg = true
        }
    }
    return (lo ? 1 : 0) + (up ? 1 : 0) + (dg ? 1 : 0) >= 2
}

/// Upper case, lower case and digits all stand in `s..<e`.
@Sendable func mixedAll(_ t: ScanInput, _ s: Int, _ e: Int) -> Bool {
    var lo = false, up = false, dg = false
    for i in s..<e {
        let c = t[i]
        lo = lo || ByteSet.lower.contains(c)
        up = up || ByteSet.upper.contains(c)
        dg = dg || ByteSet.digit.contains(c)
    }
    return lo && up && dg
}

/// A token's random body glued to the text before it: all three character classes, changing class
/// at least every third byte on average (`monitoringEnabledForTenant2024` changes four times).
@Sendable func randomBody(_ t: ScanInput, _ s: Int, _ e: Int) -> Bool {
    guard e - s >= 16 else { return false }
    var lo = false, up = false, dg = false, changes = 0, last = 0
    for i in s..<e {
        let c = t[i]
        let k = ByteSet.lower.contains(c) ? 1 : ByteSet.upper.contains(c) ? 2 : ByteSet.digit.contains(c) ? 3 : 0
        if k == 1 { lo = true } else if k == 2 { up = true } else if k == 3 { dg = true }
        if i > s && k != last { changes += 1 }
        last = k
    }
    return lo && up && dg && changes * 3 >= (e - s - 1)
}

/// Glued-prefix rules, one per token family whose format makes a match without a word boundary
/// safe (the text before is part of a word: `abcghp_…`, `#fragxoxb-…`, `xAKIA…` decoded). A type of
/// its own, not a bare closure, so that a trailing closure given to `prefixed` can only be its `check`.
struct Glued: Sendable {
    /// Whether the match from `s` to `e`, glued to the text before it, stands.
    let stands: @Sendable (ScanInput, Int, Int) -> Bool
    init(_ stands: @escaping @Sendable (ScanInput, Int, Int) -> Bool) { self.stands = stands }

    /// `ghp_`…: the classic 36 random characters, exactly.
    static let github = Glued { t, s, e in e - s == 40 && randomBody(t, s + 4, e) }
    /// `github_pat_`: 22 characters, `_`, 59 characters.
    static let githubPAT = Glued { t, s, e in
        e - s == 93 && t[s + 33] == UInt8(ascii: "_") && randomBody(t, s + 11, s + 33) && randomBody(t, s + 34, e)
    }
    /// `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`: the numeric workspace id and a `-` after the prefix.
    static let slack = Glued { t, s, e in
        guard !t.has(Array("xoxe-".utf8), at: s), !t.has(Array("xoxo-".utf8), at: s), !t.has(Array("xapp-".utf8), at: s) else {
            return false
        }
        let ids = t.run(s + 5, .digit, max: 32)
        return ids >= 6 && s + 5 + ids < e && t[s + 5 + ids] == UInt8(ascii: "-")
    }
    /// `sk_live_`, `rk_live_` (not test keys): a random body.
    static let stripe = Glued { t, s, e in
        (t.has(Array("sk_live_".utf8), at: s) || t.has(Array("rk_live_".utf8), at: s)) && randomBody(t, s + 8, e)
    }
    /// `AKIA`, `ASIA` after a lowercase letter (never after a capital or a digit: the run's length
    /// would be unknown): 16 base32 characters holding a digit.
    static let aws = Glued { t, s, e in
        guard s > 0, ByteSet.lower.contains(t[s - 1]), t.has(Array("AKIA".utf8), at: s) || t.has(Array("ASIA".utf8), at: s) else {
            return false
        }
        let body = UnsafeBufferPointer(rebasing: t.b[(s + 4)..<e])
        return Shape.all(body, base32) && body.contains { ByteSet.digit.contains($0) }
    }
    static let base32 = ByteSet("A-Z2-7")
}

/// A PEM private-key block starting at `p` (the `-----BEGIN`): to its `-----END …-----`, or to the end of a cut one.
@Sendable private func pemBlock(_ t: ScanInput, _ p: Int) -> DetMatch? {
    let labelStart = p + 11
    let labelLen = t.run(labelStart, Sets.pemLabel, max: 48)
    let afterLabel = labelStart + labelLen
    guard t.has(u("-----"), at: afterLabel) else { return nil }
    let label = String(decoding: t.b[labelStart..<afterLabel], as: UTF8.self)
    guard label.hasSuffix("PRIVATE KEY") || label.hasSuffix("PRIVATE KEY BLOCK") else { return nil }
    let bodyStart = afterLabel + 5
    // The armour says what follows, whatever the body holds (base64, headers, or text cut short);
    // only armour around nothing (`-----BEGIN … KEY----------END …`) holds no key.
    let limit = Swift.min(t.count, p + 16384)
    let blank = t.run(bodyStart, ByteSet.space, max: 64)
    guard blank < limit - bodyStart, !t.has(u("-----"), at: bodyStart + blank) else { return nil }
    if let endAt = t.find(u("-----END"), bodyStart, limit) {
        let close = t.find(u("-----"), endAt + 8, Swift.min(limit, endAt + 80)).map { $0 + 5 } ?? Swift.min(limit, endAt + 8)
        return DetMatch(start: p, end: close)
    }
    return DetMatch(start: p, end: bodyStart + t.run(bodyStart, Sets.pemBody, max: limit - bodyStart))
}

/// Searches `lo..<hi` for a run of exactly `len` bytes of `set` standing alone (boundaries on both sides).
private func standalone(_ t: ScanInput, _ lo: Int, _ hi: Int, _ set: ByteSet, lengths: [Int], mixedClasses: Bool = false) -> DetMatch? {
    var i = Swift.max(0, lo)
    let hi = Swift.min(t.count, hi)
    while i < hi {
        if set.contains(t[i]) && t.boundaryBefore(i, set) {
            let l = t.run(i, set, max: 512)
            if lengths.contains(l) && (!mixedClasses || mixed(t, i, i + l)) { return DetMatch(start: i, end: i + l) }
            i += Swift.max(l, 1)
        } else {
            i += 1
        }
    }
    return nil
}

/// Where a whole value (a JSON member's, a header's) starts and ends, trimmed of white space and quotes.
func wholeValue(_ t: ScanInput) -> (start: Int, end: Int) {
    var s = 0, e = t.count
    while s < e && (ByteSet.space.contains(t[s]) || t[s] == UInt8(ascii: "\"")) { s += 1 }
    while e > s && (ByteSet.space.contains(t[e - 1]) || t[e - 1] == UInt8(ascii: "\"")) { e -= 1 }
    return (s, e)
}

/// The whole value (trimmed of quotes and white space) is exactly one run of `set` of an allowed length.
private func wholeRun(_ t: ScanInput, _ set: ByteSet, lengths: ClosedRange<Int>, mixedClasses: Bool = false) -> DetMatch? {
    let (s, e) = wholeValue(t)
    guard lengths.contains(e - s), t.run(s, set, max: e - s) == e - s else { return nil }
    if mixedClasses && !mixed(t, s, e) { return nil }
    return DetMatch(start: s, end: e)
}

/// Whether a value is a plausible random credential: used only together with a credential-like name.
func looksLikeGenericSecret(_ b: UnsafeBufferPointer<UInt8>, allowHex: Bool) -> Bool {
    let n = b.count
    guard n >= 16 && n <= 512 else { return false }
    for c in b where c <= 0x20 || c >= 0x7F || c == UInt8(ascii: "\"") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">") { return false }
    for p in ["http://", "https://", "data:", "sha256:", "req_", "ses_", "rec_", "usr_", "env_", "/", "${", "{{", "%"]
    where Shape.hasPrefix(b, p) { return false }
    if Shape.isUUID(b) { return false }
    var star = 0, digits = 0, lower = 0, upper = 0, other = 0
    for c in b {
        if c == UInt8(ascii: "*") { star += 1 }
        if ByteSet.digit.contains(c) {
            digits += 1
        } else if ByteSet.lower.contains(c) {
            lower += 1
        } else if ByteSet.upper.contains(c) {
            upper += 1
        } else {
            other += 1
        }
    }
    if star >= 3 { return false } // masked, partly masked
    if digits == n { return false } // numbers, timestamps
    if Shape.all(b, .hex) && (!allowHex || (n != 32 && n != 40 && n != 64)) { return false } // hashes, ids
    let classes = (digits > 0 ? 1 : 0) + (lower > 0 ? 1 : 0) + (upper > 0 ? 1 : 0)
    if classes < 2 { return false }
    let h = Shape.entropy(b)
    return h >= (n >= 24 ? 3.5 : 3.2)
}

/// The marks of a member path or a call in code (`self._password`, `Foo::bar`, `read(`).
private let codePathMarks = ByteSet("._:(")
/// Words that, as a lone value, are never a password (placeholders, masks, states).
private let passwordPlaceholders: Set<String> = [
    "***", "null", "nil", "none", "undefined", "true", "false", "redacted", "[redacted]", "<redacted>", "[filtered]",
    "filtered", "hidden", "masked", "secret", "password", "changeme", "xxx", "xxxx", "xxxxxx", "xxxxxxxx", "required",
    "missing", "invalid", "empty", "<password>", "your_password", "yourpassword", "example"
]

/// A value under a password-like name: a non-placeholder, not a plain lowercase word.
func looksLikePasswordValue(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard b.count >= 4 && b.count <= 256 else { return false }
    if b.contains(where: { $0 == UInt8(ascii: "*") }) { return false }
    let s = String(decoding: b, as: UTF8.self).lowercased()
    if passwordPlaceholders.contains(s) { return false }
    if s.hasPrefix("${") || s.hasPrefix("{{") || s.hasPrefix("%") || s.hasPrefix("<") || s.hasPrefix("$") { return false }
    if ValueJudgement.isCall(b) { return false }
    // A subscript of a variable (`password[: -len(x)]`, `config["db"]`): an expression.
    let ident = b.prefix { ByteSet.word.contains($0) || $0 == UInt8(ascii: ".") }.count
    if ident >= 1, ident < b.count, b[ident] == UInt8(ascii: "["), !ByteSet.digit.contains(b[0]) { return false }
    // One capitalised word (`let password: String`, `password: Optional`, Swift's `String?`): a type
    // or a name in code.
    let word = b.last == UInt8(ascii: "?") || b.last == UInt8(ascii: "!") ? UnsafeBufferPointer(rebasing: b.dropLast()) : b
    if word.count >= 3, ByteSet.upper.contains(word[word.startIndex]),
        Shape.all(UnsafeBufferPointer(rebasing: word[(word.startIndex + 1)...]), .lower)
    {
        return false
    }
    // Words as code writes them (`FilterOrBool`, `readPassword`, `Required.`, `self._password`): a type
    // or a variable. (Lower case and a digit, `hunter2`, is a password people choose.)
    if ValueJudgement.isCodeWords(b), !b.contains(where: ByteSet.digit.contains),
        b.contains(where: { ByteSet.upper.contains($0) || codePathMarks.contains($0) })
    {
        return false
    }
    // A plain lowercase word ("password: incorrect") or a sentence ("At least 8 characters") is prose.
    if Shape.all(b, .lower) { return false }
    if b.reduce(0, { $0 + ($1 == 0x20 ? 1 : 0) }) >= 2 { return false }
    return true
}

/// Every detector, most specific first: where two matches overlap, the earlier detector keeps it.
let detectorCatalogue: [Detector] = {
    var d: [Detector] = []

    var keyJSON = Detector(
        "private-key-json", "private key in a JSON document", .critical,
        anchors: ["private_key\"", "privateKey\"", "private_key\\\"", "privateKey\\\""]
    ) { t, p, len in
        var i = p + len
        let limit = Swift.min(t.count, i + 24)
        while i < limit && (t[i] == 0x20 || t[i] == UInt8(ascii: ":") || t[i] == UInt8(ascii: "\"") || t[i] == UInt8(ascii: "\\")) {
            i += 1
        }
        guard t.has(u("-----BEGIN "), at: i) else { return nil }
        return pemBlock(t, i)
    }
    keyJSON.neverPlaceholder = true
    d.append(keyJSON)
    var pem = Detector("pem-private-key", "PEM private key", .critical, anchors: ["-----BEGIN "]) { t, p, _ in pemBlock(t, p) }
    pem.neverPlaceholder = true
    d.append(pem)
    d.append(Detector("jwt", "JSON Web Token", .high, anchors: ["eyJ"]) { t, p, _ in jwtShape(t, p) })
    d.append(
        prefixed(
            "aws-access-key", "AWS access key id", .critical,
            ["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ABIA", "ACCA"], .upperDigit, length: 16...16,
            tuning: .init(glued: Glued.aws)
        ) { t, s, e in
            !String(decoding: t.b[s..<e], as: UTF8.self).hasSuffix("EXAMPLE")
        })
    d.append(
        Detector(
            "aws-secret-key", "AWS secret access key", .critical,
            anchors: [
                "aws_secret", "AWS_SECRET", "aws-secret", "secret_access_key", "SECRET_ACCESS_KEY",
                "SecretAccessKey", "secretAccessKey", "secretaccesskey"
            ],
            hints: .awsSecret, whole: { t in wholeRun(t, .b64, lengths: 40...40, mixedClasses: true) }
        ) { t, p, len in
            standalone(t, p + len, p + len + 100, .b64, lengths: [40], mixedClasses: true)
        })
    d.append(prefixed("palbase-user-token", "Palbase user token", .critical, ["pbu_"], .b64url, length: 43...43))
    d.append(
        prefixed(
            "palbase-project-key", "Palbase project key", .high, ["pbk_live_", "pbk_test_"], .alnum, length: 32...32,
            tuning: .init(lowPrefixes: ["pbk_test_"])))
    let github = prefixed(
        "github-token", "GitHub token", .critical, ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], .alnum, length: 36...255,
        tuning: .init(glued: Glued.github))
    d.append(
        Detector(github.id, github.title, github.severity, anchors: github.anchors) { t, p, len in
            if var m = github.match(t, p, len) {
                // A token's last six characters are the CRC-32 of the thirty before: one whose
                // checksum fails has the shape and not the proof (a test value, a copy gone wrong).
                if m.end - p == len + 36, !githubChecksum(t, p + len) {
                    m.severity = .high
                    m.reason = "its checksum does not hold: a GitHub token's shape without its proof"
                }
                return m
            }
            // Inside a longer word on both sides (`…xghp_<36>y…`) no boundary tells where it ends; a real
            // token's last six characters are the CRC-32 of the thirty before them, which does.
            return githubChecksum(t, p + len) ? DetMatch(start: p, end: p + len + 36) : nil
        })
    d.append(
        prefixed(
            "github-pat", "GitHub fine-grained personal access token", .critical, ["github_pat_"], .word, length: 50...255,
            tuning: .init(glued: Glued.githubPAT)))
    // GitLab: each prefix has its documented length (a run that is longer or shorter is not one);
    // `glpat-` and `glrt-` also come as routable tokens with `.`-separated parts.
    let gitlabLengths: [String: ClosedRange<Int>] = [
        "glagent-": 50...64, "gloas-": 64...64, "glptt-": 40...40, "glimt-": 25...25
    ]
    d.append(
        prefixed(
            "gitlab-token", "GitLab token", .critical,
            ["glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glsoat-", "glffct-", "gloas-", "glimt-", "glagent-", "glft-"],
            ByteSet("A-Za-z0-9_.-"), length: 20...255
        ) { t, s, e in
            for (prefix, lengths) in gitlabLengths where t.has(Array(prefix.utf8), at: s) {
                return lengths.contains(e - s - prefix.utf8.count)
            }
            // A legacy token's body is 20 characters, 50 at most; only a routable one, whose payload
            // ends in `.` and a version and checksum, runs longer.
            guard let dash = t.find(u("-"), s, e) else { return false }
            return e - dash - 1 <= 50 || t.find(u("."), dash, e) != nil
        })
    let slack = prefixed(
        "slack-token", "Slack token", .critical, ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xoxo-", "xapp-"],
        Sets.slackBody, length: 8...255, tuning: .init(glued: Glued.slack)
    ) { t, s, e in
        // Legacy workspace and refresh tokens (`xoxa-`, `xoxr-`) may be short: `xoxa-2-…`, 8 characters on.
        guard e - s - 5 >= 20 || t.has(u("xoxa-"), at: s) || t.has(u("xoxr-"), at: s) else { return false }
        return t.run(s + 5, .digit, max: 64) > 0 || mixed(t, s + 5, e)
    }
    d.append(
        Detector(slack.id, slack.title, slack.severity, anchors: slack.anchors) { t, p, len in
            // A token cut or masked after its last `-` (`xoxp-…-####`) shows no secret.
            guard var m = slack.match(t, p, len), t[m.end - 1] != UInt8(ascii: "-") else { return nil }
            // `xoxb-<workspace id>-<user id>-<secret>`: the ids are public numbers (`1234567890` is no
            // placeholder there); the part after the last `-` is what a placeholder would show in.
            if ByteSet.digit.contains(t[p + 5]) {
                var k = m.end
                while k > p + 5 && t[k - 1] != UInt8(ascii: "-") { k -= 1 }
                if k > p + 5 && m.end - k >= 8 { m.secretFrom = k }
                // Ids of a few digits (`xoxp-1234-1234-1234-…`) are typed for documentation: Slack's
                // workspace and user ids run to nine digits and more.
                var i = p + 5, shortest = Int.max
                while i < k {
                    let l = t.run(i, .digit, max: 32)
                    guard l > 0, i + l < m.end, t[i + l] == UInt8(ascii: "-") else { break }
                    // A single digit is the token's version (`xoxe-1-…`), not an id.
                    if l > 1 { shortest = Swift.min(shortest, l) }
                    i += l + 1
                }
                if shortest < 5 {
                    m.severity = .low
                    m.reason = "a placeholder or documentation value (ids of \(shortest) digits)"
                }
            }
            return m
        })
    d.append(
        Detector(
            "slack-webhook", "Slack incoming webhook URL", .high,
            anchors: ["hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"]
        ) { t, p, len in
            let l = t.run(p + len, Sets.webhookPath, max: 200)
            guard l >= 20 else { return nil }
            return DetMatch(start: p, end: p + len + l)
        })
    d.append(
        prefixed(
            "stripe-key", "Stripe secret or restricted key", .critical,
            ["sk_live_", "rk_live_", "sk_prod_", "rk_prod_", "sk_test_", "rk_test_"],
            .alnum, length: 20...247, tuning: .init(lowPrefixes: ["sk_test_", "rk_test_"], glued: Glued.stripe)))
    d.append(prefixed("stripe-webhook-secret", "Stripe webhook signing secret", .high, ["whsec_"], .alnum, length: 32...128))
    // Google API keys are client keys: every copy of an app that calls Google carries its own
    // (GoogleService-Info.plist, google-services.json), restricted by app and API. Seen in an
    // export they are public by design: medium, a reminder to check the key's restrictions.
    d.append(
        prefixed(
            "google-api-key", "Google API key (a client key, public by design in apps)", .medium, ["AIza"], .b64url, length: 35...35,
            tuning: .init(publicWhere: { t, s, e in
                // A Firebase web app's config (`apiKey` beside `authDomain`, `…firebaseapp.com`) ships in every page.
                for word in firebaseConfigWords where t.containsCI(word, s - 400, e + 400) {
                    return "public by design: a Firebase web config key"
                }
                return nil
            })))
    d.append(prefixed("google-oauth-access-token", "Google OAuth access token", .high, ["ya29."], .b64url, length: 20...2048))
    d.append(
        prefixed(
            "google-oauth-refresh-token", "Google OAuth refresh token", .critical, ["1//0"], .b64url, length: 30...512,
            tuning: .init(before: Sets.afterUrlOrWord)))
    d.append(prefixed("google-oauth-client-secret", "Google OAuth client secret", .high, ["GOCSPX-"], .b64url, length: 24...40))
    // Two-letter prefixes: anchored with the first hex digit too, so `SKU-…` never wakes the detector.
    let hexDigits = "0123456789abcdef".map { String($0) }
    d.append(
        Detector("twilio-api-key", "Twilio API key", .high, anchors: hexDigits.map { "SK" + $0 }) { t, p, _ in
            guard t.boundaryBefore(p), t.run(p + 2, .hexLower, max: 33) == 32 else { return nil }
            return DetMatch(start: p, end: p + 34)
        })
    d.append(
        Detector(
            "twilio-account-credentials", "Twilio account SID beside an auth token", .high,
            anchors: hexDigits.map { "AC" + $0 }
        ) { t, p, len in
            guard t.boundaryBefore(p), t.run(p + 2, .hexLower, max: 33) == 32 else { return nil }
            // `AC…:<32 hex>`: the SID and its auth token as a Basic pair, which says what it is.
            if p + 67 <= t.count, t[p + 34] == UInt8(ascii: ":"), t.run(p + 35, .hexLower, max: 33) == 32, t.boundaryAt(p + 67) {
                return DetMatch(start: p, end: p + 67, secretFrom: p + 35)
            }
            let ctx =
                t.hints.contains(.twilio) || t.containsCI(u("twilio"), p - 120, p + 160)
                || t.containsCI(u("auth"), p - 120, p + 160) || t.containsCI(u("token"), p - 120, p + 160)
            return ctx ? DetMatch(start: p, end: p + 34) : nil
        })
    d.append(
        Detector("sendgrid-api-key", "SendGrid API key", .high, anchors: ["SG."]) { t, p, len in
            guard t.boundaryBefore(p) else { return nil }
            let a = t.run(p + 3, .b64url, max: 40)
            if (16...32).contains(a), p + 3 + a < t.count, t[p + 3 + a] == UInt8(ascii: ".") {
                let b = t.run(p + 4 + a, .b64url, max: 60)
                guard (30...50).contains(b) else { return nil }
                return DetMatch(start: p, end: p + 4 + a + b)
            }
            // Without the middle dot: 66 characters.
            let l = t.run(p + 3, Sets.sendgridBody, max: 67)
            return l == 66 && mixed(t, p + 3, p + 69) ? DetMatch(start: p, end: p + 69) : nil
        })
    d.append(prefixed("npm-token", "npm access token", .high, ["npm_"], .alnum, length: 36...36))
    d.append(
        prefixed(
            "pypi-token", "PyPI upload token", .high, ["pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"], .b64url, length: 50...1000,
            tuning: .init(cutWhere: { t, s, e in
                Macaroon.endsBeforeSignature(UnsafeBufferPointer(rebasing: t.b[(s + 5)..<e]))
                    ? "cut short: the token ends before its signature" : nil
            })))
    d.append(
        Detector("azure-sas", "Azure shared access signature", .high, anchors: ["sig="], urlStructural: true) { t, p, len in
            guard p > 0, t[p - 1] == UInt8(ascii: "?") || t[p - 1] == UInt8(ascii: "&") else { return nil }
            let l = t.run(p + len, Sets.sasValue, max: 256)
            guard l >= 20 else { return nil }
            let ctx = t.find(u("sv="), p - 2048, p + 2048) != nil || t.find(u("se="), p - 2048, p + 2048) != nil
            return ctx ? DetMatch(start: p + len, end: p + len + l) : nil
        })
    d.append(
        Detector("azure-storage-key", "Azure storage account key in a connection string", .critical, anchors: ["AccountKey="]) {
            t, p, len in
            let l = t.run(p + len, .b64pad, max: 100)
            guard (80...100).contains(l) else { return nil }
            return DetMatch(start: p + len, end: p + len + l)
        })
    d.append(prefixed("mailgun-api-key", "Mailgun API key", .high, ["key-"], .hexLower, length: 32...32))
    d.append(
        Detector("mailchimp-api-key", "Mailchimp API key", .high, anchors: ["-us"]) { t, p, len in
            let dg = t.run(p + 3, .digit, max: 3)
            guard (1...2).contains(dg), t.boundaryAt(p + 3 + dg), t.runBack(p, .hexLower, max: 33) == 32, t.boundaryBefore(p - 32) else {
                return nil
            }
            return DetMatch(start: p - 32, end: p + 3 + dg)
        })
    d.append(
        prefixed(
            "shopify-token", "Shopify access token or shared secret", .high, ["shpat_", "shpss_", "shpca_", "shppa_"],
            .hex, length: 32...32))
    d.append(prefixed("digitalocean-token", "DigitalOcean token", .high, ["dop_v1_", "doo_v1_", "dor_v1_"], .hexLower, length: 64...64))
    d.append(
        Detector(
            "heroku-api-key", "Heroku API key", .high, anchors: ["heroku", "Heroku", "HEROKU", "HRKU-"],
            hints: .heroku,
            whole: { t in
                guard let m = wholeRun(t, Sets.uuidChars, lengths: 36...36), Shape.isUUID(t.b, m.start) else { return nil }
                return m
            }
        ) { t, p, len in
            if t.has(u("HRKU-"), at: p) {
                let l = t.run(p + 5, .b64url, max: 128)
                return l >= 50 ? DetMatch(start: p, end: p + 5 + l) : nil
            }
            if namesAnId(t, p, len) { return nil }
            var i = p + len
            let limit = Swift.min(t.count, p + len + 100)
            while i < limit {
                if Shape.isUUID(t.b, i) && t.boundaryBefore(i, .hex) && t.boundaryAt(i + 36, .hex) {
                    return DetMatch(start: i, end: i + 36)
                }
                i += 1
            }
            return nil
        })
    d.append(
        Detector(
            "datadog-api-key", "Datadog API or application key", .high,
            anchors: [
                "datadog", "Datadog", "DATADOG", "dd_api_key", "DD_API_KEY", "dd_app_key", "DD_APP_KEY",
                "DD-API-KEY", "dd-api-key", "DD-APPLICATION-KEY"
            ],
            hints: .datadog,
            whole: { t in
                wholeRun(t, .hexLower, lengths: 32...40).flatMap { ($0.end - $0.start == 32 || $0.end - $0.start == 40) ? $0 : nil }
            }
        ) { t, p, len in
            namesAnId(t, p, len) ? nil : standalone(t, p + len, p + len + 100, .hexLower, lengths: [32, 40])
        })
    d.append(prefixed("anthropic-api-key", "Anthropic API key", .critical, ["sk-ant-"], .b64url, length: 80...255))
    d.append(
        Detector("openai-api-key", "OpenAI API key", .critical, anchors: ["sk-proj-", "sk-svcacct-", "sk-admin-", "T3BlbkFJ"]) {
            t, p, len in
            if t.has(u("T3BlbkFJ"), at: p) {
                let back = t.runBack(p, .b64url, max: 200)
                let s = p - back
                guard back >= 23, t.has(u("sk-"), at: s), t.boundaryBefore(s) else { return nil }
                let fwd = t.run(p + 8, .b64url, max: 200)
                guard fwd >= 20 else { return nil }
                return DetMatch(start: s, end: p + 8 + fwd)
            }
            guard t.boundaryBefore(p) else { return nil }
            let l = t.run(p + len, .b64url, max: 300)
            // Every OpenAI secret key carries `T3BlbkFJ` (base64 of `OpenAI`) in its body: the anchor
            // above finds those; a `sk-proj-` run without it is not one.
            guard l >= 40, t.find(u("T3BlbkFJ"), p + len, p + len + l) != nil else { return nil }
            return DetMatch(start: p, end: p + len + l)
        })
    d.append(
        prefixed(
            "huggingface-token", "Hugging Face access token", .high, ["hf_"], .alnum, length: 30...40,
            check: { t, s, e in
                mixed(t, s + 3, e)
            }))
    d.append(
        Detector(
            "discord-bot-token", "Discord bot token", .high, anchors: ["discord", "Discord", "DISCORD", "Bot "],
            hints: .discord, whole: { t in discordToken(t, 0, t.count, whole: true) }
        ) { t, p, len in
            discordToken(t, p + len, p + len + 100, whole: false)
        })
    d.append(
        Detector(
            "discord-webhook", "Discord webhook URL", .high,
            anchors: ["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"]
        ) { t, p, len in
            let idLen = t.run(p + len, .digit, max: 21)
            guard (17...20).contains(idLen), p + len + idLen < t.count, t[p + len + idLen] == UInt8(ascii: "/") else { return nil }
            let tok = t.run(p + len + idLen + 1, .b64url, max: 100)
            guard tok >= 60 else { return nil }
            return DetMatch(start: p, end: p + len + idLen + 1 + tok)
        })
    d.append(
        Detector("telegram-bot-token", "Telegram bot token", .high, anchors: [":AA"]) { t, p, _ in
            let dg = t.runBack(p, .digit, max: 11)
            guard (8...10).contains(dg), t.boundaryBefore(p - dg) else { return nil }
            let l = t.run(p + 1, .b64url, max: 40)
            guard (35...36).contains(l), t.boundaryAt(p + 1 + l, .b64url) else { return nil }
            return DetMatch(start: p - dg, end: p + 1 + l)
        })
    d.append(
        Detector("square-token", "Square access token or secret", .high, anchors: ["sq0atp-", "sq0csp-", "EAAA"]) { t, p, len in
            guard t.boundaryBefore(p) else { return nil }
            let l = t.run(p + len, .b64url, max: 80)
            if t.has(u("EAAA"), at: p) {
                return (56...72).contains(l) && mixed(t, p, p + len + l) ? DetMatch(start: p, end: p + len + l) : nil
            }
            if t.has(u("sq0atp-"), at: p) { return (22...60).contains(l) ? DetMatch(start: p, end: p + len + l) : nil }
            return (40...60).contains(l) ? DetMatch(start: p, end: p + len + l) : nil
        })
    d.append(
        Detector(
            "braintree-token", "PayPal Braintree access token", .critical,
            anchors: ["access_token$production$", "access_token$sandbox$"]
        ) { t, p, len in
            let a = t.run(p + len, Sets.lowerDigit, max: 17)
            guard a == 16, p + len + a < t.count, t[p + len + a] == UInt8(ascii: "$") else { return nil }
            let b = t.run(p + len + a + 1, .hexLower, max: 33)
            guard b == 32 else { return nil }
            var m = DetMatch(start: p, end: p + len + a + 1 + b)
            if t.has(u("access_token$sandbox$"), at: p) { m.testMode = true }
            return m
        })
    d.append(
        Detector("firebase-fcm-server-key", "Firebase Cloud Messaging server key", .high, anchors: [":APA91b"]) { t, p, len in
            let back = t.runBack(p, .b64url, max: 12)
            guard back == 11, t.has(u("AAAA"), at: p - 11), t.boundaryBefore(p - 11) else { return nil }
            let l = t.run(p + len, .b64url, max: 200)
            guard l >= 100 else { return nil }
            return DetMatch(start: p - 11, end: p + len + l)
        })
    // `ATATT3…` API tokens and the `ATCTT3xFfGN0…` tokens Atlassian's Connect and Forge apps are issued.
    d.append(
        prefixed("atlassian-api-token", "Atlassian API token", .high, ["ATATT3", "ATCTT3xFfGN0"], Sets.tokenWithEquals, length: 100...300))
    d.append(prefixed("linear-api-key", "Linear API key", .high, ["lin_api_"], .alnum, length: 40...40))
    d.append(
        prefixed(
            "doppler-token", "Doppler token", .high, ["dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."],
            ByteSet("A-Za-z0-9._-"), length: 40...80,
            check: { t, s, e in
                // `dp.<kind>.` then 40–44 letters and digits; a service token names its environment
                // first: `dp.st.<env>.<40–44>`.
                let body = s + 3 + t.run(s + 3, .lower, max: 6) + 1
                let last = t.runBack(e, .alnum, max: 45)
                guard (40...44).contains(last) else { return false }
                let env = e - last - body
                return env == 0
                    || (env >= 2 && env <= 33 && t[e - last - 1] == UInt8(ascii: ".")
                        && t.run(body, ByteSet("a-z0-9_-"), max: 33) == env - 1)
            }))
    d.append(
        prefixed(
            "vault-token", "HashiCorp Vault token", .high, ["hvs.", "hvb.", "hvr."], .b64url, length: 24...512,
            tuning: .init(before: Sets.alnumDot)))
    d.append(
        Detector("terraform-cloud-token", "Terraform Cloud / Enterprise API token", .high, anchors: [".atlasv1."]) { t, p, len in
            let back = t.runBack(p, .alnum, max: 15)
            guard back == 14, t.boundaryBefore(p - 14) else { return nil }
            let l = t.run(p + len, Sets.tokenWithEquals, max: 80)
            guard (60...80).contains(l) else { return nil }
            return DetMatch(start: p - 14, end: p + len + l)
        })
    d.append(prefixed("new-relic-key", "New Relic API key", .high, ["NRAK-", "NRII-"], Sets.newRelicBody, length: 27...40))
    d.append(
        Detector("sentry-token", "Sentry auth token or DSN secret", .high, anchors: ["sntrys_", "sntryu_", "://"]) { t, p, len in
            if t.has(u("://"), at: p) {
                // Legacy DSN with a secret: https://<32 hex>:<32 hex>@…sentry…
                let a = t.run(p + 3, .hexLower, max: 33)
                guard a == 32, p + 3 + a < t.count, t[p + 3 + a] == UInt8(ascii: ":") else { return nil }
                let b = t.run(p + 4 + a, .hexLower, max: 33)
                guard b == 32, p + 4 + a + b < t.count, t[p + 4 + a + b] == UInt8(ascii: "@") else { return nil }
                return DetMatch(start: p + 4 + a, end: p + 4 + a + b)
            }
            guard t.boundaryBefore(p) else { return nil }
            if t.has(u("sntryu_"), at: p) {
                return t.run(p + len, .hexLower, max: 65) == 64 ? DetMatch(start: p, end: p + len + 64) : nil
            }
            // `sntrys_` + base64 of the token's JSON claims + `_` + the secret.
            guard t.has(u("eyJ"), at: p + len) else { return nil }
            let claims = t.run(p + len, .b64pad, max: 400)
            let sep = p + len + claims
            guard claims >= 20, sep < t.count, t[sep] == UInt8(ascii: "_") else { return nil }
            // The secret is base64 of 32 bytes without padding: exactly 43 characters.
            let secret = t.run(sep + 1, Sets.sentryBody, max: 44)
            return secret == 43 ? DetMatch(start: p, end: sep + 1 + secret) : nil
        })
    d.append(prefixed("age-secret-key", "age encryption secret key", .critical, ["AGE-SECRET-KEY-1"], .upperDigit, length: 58...58))
    d.append(
        Detector("grafana-token", "Grafana service account or cloud token", .high, anchors: ["glsa_", "glc_"]) { t, p, len in
            guard t.boundaryBefore(p) else { return nil }
            if t.has(u("glsa_"), at: p) {
                let a = t.run(p + 5, .alnum, max: 33)
                guard a == 32, p + 5 + a < t.count, t[p + 5 + a] == UInt8(ascii: "_"), t.run(p + 6 + a, .hex, max: 9) == 8 else {
                    return nil
                }
                return DetMatch(start: p, end: p + 6 + a + 8)
            }
            let l = t.run(p + len, .b64pad, max: 400)
            return l >= 32 && mixed(t, p + len, p + len + l) ? DetMatch(start: p, end: p + len + l) : nil
        })
    d.append(
        Detector("postman-api-key", "Postman API key", .high, anchors: ["PMAK-"]) { t, p, len in
            let a = t.run(p + len, .hexLower, max: 25)
            guard a == 24, p + len + a < t.count, t[p + len + a] == UInt8(ascii: "-"), t.run(p + len + a + 1, .hexLower, max: 35) == 34
            else { return nil }
            return DetMatch(start: p, end: p + len + a + 1 + 34)
        })
    d.append(prefixed("pulumi-token", "Pulumi access token", .high, ["pul-"], .hexLower, length: 40...40))
    d.append(
        Detector("dynatrace-token", "Dynatrace API token", .high, anchors: ["dt0c01."]) { t, p, len in
            let a = t.run(p + len, .alnum, max: 25)
            guard a == 24, p + len + a < t.count, t[p + len + a] == UInt8(ascii: "."), t.run(p + len + a + 1, .alnum, max: 65) == 64 else {
                return nil
            }
            return DetMatch(start: p, end: p + len + a + 1 + 64)
        })
    d.append(prefixed("databricks-token", "Databricks personal access token", .high, ["dapi"], .hexLower, length: 32...32))
    d += providerDetectors()
    d += moreProviderDetectors()
    d += signatureDetectors()
    d += keyMaterialDetectors()
    // A provider's name alone as the label (`cloudflare: "…"`, `"artifactory", "…"`, `SENDGRID_KEY=…`)
    // beside a value of a key's shape: that provider's key.
    d.append(
        Detector(
            "provider-keyed-secret", "credential-shaped value under a provider's name", .high,
            anchors: Array(Set(ProviderNames.anchors + KeyedFormats.anchors)).sorted(), hints: [.providerKey, .providerName],
            whole: { t in
                // A JSON member, header, query or form field named for a provider (`cohere_api_key`,
                // `X-Cohere-Key`): a value of a key's shape is its key. Named for the provider alone
                // (`"youtube": "UC…"`), a value under 32 characters may be an id or a handle: medium.
                let (s, e) = wholeValue(t)
                let v = UnsafeBufferPointer(rebasing: t.b[s..<e])
                guard v.count >= 16, ValueJudgement.fitsToken(v) else { return nil }
                // Ids and handles run shorter than keys (a YouTube channel id is 24 characters).
                if t.hints.contains(.providerKey) || v.count >= 32 { return DetMatch(start: s, end: e) }
                return DetMatch(
                    start: s, end: e, severity: .medium, reason: "named for the provider alone, which names its ids and handles too")
            }, generic: true
        ) { t, p, len in
            guard t.boundaryBefore(p) else { return nil }
            guard let a = Assign.around(t, p, len) else {
                if let m = KeyedFormats.spaced(t, p, len) ?? providerKeyInProse(t, p, len) ?? providerThenKey(t, p, len) {
                    return m
                }
                // `cohere:` and, indented below it, `key: …`.
                let nameEnd = p + len + t.run(p + len, Assign.nameBytes, max: 64)
                guard ProviderNames.labels(UnsafeBufferPointer(rebasing: t.b[p..<nameEnd])),
                    let c = Assign.child(t, nameStart: p, nameEnd: nameEnd)
                else { return nil }
                let v = UnsafeBufferPointer(rebasing: t.b[c.value.start..<c.value.end])
                return v.count >= 16 && ValueJudgement.fitsToken(v, quoted: c.quoted) ? c.value : nil
            }
            let v = UnsafeBufferPointer(rebasing: t.b[a.value.start..<a.value.end])
            if a.hints.contains(.publicKey) { return nil }
            // A name that holds the provider's word beside a value of one of its documented shapes.
            switch KeyedFormats.judge(t, name: a.nameStart..<a.nameEnd, value: v) {
            case .fits:
                // `ibm_account_id`, `datadog_trace_id`: an id of the key's shape, not the key.
                let name = UnsafeBufferPointer(rebasing: t.b[a.nameStart..<a.nameEnd])
                return ValueJudgement.isReference(v) || NameHints.describes(raw: name) ? nil : a.value
            case .fitsNone: if KeyedFormats.format(t, name: a.nameStart..<a.nameEnd)?.exclusive == true { return nil }
            case .noFormat: break
            }
            guard ProviderNames.labels(UnsafeBufferPointer(rebasing: t.b[a.nameStart..<a.nameEnd])), v.count >= 16,
                ValueJudgement.fitsToken(v, quoted: a.quoted)
            else { return nil }
            return a.value
        })
    d[d.count - 1].declaration.providers = ProviderNames.providers
    d[d.count - 1].declaration.looksAt =
        "a name that is a provider's name, alone or with key, token, secret, pat, creds, access token, secret key, write key or client secret (cloudflare_api_key, SENDGRID_KEY, X-Cohere-Key), in text or as a JSON member, header or parameter, beside a value of a key's shape; a provider's name then a plainly random key of 32+ (mailgun <key>); \(ProviderNames.providers.count) providers"
    d.append(
        Detector(
            "url-userinfo", "password in URL userinfo", .high, anchors: ["://"], rule: .urlUserinfo,
            urlStructural: true
        ) { t, p, len in
            urlPassword(t, p + len)
        })
    d.append(
        Detector(
            "password-in-url", "password query parameter in a URL", .high,
            anchors: ["?password=", "&password=", "?passwd=", "&passwd=", "?pwd=", "&pwd=", "?pass=", "&pass="],
            urlStructural: true
        ) { t, p, len in
            let stop = Sets.queryValueStop
            var e = p + len
            let limit = Swift.min(t.count, e + 512)
            while e < limit && !stop.contains(t[e]) { e += 1 }
            guard e > p + len else { return nil }
            let v = UnsafeBufferPointer(rebasing: t.b[(p + len)..<e])
            let decoded = Shape.percentDecoded(v)
            if decoded == Array("***".utf8) { return nil }
            // A format's slot (`password=%s`, `password={}`) or a template's reference holds no value yet.
            if decoded == Array("%s".utf8) || decoded == Array("{}".utf8)
                || decoded.withUnsafeBufferPointer({ UserinfoPassword.standsIn($0) })
            {
                return nil
            }
            // `password=password`, `password=bar`: an example's value, low.
            if decoded.count <= 3 || decoded.withUnsafeBufferPointer({ ValueJudgement.isPlaceholderWord($0) }) {
                return DetMatch(start: p + len, end: e, severity: .low, reason: "looks like a placeholder (a word for a password)")
            }
            return DetMatch(start: p + len, end: e)
        })
    // Generic, context-bound detectors: lose any overlap with a specific one above.
    d.append(
        Detector("bearer", "Bearer credential", .high, anchors: ["Bearer", "bearer", "BEARER"], generic: true) { t, p, len in
            guard t.boundaryBefore(p) else { return nil }
            var i = p + len
            // `Bearer <token>`, also after a tab or a colon (`bearer: <token>`).
            if i < t.count && t[i] == UInt8(ascii: ":") { i += 1 }
            guard i < t.count, t[i] == 0x20 || t[i] == 0x09 else { return nil }
            while i < t.count && (t[i] == 0x20 || t[i] == 0x09) { i += 1 }
            let l = t.run(i, .bearerToken, max: 4096)
            guard l >= 8 else { return nil }
            var digitOrPunct = false
            for k in i..<(i + l) where !ByteSet.lower.contains(t[k]) && !ByteSet.upper.contains(t[k]) { digitOrPunct = true; break }
            // A short value (8 to 15 bytes) counts when it also mixes character classes, as tokens do.
            if l < 16 && !mixed(t, i, i + l) { return nil }
            return digitOrPunct ? DetMatch(start: i, end: i + l) : nil
        })
    d.append(
        Detector("basic-auth", "HTTP Basic credentials", .high, anchors: ["Basic ", "basic ", "BASIC "], generic: true) { t, p, len in
            guard t.boundaryBefore(p) else { return nil }
            var i = p + len
            while i < t.count && t[i] == 0x20 { i += 1 }
            let l = t.run(i, .b64pad, max: 1024)
            guard l >= 8 else { return nil }
            if let dec = Base64.decode(bytes: UnsafeBufferPointer(rebasing: t.b[i..<(i + l)])),
                let colon = dec.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < dec.count - 1,
                dec.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
            {
                // `test:test`, `foo:bar`, `user:pass`: a password of three characters or fewer, a word
                // for one, or the user name again is an example's pair.
                let user = dec[..<colon], pw = dec[(colon + 1)...]
                let placeholder =
                    pw.count <= 3 || pw.elementsEqual(user)
                    || pw.withUnsafeBufferPointer { ValueJudgement.isPlaceholderWord($0) }
                return placeholder
                    ? DetMatch(start: i, end: i + l, severity: .low, reason: "a placeholder pair of user and password")
                    : DetMatch(start: i, end: i + l)
            }
            // After `Authorization: Basic` the value is the credential even when it does not decode as
            // `user:password` (cut, altered, or a key sent whole).
            let before = t.runBack(p, Sets.authGap, max: 8)
            guard l >= 16, mixed(t, i, i + l), p - before >= 13,
                t.containsCI(Array("authorization".utf8), p - before - 13, p - before)
            else { return nil }
            return DetMatch(start: i, end: i + l)
        })
    // `user_auth: <base64>`, `.npmrc`'s `_auth=<base64>`: Basic credentials kept under a name, not
    // sent in a header. Counted when the value decodes to `user:password` with a password people
    // would choose (not `user:pass`).
    d.append(
        Detector(
            "encoded-user-password", "encoded Basic credential under an auth name", .high,
            anchors: ["auth=", "auth:", "auth\":", "auth\" :", "Auth=", "Auth:", "Auth\":", "AUTH=", "AUTH:", "AUTH\":"],
            generic: true
        ) { t, p, len in
            var i = p + len
            while i < t.count && (t[i] == 0x20 || t[i] == UInt8(ascii: "\"") || t[i] == UInt8(ascii: "'")) { i += 1 }
            let l = t.run(i, .b64pad, max: 1024)
            var e = i + l
            while e > i && t[e - 1] == UInt8(ascii: "=") { e -= 1 }
            guard l >= 12, l < 1024,
                let dec = EncodedSpans.base64(t.b, i, e - ((e - i) % 4 == 1 ? 1 : 0), whole: true)?.bytes,
                dec.withUnsafeBufferPointer({ UserPassword.holds($0, named: true) })
            else { return nil }
            return DetMatch(start: i, end: i + l)
        })
    d.append(
        Detector(
            "session-cookie", "session cookie in a Cookie or Set-Cookie header line", .high,
            anchors: ["Cookie:", "cookie:", "COOKIE:"], generic: true
        ) { t, p, len in sessionCookie(t, p + len) })
    d.append(
        Detector(
            "password-assignment", "password assigned in text", .high,
            // `pass` stands in password, passwd, passcode and passphrase; a name is read whole around it.
            anchors: ["pass", "Pass", "PASS", "pwd", "Pwd", "PWD", "_pw", "-pw", "_PW", "-PW"],
            hints: .password,
            whole: { t in
                var s = 0, e = t.count
                while s < e && ByteSet.space.contains(t[s]) { s += 1 }
                while e > s && ByteSet.space.contains(t[e - 1]) { e -= 1 }
                return ValueJudgement.fitsPassword(UnsafeBufferPointer(rebasing: t.b[s..<e]), quoted: false)
                    ? passwordMatch(t, DetMatch(start: s, end: e)) : nil
            }, generic: true
        ) { t, p, len in
            // (A password in markup, `<add key="ClearTextPassword" value="…"/>`, is NuGet's and
            // similar tools' config: a key-shaped value there is found as a key, not as a password.)
            guard let a = Assign.around(t, p, len), !a.markup, a.hints.contains(.password) || a.hints.contains(.credential) else {
                return nil
            }
            let v = UnsafeBufferPointer(rebasing: t.b[a.value.start..<a.value.end])
            // A list of names (`'HTTPPasswordMgr', 'AbstractBasicAuthHandler'`) and an enum's label
            // (`INCORRECT_PASSWD = "Incorrect"`) hold no password.
            if a.listed && ValueJudgement.isCodeWords(v) && !v.contains(where: ByteSet.digit.contains) { return nil }
            if ValueJudgement.isWordOfName(v, name: UnsafeBufferPointer(rebasing: t.b[a.nameStart..<a.nameEnd])) { return nil }
            if a.hints.contains(.password) {
                return ValueJudgement.fitsPassword(v, quoted: a.quoted) ? passwordMatch(t, a.value) : nil
            }
            // `db_pass`, `my_pass`: a password by its name's last word.
            return ValueJudgement.fitsPassword(v, quoted: a.quoted) && a.quoted ? passwordMatch(t, a.value) : nil
        })
    // SQL that sets a password: `CREATE USER … IDENTIFIED BY '…'` (`PASSWORD '…'` is a password's
    // name before a literal: `password-assignment`).
    d.append(
        Detector(
            "sql-password", "password set in SQL", .high,
            anchors: ["IDENTIFIED BY ", "identified by ", "Identified By "], generic: true
        ) { t, p, len in
            var i = p + len
            while i < t.count && t[i] == 0x20 { i += 1 }
            guard i < t.count, t[i] == UInt8(ascii: "'") || t[i] == UInt8(ascii: "\"") else { return nil }
            let q = t[i]
            let s = i + 1
            var e = s
            let limit = Swift.min(t.count, s + 256)
            while e < limit && t[e] != q && t[e] != 0x0A { e += 1 }
            guard e < limit, t[e] == q, e > s else { return nil }
            return ValueJudgement.fitsPassword(UnsafeBufferPointer(rebasing: t.b[s..<e]), quoted: true)
                ? passwordMatch(t, DetMatch(start: s, end: e)) : nil
        })
    d.append(
        Detector(
            "generic-secret", "credential-shaped value under a credential-like name", .high,
            anchors: [
                "token", "Token", "TOKEN", "secret", "Secret", "SECRET", "api_key", "apiKey", "API_KEY", "apikey", "APIKey", "api.key",
                "api-key", "Api-Key", "API-KEY", "APIKEY", "ApiKey", "Authorization", "authorization", "AUTHORIZATION",
                "credential", "Credential", "CREDENTIAL", "access_key", "accessKey", "ACCESS_KEY", "AccessKey",
                "private_key", "privateKey", "PRIVATE_KEY", "private-key", "secret_key", "secretKey", "SECRET_KEY",
                "auth_key", "authKey", "AUTH_KEY", "client_key", "clientKey", "CLIENT_KEY", "creds", "CREDS",
                "ACCESSKEY", "accesskey", "Accesskey", "signing_key", "signingKey", "SIGNING_KEY", "encryption_key", "encryptionKey",
                "ENCRYPTION_KEY", "master_key", "masterKey", "MASTER_KEY", "hmac_key", "hmacKey", "HMAC_KEY",
                // Any name ending in `key`: a key only when its value is plainly random.
                "_key", "_KEY", "-key", "-Key", "Key", "key=", "key:", "key\"", "key'", "key =", "key :", "api key", "API key", "API Key"
            ],
            hints: [.credential, .keyName],
            whole: { t in
                let (s, e) = wholeValue(t)
                let v = UnsafeBufferPointer(rebasing: t.b[s..<e])
                if !t.hints.contains(.credential) {
                    return ValueJudgement.isRandomKey(v) ? DetMatch(start: s, end: e) : nil
                }
                guard ValueJudgement.fitsToken(v) else { return nil }
                // Name and shape agree: high. A signature names a proof, not a key: medium.
                if let why = ValueJudgement.templated(v) { return DetMatch(start: s, end: e, severity: .low, reason: why) }
                return timeBasedUUID(v, DetMatch(start: s, end: e, severity: t.hints.contains(.signature) ? .medium : nil))
            }, generic: true
        ) { t, p, len in
            // An anchor that ends past the name (`key=`, `key:`) is read as the name it starts.
            // (`key =`, `key :`: the name before the space.)
            var nameLen = len > 1 && nameEndMarks.contains(t[p + len - 1]) ? len - 1 : len
            if nameLen > 1 && t[p + nameLen - 1] == 0x20 { nameLen -= 1 }
            guard var a = Assign.around(t, p, nameLen), !a.hints.isDisjoint(with: [.credential, .keyName]) else {
                return credentialInProse(t, p, nameLen)
            }
            // `APNs device token: …`, `FCM registration token: …`: the word before the name is part of it.
            if let w = wordBefore(t, a.nameStart) {
                let named = UnsafeBufferPointer(rebasing: t.b[w..<a.nameEnd])
                if NameHints.describes(raw: named) { return nil }
                // `secret key: …`, `private key = …`: the word before a bare `key` says whose key it is.
                if !a.hints.contains(.credential) {
                    let joined = NameHints.of(raw: named)
                    if joined.contains(.credential) { a.hints.formUnion(joined) }
                }
            }
            // `Authorization: Token <value>` and other schemes: the value follows the scheme word. A
            // scheme of a provider's own (`Authorization: Zorblax <value>`) counts for a plainly random value.
            // (A provider's name written in words, `ibm-cloud-key`, is its key's label like `ibmcloud_key`.)
            var strict = !a.hints.contains(.credential) && !a.hints.contains(.providerKey)
            let word = a.value.end - a.value.start
            if !a.quoted, a.value.end < t.count, t[a.value.end] == 0x20, word <= 20 {
                let scheme = String(decoding: t.b[a.value.start..<a.value.end], as: UTF8.self).lowercased()
                let worded = t.run(a.value.start, schemeWord, max: 21) == word && t.containsCI(authorizationWord, a.nameStart, a.nameEnd)
                // A scheme that says it carries a key or token (`GenieKey`, `DeepL-Auth-Key`,
                // `Zoho-oauthtoken`, `Klaviyo-API-Key`) is known as `Token` is.
                let known = authSchemes.contains(scheme) || (worded && (scheme.contains("key") || scheme.contains("token")))
                if known || worded {
                    a.value = wordedValue(t, from: a.value.end, limit: 512, sentence: false)
                    if !known { strict = true }
                }
            }
            // Laravel's `APP_KEY=base64:…`: the key is what follows the encoding's name.
            if t.has(base64Label, at: a.value.start), a.value.end - a.value.start > 7 + 32 { a.value.start += 7 }
            let v = UnsafeBufferPointer(rebasing: t.b[a.value.start..<a.value.end])
            // A bare `Key=` counts for a plainly random value, or for a token's shape when the lines
            // just before name a provider (`Sending request to the Abyssale API` / `Using Key=…`).
            if strict && !ValueJudgement.isRandomKey(v) && !keyAfterNamedAPI(v, t, a.nameStart) { return nil }
            guard ValueJudgement.fitsToken(v, quoted: a.quoted), KeyedFormats.allows(t, name: a.nameStart..<a.nameEnd, value: v) else {
                return nil
            }
            var m = a.value
            if a.hints.contains(.signature) { m.severity = .medium }
            if let why = ValueJudgement.templated(v) {
                m.severity = .low
                m.reason = why
            }
            if npmrcAuthLine(t, nameStart: a.nameStart) { return m }
            return timeBasedUUID(v, m)
        })
    return d
}()

/// Whether `v`, under a bare key's name at `at`, is the key of an API the lines before name: a run of
/// a token's alphabet with a digit in it (no path, no `ns:id`), after a provider's name; after the
/// word `API` alone, also not a hex digest (an S3 ETag, a cache key's hash).
func keyAfterNamedAPI(_ v: UnsafeBufferPointer<UInt8>, _ t: ScanInput, _ at: Int) -> Bool {
    guard v.count >= 16, v.allSatisfy({ keyAlphabet.contains($0) }), v.contains(where: { ByteSet.digit.contains($0) }) else {
        return false
    }
    switch apiNamedBefore(t, at) {
    case .provider, .namedAPI: return true
    case .api: return !Shape.all(v, .hex) && !Shape.isUUID(v) && Shape.entropy(v) >= 3.5
    case .none: return false
    }
}
private let keyAlphabet = ByteSet("A-Za-z0-9_-")
private let dataStores: Set<String> = [
    "redis", "mongodb", "mongo", "elastic", "elasticsearch", "opensearch", "dynamodb", "memcached", "cassandra", "etcd", "consul",
    "rabbitmq", "kafka", "nats", "sqs", "firestore", "couchbase", "couchdb", "cockroachdb", "supabase", "upstash"
]

/// What the lines before a bare key's name say of it: a provider by a name pbsift knows, an API by
/// a name of its own (`the Refiner API`: a capitalised word that is not a kind of API), the word
/// `API` alone, or nothing.
enum NamedAPI { case provider, namedAPI, api, none }

/// Words that say what kind an API is, not whose (`the REST API`, `our internal API`).
private let apiKindWords: Set<String> = [
    "the", "rest", "http", "https", "web", "json", "xml", "graphql", "grpc", "soap", "public", "private", "internal",
    "external", "admin", "partner", "search", "storage", "backend", "server", "client", "cloud", "data", "graph", "open",
    "new", "old", "legacy", "our", "your", "this", "that", "app", "mobile", "main", "core", "remote", "local", "upstream",
    "an", "any", "calling", "call", "from", "to", "using", "sending", "request", "requests", "response", "test", "sandbox",
    "live", "production", "staging", "dev", "third", "party", "v1", "v2", "v3"
]

private let letters = ByteSet("A-Za-z")

/// Whether the word before `API` (ending at `end`, one space between) names an API of its own.
private func namesAnAPI(_ t: ScanInput, _ end: Int) -> Bool {
    guard end >= 4, t[end - 1] == 0x20 else { return false }
    let w = t.runBack(end - 1, letters, max: 30)
    guard w >= 3, w < 30, ByteSet.upper.contains(t[end - 1 - w]) else { return false }
    if end - 1 - w > 0, ByteSet.word.contains(t[end - 2 - w]) { return false }
    let word = String(decoding: UnsafeBufferPointer(rebasing: t.b[(end - 1 - w)..<(end - 1)]), as: UTF8.self).lowercased()
    return !apiKindWords.contains(word)
}

/// What the three lines before `at` name (at most 240 bytes; a JSON string's `\n` escape counts as a
/// line's end): a provider (`Sending request to the Mailgun API`), an API by a name of its own, or an
/// API by the word alone.
func apiNamedBefore(_ t: ScanInput, _ at: Int) -> NamedAPI {
    var api = false
    let stop = Swift.max(0, at - 240)
    var lines = 0, i = at
    while i > stop {
        let c = t[i - 1]
        if c == 0x0A || (c == UInt8(ascii: "n") && i >= 2 && t[i - 2] == UInt8(ascii: "\\")) {
            lines += 1
            if lines > 3 { break }
            i -= c == 0x0A ? 1 : 2
            continue
        }
        var w = t.runBack(i, .alnum, max: 49)
        if w == 0 {
            i -= 1
            continue
        }
        // A word at a line's start in raw JSON text: the `n` of the `\n` before it is not its own.
        if w > 1 && i - w >= 1 && t[i - w] == UInt8(ascii: "n") && t[i - w - 1] == UInt8(ascii: "\\") { w -= 1 }
        let word = UnsafeBufferPointer(rebasing: t.b[(i - w)..<i])
        // A data store's or a queue's key is a record's or a message's: its name says nothing.
        if ProviderNames.isProviderWord(word) && !dataStores.contains(String(decoding: word, as: UTF8.self).lowercased()) {
            return .provider
        }
        if w == 3 && t.has(apiWord, at: i - 3) {
            if namesAnAPI(t, i - 3) { return .namedAPI }
            api = true
        }
        i -= w
    }
    return api ? .api : .none
}

/// An `.npmrc` auth line, `//host[/path]/:_authToken=`: it holds the registry's token whatever the
/// token's form (npm's legacy tokens are UUIDs). A key npm would not read as a registry's
/// (`registry.npmjs.org:_authToken`, `///:_authToken`) is not one.
private func npmrcAuthLine(_ t: ScanInput, nameStart: Int) -> Bool {
    guard nameStart >= 5, t.has(u("/:_authToken"), at: nameStart - 2) else { return false }
    var i = nameStart - 2
    while i > 0 && npmrcHost.contains(t[i - 1]) && !(t[i - 1] == UInt8(ascii: "/") && i >= 2 && t[i - 2] == UInt8(ascii: "/")) {
        i -= 1
    }
    // `i` stands just after `//` when the line is one; a host of at least one character before the path.
    return i >= 2 && t[i - 1] == UInt8(ascii: "/") && t[i - 2] == UInt8(ascii: "/") && i < nameStart - 2
        && t[i] != UInt8(ascii: "/")
}
private let npmrcHost = ByteSet("A-Za-z0-9._~:/-")
private let apiWord = Array("API".utf8)

/// `user:password`, the decoding of a Basic credential.
enum UserPassword {
    private static let userNameByte = ByteSet("A-Za-z0-9._@+-")
    private static let uriSchemes: Set<String> = ["http", "https", "urn", "mailto", "data", "tel", "file", "ftp", "ws", "wss"]

    /// Whether `dec` is a user name, `:`, and a password people would choose (not `user:pass`).
    /// `named`: the value stands under an auth name, and a password with a few bytes that are not
    /// text (an altered or cut encoding) still counts. Without a name the password must mix letters
    /// with digits or cases and be 8 bytes or more: the decoding of a header line
    /// (`Accept:text/html`) or a clock (`12:30:05`) is not one.
    static func holds(_ dec: UnsafeBufferPointer<UInt8>, named: Bool) -> Bool {
        guard let colon = dec.firstIndex(of: UInt8(ascii: ":")), (1...64).contains(colon), colon + 4 < dec.count,
            Shape.all(UnsafeBufferPointer(rebasing: dec[..<colon]), userNameByte)
        else { return false }
        let password = UnsafeBufferPointer(rebasing: dec[(colon + 1)...])
        let text = password.reduce(0) { $0 + ($1 > 0x20 && $1 < 0x7F ? 1 : 0) }
        if named {
            guard text == password.count || (password.count >= 12 && text * 100 >= password.count * 80) else { return false }
            if text < password.count { return true }
        } else {
            // Nor is a URI (`urn:uuid:…`, `mailto:…`) or anything with more colons (a clock, an address).
            guard text == password.count, password.count >= 8, colon >= 2, !password.contains(UInt8(ascii: ":")),
                password[password.startIndex] != UInt8(ascii: "/"),
                !uriSchemes.contains(String(decoding: UnsafeBufferPointer(rebasing: dec[..<colon]), as: UTF8.self).lowercased())
            else { return false }
            var classes = 0
            if password.contains(where: { ByteSet.lower.contains($0) }) { classes += 1 }
            if password.contains(where: { ByteSet.upper.contains($0) }) { classes += 1 }
            if password.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) { classes += 1 }
            // Words (`application/json`) are text, not a password chosen to be hard.
            var run = 0, longest = 0
            for c in password {
                run = ByteSet.lower.contains(c) ? run + 1 : 0
                longest = Swift.max(longest, run)
            }
            // Nor is an id (a GraphQL global id is base64 of `Type:<uuid>` or `Type:<number>`): hex
            // digits and dashes alone.
            let idLike = password.allSatisfy { Shape.hexNibble($0) != nil || $0 == UInt8(ascii: "-") }
            guard classes >= 2, longest < 7, !idLike else { return false }
        }
        return ValueJudgement.fitsPassword(password, quoted: true) && !ValueJudgement.isPlaceholderWord(password)
    }
}

/// A UUID of version 1 (a timestamp and a node address, not random bytes) under a token's name: an id
/// more often than a secret, reported medium and said so.
private func timeBasedUUID(_ v: UnsafeBufferPointer<UInt8>, _ m: DetMatch) -> DetMatch {
    guard v.count == 36, Shape.isUUID(v), v[14] == UInt8(ascii: "1") else { return m }
    var lowered = m
    lowered.severity = .medium
    lowered.reason = "a time-based UUID (version 1): an id more often than a secret"
    return lowered
}

/// A password's match: low, with the reason, when the value holds a documentation word (`example`,
/// `changeme`); a run people type (`Winter12345!`) is a password like any other.
private func passwordMatch(_ t: ScanInput, _ m: DetMatch) -> DetMatch {
    guard let why = ValueJudgement.passwordPlaceholder(UnsafeBufferPointer(rebasing: t.b[m.start..<m.end])) else { return m }
    var low = m
    low.severity = .low
    low.reason = why
    return low
}

/// A credential told in words, no `=` or `:` between (`the zorblax token is …`, `using api key …`):
/// the word `secret`, `token`, `key` or `api key` standing alone, then `is` or nothing, then a plainly
/// random value (`ValueJudgement.isRandomKey`).
private func credentialInProse(_ t: ScanInput, _ p: Int, _ len: Int) -> DetMatch? {
    // The word the anchor ends in (`key` of `api key`), whole.
    let we = p + len + t.run(p + len, proseLetters, max: 16)
    let ws = we - t.runBack(we, proseLetters, max: 16)
    guard ws < we, we - ws <= 8, ws == 0 || !ByteSet.alnum.contains(t[ws - 1]) else { return nil }
    let word = String(decoding: t.b[ws..<we], as: UTF8.self).lowercased()
    guard proseCredentialWords.contains(word) else { return nil }
    var i = we
    guard i < t.count, t[i] == 0x20 else { return nil }
    while i < t.count && t[i] == 0x20 { i += 1 }
    if t.has(isWord, at: i) { i += 3 }
    let m = wordedValue(t, from: i, limit: 512, sentence: true)
    return ValueJudgement.isRandomKey(UnsafeBufferPointer(rebasing: t.b[m.start..<m.end])) ? m : nil
}
private let proseLetters = ByteSet("A-Za-z")
private let proseCredentialWords: Set<String> = ["secret", "token", "key", "apikey"]

/// Where the word just before `at` starts, one space between (nil if none).
private func wordBefore(_ t: ScanInput, _ at: Int) -> Int? {
    guard at >= 2, t[at - 1] == 0x20 else { return nil }
    let w = t.runBack(at - 1, proseLetters, max: 16)
    return w >= 2 && w < 16 ? at - 1 - w : nil
}

private let schemeWord = ByteSet("A-Za-z-")
private let base64Label = u("base64:")
private let nameEndMarks = ByteSet("=:\"'")
private let authorizationWord = u("authorization")
/// Authorization scheme words that stand between a header name and its credential.
private let authSchemes: Set<String> = [
    "token", "key", "apikey", "api-token", "api-key", "sso-key", "ssws", "bot", "digest", "hmac", "apitoken", "splunk", "oauth"
]

/// Whether the anchor at `p` stands in a name that says an id or the like of the provider
/// (`heroku_app_id`, `datadog_trace_id`): what follows is not its key.
private func namesAnId(_ t: ScanInput, _ p: Int, _ len: Int) -> Bool {
    let s = p - t.runBack(p, Assign.nameBytes, max: 64)
    let e = p + len + t.run(p + len, Assign.nameBytes, max: 64)
    return NameHints.describes(raw: UnsafeBufferPointer(rebasing: t.b[s..<e]))
}

/// A Discord bot token `[MNO]…(24).…(6).…(27+)` in `lo..<hi` (or exactly the whole value).
private func discordToken(_ t: ScanInput, _ lo: Int, _ hi: Int, whole: Bool) -> DetMatch? {
    var i = Swift.max(0, lo)
    let hi = Swift.min(t.count, hi)
    while i < hi {
        let c = t[i]
        if (c == UInt8(ascii: "M") || c == UInt8(ascii: "N") || c == UInt8(ascii: "O")) && t.boundaryBefore(i, .b64url) {
            let a = t.run(i, .b64url, max: 30)
            if (24...28).contains(a), i + a < t.count, t[i + a] == UInt8(ascii: ".") {
                let b = t.run(i + a + 1, .b64url, max: 8)
                if (6...7).contains(b), i + a + 1 + b < t.count, t[i + a + 1 + b] == UInt8(ascii: ".") {
                    let c3 = t.run(i + a + 2 + b, .b64url, max: 45)
                    if (27...40).contains(c3) {
                        let m = DetMatch(start: i, end: i + a + 2 + b + c3)
                        if !whole || (m.start == 0 && m.end == t.count) { return m }
                    }
                }
            }
        }
        if whole { return nil }
        i += 1
    }
    return nil
}

/// The password of `scheme://user:password@host` where `p` is just after `://`.
/// The scan ends at the first authority stop (`/`, `?`, `#`, quote, space…): a `://` anchor is followed
/// only up to the next one, so every anchor of a buffer together costs one pass.
func urlPassword(_ t: ScanInput, _ p: Int, limit: Int = Int.max) -> DetMatch? {
    let stop = Sets.authorityStop
    var e = p
    let limit = Swift.min(t.count, limit)
    var at = -1
    while e < limit && !stop.contains(t[e]) {
        if t[e] == UInt8(ascii: "@") { at = e }
        e += 1
    }
    guard at > p else { return nil }
    var colon = -1
    for k in p..<at where t[k] == UInt8(ascii: ":") { colon = k; break }
    if colon < 0 {
        // `scheme://TOKEN@host`: a user name alone that looks random is a credential (a token used as the user).
        let user = UnsafeBufferPointer(rebasing: t.b[p..<at])
        return looksLikeGenericSecret(user, allowHex: true) ? DetMatch(start: p, end: at, severity: .medium) : nil
    }
    // A syntax's description, not a URL: `scheme://[user:passwd@]host`, `http://(username:password@)domain`.
    if p < at, t[p] == UInt8(ascii: "[") || t[p] == UInt8(ascii: "(") || t[p] == UInt8(ascii: "<") { return nil }
    // (An empty user, `redis://:password@host`, is Redis's way to give a password alone.)
    guard colon >= p, colon + 1 < at else { return nil }
    let pw = UnsafeBufferPointer(rebasing: t.b[(colon + 1)..<at])
    let decoded = Shape.percentDecoded(pw)
    if decoded.withUnsafeBufferPointer({ UserinfoPassword.standsIn($0) }) { return nil }
    // `a:b@`: no password is one or two characters long.
    if decoded.count <= 2 { return DetMatch(start: colon + 1, end: at, severity: .low, reason: "too short to be a password") }
    // `user:password@localhost`: a word for a password, to a machine of one's own or a documentation
    // host, is a setup's example; so is a password of three characters there (`abc:xyz@example.com`).
    if decoded.count <= 3 || decoded.withUnsafeBufferPointer({ ValueJudgement.isPlaceholderWord($0) }),
        UserinfoPassword.isLocal(UnsafeBufferPointer(rebasing: t.b[(at + 1)..<e]))
    {
        return DetMatch(start: colon + 1, end: at, severity: .low, reason: "a placeholder password to a local host")
    }
    return DetMatch(start: colon + 1, end: at)
}

/// What stands in a URL's userinfo in place of a password without being one.
enum UserinfoPassword {
    private static let word = ByteSet("A-Za-z0-9_.-")
    private static let mask = ByteSet("*xX#")
    private static let digits = ByteSet("0-9")
    private static let variable = ByteSet("A-Z0-9_")

    /// A mask (`***`, `••••`, `xxxx`), or a reference to where the password is kept: `${DB_PASSWORD}`,
    /// `$(cat pw)`, `$DB_PASSWORD`, `{password}`, `{{ password }}`, `<password>`, `%DB_PASSWORD%`,
    /// `[PASSWORD]`. A password that merely starts with `$` or `{` is not one of these.
    static func standsIn(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = b.first, let last = b.last else { return true }
        if b.count >= 3 && Shape.all(b, mask) { return true }
        if b.count >= 3 && b.filter({ $0 == UInt8(ascii: "*") }).count >= 3 { return true }
        if ValueJudgement.hasBullet(b) { return true }
        let inner =
            b.count > 2 ? UnsafeBufferPointer(rebasing: b[(b.startIndex + 1)..<(b.endIndex - 1)]) : UnsafeBufferPointer(rebasing: b[0..<0])
        switch (first, last) {
        case (UInt8(ascii: "$"), UInt8(ascii: "}")) where b.count > 3 && b[1] == UInt8(ascii: "{"): return true
        case (UInt8(ascii: "$"), UInt8(ascii: ")")) where b.count > 3 && b[1] == UInt8(ascii: "("): return true
        case (UInt8(ascii: "{"), UInt8(ascii: "}")), (UInt8(ascii: "<"), UInt8(ascii: ">")), (UInt8(ascii: "%"), UInt8(ascii: "%")),
            (UInt8(ascii: "["), UInt8(ascii: "]")):
            let name = inner.filter { $0 != UInt8(ascii: "{") && $0 != UInt8(ascii: "}") && $0 != 0x20 }
            return !name.isEmpty && name.withUnsafeBufferPointer { Shape.all($0, word) && !Shape.all($0, digits) }
        default: break
        }
        // `$DB_PASSWORD`: a shell variable, upper case and `_`.
        if first == UInt8(ascii: "$"), b.count > 2, Shape.all(UnsafeBufferPointer(rebasing: b[(b.startIndex + 1)...]), variable) {
            return true
        }
        return false
    }

    /// `localhost`, a loopback or unspecified address, a name of one label (`db`, a compose service), or
    /// a domain kept for examples (`example.com`, `.test`, `.local`, `.internal`, `.invalid`).
    static func isLocal(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = host.count
        for (i, c) in host.enumerated() where c == UInt8(ascii: ":") || c == UInt8(ascii: "/") { end = i; break }
        let name = String(decoding: host[0..<end], as: UTF8.self).lowercased()
        if name.isEmpty || name == "localhost" || name.hasPrefix("127.") || name == "0.0.0.0" || name.hasPrefix("[::1]") { return true }
        if !name.contains(".") { return Shape.all(UnsafeBufferPointer(rebasing: host[0..<end]), word) }
        for suffix in [".localhost", ".local", ".test", ".internal", ".invalid", ".example", "example.com", "example.org", "example.net"]
        where name.hasSuffix(suffix) {
            return true
        }
        return false
    }
}

extension Shape {
    static func percentDecoded(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8] { Percent.decode(b, plusIsSpace: false) }
}

/// A macaroon in its binary v2 form (PyPI's upload tokens): a version byte, then fields of a type, a
/// length and that many bytes, sections closed by a type 0, and a 32-byte signature (type 6) last.
enum Macaroon {
    /// Whether `b64` (base64url, no padding) decodes to a v2 macaroon whose fields read in order up
    /// to its end with no signature among them: a token cut short. A value that does not read as a
    /// macaroon at all (random bytes after the prefix) is not called cut: nothing says it is.
    static func endsBeforeSignature(_ b64: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b64.count >= 8, let d = EncodedSpans.base64(b64, 0, b64.count - (b64.count % 4 == 1 ? 1 : 0), whole: true)?.bytes,
            d.first == 2
        else { return false }
        var i = 1
        var fields = 0
        while i < d.count {
            let type = d[i]
            i += 1
            if type == 0 { continue }
            guard type <= 6 else { return false }
            guard i < d.count else { return fields > 0 }
            // One-byte lengths (up to 127) are all a PyPI macaroon's fields use; a longer varint is read.
            var length = 0, shift = 0
            while i < d.count, shift < 28 {
                let c = d[i]
                i += 1
                length |= Int(c & 0x7F) << shift
                shift += 7
                if c & 0x80 == 0 { break }
            }
            if type == 6 { return false }
            guard i + length <= d.count else { return fields > 0 }
            i += length
            fields += 1
        }
        return fields > 0
    }
}
