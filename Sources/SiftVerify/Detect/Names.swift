#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The redaction contract's name lists (SESSION-FORMAT.md §3) and name normalisation.
public enum ContractNames {
    /// Request and response header names whose values must be `***`.
    public static let headers: [String] = [
        "apikey", "authorization", "proxyauthorization", "cookie", "setcookie", "xapikey", "xauthtoken",
        "xpalbaseusertoken", "xpalbaseattestassertion", "xpalbaseattestkeyid", "xpalbaseattestclientdata"
    ]
    /// Query parameter names (of `url` and every transaction `url`) whose values must be `***`.
    public static let query: [String] = [
        "accesstoken", "idtoken", "refreshtoken", "code", "token", "apikey", "key", "sig", "signature",
        "clientsecret", "password", "xamzsignature", "xamzcredential", "xamzsecuritytoken", "xgoogsignature",
        "xgoogcredential", "awsaccesskeyid"
    ]
    /// JSON body field names (any depth) and log `metadata` keys whose values must be `***`.
    public static let body: [String] = [
        "password", "passwd", "passcode", "newpassword", "oldpassword", "currentpassword", "accesstoken",
        "refreshtoken", "idtoken", "clientsecret", "privatekey", "mfatoken", "otp", "totp", "secret", "apikey",
        "sessiontoken", "authtoken", "token"
    ]

    /// Lowercase, then drop every `_`, `-` and white space: `Access-Token`, `accessToken`, `ACCESS_TOKEN`,
    /// `Access Token ` → `accesstoken`.
    public static func normalise(_ name: String) -> String {
        var out = ""
        out.reserveCapacity(name.utf8.count)
        for ch in name.lowercased().unicodeScalars where ch != "_" && ch != "-" && !(ch.value <= 0x20 || ch.value == 0x7F) {
            out.unicodeScalars.append(ch)
        }
        return out
    }
}

/// A set of normalised names, matched against raw name bytes without allocating.
struct NameSet: Sendable {
    /// The names' hashes, sorted (a list has a few dozen: a binary search beats hashing the hash).
    private var hashes: [UInt64] = []
    private(set) var maxLength = 0

    init(_ names: [String]) {
        var set = Set<UInt64>()
        for n in names {
            let norm = ContractNames.normalise(n)
            guard !norm.isEmpty else { continue }
            set.insert(NameSet.hash(Array(norm.utf8)))
            maxLength = max(maxLength, norm.utf8.count)
        }
        hashes = set.sorted()
    }

    private func has(_ h: UInt64) -> Bool {
        var lo = 0, hi = hashes.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if hashes[mid] < h { lo = mid + 1 } else { hi = mid }
        }
        return lo < hashes.count && hashes[lo] == h
    }

    static func hash<C: Collection>(_ normalised: C) -> UInt64 where C.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for c in normalised { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
        return h
    }

    /// Whether the raw name normalises to a member (ASCII lowercasing). Bytes outside ASCII are left
    /// out like `_` and `-`: a byte that is not UTF-8 (read as U+FFFD), a zero-width space or any other
    /// invisible character must not take `password` off the list.
    /// White space and control bytes (`"Authorization "`, a tab) are left out too. A name with a
    /// bracket suffix (`token[]`, `token[0]`, `user[token]`, the array and nesting syntax of PHP and
    /// Rails forms) is also matched by its innermost named part.
    func contains(raw: UnsafeBufferPointer<UInt8>) -> Bool {
        if containsWhole(raw: raw) { return true }
        guard let leaf = NameSet.bracketLeaf(raw) else { return false }
        return containsWhole(raw: leaf)
    }

    /// The innermost bracketed part of `a[b][c]` that is not empty or a number, else the part before the first `[`.
    static func bracketLeaf(_ raw: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard raw.last == UInt8(ascii: "]"), let first = raw.firstIndex(of: UInt8(ascii: "[")) else { return nil }
        var end = raw.count - 1
        while end > first {
            guard let open = raw[first..<end].lastIndex(of: UInt8(ascii: "[")) else { break }
            let part = UnsafeBufferPointer(rebasing: raw[(open + 1)..<end])
            if !part.isEmpty && !part.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 || $0 <= 0x20 }) { return part }
            guard open > first, raw[open - 1] == UInt8(ascii: "]") else { break }
            end = open - 1
        }
        return UnsafeBufferPointer(rebasing: raw[0..<first])
    }

    private func containsWhole(raw: UnsafeBufferPointer<UInt8>) -> Bool {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var len = 0
        for c in raw {
            if c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c >= 0x80 || c <= 0x20 || c == 0x7F { continue }
            len += 1
            if len > maxLength { return false }
            let l = (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c
            h = (h ^ UInt64(l)) &* 0x100_0000_01b3
        }
        return len > 0 && has(h)
    }

    func contains(_ name: String) -> Bool {
        var s = name
        return s.withUTF8 { contains(raw: $0) }
    }
}

