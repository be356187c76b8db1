import Foundation
import SiftArchive
import SiftCore

/// Output formats of `verify`.
public enum VerifyFormat: String, Sendable, CaseIterable {
    case text, json, csv, markdown, sarif
}

/// Counts shown at the end of every format.
public struct VerifySummary: Sendable, Equatable {
    public var inputs: Int
    /// Inputs not read in full (exit status 2).
    public var incompleteInputs: Int
    public var records: Int
    public var blobs: Int
    /// Findings reported (after the baseline).
    public var findings: Int
    public var bySeverity: [Severity: Int]
    /// Findings the baseline accepted (not reported).
    public var suppressed: Int

    public init(findings: [Finding], suppressed: Int = 0, inputs: [InputSummary] = [], records: Int = 0, blobs: Int = 0) {
        self.inputs = inputs.count
        self.incompleteInputs = inputs.filter { $0.status != .ok }.count
        self.records = records
        self.blobs = blobs
        self.findings = findings.count
        var by: [Severity: Int] = [:]
        for f in findings { by[f.severity, default: 0] += 1 }
        self.bySeverity = by
        self.suppressed = suppressed
    }

    public var json: JSONOut {
        var sev: [String: JSONOut] = [:]
        for s in Severity.allCases { sev[s.rawValue] = .int(bySeverity[s] ?? 0) }
        return .object(["inputs": .int(inputs), "incompleteInputs": .int(incompleteInputs), "records": .int(records),
                        "blobs": .int(blobs), "findings": .int(findings), "bySeverity": .object(sev),
                        "suppressed": .int(suppressed)])
    }

    /// `3 findings (1 critical, 2 high)` / `no findings`; led by `not verified in full (N inputs not
    /// read): ` when an input was not read in full, so "no findings" never stands alone for bytes
    /// nobody checked.
    var headline: String {
        var head = ""
        if incompleteInputs > 0 {
            head = "not verified in full (\(incompleteInputs) input\(incompleteInputs == 1 ? "" : "s") not read in full): "
        }
        if findings == 0 { return head + "no findings" }
        let parts = Severity.allCases.reversed().compactMap { s -> String? in
            guard let n = bySeverity[s], n > 0 else { return nil }
            return "\(n) \(s.rawValue)"
        }
        return head + "\(findings) finding\(findings == 1 ? "" : "s") (\(parts.joined(separator: ", ")))"
    }
}

/// Renderers of `verify`: pure functions from findings to text. Every format carries the masked
/// preview and the fingerprint only, never a value.
public enum VerifyRender {
    /// The URI SARIF names as the tool's home.
    public static let informationUri = "https://github.com/palbase/pbsift"

    /// Renders in `format`.
    public static func render(_ format: VerifyFormat, findings redacted: Redacted<[Finding]>, inputs: [InputSummary], summary: VerifySummary,
                              blobs: [String: BlobSummary] = [:], version: String = ToolInfo.version,
                              colors: Colors = .off) -> String {
        let findings = redacted.value
        switch format {
        case .text: return text(findings: findings, inputs: inputs, summary: summary, colors: colors)
        case .json: return json(findings: findings, inputs: inputs, summary: summary, blobs: blobs)
        case .csv: return csv(findings: findings)
        case .markdown: return markdown(findings: findings, inputs: inputs, summary: summary)
        case .sarif: return sarif(findings: findings, inputs: inputs, version: version)
        }
    }

    // MARK: text

