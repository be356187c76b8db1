/// Providers whose keys carry no prefix of their own: their name is how people label them
/// (`cloudflare: "…"`, `"artifactory", "…"`, `SENDGRID_KEY=…`). Lowercase, as names are normalised.
/// A word whose bytes can stand in the base64 decoding of a request id (`snyk`) is left out: the
/// id's fast path relies on no anchor fitting there (`RequestIdShapeTests`).
enum ProviderNames {
    static let words: [String] = [
        "twilio", "datadog", "okta", "sendgrid", "mailgun", "mailchimp", "algolia", "auth0", "contentful", "zendesk",
        "pagerduty", "sentry", "mixpanel", "amplitude", "intercom", "hubspot", "salesforce",
        "dropbox", "bitbucket", "circleci", "travis", "cloudflare", "fastly", "netlify", "vercel", "digitalocean",
        "linode", "heroku", "firebase", "supabase", "mongodb", "pusher", "postmark", "sparkpost",
        "newrelic", "rollbar", "bugsnag", "honeycomb", "logdna", "loggly", "papertrail", "sumologic",
        "splunk", "airtable", "asana", "trello", "clickup", "atlassian", "gitlab", "github", "discord", "openai",
        "anthropic", "cohere", "mistral", "huggingface", "pinecone", "plaid", "braintree", "adyen", "paypal",
        "razorpay", "coinbase", "binance", "shopify", "twitch", "yandex", "alibaba", "tencent", "bitly",
        "typeform", "calendly", "docusign", "vonage", "nexmo", "messagebird", "plivo", "onesignal", "launchdarkly",
        "optimizely", "statsig", "posthog", "grafana", "jfrog", "artifactory", "sonarqube", "codecov", "buildkite",
        "teamcity", "pulumi", "doppler", "infisical", "lastpass", "bitwarden", "planetscale", "easypost",
        "shippo", "lokalise", "crowdin", "sourcegraph", "cloudant", "softlayer", "kucoin", "bittrex", "kraken",
        "finnhub", "finicity", "freshbooks", "gitter", "gocardless", "mattermost", "nytimes", "rapidapi",
        "sendbird", "squarespace", "zapier", "flickr", "etsy", "dynatrace", "looker", "confluent"
    ]
    /// Name endings that keep a provider's name a label for its key (`cloudflare`, `CLOUDFLARE_KEY`).
    static let keySuffixes: [String] = ["", "key", "apikey", "secret", "token", "pat", "creds"]
    /// The anchors: each word as written in code (lowercase, Capitalised, UPPERCASE).
    static let anchors: [String] = words.flatMap { w in [w, w.prefix(1).uppercased() + w.dropFirst(), w.uppercased()] }
    private static let names: Set<[UInt8]> = Set(words.flatMap { w in keySuffixes.map { Array((w + $0).utf8) } })

    /// Whether a raw name is a provider's name, alone or with a key-like ending (case, `_`, `-`, `.`
    /// and spaces ignored).
    static func labels(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        guard raw.count <= 48 else { return false }
        var n: [UInt8] = []
        n.reserveCapacity(raw.count)
        for c in raw where c != UInt8(ascii: "_") && c != UInt8(ascii: "-") && c != UInt8(ascii: ".") && c != 0x20 {
            n.append((c >= 0x41 && c <= 0x5A) ? c | 0x20 : c)
        }
        return names.contains(n)
    }
}