/// Credential hints carried by a name (a JSON key, a header, a parameter): they switch on the
/// detectors that need context, so that entropy or a bare 40-character run never counts alone.
struct NameHints: OptionSet, Sendable {
    let rawValue: UInt32
    /// `secret`, `token`, `apikey`, `credential`… (and not `tokenType`, `keyId`, `secretHash`…).
    static let credential = NameHints(rawValue: 1 << 0)
    /// `password`, `passwd`, `pwd`, `passcode`, `passphrase`.
    static let password = NameHints(rawValue: 1 << 1)
    static let awsSecret = NameHints(rawValue: 1 << 2)
    static let heroku = NameHints(rawValue: 1 << 3)
    static let datadog = NameHints(rawValue: 1 << 4)
    static let discord = NameHints(rawValue: 1 << 5)
    static let twilio = NameHints(rawValue: 1 << 6)
    /// `signature`, `sig` and no other credential word: a proof made with a key, not the key.
    static let signature = NameHints(rawValue: 1 << 8)
    /// A provider's name with a key-like ending (`cohere_api_key`, `X-Cohere-Key`): its key.
    static let providerKey = NameHints(rawValue: 1 << 9)
    /// A provider's name alone (`cohere`): its key, or an id or handle of it.
    static let providerName = NameHints(rawValue: 1 << 10)
    /// A name ending in `key` with no credential word in it (`abyssale_key`, `X-Foo-Key`): a key only
    /// when its value is plainly random (`ValueJudgement.isRandomKey`).
    static let keyName = NameHints(rawValue: 1 << 11)
    /// A key public by design (`algolia_search_key`, `stripe_publishable_key`, `recaptcha_site_key`):
    /// no credential, whatever provider it names.
    static let publicKey = NameHints(rawValue: 1 << 12)

    static let none: NameHints = []

