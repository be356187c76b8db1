import Foundation
import SiftArchive

// What `pbsift merge` reads back from the JSON Lines a batch wrote (`--format jsonl`): findings,
// inputs and blob totals as the lines carry them. Every text read back was redacted when the
// line was written; `merge` redacts it again before printing it.

extension Finding {
    /// A finding as `Finding.json` wrote it; nil when a required member (`rule`, `severity`, `input`,
    /// `message`) is missing or of the wrong kind, or the severity is unknown.
    public init?(json j: JSONValue) {
        guard j.isObject, let rule = j["rule"]?.string, !rule.isEmpty, let sev = j["severity"]?.string.flatMap(Severity.init(rawValue:)),
            let input = j["input"]?.string, let message = j["message"]?.string
        else { return nil }
        self.init(
            rule: RuleID(rule), severity: sev, input: input, file: j["file"]?.string, sessionId: j["sessionId"]?.string,
            seq: j["seq"]?.int, line: j["line"]?.int, recordId: j["recordId"]?.string, location: j["location"]?.string,
            message: message, preview: j["preview"]?.string, fingerprint: j["fingerprint"]?.string)
    }
}

extension InputSummary {
    /// An input as `InputSummary.json` wrote it; nil when its path, container or status is missing or unknown.
    public init?(json j: JSONValue) {
        guard j.isObject, let path = j["path"]?.string, let c = j["container"]?.string.flatMap(ContainerKind.init(rawValue:)),
            let s = j["status"]?.string.flatMap(InputStatus.init(rawValue:))
        else { return nil }
        self.init(path: path, container: c, status: s, errors: (j["errors"]?.elements ?? []).compactMap(\.string))
    }
}

extension InputSummary {
    /// The input of a batch's `input` line (`input`, `container`, `status`, `errors`).
    public init?(batchLine j: JSONValue) {
        guard j.isObject, let path = j["input"]?.string, let c = j["container"]?.string.flatMap(ContainerKind.init(rawValue:)),
            let s = j["status"]?.string.flatMap(InputStatus.init(rawValue:))
        else { return nil }
        self.init(path: path, container: c, status: s, errors: (j["errors"]?.elements ?? []).compactMap(\.string))
    }
}

extension BlobSummary {
    /// Blob totals as `ReportEnvelope.blobJSON` wrote them (a missing count reads as 0).
    public init(json j: JSONValue) {
        self.init()
        count = max(0, j["count"]?.int ?? 0)
        bytes = Int64(max(0, j["bytes"]?.int ?? 0))
        references = max(0, j["references"]?.int ?? 0)
        referencedBytes = Int64(max(0, j["referencedBytes"]?.int ?? 0))
        savedBytes = Int64(max(0, j["savedBytes"]?.int ?? 0))
    }
}
