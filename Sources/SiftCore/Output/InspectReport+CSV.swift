import Foundation

extension InspectReport {
    /// The columns of `csv`.
    public static let csvHeader =
        [
            "sessionId", "input", "file", "bundleId", "appVersion", "appBuild", "sdkName", "sdkVersion",
            "deviceModel", "system", "locale", "timeZone", "environmentRef", "userId", "launchedAt",
            "firstTs", "lastTs", "durationSeconds", "recordCount"
        ] + recordKeys + ["damagedLines"]

    /// One row per session (RFC 4180, CRLF, formula cells neutralised), header first.
    public static func csv(_ redacted: Redacted<ReadOutcome>) -> String {
        let o = redacted.value
        var out = Escape.csvRow(csvHeader)
        for s in o.sessions {
            let ts: (Double?) -> String = { $0.map { Timestamp.format($0, micro: true) } ?? "" }
            out += Escape.csvRow(
                [
                    s.sessionId ?? "", s.input, s.file, s.app.bundleId ?? "", s.app.version ?? "",
                    s.app.build ?? "", s.sdk.name ?? "", s.sdk.version ?? "", s.device.model ?? "",
                    s.device.system ?? "", s.device.locale ?? "", s.device.timeZone ?? "",
                    s.environmentRef ?? "", s.userId ?? "", ts(s.launchedAt), ts(s.firstTs), ts(s.lastTs),
                    duration(s).map { JSONOut.format($0) } ?? "", String(s.recordCount)
                ]
                    + recordKeys.map { String(s.records[$0] ?? 0) } + [String(s.damagedLines)])
        }
        return out
    }
}
