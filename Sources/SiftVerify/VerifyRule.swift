import SiftCore

/// The rules `verify` raises itself: the SDK's redaction contract and its own bounds. The value-shape
/// detectors' rules are the `Detector` table (`Detectors.swift`); `VerifyRules.rules` lists both.
public enum VerifyRule: String, RuleSet {
    case header = "redaction.header"
    case query = "redaction.query"
    case bodyField = "redaction.body-field"
    case formField = "redaction.form-field"
    case multipartField = "redaction.multipart-field"
    case metadataField = "redaction.metadata-field"
    case urlUserinfo = "redaction.url-userinfo"
    case urlInHeader = "redaction.url-in-header"
    case bound = "verify.bound"
    case duplicateKey = "verify.duplicate-key"

    public var severity: Severity { .high }

    public var summary: String {
        switch self {
        case .header:
            "A header on the SDK's redaction list holds a value other than ***"
        case .query:
            "A URL query parameter on the SDK's redaction list holds a value other than ***"
        case .bodyField:
            "A JSON body field on the SDK's redaction list holds a value other than ***"
        case .formField:
            "A form-encoded body field that names a credential holds a value other than ***"
        case .multipartField:
            "A multipart part that names a credential holds a value other than ***"
        case .metadataField:
            "A log metadata key (or event attribute) on the SDK's redaction list holds a value other than ***"
        case .urlUserinfo:
            "A URL carries a password in its userinfo (scheme://user:password@host)"
        case .urlInHeader:
            "A URL inside a Location, Referer, Content-Location or Link header carries a listed query parameter"
        case .bound:
            "A bound stopped the checks: part of the input was not verified"
        case .duplicateKey:
            "A JSON object holds the same name more than once"
        }
    }

    public var detail: String {
        switch self {
        case .header:
            "Request and response headers such as Authorization, Cookie, Set-Cookie, X-API-Key and X-Palbase-User-Token must be recorded as exactly ***."
        case .query:
            "Query parameters such as access_token, code, token, key, sig and X-Amz-Signature of the record URL and of every transaction URL must be ***. Fragment parameters (#access_token=…) are checked the same way."
        case .bodyField:
            "JSON fields such as password, access_token, refresh_token, client_secret and token must be *** at any depth, inside arrays too, in inline, base64, gzip, blob and truncated bodies, and in frame bodies."
        case .formField:
            "The SDK promises nothing about application/x-www-form-urlencoded bodies; pbsift applies the body and query lists to their field names."
        case .multipartField:
            "The SDK promises nothing about multipart bodies; pbsift applies the body and query lists to part names (Content-Disposition name) and scans part bodies."
        case .metadataField:
            "Log metadata keys at any depth must follow the body-field list; pbsift applies the same list to event attributes."
        case .urlUserinfo:
            "Credentials in URL userinfo are never redacted by the SDK; pbsift looks for them in every URL and in free text."
        case .urlInHeader:
            "The SDK does not parse URL-valued headers, so an OAuth code or token in a redirect Location leaks."
        case .bound:
            "pbsift checks every byte or says which it did not: encodings nested too deep, a gzip body past its inflation bound, a blob past the read bound, JSON nested deeper than the tracked depth, a value with too many credential-anchor candidates, or the copies of a repeated name past 64 MiB of a record's later copies. The input is not verified in full (exit status 2)."
        case .duplicateKey:
            "Readers disagree on which copy of a repeated name counts (pbsift's first, most others' last), so an export can show one value to a checker and another to a tool. pbsift checks the record once per copy."
        }
    }

    public var help: String {
        switch self {
        case .header:
            "Check the SDK version and any app code that records requests itself (pb.debug.record, the delegate wrapper). Rotate the credential: the export has left the device."
        case .query:
            "Move credentials out of URLs, or add the parameter to the app's redaction list; rotate the credential."
        case .bodyField:
            "Rotate the credential and find which code path recorded the body unredacted."
        case .formField:
            "Redact form bodies before recording them; rotate the credential."
        case .multipartField:
            "Redact multipart bodies before recording them; rotate the credential."
        case .metadataField:
            "Remove credentials from log metadata; rotate the credential."
        case .urlUserinfo:
            "Do not put credentials in URLs; rotate the password."
        case .urlInHeader:
            "Redact URL-valued headers; rotate the credential."
        case .bound:
            "Check the named place by hand, or re-export with smaller bodies."
        case .duplicateKey:
            "Find the writer that produced the repeated name; treat every copy's value as exposed."
        }
    }
}

/// Every rule `verify` can report.
public enum VerifyRules {
    /// Every rule: verify's own, then one per detector.
    public static let rules: [Rule] = {
        var out = VerifyRule.rules
        for d in detectorCatalogue where d.rule.family != .redaction {
            out.append(d.declaration)
        }
        return out
    }()

    /// The ids of the value-shape detectors (`jwt`, `aws-access-key`, …).
    public static var detectorIds: [String] { detectorCatalogue.map(\.id) }

    /// Whether verify declares a rule of this id (its own or a detector's).
    public static func declares(_ rule: RuleID) -> Bool { ids.contains(rule) }
    private static let ids = Set(rules.map(\.ref))
}
