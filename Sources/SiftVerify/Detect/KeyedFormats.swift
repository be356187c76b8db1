import SiftCore

/// The documented shapes of keys that carry no prefix of their own: a value under a name that names
/// the provider (`asana_token`, `SUMO_ACCESS_ID`, `sonar.token`) is that provider's key when its shape
/// fits one of them, short or plain as it may look (name and shape agree: high). For an `exclusive`
/// provider every key has one of these shapes, so a value that fits none is not its key and the name
/// lends it nothing (`telegram_token = "2537:A9d…"`).
struct KeyedFormat: Sendable {
    /// The word a name holds (lowercase; matched case-insensitively anywhere in the name).
    let word: String
    let provider: String
    let exclusive: Bool
    let fits: @Sendable (UnsafeBufferPointer<UInt8>) -> Bool
}

enum KeyedFormats {
    /// What a value under a provider's name is.
    enum Judgement { case fits, fitsNone, noFormat }

    static let all: [KeyedFormat] = [
        KeyedFormat(word: "telegram", provider: "Telegram bot token", exclusive: true) { v in
            // `<bot id: 5–16 digits>:A` + 34 characters of base64url.
            guard let colon = v.firstIndex(of: UInt8(ascii: ":")), (5...16).contains(colon) else { return false }
            return within(v, 0, colon, .digit) && v.count == colon + 36 && v[colon + 1] == UInt8(ascii: "A")
                && within(v, colon + 1, v.count, .b64url)
        },
        KeyedFormat(word: "asana", provider: "Asana personal access token", exclusive: false) { v in
            // Legacy: 16 digits. Current: `1/<user id>:<32 hex>`, or `2/<user id>/<app id>:<32 hex>`.
            if v.count == 16 { return within(v, 0, 16, .digit) }
            guard v.count > 36, v[1] == UInt8(ascii: "/"), ByteSet.digit.contains(v[0]), v[v.count - 33] == UInt8(ascii: ":") else {
                return false
            }
            return within(v, v.count - 32, v.count, .hexLower) && within(v, 2, v.count - 33, ByteSet("0-9/"))
        },
        KeyedFormat(word: "sumo", provider: "Sumo Logic access id or key", exclusive: true) { v in
            // Access id: `su` + 12 characters; access key: 64.
            (v.count == 14 && v[0] == UInt8(ascii: "s") && v[1] == UInt8(ascii: "u") && within(v, 2, 14, .alnum))
                || (v.count == 64 && within(v, 0, 64, .alnum))
        },
        KeyedFormat(word: "sonar", provider: "SonarQube or SonarCloud token", exclusive: false) { v in
            // 40 characters, after `squ_`, `sqp_` or `sqa_` in current versions.
            let body = v.count == 44 && v[0] == UInt8(ascii: "s") && v[1] == UInt8(ascii: "q") && v[3] == UInt8(ascii: "_") ? 4 : 0
            return v.count - body == 40 && within(v, body, v.count, .alnum)
        },
        KeyedFormat(word: "ibm", provider: "IBM Cloud API key or HMAC secret", exclusive: true) { v in
            // An IAM API key: 44 of [A-Za-z0-9_-]; a Cloud Object Storage HMAC secret: 48 hex (its access
            // key id, 32 hex, is an id, as an account's is).
            (v.count == 44 && within(v, 0, 44, .b64url)) || (v.count == 48 && within(v, 0, 48, .hex))
        },
        KeyedFormat(word: "meraki", provider: "Cisco Meraki API key", exclusive: true) { v in
            v.count == 40 && within(v, 0, 40, .hexLower)
        },
        KeyedFormat(word: "okta", provider: "Okta API token", exclusive: false) { v in
            v.count == 42 && v[0] == UInt8(ascii: "0") && v[1] == UInt8(ascii: "0") && within(v, 2, 42, .b64url)
        },
        KeyedFormat(word: "datadog", provider: "Datadog API or application key", exclusive: false) { v in
            (v.count == 32 || v.count == 40) && within(v, 0, v.count, .hexLower)
        },
        KeyedFormat(word: "algolia", provider: "Algolia API key", exclusive: false) { v in
            v.count == 32 && within(v, 0, 32, .hexLower)
        },
        KeyedFormat(word: "twitter", provider: "X (Twitter) key, secret or token", exclusive: false) { v in
            // API key 25, API secret 50, access token secret 45, access token `<user id>-<secret>`.
            // Random, so mixing letters and digits: a 25-letter handle or word is no key.
            if [25, 45, 50].contains(v.count) {
                return within(v, 0, v.count, .alnum) && v.contains(where: ByteSet.digit.contains)
                    && v.contains(where: ByteSet.lower.contains)
            }
            guard let dash = v.firstIndex(of: UInt8(ascii: "-")), (10...25).contains(dash) else { return false }
            return within(v, 0, dash, .digit) && (20...40).contains(v.count - dash - 1) && within(v, dash + 1, v.count, .alnum)
        },
        KeyedFormat(word: "facebook", provider: "Facebook (Meta) app secret or app token", exclusive: false) { v in
            // App secret: 32 hex; app access token: `<app id>|<27 characters>`.
            if v.count == 32 { return within(v, 0, 32, .hexLower) }
            guard let bar = v.firstIndex(of: UInt8(ascii: "|")), (15...16).contains(bar) else { return false }
            return within(v, 0, bar, .digit) && v.count == bar + 28 && within(v, bar + 1, v.count, .b64url)
        },
        KeyedFormat(word: "pagerduty", provider: "PagerDuty API key", exclusive: false) { v in
            v.count == 20 && within(v, 0, 20, ByteSet("A-Za-z0-9_+-"))
        },
        KeyedFormat(word: "mailgun", provider: "Mailgun API key", exclusive: false) { v in
            // `key-` + 32 hex, or 32 hex, `-`, 8 hex, `-`, 8 hex.
            if v.count == 36 && v[0] == UInt8(ascii: "k") && v[3] == UInt8(ascii: "-") { return within(v, 4, 36, .hexLower) }
            return v.count == 50 && v[32] == UInt8(ascii: "-") && v[41] == UInt8(ascii: "-") && within(v, 0, 32, .hexLower)
                && within(v, 33, 41, .hexLower) && within(v, 42, 50, .hexLower)
        },
        KeyedFormat(word: "heroku", provider: "Heroku API key", exclusive: false) { v in
            v.count == 36 && Shape.isUUID(v)
        },
        KeyedFormat(word: "cloudflare", provider: "Cloudflare API key or token", exclusive: false) { v in
            // Global API key: 37 hex; API token: 40 characters of `[A-Za-z0-9_-]`.
            (v.count == 37 && within(v, 0, 37, .hexLower)) || (v.count == 40 && within(v, 0, 40, .b64url))
        },
        KeyedFormat(word: "contribsys", provider: "Sidekiq Enterprise or Pro credentials", exclusive: true) { v in
            // Bundler's `BUNDLE_ENTERPRISE__CONTRIBSYS__COM` / `BUNDLE_GEMS__CONTRIBSYS__COM`: `<8 hex>:<8 hex>`.
            v.count == 17 && v[8] == UInt8(ascii: ":") && within(v, 0, 8, .hexLower) && within(v, 9, 17, .hexLower)
        }
    ]

