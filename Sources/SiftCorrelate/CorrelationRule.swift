import SiftCore

/// The rules the correlation raises (`pbsift rules` lists them).
public enum CorrelationRule: String, RuleSet {
    case echoMismatch = "correlation.echo-mismatch"
    /// Records the join left out: what it says was not checked, so the exit status is 2.
    case limit = "correlation.limit"
    case serverTimeImplausible = "correlation.server-time-implausible"
    case skewDisagreement = "correlation.skew-disagreement"
    case skewWholeHours = "correlation.skew-whole-hours"
    case skewOutlier = "correlation.skew-outlier"
    case fieldUnread = "correlation.field-unread"

    public var severity: Severity { .medium }

    public var summary: String {
        switch self {
        case .echoMismatch: "The server echoed a different request id than the one the SDK minted."
        case .limit:
            "Network records or sessions beyond the join's limit (1,000,000 records, 160 MiB of records and sessions held; 80 MiB in report and show, beside the waterfall) were not kept: their server lines were not looked for, so nothing is said of them (exit status 2)."
        case .serverTimeImplausible:
            "A server line reports a duration longer than the device's whole request; it is not used for the server/network split."
        case .skewDisagreement:
            "Lines with the request id only in free text give another clock skew than lines with it in a request-id field; only the latter are used."
        case .fieldUnread:
            "A server line holds a time, status or duration where its format places one, but the value could not be read: named with its file and first line, never dropped in silence."
        case .skewOutlier:
            "Server lines carrying a request's id put the server clock more than a minute from the estimate (an id reused later, a forged line); named, not used for the skew."
        case .skewWholeHours:
            "The clock skew is close to a whole number of hours: the server logs may be in local time (see --log-timezone)."
        }
    }

    public var help: String {
        switch self {
        case .echoMismatch:
            "A proxy or gateway rewrote X-Request-Id: search the server logs for the echoed id, and configure it to keep the client's."
        case .limit: "Narrow the join with --session or --since/--until, or correlate sessions one at a time."
        case .serverTimeImplausible:
            "Check the format's duration unit (--log-format, or a format file with pbsift-duration-unit), or whether the line belongs to another request with the same id."
        case .skewDisagreement: "An id in a message may be another request's: log the request id in a field of its own."
        case .fieldUnread:
            "Force the right format with --log-format, or describe the log with a format file (lnav's form) so the field is read."
        case .skewOutlier: "An id reused by a retry much later, or a forged line: read the named lines with pbsift correlate --json."
        case .skewWholeHours: "Pass the logs' zone with --log-timezone (+01:00, Europe/Paris) and run again."
        }
    }
}
