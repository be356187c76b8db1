import SiftCore

/// The rules the correlation raises (`pbsift rules` lists them).
public enum CorrelationRules {
    /// The correlation's rules by id.
    public static let catalogue = RuleCatalogue(all)
    /// The rule of records the join left out: what it says was not checked, so the exit status is 2.
    public static let boundRule = "correlation.limit"

    public static let all: [Rule] = [
        Rule("correlation.echo-mismatch", .medium, "The server echoed a different request id than the one the SDK minted."),
        Rule("correlation.limit", .medium,
             "Network records or sessions beyond the join's limit (1,000,000 records, 160 MiB of records and sessions held; 80 MiB in report and show, beside the waterfall) were not kept: their server lines were not looked for, so nothing is said of them (exit status 2)."),
        Rule("correlation.server-time-implausible", .medium,
             "A server line reports a duration longer than the device's whole request; it is not used for the server/network split."),
        Rule("correlation.skew-disagreement", .medium,
             "Lines with the request id only in free text give another clock skew than lines with it in a request-id field; only the latter are used."),
        Rule("correlation.skew-whole-hours", .medium,
             "The clock skew is close to a whole number of hours: the server logs may be in local time (see --log-timezone)."),
    ]
}
