import Foundation

/// The tool's name and version, as every JSON report carries them in `tool`.
public enum ToolInfo {
    public static let name = "pbsift"
    /// The release version (`pbsift --version`).
    public static let version = "0.2.0"
}

/// The pieces every report shares, so each command renders them the same way: the JSON envelope
/// (`tool`, `inputs`, `findings`, `summary`) and the findings and inputs in text, Markdown and CSV.
///
/// JSON envelope (keys sorted; a command adds its own sections beside these):
/// ```
/// {"tool": {"name": "pbsift", "version": "0.2.0"},
///  "inputs": [{"path", "container", "status": "ok|partial|unreadable", "errors": [...], "blobs": {...}}],
///  "findings": [{"rule", "severity", "input", "file"?, "sessionId"?, "seq"?, "line"?, "recordId"?,
///                "location"?, "message", "preview"?, "fingerprint"?}],
///  "summary": {"total", "critical", "high", "medium", "low", "info", "worst": "high"|null}}
/// ```
public enum ReportEnvelope {
    /// `{"name": "pbsift", "version": "…"}`.
    public static var tool: JSONOut {
        .object(["name": .string(ToolInfo.name), "version": .string(ToolInfo.version)])
    }

    /// The inputs array; each input carries its blob totals when `blobs` has them.
    public static func inputs(_ inputs: [InputSummary], blobs: [String: BlobSummary] = [:]) -> JSONOut {
        .array(
            inputs.map { input in
                guard case .object(var o) = input.json else { return input.json }
                if let b = blobs[input.path] { o["blobs"] = blobJSON(b) }
                return .object(o)
            })
    }

    /// `{"count", "bytes", "references", "referencedBytes", "savedBytes"}`.
    public static func blobJSON(_ b: BlobSummary) -> JSONOut {
        .object([
            "count": .int(b.count), "bytes": .int(Int(b.bytes)), "references": .int(b.references),
            "referencedBytes": .int(Int(b.referencedBytes)), "savedBytes": .int(Int(b.savedBytes))
        ])
    }

    /// Blob totals over every input.
    public static func blobTotals(_ blobs: [String: BlobSummary]) -> BlobSummary {
        var t = BlobSummary()
        for (_, b) in blobs {
            t.count += b.count
            t.bytes += b.bytes
            t.references += b.references
            t.referencedBytes += b.referencedBytes
        }
        return t
    }

    /// Findings in deterministic report order.
    public static func sorted(_ findings: [Finding]) -> [Finding] { findings.sorted(by: Finding.reportOrder) }

    /// Findings grouped worst severity first, each group in report order.
    public static func bySeverity(_ findings: [Finding]) -> [(Severity, [Finding])] {
        Severity.allCases.reversed().compactMap { s in
            let group = sorted(findings.filter { $0.severity == s })
            return group.isEmpty ? nil : (s, group)
        }
    }

    /// The findings array, in report order.
    public static func findings(_ findings: [Finding]) -> JSONOut { .array(sorted(findings).map(\.json)) }

    /// `{"total", "critical", "high", "medium", "low", "info", "worst"}`.
    public static func summary(_ findings: [Finding]) -> JSONOut {
        var o: [String: JSONOut] = ["total": .int(findings.count)]
        for s in Severity.allCases { o[s.rawValue] = .int(findings.filter { $0.severity == s }.count) }
        o["worst"] = .opt(findings.map(\.severity).max()?.rawValue)
        return .object(o)
    }

    /// The whole envelope: `tool`, `inputs`, `findings`, `summary`, plus the command's `sections`.
    public static func document(
        inputs: [InputSummary], findings: [Finding], blobs: [String: BlobSummary] = [:],
        sections: [String: JSONOut] = [:]
    ) -> JSONOut {
        var o = sections
        o["tool"] = tool
        o["inputs"] = self.inputs(inputs, blobs: blobs)
        o["findings"] = self.findings(findings)
        o["summary"] = summary(findings)
        return .object(o)
    }

    /// The envelope as `document` makes it, as members written one piece at a time: `findings` one
    /// finding at a time, each built as it is written (the bytes are `document`'s).
    public static func members(
        inputs: [InputSummary], findings: [Finding], blobs: [String: BlobSummary] = [:],
        sections: JSONMembers = JSONMembers()
    ) -> JSONMembers {
        var o = sections
        o["tool"] = tool
        o["inputs"] = self.inputs(inputs, blobs: blobs)
        o.array("findings", sorted(findings)) { $0.json }
        o["summary"] = summary(findings)
        return o
    }

    /// Pretty JSON text with a final newline.
    public static func render(_ doc: JSONOut) -> String { doc.render(pretty: true) + "\n" }

    // MARK: text

    /// `3 findings (1 high, 2 info)` or `no findings`.
    public static func findingsSummaryLine(_ findings: [Finding]) -> String {
        if findings.isEmpty { return "no findings" }
        let parts = bySeverity(findings).map { "\($0.1.count) \($0.0.rawValue)" }
        return "\(findings.count) finding\(findings.count == 1 ? "" : "s") (" + parts.joined(separator: ", ") + ")"
    }