    /// Grouped by input and file, then by record; terminal-escaped.
    public static func text(findings: [Finding], inputs: [InputSummary], summary: VerifySummary, colors: Colors = .off) -> String {
        var out = ""
        var lastGroup: String? = nil
        var lastRecord: String? = nil
        for f in findings {
            let group = f.input + "\u{0}" + (f.file ?? "")
            if group != lastGroup {
                if lastGroup != nil { out += "\n" }
                out += Escape.terminal(f.input) + (f.file.map { "  " + Escape.terminal($0) } ?? "") + "\n"
                lastGroup = group
                lastRecord = nil
            }
            var head: [String] = []
            if let l = f.line { head.append("line \(l)") }
            if let s = f.seq { head.append("seq \(s)") }
            if let r = f.recordId { head.append(Escape.terminal(r)) }
            let record = head.joined(separator: " · ")
            if record != lastRecord {
                out += "  " + (record.isEmpty ? "(no record)" : record) + "\n"
                lastRecord = record
            }
            let sev = f.severity.rawValue.uppercased().padding(toLength: 8, withPad: " ", startingAt: 0)
            out += "    \(colors.severity(f.severity, sev))  \(f.rule)  \(Escape.terminal(f.location ?? ""))\n"
            out += "              \(Escape.terminal(f.message))\n"
            if f.preview != nil || f.fingerprint != nil {
                var v: [String] = []
                if let p = f.preview { v.append("value " + Escape.terminal(p)) }
                if let fp = f.fingerprint { v.append("fingerprint " + fp) }
                out += "              " + v.joined(separator: "  ") + "\n"
            }
        }
        for i in inputs where i.status != .ok {
            out += (out.isEmpty ? "" : "\n") + "input \(Escape.terminal(i.path)) could not be verified in full (\(i.status.rawValue))\n"
            for e in i.errors { out += "  " + Escape.terminal(e) + "\n" }
        }
        if !out.isEmpty { out += "\n" }
        out += "pbsift verify: " + colors.bold(summary.headline) + " in \(summary.inputs) input\(summary.inputs == 1 ? "" : "s")"
        out += " (\(summary.records) record\(summary.records == 1 ? "" : "s"), \(summary.blobs) blob\(summary.blobs == 1 ? "" : "s") checked)"
        if summary.suppressed > 0 { out += "; \(summary.suppressed) accepted by the baseline" }
        out += "\n"
        return out
    }

    // MARK: json

    /// The shared envelope (`tool`, `inputs`, `findings`, `summary`, see `ReportEnvelope`) plus a
    /// `verify` section: `{"records", "blobs", "suppressed", "incompleteInputs", "inputs", "findings", "bySeverity"}`.
    public static func json(findings: [Finding], inputs: [InputSummary], summary: VerifySummary,
                            blobs: [String: BlobSummary] = [:]) -> String {
        ReportEnvelope.render(ReportEnvelope.document(inputs: inputs, findings: findings, blobs: blobs,
                                                      sections: ["verify": summary.json]))
    }

    // MARK: csv

    /// One row per finding with the columns every command's CSV of findings has
    /// (`ReportEnvelope.findingsCSVHeader`), RFC 4180, CRLF line ends.
    public static func csv(findings: [Finding]) -> String {
        ReportEnvelope.findingsCSV(findings)
    }

    // MARK: markdown

    /// A GitHub-flavoured table, for tickets and PR comments.
    public static func markdown(findings: [Finding], inputs: [InputSummary], summary: VerifySummary) -> String {
        var out = "## pbsift verify\n\n"
        out += "**\(summary.headline)** in \(summary.inputs) input\(summary.inputs == 1 ? "" : "s")"
        out += " (\(summary.records) record\(summary.records == 1 ? "" : "s"), \(summary.blobs) blob\(summary.blobs == 1 ? "" : "s") checked)"
        if summary.suppressed > 0 { out += "; \(summary.suppressed) accepted by the baseline" }
        out += "\n\n"
        for i in inputs where i.status != .ok {
            out += "- input \(Escape.markdownCode(i.path)) could not be verified in full: "
            out += i.errors.map(Escape.markdown).joined(separator: "; ") + "\n"
        }
        if inputs.contains(where: { $0.status != .ok }) { out += "\n" }
        guard !findings.isEmpty else { return out }
        out += "| Severity | Rule | File | Line | Seq | Record | Location | Value | Fingerprint | Message |\n"
        out += "|---|---|---|---|---|---|---|---|---|---|\n"
        for f in findings {
            let file = f.file.map { f.input + " " + $0 } ?? f.input
            let cells = [f.severity.rawValue, Escape.markdownCode(f.rule), Escape.markdown(file), f.line.map(String.init) ?? "",
                         f.seq.map(String.init) ?? "", Escape.markdown(f.recordId ?? ""), Escape.markdownCode(f.location ?? ""),
                         f.preview.map(Escape.markdownCode) ?? "", f.fingerprint.map(Escape.markdownCode) ?? "",
                         Escape.markdown(f.message)]
            out += "| " + cells.joined(separator: " | ") + " |\n"
        }
        return out
    }

