import SiftCore

/// Documentation of one rule id, for SARIF `tool.driver.rules` and the docs.
public struct VerifyRule: Sendable, Equatable {
    public var id: String
    /// UpperCamelCase: `RedactionHeader`, `SecretJwt`.
    public var name: String
    public var short: String
    public var full: String
    public var severity: Severity
    public var help: String
}

/// Every rule `verify` can report.
public enum VerifyRules {
    static let redaction: [VerifyRule] = [
        rule("redaction.header", "A header on the SDK's redaction list holds a value other than ***", .high,
             "Request and response headers such as Authorization, Cookie, Set-Cookie, X-API-Key and X-Palbase-User-Token must be recorded as exactly ***.",
             "Check the SDK version and any app code that records requests itself (pb.debug.record, the delegate wrapper). Rotate the credential: the export has left the device."),
        rule("redaction.query", "A URL query parameter on the SDK's redaction list holds a value other than ***", .high,
             "Query parameters such as access_token, code, token, key, sig and X-Amz-Signature of the record URL and of every transaction URL must be ***. Fragment parameters (#access_token=…) are checked the same way.",
             "Move credentials out of URLs, or add the parameter to the app's redaction list; rotate the credential."),
        rule("redaction.body-field", "A JSON body field on the SDK's redaction list holds a value other than ***", .high,
             "JSON fields such as password, access_token, refresh_token, client_secret and token must be *** at any depth, inside arrays too, in inline, base64, gzip, blob and truncated bodies, and in frame bodies.",
             "Rotate the credential and find which code path recorded the body unredacted."),
        rule("redaction.form-field", "A form-encoded body field that names a credential holds a value other than ***", .high,
             "The SDK promises nothing about application/x-www-form-urlencoded bodies; pbsift applies the body and query lists to their field names.",
             "Redact form bodies before recording them; rotate the credential."),
        rule("redaction.multipart-field", "A multipart part that names a credential holds a value other than ***", .high,
             "The SDK promises nothing about multipart bodies; pbsift applies the body and query lists to part names (Content-Disposition name) and scans part bodies.",
             "Redact multipart bodies before recording them; rotate the credential."),
        rule("redaction.metadata-field", "A log metadata key (or event attribute) on the SDK's redaction list holds a value other than ***", .high,
             "Log metadata keys at any depth must follow the body-field list; pbsift applies the same list to event attributes.",
             "Remove credentials from log metadata; rotate the credential."),
        rule("redaction.url-userinfo", "A URL carries a password in its userinfo (scheme://user:password@host)", .high,
             "Credentials in URL userinfo are never redacted by the SDK; pbsift looks for them in every URL and in free text.",
             "Do not put credentials in URLs; rotate the password."),
        rule("redaction.url-in-header", "A URL inside a Location, Referer, Content-Location or Link header carries a listed query parameter", .high,
             "The SDK does not parse URL-valued headers, so an OAuth code or token in a redirect Location leaks.",
             "Redact URL-valued headers; rotate the credential."),
        rule("verify.bound", "A bound stopped the checks: part of the input was not verified", .high,
             "pbsift checks every byte or says which it did not: encodings nested too deep, a gzip body past its inflation bound, a blob past the read bound, JSON nested deeper than the tracked depth, a value with too many credential-anchor candidates, or the copies of a repeated name past 64 MiB of a record's later copies. The input is not verified in full (exit status 2).",
             "Check the named place by hand, or re-export with smaller bodies."),
        rule("verify.duplicate-key", "A JSON object holds the same name more than once", .high,
             "Readers disagree on which copy of a repeated name counts (pbsift's first, most others' last), so an export can show one value to a checker and another to a tool. pbsift checks the record once per copy.",
             "Find the writer that produced the repeated name; treat every copy's value as exposed."),
        rule("policy.frame-in-export", "A realtime frame record is in the export", .high,
             "Frames live in a memory ring buffer and must never be written to disk or exported; their bodies carry access tokens.",
             "Report the SDK defect; treat tokens of that session as exposed."),
    ]

    /// The rule of a bound that stopped the checks (the input is not verified in full).
    public static let boundRule = "verify.bound"

    /// Every rule: the redaction rules, then one per detector.
    public static let all: [VerifyRule] = {
        var out = redaction
        for d in detectorCatalogue where !d.rule.hasPrefix("redaction.") {
            out.append(rule(d.rule, "A value has the shape of a \(d.title)", d.severity,
                            d.generic
                                ? "Context detector: \(d.title). Reported only with a credential-like name nearby, never on shape or entropy alone."
                                : "Value-shape detector: \(d.title), found anywhere in a record, a body or a blob, under any name.",
                            "Rotate the credential, then find which code path recorded it."))
        }
        return out
    }()

    /// Every rule as the registry holds it.
    public static let rules: [Rule] = all.map { Rule($0.id, $0.severity, $0.short, detail: $0.full, help: $0.help) }

    /// Verify's rules by id (a detector's hit carries its rule as text).
    public static let catalogue = RuleCatalogue(rules)

    /// The ids of the value-shape detectors (`jwt`, `aws-access-key`, …).
    public static var detectorIds: [String] { detectorCatalogue.map(\.id) }

    /// The rule for an id; a generic description for ids of other analyses (integrity, limits, archive).
    public static func rule(for id: String) -> VerifyRule {
        if let r = byId[id] { return r }
        return rule(id, "pbsift finding \(id)", .medium, "Reported by pbsift while reading the export (\(id)).",
                    "See the pbsift manual for \(id).")
    }

    private static let byId: [String: VerifyRule] = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })

    static func rule(_ id: String, _ short: String, _ sev: Severity, _ full: String, _ help: String) -> VerifyRule {
        VerifyRule(id: id, name: camel(id), short: short, full: full, severity: sev, help: help)
    }

    /// `redaction.url-in-header` → `RedactionUrlInHeader`.
    static func camel(_ id: String) -> String {
        id.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