    private static let credentialWords: [[UInt8]] = [
        "secret", "token", "password", "passwd", "passphrase", "apikey", "accesskey", "privatekey", "credential",
        "authorization", "authkey", "signature", "clientkey", "masterkey", "signingkey", "encryptionkey", "hmackey", "creds"
    ].map { Array($0.utf8) }
    /// Keys named for the role of a credential (`license_key`, `Ocp-Apim-Subscription-Key`,
    /// `pagerduty_routing_key`, `storage_account_key`): a credential's name, as `api_key` is.
    private static let credentialKeyEndings: [[UInt8]] = [
        "licensekey", "licencekey", "servicekey", "adminkey", "ingestkey", "ingestionkey", "integrationkey", "routingkey",
        "managementkey", "mgmtkey", "subscriptionkey", "merchantkey", "sharedkey", "accountkey", "restkey", "serverkey"
    ].map { Array($0.utf8) }
    private static let passwordWords: [[UInt8]] = ["password", "passwd", "passcode", "passphrase"].map { Array($0.utf8) }
    /// `pwd`, `pw`: a password's short names, alone or as a name's last word (`db_pwd`, `cloudant_pw`).
    private static let passwordEndings: [[UInt8]] = ["pwd", "pw"].map { Array($0.utf8) }
    /// A name ending in one of these describes a credential rather than holding one.
    private static let describingSuffixes: [[UInt8]] = [
        "type", "id", "ids", "url", "uri", "endpoint", "expiry", "expires", "expiresin", "expiresat", "expiration",
        "length", "count", "name", "names", "hint", "method", "format", "version", "hash", "digest", "checksum",
        "etag", "fingerprint", "status", "required", "enabled", "present", "header", "field", "path", "ttl", "age",
        "prefix", "kind", "scope", "scopes", "date", "time", "at", "issuer", "audience", "provider", "source",
        "label", "policy", "error", "message", "reason", "mode", "set", "changed", "reset", "strength", "rules",
        "placeholder", "location", "lifetime", "validity", "valid", "sent", "requested", "updated", "created",
        "variable", "var", "env", "file", "param", "parameter", "option", "attribute", "column", "ref", "arn",
        // What a credential is made or checked with (`SECRET_KEY_ALGORITHM = "HmacSHA256"`), not the credential.
        "algorithm", "algo", "cipher", "scheme", "encoding", "size", "bits", "strategy", "generator", "validator", "encoder",
        "decoder", "factory", "handler", "manager", "mgr", "used", "lastused",
        // Where credentials are kept or how they are named, not one (`_SECRET_NAMESPACE`, `SECRETS_ANNOTATION`).
        "namespace", "annotation", "dir", "directory", "folder", "class", "module", "template", "pattern", "regex", "selector",
        "suffix", "sha256", "sha1", "md5",
        // How a credential is configured or counted (`--token-validity-units`, `--participant-token-configurations`).
        "units", "unit", "configuration", "configurations", "config", "settings", "options",
        // A file's extension (`keycert.passwd.pem`, `token.json`): the file's name, not its content.
        "pem", "json", "yaml", "yml", "txt", "cfg", "ini", "conf", "crt", "p12", "pfx", "jks"
    ].map { Array($0.utf8) }

