import Foundation

/// `pbsift inspect`'s renderers: pure functions of a `ReadOutcome` that went through the `Redactor`.
///
/// JSON document (keys sorted, pretty-printed):
/// ```
/// {"tool": {...}, "inputs": [...], "findings": [...], "summary": {...},   (see ReportEnvelope)
///  "sessions": [{"sessionId": "ses_…"|null, "input", "file", "hasHeader", "recordCount",
///                "records": {"network", "log", "event", "frame", "unknown"}, "damagedLines",
///                "app": {"bundleId", "version", "build"}, "sdk": {"name", "version"},
///                "device": {"model", "system", "locale", "timeZone"}, "environmentRef", "userId",
///                "launchedAt", "firstTs", "lastTs" (RFC 3339 or null), "durationSeconds"}],
///  "blobs": {"count", "bytes", "references", "referencedBytes", "savedBytes"}}
/// ```
public enum InspectReport {
    /// The record-count keys, in display order.
    public static let recordKeys = ["network", "log", "event", "frame", "unknown"]
}
