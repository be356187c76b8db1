import Foundation
import SiftCore

/// Known findings CI accepts (test fixtures), matched by rule and fingerprint.
///
/// File shape (`--write-baseline` writes it, `--baseline` reads it):
/// `{"format": "pbsift-baseline", "version": 1, "entries": [{"rule", "fingerprint", "location", "sessionId"}]}`.
/// A bare JSON array of entries is read too. `location` and `sessionId` are kept for people reading the
/// file; matching uses `rule` + `fingerprint` (or, for a finding without a fingerprint, `rule` + `location` + `sessionId`).
public struct Baseline: Sendable, Equatable {
    /// One accepted finding.
    public struct Entry: Sendable, Hashable {
        public var rule: String
        public var fingerprint: String?
        public var location: String?
        public var sessionId: String?

        public init(rule: String, fingerprint: String?, location: String?, sessionId: String?) {
            self.rule = rule
            self.fingerprint = fingerprint
            self.location = location
            self.sessionId = sessionId
        }

        var key: String {
            if let fingerprint { return rule + "\u{0}" + fingerprint }
            return rule + "\u{0}\u{0}" + (location ?? "") + "\u{0}" + (sessionId ?? "")
        }

        var json: JSONOut {
            .object(["rule": .string(rule), "fingerprint": .opt(fingerprint), "location": .opt(location), "sessionId": .opt(sessionId)])
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }

    /// A baseline accepting every finding given (deduplicated, sorted).
    public init(findings: [Finding]) {
        var seen = Set<String>()
        var out: [Entry] = []
        for f in findings {
            let e = Entry(rule: f.rule, fingerprint: f.fingerprint, location: f.location, sessionId: f.sessionId)
            if seen.insert(e.key).inserted { out.append(e) }
        }
        out.sort {
            ($0.rule, $0.fingerprint ?? "", $0.location ?? "", $0.sessionId ?? "") < (
                $1.rule, $1.fingerprint ?? "", $1.location ?? "", $1.sessionId ?? ""
            )
        }
        entries = out
    }

    static func key(of f: Finding) -> String {
        Entry(rule: f.rule, fingerprint: f.fingerprint, location: f.location, sessionId: f.sessionId).key
    }

    /// Splits findings into those still reported and those the baseline accepts.
    public func apply(_ findings: [Finding]) -> (kept: [Finding], suppressed: [Finding]) {
        let keys = Set(entries.map(\.key))
        var kept: [Finding] = [], suppressed: [Finding] = []
        for f in findings {
            if keys.contains(Baseline.key(of: f)) { suppressed.append(f) } else { kept.append(f) }
        }
        return (kept, suppressed)
    }

    /// The baseline file's text (pretty JSON, sorted keys, trailing newline).
    public func render() -> String {
        JSONOut.object(["format": .string("pbsift-baseline"), "version": .int(1), "entries": .array(entries.map(\.json))])
            .render(pretty: true) + "\n"
    }

    /// Writes the baseline file.
    public func write(path: String) throws(VerifyError) {
        guard FileManager.default.createFile(atPath: path, contents: Data(render().utf8)) else { throw .unwritableFile(path) }
    }

    /// Reads a baseline file.
    public static func load(path: String) throws(VerifyError) -> Baseline {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path) }
        let doc: JSONDocument
        do { doc = try JSONDocument(bytes: Array(data)) } catch { throw .invalidFile(path, error.description) }
        return try parse(doc.root, path: path)
    }

    /// Parses baseline JSON text.
    public static func parse(text: String) throws(VerifyError) -> Baseline {
        let doc: JSONDocument
        do { doc = try JSONDocument(string: text) } catch { throw .invalidFile("baseline", error.description) }
        return try parse(doc.root, path: "baseline")
    }

    static func parse(_ root: JSONValue, path: String) throws(VerifyError) -> Baseline {
        let list: JSONValue
        if root.isArray {
            list = root
        } else if let e = root["entries"], e.isArray {
            list = e
        } else {
            throw .invalidFile(path, "expected an array of entries or an object with 'entries'")
        }
        var out: [Entry] = []
        for (i, e) in list.elements.enumerated() {
            guard let rule = e["rule"]?.string else { throw .invalidFile(path, "entry \(i + 1) has no 'rule'") }
            out.append(
                Entry(
                    rule: rule, fingerprint: e["fingerprint"]?.string, location: e["location"]?.string,
                    sessionId: e["sessionId"]?.string))
        }
        return Baseline(entries: out)
    }
}