    /// Tokens that page, sync or address a device rather than authenticate: `nextPageToken`, `pushToken`.
    private static let notCredentialWords: [[UInt8]] = [
        "page", "cursor", "continuation", "nexttoken", "nextkey", "nextmarker", "nextlink", "sync", "device", "push", "apns", "fcm",
        "registration",
        "publishable", "idempotency", "public", "csrf", "xsrf", "authenticity", "keying",
        // Tokens that tie a request's log lines together: `trace_token`, `correlationToken`.
        "trace", "span", "correlation",
        // Tokens that lock, order or make a call idempotent (AWS's `LockToken`, `nextSequenceToken`,
        // `--client-request-token`, `--starting-token`, `ChangeToken`).
        "locktoken", "sequencetoken", "startingtoken", "changetoken", "requesttoken", "lifecycleactiontoken",
        "outputtoken", "importtoken", "exporttoken", "updatetoken", "producttoken",
        // Keys public by design: a captcha's site key, a search-only key (`recaptcha_site_key`).
        "sitekey", "searchonly",
        // Test code's names for values that are meant not to work.
        "nonmatching", "fake", "dummy", "mock", "bogus", "wrong", "invalid"
    ].map { Array($0.utf8) }
    /// Names of keys public by design, whatever provider they name: no provider's word in the list
    /// holds one of these (`pagerduty` holds `page`, `meilisearch` holds `search`).
    private static let publicKeyWords: [[UInt8]] = [
        "publishable", "public", "sitekey", "searchonly", "algoliasearchkey", "algoliasearchapikey"
    ].map { Array($0.utf8) }
    private static let awsWords: [[UInt8]] = ["awssecret", "secretaccesskey"].map { Array($0.utf8) }
    private static let datadogWords: [[UInt8]] = ["datadog", "ddapikey", "ddappkey", "ddapplicationkey"].map { Array($0.utf8) }
    private static let twilioWords: [[UInt8]] = ["twilio", "authtoken"].map { Array($0.utf8) }
    private static let herokuWord = Array("heroku".utf8)
    private static let discordWord = Array("discord".utf8)
    private static let secretWord = Array("secret".utf8)
    private static let tokenWord = Array("token".utf8)
    private static let authWord = Array("auth".utf8)
    private static let sigWord = Array("sig".utf8)
    /// `dbpass`, `mypass`: a password by its last word; `bypass`, `compass`, `surpass` are not.
    private static let passWord = Array("pass".utf8)
    private static let notPasswordPass: [[UInt8]] = [
        "bypass", "compass", "surpass", "overpass", "underpass", "trespass", "encompass",
        // Passes that admit or render, not passwords: a ticket's, a filter's, a renderer's, nginx's `proxy_pass`.
        "boardingpass", "hallpass", "seasonpass", "daypass", "buspass", "freepass", "fastpass", "guestpass", "backstagepass",
        "firstpass", "secondpass", "thirdpass", "finalpass", "onepass", "twopass", "singlepass", "multipass", "nextpass",
        "renderpass", "shaderpass", "drawpass", "lightpass", "depthpass", "shadowpass", "blurpass", "postpass", "prepass",
        "subpass", "mainpass", "highpass", "lowpass", "bandpass", "allpass", "proxypass", "uwsgipass", "fastcgipass", "grpcpass"
    ].map { Array($0.utf8) }
    private static let signatureWord = Array("signature".utf8)
    private static let accessIdWord = Array("accessid".utf8)
    private static let keyWord = Array("key".utf8)
    /// Keys that address or order data, or are words (`monkey`, `hockey`), not secrets.
    private static let notSecretKeys: [[UInt8]] = [
        "primarykey", "foreignkey", "sortkey", "partitionkey", "cachekey", "objectkey", "hashkey", "rangekey", "dedupkey",
        "dedupekey", "deduplicationkey", "lookupkey", "mapkey", "i18nkey", "translationkey", "messagekey", "localizationkey",
        "eventkey", "metrickey", "statekey", "querykey", "filekey", "bucketkey", "itemkey", "rowkey", "groupkey", "uniquekey",
        "indexkey", "shortkey", "hotkey", "keyboardkey", "monkey", "turkey", "whiskey", "donkey", "jockey", "hockey", "lackey",
        "storekey", "storagekeyname", "pathkey", "routekey", "resourcekey", "recordkey", "entitykey", "modelkey", "tablekey",
        "columnkey", "fieldkey", "labelkey", "namekey", "typekey", "orderkey", "productkey", "userkey", "customerkey", "tenantkey",
        "projectkey", "issuekey", "jirakey", "ticketkey", "featurekey", "flagkey", "experimentkey", "variationkey", "configkey",
        "settingkey", "settingskey", "preferencekey", "prefkey", "defaultskey", "storyboardkey", "nibkey", "segmentkey", "layoutkey",
        "reusekey", "cellkey", "viewkey", "sectionkey", "renderkey", "reactkey", "listkey", "idkey", "datakey", "valuekey", "keykey",
        // A WebSocket handshake's nonce; a key sent only wrapped or encrypted.
        "websocketkey", "encryptedkey", "wrappedkey", "cursorkey", "paginationkey"
    ].map { Array($0.utf8) }

    /// Hints of a raw (unnormalised) name: lowercase, without `_`, `-`, `.` and spaces. No allocation.
    static func of(raw: UnsafeBufferPointer<UInt8>) -> NameHints {
        normalising(raw, or: []) { of(normalised: $0) }
    }

    /// Whether a raw name describes a credential rather than holding one (`ibm_account_id`,
    /// `datadog_trace_id`, `stripe_key_url`): its last word says what about it, or it names a trace,
    /// a page, a device. A value of a provider's key shape under it is an id, not the key.
    static func describes(raw: UnsafeBufferPointer<UInt8>) -> Bool {
        normalising(raw, or: false) { n in
            // An access id is the half of a key pair that goes with the key (Sumo Logic's `su…`): kept.
            n.count >= 2 && !endsWith(n, accessIdWord) && describing(n)
        }
    }

