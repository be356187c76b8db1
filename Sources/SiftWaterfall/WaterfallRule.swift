import SiftCore

/// The rules the waterfall raises (`pbsift rules` and the man page list them).
public enum WaterfallRule: String, RuleSet {
    /// An end before its start, timestamps out of order, a transaction starting before the previous
    /// one ended (beyond `transactionOverlapToleranceMs`), a negative duration. The waterfall of that
    /// request cannot be trusted in full.
    case clockAnomaly = "waterfall.clock-anomaly"
    /// The record's `duration` and the metrics' span disagree by more than
    /// max(`mismatchFloorMs`, `mismatchFraction` × the larger).
    case durationMismatch = "waterfall.duration-mismatch"
    /// An `http`, `upload` or `download` record (or one without `kind`) that finished without
    /// metrics, or whose metrics hold no transaction. `custom` and pending records are exempt.
    case missingMetrics = "waterfall.missing-metrics"
    /// A request still `pending` at the end of the session (no later record with the same id
    /// finished it): the app was killed, hung, or the session ended mid-flight.
    case pending = "waterfall.pending"
    /// Network records beyond `WaterfallLimits.maxRequests` (or its memory bound) were checked but not
    /// kept, or sessions beyond `maxSessions` were checked but not listed.
    case limit = "waterfall.limit"

    public var severity: Severity {
        switch self {
        case .clockAnomaly, .durationMismatch: .low
        case .pending: .medium
        case .missingMetrics, .limit: .info
        }
    }

    public var summary: String {
        switch self {
        case .clockAnomaly: "An end before its start, timestamps out of order, or a transaction starting before the previous one ended."
        case .durationMismatch: "The record's duration and the metrics disagree by more than max(50 ms, 10 %)."
        case .missingMetrics: "An http, upload or download record without metrics."
        case .pending: "A request still pending at the end of the session."
        case .limit: "Network records or sessions beyond the limits were checked but not kept."
        }
    }

    public var help: String {
        switch self {
        case .clockAnomaly: "The device clock moved while the request ran (NTP, a manual change): trust that request's phases less."
        case .durationMismatch: "The phases come from the metrics, the total from the record: read both with pbsift show."
        case .missingMetrics: "Only the total is known for these requests: an older SDK, or a request not made through URLSession."
        case .pending: "The session ended before the response: the app was killed or backgrounded, or the request hung."
        case .limit: "Name a session with --session, or cut the time with --since and --until, to keep what you need."
        }
    }

    /// A transaction may start this much before the previous one's end without a finding.
    public static let transactionOverlapToleranceMs = 1.0
    /// Duration mismatch tolerance: max(50 ms, 10 % of the larger value).
    public static let mismatchFloorMs = 50.0
    /// See `mismatchFloorMs`.
    public static let mismatchFraction = 0.10
}
