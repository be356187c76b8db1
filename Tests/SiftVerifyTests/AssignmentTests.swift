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

    static let found: [(String, String, String)] = [
        // (line, rule, value)
        ("asana_token: @V@", "provider-keyed-secret", v), // the provider named: its key
        ("export MY_API_TOKEN=\"@V@\"", "generic-secret", v),
        ("SUMOLOGIC_ACCESSKEY: @V@", "generic-secret", v),
        ("const apiKey = '@V@';", "generic-secret", v),
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
        ("\"artifactory\", \"@V@\"", "provider-keyed-secret", v)
    ]

    static let clean: [String] = [
        "password = ${DB_PASSWORD}", "api_key: {{ .Values.apiKey }}", "token = $(cat token.txt)", "secret: %SECRET%",
        "password: <password>", "api_key = [API_KEY]", "password = var.db_password", "token = config.auth.token",
        "secret = process.env.SECRET", "password: ENC[AES256_GCM,data:abc=,type:str]", "api_token: ops_eyJzaWdu...",
        "password: ***", "token=%2A%2A%2A%2A%2A", "api_key: xxxxxxxxxxxxxxxxxxxx", "password = \",.:-@*?!\"",
        "passwordVariable: 'PASSWORD'", "publicKey: \"@V@\"", "csrf-token=@V@", "nonMatchingToken := \"@V@\"",
        "notes = \"Maven - io.jsonwebtoken:jjwt-jackson-0.11.2\"", "password: real_key", "token_type: bearer",
        "curl -u user:pass https://example.test", "curl --user \"xxx:yyy\"", "token expired, please sign in",
        "github: \"https://github.com/acme/app\"", "secret = a-fake-tooshort-key", "telegram_token = \"2537:AV\""
    ]

    @Test(arguments: Array(found.indices))
    func aCredentialInCodeIsHigh(_ i: Int) {
        let (line, rule, value) = Self.found[i]
        let text = line.replacingOccurrences(of: "@V@", with: Self.v).replacingOccurrences(of: "@P@", with: Self.pw)
        let hits = detect(text)
        #expect(hits.contains { $0.id == rule && $0.value == value && $0.severity >= .high }, "\(line): \(hits)")
    }

    @Test(arguments: Array(clean.indices))
    func plainlyNotACredentialIsNotFound(_ i: Int) {
        let text = Self.clean[i].replacingOccurrences(of: "@V@", with: Self.v)
        let hits = detect(text).filter { $0.severity >= .medium }
        #expect(hits.isEmpty, "\(Self.clean[i]): \(hits)")
    }
}