    /// `body` of the name lowercased, without `_`, `-`, `.` and spaces (`or` for an empty name or one
    /// past 64 bytes). No allocation.
    private static func normalising<R>(_ raw: UnsafeBufferPointer<UInt8>, or empty: R, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if raw.count > 64 || raw.isEmpty { return empty }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf -> R in
            var n = 0
            for c in raw where c != UInt8(ascii: "_") && c != UInt8(ascii: "-") && c != UInt8(ascii: ".") && c != 0x20 {
                buf[n] = (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c
                n += 1
            }
            return body(UnsafeBufferPointer(rebasing: buf[0..<n]))
        }
    }

    @inline(__always) private static func contains(_ n: UnsafeBufferPointer<UInt8>, _ w: [UInt8]) -> Bool {
        let m = w.count
        guard n.count >= m else { return false }
        var i = 0
        while i + m <= n.count {
            if n[i] == w[0] {
                var k = 1
                while k < m && n[i + k] == w[k] { k += 1 }
                if k == m { return true }
            }
            i += 1
        }
        return false
    }

    @inline(__always) private static func endsWith(_ n: UnsafeBufferPointer<UInt8>, _ w: [UInt8]) -> Bool {
        let m = w.count
        guard n.count >= m else { return false }
        for k in 0..<m where n[n.count - m + k] != w[k] { return false }
        return true
    }

    /// Whether a normalised name describes a credential rather than holding one.
    @inline(__always) private static func describing(_ n: UnsafeBufferPointer<UInt8>) -> Bool {
        (!endsWith(n, secretWord) && !endsWith(n, tokenWord) && describingSuffixes.contains { n.count > $0.count && endsWith(n, $0) })
            || notCredentialWords.contains { contains(n, $0) }
    }

    static func of(name: String) -> NameHints {
        var s = name
        return s.withUTF8 { of(raw: $0) }
    }

    static func of(normalised n: UnsafeBufferPointer<UInt8>) -> NameHints {
        if n.count < 2 { return [] }
        @inline(__always) func has(_ w: [UInt8]) -> Bool { contains(n, w) }
        @inline(__always) func ends(_ w: [UInt8]) -> Bool { endsWith(n, w) }
        @inline(__always) func equals(_ w: [UInt8]) -> Bool { n.count == w.count && ends(w) }
        var h: NameHints = []
        let describing = describing(n)
        if !describing {
            if credentialWords.contains(where: has) || credentialKeyEndings.contains(where: ends) || ends(authWord) || equals(sigWord) {
                h.insert(.credential)
            }
            if h.contains(.credential) && (equals(sigWord) || has(signatureWord))
                && !credentialWords.contains(where: { $0 != signatureWord && has($0) })
            {
                h.insert(.signature)
            }
            if passwordWords.contains(where: has) || passwordEndings.contains(where: ends)
                || (ends(passWord) && !notPasswordPass.contains(where: ends))
            {
                h.insert(.password)
            }
        }
        if !describing && !h.contains(.credential) && ends(keyWord) && !notSecretKeys.contains(where: ends) {
            h.insert(.keyName)
        }
        if awsWords.contains(where: has) { h.insert(.awsSecret) }
        // A provider's name on an id of its own (`heroku_app_id`, `datadog_trace_id`) labels no key.
        if !describing {
            if has(herokuWord) { h.insert(.heroku) }
            if datadogWords.contains(where: has) { h.insert(.datadog) }
            if has(discordWord) { h.insert(.discord) }
        }
        // A provider's name on a key public by design (`algolia_search_key`, `stripe_publishable_key`)
        // labels no secret.
        if publicKeyWords.contains(where: has) { h.insert(.publicKey) } else { h.formUnion(ProviderNames.label(normalised: n)) }
        if twilioWords.contains(where: has) { h.insert(.twilio) }
        return h
    }
}
