import Foundation

extension InspectReport {
    /// One session as JSON.
    public static func sessionJSON(_ s: SessionSummary) -> JSONOut {
        var records: [String: JSONOut] = [:]
        for k in recordKeys { records[k] = .int(s.records[k] ?? 0) }
        return .object([
            "sessionId": .opt(s.sessionId), "input": .string(s.input), "file": .string(s.file),
            "hasHeader": .bool(s.hasHeader), "recordCount": .int(s.recordCount), "records": .object(records),
            "damagedLines": .int(s.damagedLines),
            "app": .object(["bundleId": .opt(s.app.bundleId), "version": .opt(s.app.version), "build": .opt(s.app.build)]),
            "sdk": .object(["name": .opt(s.sdk.name), "version": .opt(s.sdk.version)]),
            "device": .object([
                "model": .opt(s.device.model), "system": .opt(s.device.system),
                "locale": .opt(s.device.locale), "timeZone": .opt(s.device.timeZone)
            ]),
            "environmentRef": .opt(s.environmentRef), "userId": .opt(s.userId),
            "launchedAt": .opt(s.launchedAt.map { Timestamp.format($0, micro: true) }),
            "firstTs": .opt(s.firstTs.map { Timestamp.format($0, micro: true) }),
            "lastTs": .opt(s.lastTs.map { Timestamp.format($0, micro: true) }),
            "durationSeconds": .opt(duration(s))
        ])
    }

    /// Seconds from the first to the last record `ts`, when both are known.
    public static func duration(_ s: SessionSummary) -> Double? {
        guard let a = s.firstTs, let b = s.lastTs else { return nil }
        return ((b - a) * 1_000_000).rounded() / 1_000_000
    }

    /// The whole JSON document, pretty, with a final newline.
    public static func json(_ redacted: Redacted<ReadOutcome>) -> String {
        var w = JSONWriter(pretty: true)
        json(redacted, into: &w)
        w.newline()
        return w.text
    }

    /// The whole JSON document through `w` (a writer with a sink writes it as it goes).
    public static func json(_ redacted: Redacted<ReadOutcome>, into w: inout JSONWriter) {
        let o = redacted.value
        ReportEnvelope.members(inputs: o.inputs, findings: o.findings, blobs: o.blobs, sections: sections(o)).write(into: &w)
    }

    /// `sessions` (written one session at a time) and `blobs`, and `sessionsNotListed` (with the
    /// total) when the list was bounded.
    public static func sections(_ o: ReadOutcome) -> JSONMembers {
        var m = JSONMembers()
        m.array("sessions", o.sessions, sessionJSON)
        m["blobs"] = ReportEnvelope.blobJSON(ReportEnvelope.blobTotals(o.blobs))
        if o.sessionsNotListed > 0 {
            m["sessionsNotListed"] = .int(o.sessionsNotListed)
            m["sessionCount"] = .int(o.totalSessions)
            m["recordCount"] = .int(o.totalRecords)
        }
        return m
    }
}