    /// Where a finding was made, escaped for a terminal: `export.zip: sessions/x.jsonl:41, seq 40`.
    public static func whereText(_ f: Finding) -> String {
        var s = Escape.terminal(f.input)
        if let file = f.file, !sameFile(input: f.input, file: file) { s += ": " + Escape.terminal(file) }
        if let line = f.line { s += ":\(line)" }
        if let seq = f.seq { s += ", seq \(seq)" }
        if let r = f.recordId { s += ", " + Escape.terminal(r) }
        if let l = f.location { s += ", " + Escape.terminal(l) }
        return s
    }

    /// Whether `file` only repeats the input (a bare session file is its own single entry).
    public static func sameFile(input: String, file: String) -> Bool {
        file == input || input.hasSuffix("/" + file)
    }

    /// Findings for a terminal, worst first: a heading, then per finding its severity, rule and place,
    /// and its message (with the masked preview and fingerprint when there are).
    public static func findingsText(_ findings: [Finding], colors: Colors = .off) -> String {
        var out = colors.bold("Findings:") + " "
        if findings.isEmpty {
            out += "none\n"
        } else {
            out += "\(findings.count) (" + bySeverity(findings).map { "\($0.1.count) \($0.0.rawValue)" }.joined(separator: ", ") + ")\n"
        }
        for (sev, group) in bySeverity(findings) {
            for f in group {
                let tag = colors.severity(sev, sev.rawValue.uppercased().padding(toLength: 8, withPad: " ", startingAt: 0))
                out += "  " + tag + " " + colors.bold(Escape.terminal(f.rule)) + "  " + colors.dim(whereText(f)) + "\n"
                var msg = Escape.terminal(f.message)
                if let p = f.preview { msg += " [" + Escape.terminal(p) + "]" }
                if let fp = f.fingerprint { msg += " " + Escape.terminal(fp) }
                out += "           " + msg + "\n"
            }
        }
        return out
    }

    /// Inputs for a terminal: path, container, status, and each error.
    public static func inputsText(_ inputs: [InputSummary], colors: Colors = .off) -> String {
        var out = ""
        for i in inputs {
            let status: String
            switch i.status {
            case .ok: status = colors.green("ok")
            case .partial: status = colors.yellow("partial")
            case .unreadable: status = colors.red("unreadable")
            }
            out += colors.bold("Input") + " " + Escape.terminal(i.path) + "  (" + i.container.rawValue + ", " + status + ")\n"
            for e in i.errors { out += "  " + colors.red("error:") + " " + Escape.terminal(e) + "\n" }
        }
        return out
    }

    // MARK: markdown

    /// A Markdown table; every cell is escaped by the caller (or passed through `Escape.markdown`).
    public static func markdownTable(_ header: [String], _ rows: [[String]]) -> String {
        var out = "| " + header.joined(separator: " | ") + " |\n"
        out += "|" + String(repeating: "---|", count: header.count) + "\n"
        for r in rows { out += "| " + r.map { $0.isEmpty ? " " : $0 }.joined(separator: " | ") + " |\n" }
        return out
    }

    /// `## Findings` with a table: severity, rule, where, message.
    public static func findingsMarkdown(_ findings: [Finding]) -> String {
        let out = "## Findings\n\n" + findingsSummaryLine(findings) + "\n"
        if findings.isEmpty { return out }
        let rows = bySeverity(findings).flatMap { $0.1 }.map { f -> [String] in
            var msg = Escape.markdown(f.message)
            if let p = f.preview { msg += " (" + Escape.markdownCode(p) + ")" }
            if let fp = f.fingerprint { msg += " " + Escape.markdownCode(fp) }
            return ["**" + f.severity.rawValue + "**", Escape.markdownCode(f.rule), Escape.markdown(whereText(f)), msg]
        }
        return out + "\n" + markdownTable(["Severity", "Rule", "Where", "Message"], rows)
    }

    /// `## Inputs` with a table: path, container, status, errors.
    public static func inputsMarkdown(_ inputs: [InputSummary]) -> String {
        let rows = inputs.map {
            [
                Escape.markdown($0.path), $0.container.rawValue, $0.status.rawValue,
                $0.errors.map { Escape.markdown($0) }.joined(separator: "<br>")
            ]
        }
        return "## Inputs\n\n" + markdownTable(["Input", "Container", "Status", "Errors"], rows)
    }

    // MARK: csv

    /// The columns of `findingsCSV`.
    public static let findingsCSVHeader = [
        "severity", "rule", "input", "file", "sessionId", "seq", "line", "recordId",
        "location", "message", "preview", "fingerprint"
    ]

    /// One CSV row per finding (worst first), RFC 4180 with formula neutralising, header first.
    public static func findingsCSV(_ findings: [Finding], header: Bool = true) -> String {
        var out = header ? Escape.csvRow(findingsCSVHeader) : ""
        for (_, group) in bySeverity(findings) {
            for f in group {
                out += Escape.csvRow([
                    f.severity.rawValue, f.rule, f.input, f.file ?? "", f.sessionId ?? "",
                    f.seq.map(String.init) ?? "", f.line.map(String.init) ?? "", f.recordId ?? "",
                    f.location ?? "", f.message, f.preview ?? "", f.fingerprint ?? ""
                ])
            }
        }
        return out
    }
}
