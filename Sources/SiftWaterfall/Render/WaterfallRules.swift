import SiftCore

extension WaterfallRule {
    /// The waterfall's rules by id.
    public static let catalogue = RuleCatalogue(all)

    /// The rules the waterfall raises (`pbsift rules` and the man page list them).
    public static let all: [Rule] = [
        Rule(clockAnomaly, .low, "An end before its start, timestamps out of order, or a transaction starting before the previous one ended."),
        Rule(durationMismatch, .low, "The record's duration and the metrics disagree by more than max(50 ms, 10 %)."),
        Rule(missingMetrics, .info, "An http, upload or download record without metrics."),
        Rule(pending, .medium, "A request still pending at the end of the session."),
        Rule(limit, .info, "Network records or sessions beyond the limits were checked but not kept."),
    ]
}