    /// `facebook 1308…|rho…`: a provider's name, white space, then a value of one of its shapes (prose
    /// and command lines name the provider without an operator). Only a fitting value counts.
    static func spaced(_ t: ScanInput, _ p: Int, _ len: Int) -> DetMatch? {
        let nameEnd = p + len + t.run(p + len, Assign.nameBytes, max: 64)
        let gap = t.run(nameEnd, ByteSet.space, max: 4)
        guard gap >= 1, gap <= 3 else { return nil }
        let s = nameEnd + gap
        var e = s
        let limit = Swift.min(t.count, s + 256)
        while e < limit && !Sets.assignmentStop.contains(t[e]) { e += 1 }
        guard e > s, let f = format(t, name: (p - t.runBack(p, Assign.nameBytes, max: 64))..<nameEnd) else { return nil }
        return f.fits(UnsafeBufferPointer(rebasing: t.b[s..<e])) ? DetMatch(start: s, end: e) : nil
    }

    /// The anchors: each word as written in code (lowercase, Capitalised, UPPERCASE).
    static let anchors: [String] = all.flatMap { f in
        let w = f.word
        return [w, w.prefix(1).uppercased() + w.dropFirst(), w.uppercased()]
    }
    private static let words: [(word: [UInt8], index: Int)] = all.enumerated().map { (Array($0.element.word.utf8), $0.offset) }

    /// The provider whose word the name holds, if any.
    static func format(_ t: ScanInput, name: Range<Int>) -> KeyedFormat? {
        for (word, k) in words where holds(t, word, name) { return all[k] }
        return nil
    }

    /// Whether the name holds the word; a word of three letters (`ibm`) only as a word of the name, at
    /// its start, after a separator or a case change (`ibm_key`, `myIbmKey`), never inside another
    /// (`libmagic_token`).
    private static func holds(_ t: ScanInput, _ word: [UInt8], _ name: Range<Int>) -> Bool {
        guard word.count <= 3 else { return t.containsCI(word, name.lowerBound, name.upperBound) }
        var i = name.lowerBound
        while i + word.count <= name.upperBound {
            if t.containsCI(word, i, i + word.count) {
                let before = i > name.lowerBound ? t[i - 1] : 0
                let startsWord =
                    i == name.lowerBound || !(ByteSet.lower.contains(before) || ByteSet.upper.contains(before))
                    || (ByteSet.lower.contains(before) && ByteSet.upper.contains(t[i]))
                if startsWord { return true }
            }
            i += 1
        }
        return false
    }

    /// How a value under the name `name` fits the named provider's shapes.
    static func judge(_ t: ScanInput, name: Range<Int>, value: UnsafeBufferPointer<UInt8>) -> Judgement {
        guard let f = format(t, name: name) else { return .noFormat }
        return f.fits(value) ? .fits : .fitsNone
    }

    /// Whether the value may stand for the credential the name says: false only when the name names an
    /// exclusive provider and the value fits none of its shapes.
    static func allows(_ t: ScanInput, name: Range<Int>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let f = format(t, name: name), f.exclusive else { return true }
        return f.fits(value)
    }

    @inline(__always) private static func within(_ v: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ set: ByteSet) -> Bool {
        guard s <= e, e <= v.count else { return false }
        for i in s..<e where !set.contains(v[i]) { return false }
        return true
    }
}
