import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

/// The context reader (`Assign`) and the value judgement (`ValueJudgement`) as tables: each line of
/// code or configuration, where `@V@` (and `@P@`, a password) stands for a value assembled at run time, is found at high by
/// the rule named; each line that is plainly not a credential is not found at all.
@Suite struct AssignmentTests {
    /// A random-looking value (no literal credential in the repository).
    static let v = Fake.s(14, Fake.lower, seed: 901) + Fake.s(6, Fake.digits, seed: 902) + Fake.s(8, Fake.upper, seed: 903)
    static let pw = "Tr0ub4dor" + Fake.s(4, Fake.alnum, seed: 904)
    static let sumoKey = Fake.s(64, Fake.alnum, seed: 905)
    static let sumoId = "su" + Fake.s(6, Fake.upper, seed: 906) + Fake.s(6, Fake.digits, seed: 907)
    static let asana = Fake.s(16, Fake.digits, seed: 908)
    static let telegram = Fake.s(9, Fake.digits, seed: 909) + ":A" + Fake.s(34, Fake.alnum, seed: 910)
    static let sonar = Fake.s(40, Fake.hexLower, seed: 911)
    static let facebook = Fake.s(16, Fake.digits, seed: 912) + "|" + Fake.s(27, Fake.alnum, seed: 913)
    static let sidekiq = Fake.s(8, Fake.hexLower, seed: 914) + ":" + Fake.s(8, Fake.hexLower, seed: 915)
    static let hex16 = Fake.s(16, Fake.hexLower, seed: 916)

    static let found: [(String, String, String)] = [
        // (line, rule, value)
        ("asana_token: @V@", "provider-keyed-secret", v), // the provider named: its key
        ("export MY_API_TOKEN=\"@V@\"", "generic-secret", v),
        ("SUMOLOGIC_ACCESSKEY: \(sumoKey)", "provider-keyed-secret", sumoKey), // the provider's shape: its key
        ("sumologic.accessId = \"\(sumoId)\"", "provider-keyed-secret", sumoId),
        ("asana_token: \(asana)", "provider-keyed-secret", asana),
        ("telegram_token: \(telegram)", "provider-keyed-secret", telegram),
        ("sonar.token = \(sonar)", "provider-keyed-secret", sonar),
        ("facebook \(facebook)", "provider-keyed-secret", facebook), // no operator: only a fitting value counts
        ("BUNDLE_ENTERPRISE__CONTRIBSYS__COM: \(sidekiq)", "provider-keyed-secret", sidekiq),
        ("curl -u \"\(v):\" https://api.example.test", "curl-user", v), // a key as the user, no password
        ("curl -u \":\(pw)\" https://api.example.test", "curl-user", pw),
        // Each part quoted on its own, a GUID in braces as the user; a random value in braces.
        ("curl --user \"{\(Fake.uuid(seed: 904))}\":\"{\(v)}\" https://api.example.test", "curl-user", "{\(v)}"),
        ("password = \"{\(v)}\"", "password-assignment", "{\(v)}"),
        ("curl -H \"Token: \(hex16)\"", "generic-secret", hex16),
        ("const apiKey = '@V@';", "generic-secret", v),
        // Markup and command lines: .NET appSettings, Android resources, a CLI option, fish's `set -x`.
        ("<add key=\"ApiKey\" value=\"@V@\" />", "generic-secret", v),
        ("<string name=\"api_key\">@V@</string>", "generic-secret", v),
        ("<config><api_key>@V@</api_key></config>", "generic-secret", v), // an element named for it
        ("<db><password>\(pw)</password></db>", "password-assignment", pw),
        ("deploy --api-key @V@ --region eu", "generic-secret", v),
        ("set -x ACCESS_TOKEN @V@", "generic-secret", v),
        ("token: >-\n  @V@\n", "generic-secret", v),
        ("api.key=@V@", "generic-secret", v),
        ("APIKey: \"@V@\",", "generic-secret", v),
        ("token := \"@V@\"", "generic-secret", v),
        ("\"client_secret\" => \"@V@\",", "generic-secret", v),
        ("if (api_key == \"@V@\") {", "generic-secret", v),
        ("if (\"@V@\" !== secret) {", "generic-secret", v),
        ("utils.GetEnvOrDefault(\"api_token\", \"@V@\")", "generic-secret", v),
        ("{\\\"auth_token\\\": \\\"@V@\\\"}", "generic-secret", v),
        ("curl -H 'Authorization: Token @V@'", "generic-secret", v),
        ("password = \"@P@\"", "password-assignment", pw),
        ("db_pass = '@P@'", "password-assignment", pw),
        ("if (\"@P@\" == passwd) {", "password-assignment", pw),
        ("password \"@P@\";", "password-assignment", pw),
        ("passphrase: \"correct horse battery staple\"", "password-assignment", "correct horse battery staple"),
        ("cloudflare: \"@V@\"", "provider-keyed-secret", v),
        ("\"artifactory\", \"@V@\"", "provider-keyed-secret", v),
        // A type between the name and `=` (Swift, Rust, TypeScript, Go).
        ("private static let clientSecret: String = \"@V@\"", "generic-secret", v),
        ("const API_KEY: &str = \"@V@\";", "generic-secret", v),
        ("apiKey: string = '@V@'", "generic-secret", v),
        ("var apiKey string = \"@V@\"", "generic-secret", v),
        // A name given as a pair's name: a plist, Java's XML properties, a container's environment.
        ("<key>API_SECRET</key>\n\t<string>@V@</string>", "generic-secret", v),
        ("<entry key=\"auth.token\">@V@</entry>", "generic-secret", v),
        ("env:\n  - name: STRIPE_SECRET\n    value: @V@\n", "generic-secret", v),
        ("{\"name\": \"API_TOKEN\", \"value\": \"@V@\"}", "generic-secret", v),
        ("{\"type\": \"api_key\", \"value\": \"@V@\"}", "generic-secret", v),
        ("$env:API_TOKEN = \"@V@\"", "generic-secret", v),
        // A subscript assigned, an Objective-C literal.
        ("os.environ[\"API_KEY\"] = \"@V@\"", "generic-secret", v),
        ("NSString *apiKey = @\"@V@\";", "generic-secret", v),
        // Swift's header setter: the value before the header's name.
        ("request.addValue(\"@V@\", forHTTPHeaderField: \"X-API-Key\")", "generic-secret", v),
        // A block named for the provider, its key a child.
        ("providers:\n  cohere:\n    model: command-r\n    key: @V@\n", "provider-keyed-secret", v)
    ]