    // MARK: sarif

    /// SARIF 2.1.0 as GitHub code scanning accepts it.
    public static func sarif(findings: [Finding], inputs: [InputSummary], version: String = ToolInfo.version) -> String {
        let ruleIds = Array(Set(findings.map(\.rule))).sorted()
        var index: [String: Int] = [:]
        for (i, id) in ruleIds.enumerated() { index[id] = i }
        let rules: [JSONOut] = ruleIds.map { id in
            let r = VerifyRules.rule(for: id)
            return .object([
                "id": .string(r.id), "name": .string(r.name),
                "shortDescription": .object(["text": .string(r.short)]),
                "fullDescription": .object(["text": .string(r.full)]),
                "defaultConfiguration": .object(["level": .string(level(r.severity))]),
                "help": .object(["text": .string(r.help), "markdown": .string(r.help)]),
                "properties": .object(["tags": .array([.string("security"), .string("secrets")]),
                                       "security-severity": .string(securitySeverity(r.severity))]),
            ])
        }
        let containers = Dictionary(inputs.map { ($0.path, $0.container) }, uniquingKeysWith: { a, _ in a })
        let results: [JSONOut] = findings.map { f in
            var text = f.message
            if let loc = f.location { text += " [\(loc)]" }
            if let p = f.preview { text += " value \(p)" }
            if let s = f.sessionId { text += " session \(s)" }
            if let s = f.seq { text += " seq \(s)" }
            let fp = f.fingerprint ?? SecretMask.fingerprint([f.rule, f.sessionId ?? "", f.file ?? "", f.location ?? "",
                                                               f.seq.map(String.init) ?? ""].joined(separator: "\u{0}"))
            var physical: [String: JSONOut] = ["artifactLocation": .object(["uri": .string(uri(f, containers[f.input]))])]
            physical["region"] = .object(["startLine": .int(max(1, f.line ?? 1))])
            var loc: [String: JSONOut] = ["physicalLocation": .object(physical)]
            if let l = f.location { loc["logicalLocations"] = .array([.object(["name": .string(l), "kind": .string("member")])]) }
            return .object([
                "ruleId": .string(f.rule), "ruleIndex": .int(index[f.rule] ?? 0), "level": .string(level(f.severity)),
                "message": .object(["text": .string(text)]),
                "locations": .array([.object(loc)]),
                "partialFingerprints": .object(["pbsift/v1": .string(fp)]),
                "properties": .object(["severity": .string(f.severity.rawValue)]),
            ])
        }
        let run: JSONOut = .object([
            "tool": .object(["driver": .object([
                "name": .string("pbsift"), "version": .string(version), "semanticVersion": .string(version),
                "informationUri": .string(informationUri), "rules": .array(rules),
            ])]),
            "results": .array(results),
        ])
        return JSONOut.object([
            "$schema": .string("https://json.schemastore.org/sarif-2.1.0.json"),
            "version": .string("2.1.0"),
            "runs": .array([run]),
        ]).render(pretty: true) + "\n"
    }

    /// SARIF levels: only `error`, `warning`, `note` are used.
    public static func level(_ s: Severity) -> String {
        switch s {
        case .critical, .high: "error"
        case .medium: "warning"
        case .low, .info: "note"
        }
    }

    static func securitySeverity(_ s: Severity) -> String {
        switch s {
        case .critical: "9.5"
        case .high: "8.0"
        case .medium: "5.5"
        case .low: "3.0"
        case .info: "1.0"
        }
    }

    /// The artifact: the session file inside a folder input, else the input itself (an archive, a file).
    static func uri(_ f: Finding, _ container: ContainerKind?) -> String {
        var path = f.input
        if let file = f.file, container == .folder || container == nil && !looksLikeFile(f.input) {
            path = f.input.hasSuffix("/") ? f.input + file : f.input + "/" + file
        }
        if path.hasPrefix("./") { path = String(path.dropFirst(2)) }
        if path == "-" { path = "stdin" }
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#[]@!$&'()*+,;="))
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return path.hasPrefix("/") ? "file://" + encoded : encoded
    }

    private static func looksLikeFile(_ p: String) -> Bool {
        [".zip", ".tar", ".tgz", ".gz", ".jsonl"].contains { p.lowercased().hasSuffix($0) }
    }
}
