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

    // MARK: json

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
            "device": .object(["model": .opt(s.device.model), "system": .opt(s.device.system),
                               "locale": .opt(s.device.locale), "timeZone": .opt(s.device.timeZone)]),
            "environmentRef": .opt(s.environmentRef), "userId": .opt(s.userId),
            "launchedAt": .opt(s.launchedAt.map { Timestamp.format($0, micro: true) }),
            "firstTs": .opt(s.firstTs.map { Timestamp.format($0, micro: true) }),
            "lastTs": .opt(s.lastTs.map { Timestamp.format($0, micro: true) }),
            "durationSeconds": .opt(duration(s)),
        ])
    }

    /// Seconds from the first to the last record `ts`, when both are known.
    public static func duration(_ s: SessionSummary) -> Double? {
        guard let a = s.firstTs, let b = s.lastTs else { return nil }
        return ((b - a) * 1_000_000).rounded() / 1_000_000
    }

    /// The whole JSON document, pretty, with a final newline.
    public static func json(_ redacted: Redacted<ReadOutcome>) -> String {
        let o = redacted.value
        return ReportEnvelope.render(ReportEnvelope.document(
            inputs: o.inputs, findings: o.findings, blobs: o.blobs,
            sections: ["sessions": .array(o.sessions.map(sessionJSON)),
                       "blobs": ReportEnvelope.blobJSON(ReportEnvelope.blobTotals(o.blobs))]))
    }

    // MARK: text

    static func joined(_ parts: [String?], _ sep: String = " ") -> String? {
        let p = parts.compactMap { $0 }.filter { !$0.isEmpty }
        return p.isEmpty ? nil : p.joined(separator: sep)
    }

    /// `com.acme.shop 4.2.0 (512)`.
    public static func appText(_ s: SessionSummary) -> String? {
        joined([s.app.bundleId, s.app.version, s.app.build.map { "(\($0))" }])
    }

    /// `palbe-swift 3.1.0`.
    public static func sdkText(_ s: SessionSummary) -> String? { joined([s.sdk.name, s.sdk.version]) }

    /// `iPhone16,1, iOS 18.1.1, en_GB, Europe/London`.
    public static func deviceText(_ s: SessionSummary) -> String? {
        joined([s.device.model, s.device.system, s.device.locale, s.device.timeZone], ", ")
    }

    /// `2026-11-29T10:15:01.004Z → 2026-11-29T10:20:11.900Z (5m 10.896s)`.
    public static func spanText(_ s: SessionSummary) -> String? {
        guard let a = s.firstTs, let b = s.lastTs else { return nil }
        return Timestamp.format(a) + " → " + Timestamp.format(b) + " (" + Human.duration(seconds: b - a) + ")"
    }

    /// `5 records: 3 network, 1 log, 1 event, 0 frame, 0 unknown`.
    public static func recordsText(_ s: SessionSummary) -> String {
        "\(s.recordCount): " + recordKeys.map { "\(s.records[$0] ?? 0) \($0)" }.joined(separator: ", ")
    }

    /// For people: the inputs, each session's facts, blobs, and the findings worst first.
    /// Every string from the export is escaped for the terminal; colour only when `colors` is on.
    public static func text(_ redacted: Redacted<ReadOutcome>, colors: Colors = .off) -> String {
        overview(redacted, colors: colors) + "\n" + ReportEnvelope.findingsText(redacted.value.findings, colors: colors)
    }

    /// `text` without its findings: the inputs, each session's facts, blobs (`report` shows it).
    public static func overview(_ redacted: Redacted<ReadOutcome>, colors: Colors = .off) -> String {
        let o = redacted.value
        let records = o.sessions.reduce(0) { $0 + $1.recordCount }
        var out = colors.bold("pbsift inspect") + ": \(o.inputs.count) input\(o.inputs.count == 1 ? "" : "s"), "
        out += "\(o.sessions.count) session\(o.sessions.count == 1 ? "" : "s"), \(records) record\(records == 1 ? "" : "s"), "
        out += ReportEnvelope.findingsSummaryLine(o.findings) + "\n\n"
        out += ReportEnvelope.inputsText(o.inputs, colors: colors)
        for s in o.sessions {
            out += "\n" + colors.bold("Session " + Escape.terminal(s.sessionId ?? "(unknown)")) + "\n"
            var rows: [(String, String)] = [("input", Escape.terminal(s.input) + (ReportEnvelope.sameFile(input: s.input, file: s.file) ? "" : ": " + Escape.terminal(s.file)))]
            if !s.hasHeader { rows.append(("header", colors.yellow("missing"))) }
            if let v = appText(s) { rows.append(("app", Escape.terminal(v))) }
            if let v = sdkText(s) { rows.append(("sdk", Escape.terminal(v))) }
            if let v = deviceText(s) { rows.append(("device", Escape.terminal(v))) }
            if let v = s.environmentRef { rows.append(("environment", Escape.terminal(v))) }
            rows.append(("user", s.userId.map { Escape.terminal($0) } ?? colors.dim(s.hasHeader ? "(signed out)" : "(unknown: no session header)")))
            if let v = s.launchedAt { rows.append(("launched", Timestamp.format(v))) }
            if let v = spanText(s) { rows.append(("time span", v)) }
            rows.append(("records", recordsText(s)))
            if s.damagedLines > 0 { rows.append(("damaged", colors.yellow("\(s.damagedLines) line\(s.damagedLines == 1 ? "" : "s")"))) }
            for (k, v) in rows { out += "  " + colors.dim(k.padding(toLength: 13, withPad: " ", startingAt: 0)) + v + "\n" }
        }
        let blobInputs = o.inputs.filter { (o.blobs[$0.path]?.count ?? 0) > 0 }
        if !blobInputs.isEmpty {
            out += "\n" + colors.bold("Blobs") + "\n"
            for i in blobInputs {
                guard let b = o.blobs[i.path] else { continue }
                out += "  " + Escape.terminal(i.path) + ": \(b.count) blob\(b.count == 1 ? "" : "s"), "
                out += Human.bytes(b.bytes) + " stored, \(b.references) reference\(b.references == 1 ? "" : "s") to "
                out += Human.bytes(b.referencedBytes) + ", deduplication saved " + Human.bytes(b.savedBytes) + "\n"
            }
        }
        return out
    }

    // MARK: markdown

    /// Ticket-ready Markdown: summary, inputs, sessions, blobs, findings; every export string escaped.
    public static func markdown(_ redacted: Redacted<ReadOutcome>) -> String {
        let o = redacted.value
        let records = o.sessions.reduce(0) { $0 + $1.recordCount }
        var out = "# pbsift inspect\n\n"
        out += "\(o.inputs.count) input\(o.inputs.count == 1 ? "" : "s"), \(o.sessions.count) session\(o.sessions.count == 1 ? "" : "s"), "
        out += "\(records) record\(records == 1 ? "" : "s"), " + ReportEnvelope.findingsSummaryLine(o.findings) + "\n\n"
        out += ReportEnvelope.inputsMarkdown(o.inputs) + "\n"
        out += "## Sessions\n\n"
        if o.sessions.isEmpty {
            out += "No sessions.\n"
        } else {
            let rows = o.sessions.map { s -> [String] in
                let md: (String?) -> String = { $0.map(Escape.markdown) ?? "" }
                return [md(s.sessionId ?? "(unknown)"), md(s.file), md(appText(s)), md(sdkText(s)), md(deviceText(s)),
                        md(s.environmentRef), md(s.userId), s.launchedAt.map { Timestamp.format($0) } ?? "",
                        spanText(s) ?? "", String(s.recordCount)]
                    + recordKeys.map { String(s.records[$0] ?? 0) } + [String(s.damagedLines)]
            }
            out += ReportEnvelope.markdownTable(
                ["Session", "File", "App", "SDK", "Device", "Environment", "User", "Launched", "Time span", "Records"]
                    + recordKeys + ["Damaged lines"], rows)
        }
        let blobInputs = o.inputs.filter { (o.blobs[$0.path]?.count ?? 0) > 0 }
        if !blobInputs.isEmpty {
            out += "\n## Blobs\n\n"
            let rows = blobInputs.compactMap { i -> [String]? in
                guard let b = o.blobs[i.path] else { return nil }
                return [Escape.markdown(i.path), String(b.count), String(b.bytes), String(b.references),
                        String(b.referencedBytes), String(b.savedBytes)]
            }
            out += ReportEnvelope.markdownTable(["Input", "Blobs", "Stored bytes", "References", "Referenced bytes", "Saved bytes"], rows)
        }
        out += "\n" + ReportEnvelope.findingsMarkdown(o.findings)
        return out
    }

    // MARK: csv

    /// The columns of `csv`.
    public static let csvHeader = ["sessionId", "input", "file", "bundleId", "appVersion", "appBuild", "sdkName", "sdkVersion",
                                   "deviceModel", "system", "locale", "timeZone", "environmentRef", "userId", "launchedAt",
                                   "firstTs", "lastTs", "durationSeconds", "recordCount"] + recordKeys + ["damagedLines"]

    /// One row per session (RFC 4180, CRLF, formula cells neutralised), header first.
    public static func csv(_ redacted: Redacted<ReadOutcome>) -> String {
        let o = redacted.value
        var out = Escape.csvRow(csvHeader)
        for s in o.sessions {
            let ts: (Double?) -> String = { $0.map { Timestamp.format($0, micro: true) } ?? "" }
            out += Escape.csvRow([s.sessionId ?? "", s.input, s.file, s.app.bundleId ?? "", s.app.version ?? "",
                                  s.app.build ?? "", s.sdk.name ?? "", s.sdk.version ?? "", s.device.model ?? "",
                                  s.device.system ?? "", s.device.locale ?? "", s.device.timeZone ?? "",
                                  s.environmentRef ?? "", s.userId ?? "", ts(s.launchedAt), ts(s.firstTs), ts(s.lastTs),
                                  duration(s).map { JSONOut.format($0) } ?? "", String(s.recordCount)]
                                 + recordKeys.map { String(s.records[$0] ?? 0) } + [String(s.damagedLines)])
        }
        return out
    }
}