    static let clean: [String] = [
        // A password in markup is a package manager's config: not read as a password there.
        "<add key=\"ClearTextPassword\" value=\"hunter2-ok\" />",
        // A command line's option with a word, and `set` without `-x`.
        "deploy --api-key missing --region eu", "set ACCESS_TOKEN pending",
        // Block scalars stacked on block scalars: one line down only, never a recursion per line.
        "token: >\n" + String(repeating: " >\n", count: 20_000) + " abc\n",
        "password = ${DB_PASSWORD}", "api_key: {{ .Values.apiKey }}", "token = $(cat token.txt)", "secret: %SECRET%",
        "password: <password>", "api_key = [API_KEY]", "password = var.db_password", "token = config.auth.token",
        "secret = process.env.SECRET", "password: ENC[AES256_GCM,data:abc=,type:str]", "api_token: ops_eyJzaWdu...",
        "password: ***", "token=%2A%2A%2A%2A%2A", "api_key: xxxxxxxxxxxxxxxxxxxx", "password = \",.:-@*?!\"",
        "passwordVariable: 'PASSWORD'", "publicKey: \"@V@\"", "csrf-token=@V@", "nonMatchingToken := \"@V@\"",
        "notes = \"Maven - io.jsonwebtoken:jjwt-jackson-0.11.2\"", "password: real_key", "token_type: bearer",
        "curl -u user:pass https://example.test", "curl --user \"xxx:yyy\"", "curl --user \"{user}\":\"{password}\"",
        "token expired, please sign in",
        "github: \"https://github.com/acme/app\"", "secret = a-fake-tooshort-key", "telegram_token = \"2537:AV\"",
        // The provider's name beside a value of none of its shapes (a bot token's tail is 35 characters;
        // a Meraki key is 40 lowercase hex).
        "telegram_api_token = \"\(telegram)x\"", "meraki_api_key: \(v)\(v)", "SUMO_ACCESS_KEY: AbCeFG123",
        "token: \"clm59519:AgencyIdentificationCodeContentType\"", "facebook \(v)",
        "\"token3\": \"xoxp-1234-1234-1234-\(sonar)\"",
        // A pair whose name says nothing of a credential; a type that is a word before a comparison.
        "- name: LOG_LEVEL\n  value: @V@", "cohere:\n  model: @V@", "{\"key\": \"sort_key\", \"value\": \"@V@\"}",
        "token type = \"bearer\""
    ]

    @Test(arguments: Array(found.indices))
    func aCredentialInCodeIsHigh(_ i: Int) {
        let (line, rule, value) = Self.found[i]
        let text = line.replacingOccurrences(of: "@V@", with: Self.v).replacingOccurrences(of: "@P@", with: Self.pw)
        let hits = detect(text)
        #expect(hits.contains { $0.id == rule && $0.value == value && $0.severity >= .high }, "\(line): \(hits)")
    }

    /// A JSON body's name/value pairs, in either order: the value takes the pair's name.
    @Test func aJSONPairsValueTakesItsName() throws {
        for body in [
            "{\"environment\": [{\"name\": \"API_TOKEN\", \"value\": \"\(Self.v)\"}]}",
            "[{\"value\": \"\(Self.v)\", \"Name\": \"API_TOKEN\"}]",
            "{\"Parameters\": [{\"ParameterKey\": \"DbPassword\", \"ParameterValue\": \"\(Self.pw)\"}]}"
        ] {
            let f = try Harness.run([Harness.network(responseBody: Harness.textBody(body))])
            #expect(f.contains { $0.severity >= .high && ($0.location ?? "").contains("response.body") }, "\(body): \(f.map(\.rule))")
        }
        let plain = "[{\"name\": \"Content-Type\", \"value\": \"\(Self.v)\"}]"
        #expect(try Harness.run([Harness.network(responseBody: Harness.textBody(plain))]).isEmpty)
    }

    @Test(arguments: Array(clean.indices))
    func plainlyNotACredentialIsNotFound(_ i: Int) {
        let text = Self.clean[i].replacingOccurrences(of: "@V@", with: Self.v)
        let hits = detect(text).filter { $0.severity >= .medium }
        #expect(hits.isEmpty, "\(Self.clean[i]): \(hits)")
    }
}
