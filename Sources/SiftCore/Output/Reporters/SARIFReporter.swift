import Foundation
import SiftArchive

/// SARIF 2.1.0, as GitHub code scanning reads it, for any command's findings.
///
/// `tool.driver.rules` describes every rule a result names, from the rule registry. A result in a
/// session file points at the record's line. A finding inside an archive (zip, tar, tar.gz, a
/// gzip'd file) points at the archive as an artifact with no region, never a line of its
/// compressed bytes, and names the member as a logical location.
public struct SARIFReporter<Report: FindingsReport>: Reporter {
    public init() {}

    public var format: String { "sarif" }

    public func write(_ report: Report, to context: ReportContext) {
        var w = JSONWriter(pretty: true, sink: context.sink)
        w.value(SARIFDocument.document(report.findingsDocument))
        w.newline()
        w.flush()
    }
}

/// The SARIF document of a findings document.
public enum SARIFDocument {
    /// The URI SARIF names as the tool's home.
    public static let informationUri = "https://github.com/palbase/pbsift"

    public static func document(_ doc: FindingsDocument) -> JSONOut {
        let findings = doc.findings
        let ruleIds = Array(Set(findings.map(\.rule))).sorted()
        var index: [String: Int] = [:]
        for (i, id) in ruleIds.enumerated() { index[id] = i }
        let rules: [JSONOut] = ruleIds.map { id in
            let rule = doc.rule(id) ?? Rule(id, findings.first { $0.rule == id }?.severity ?? .medium, "pbsift finding \(id)")
            return ruleJSON(rule)
        }
        let containers = Dictionary(doc.inputs.map { ($0.path, $0.container) }, uniquingKeysWith: { a, _ in a })
        let results: [JSONOut] = findings.map { f in
            var text = f.message
            if let loc = f.location { text += " [\(loc)]" }
            if let p = f.preview { text += " value \(p)" }
            if let s = f.sessionId { text += " session \(s)" }
            if let s = f.seq { text += " seq \(s)" }
            let fp =
                f.fingerprint
                ?? SecretMask.fingerprint(
                    [
                        f.rule, f.sessionId ?? "", f.file ?? "", f.location ?? "",
                        f.seq.map(String.init) ?? ""
                    ].joined(separator: "\u{0}"))
            let place = artifact(f, containers[f.input])
            var physical: [String: JSONOut] = ["artifactLocation": .object(["uri": .string(uri(place.path))])]
            if place.member == nil {
                physical["region"] = .object(["startLine": .int(max(1, f.line ?? 1))])
            }
            var logical: [JSONOut] = []
            if let m = place.member {
                var o: [String: JSONOut] = [
                    "name": .string(m), "kind": .string("module"),
                    "fullyQualifiedName": .string(place.path + "#" + m)
                ]
                if let l = f.line { o["properties"] = .object(["line": .int(l)]) }
                logical.append(.object(o))
            }
            if let l = f.location { logical.append(.object(["name": .string(l), "kind": .string("member")])) }
            var loc: [String: JSONOut] = ["physicalLocation": .object(physical)]
            if !logical.isEmpty { loc["logicalLocations"] = .array(logical) }
            return .object([
                "ruleId": .string(f.rule), "ruleIndex": .int(index[f.rule] ?? 0), "level": .string(level(f.severity)),
                "message": .object(["text": .string(text)]),
                "locations": .array([.object(loc)]),
                "partialFingerprints": .object(["pbsift/v1": .string(fp)]),
                "properties": .object(["severity": .string(f.severity.rawValue)])
            ])
        }
        let run: JSONOut = .object([
            "tool": .object([
                "driver": .object([
                    "name": .string("pbsift"), "version": .string(doc.version), "semanticVersion": .string(doc.version),
                    "informationUri": .string(informationUri), "rules": .array(rules)
                ])
            ]),
            "results": .array(results)
        ])
        return .object([
            "$schema": .string("https://json.schemastore.org/sarif-2.1.0.json"),
            "version": .string("2.1.0"),
            "runs": .array([run])
        ])
    }

    /// A registry rule as a SARIF `reportingDescriptor`.
    public static func ruleJSON(_ r: Rule) -> JSONOut {
        let help = r.help.isEmpty ? r.summary : r.help
        var tags: [JSONOut] = [.string(r.family.rawValue)]
        if r.family.isLeak { tags = [.string("security"), .string("secrets")] + tags }
        return .object([
            "id": .string(r.id), "name": .string(camel(r.id)),
            "shortDescription": .object(["text": .string(r.summary)]),
            "fullDescription": .object(["text": .string(r.detail.isEmpty ? r.summary + (r.summary.hasSuffix(".") ? "" : ".") : r.detail)]),
            "defaultConfiguration": .object(["level": .string(level(r.severity))]),
            "help": .object(["text": .string(help), "markdown": .string(help)]),
            "properties": .object(["tags": .array(tags), "security-severity": .string(securitySeverity(r.severity))])
        ])
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

    /// `redaction.url-in-header` → `RedactionUrlInHeader`.
    static func camel(_ id: String) -> String {
        id.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The file a result points at, and the member inside it when that file is an archive (or a
    /// gzip'd file): a session file in a folder is itself the artifact; in a zip, tar or gzip the
    /// artifact is the archive and the session file is its member.
    static func artifact(_ f: Finding, _ container: ContainerKind?) -> (path: String, member: String?) {
        let input = f.input == "-" ? "stdin" : f.input
        switch container {
        case .zip?, .tar?, .tarGz?, .jsonlGz?:
            return (input, f.file)
        case .folder?:
            guard let file = f.file else { return (input, nil) }
            let joined = input.hasSuffix("/") ? input + file : input + "/" + file
            // An archive inside the folder: the archive is the artifact, what follows its name the member.
            let parts = joined.split(separator: "/", omittingEmptySubsequences: false)
            for (i, p) in parts.enumerated().dropLast() where isArchiveName(String(p)) {
                return (parts[...i].joined(separator: "/"), parts[(i + 1)...].joined(separator: "/"))
            }
            if isCompressedName(joined) { return (joined, file) }
            return (joined, nil)
        case nil:
            if isArchiveName(input) || isCompressedName(input) { return (input, f.file) }
            guard let file = f.file, !input.lowercased().hasSuffix(".jsonl") else { return (input, nil) }
            return (input.hasSuffix("/") ? input + file : input + "/" + file, nil)
        default:
            return (input, nil)
        }
    }

    static func isArchiveName(_ p: String) -> Bool {
        let l = p.lowercased()
        return [".zip", ".tar", ".tgz", ".tar.gz"].contains { l.hasSuffix($0) }
    }

    static func isCompressedName(_ p: String) -> Bool { p.lowercased().hasSuffix(".gz") }

    /// A relative path as a URI reference; an absolute one as a `file://` URI.
    static func uri(_ p: String) -> String {
        var path = p
        if path.hasPrefix("./") { path = String(path.dropFirst(2)) }
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#[]@!$&'()*+,;="))
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return path.hasPrefix("/") ? "file://" + encoded : encoded
    }
}
