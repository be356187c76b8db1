import Foundation
import SiftCore

/// What `verify` checks beyond the SDK's own lists: extra names, disabled detectors, allowed fingerprints.
///
/// The config file is JSON:
/// `{"extraFields": {"headers": [], "query": [], "body": []}, "allowFingerprints": [], "disableDetectors": []}`.
public struct VerifyConfig: Sendable, Equatable {
    /// Header names added to the contract's header list (matched after normalisation).
    public var extraHeaders: [String] = []
    /// Query parameter names added to the contract's query list.
    public var extraQuery: [String] = []
    /// JSON body field and log metadata names added to the contract's body list.
    public var extraBody: [String] = []
    /// Detector ids (`jwt`) or rule ids (`secret.jwt`, `redaction.query`) not to report.
    public var disabledDetectors: Set<String> = []
    /// Fingerprints (`sha256:…`) of values known to be harmless (test fixtures): never reported.
    public var allowFingerprints: Set<String> = []
    /// The fingerprint key (see `Fingerprint`): guessable values are fingerprinted with it.
    public var fingerprintKey: [UInt8]? = nil

    public init(extraHeaders: [String] = [], extraQuery: [String] = [], extraBody: [String] = [],
                disabledDetectors: Set<String> = [], allowFingerprints: Set<String> = []) {
        self.extraHeaders = extraHeaders
        self.extraQuery = extraQuery
        self.extraBody = extraBody
        self.disabledDetectors = disabledDetectors
        self.allowFingerprints = allowFingerprints
    }

    /// Adds a name (from `--extra-field`) to every list: headers, query parameters and body fields.
    public mutating func addExtraField(_ name: String) {
        extraHeaders.append(name)
        extraQuery.append(name)
        extraBody.append(name)
    }

    /// Merges another configuration into this one.
    public mutating func merge(_ other: VerifyConfig) {
        extraHeaders += other.extraHeaders
        extraQuery += other.extraQuery
        extraBody += other.extraBody
        disabledDetectors.formUnion(other.disabledDetectors)
        allowFingerprints.formUnion(other.allowFingerprints)
    }

    /// Reads a config file. Unknown keys are ignored; a wrong type is an error naming the key.
    public static func load(path: String) throws(VerifyError) -> VerifyConfig {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path) }
        let doc: JSONDocument
        do { doc = try JSONDocument(bytes: Array(data)) } catch { throw .invalidFile(path, error.description) }
        return try parse(doc.root, path: path)
    }

    /// Parses a config from JSON text (for tests and embedding).
    public static func parse(text: String) throws(VerifyError) -> VerifyConfig {
        let doc: JSONDocument
        do { doc = try JSONDocument(string: text) } catch { throw .invalidFile("config", error.description) }
        return try parse(doc.root, path: "config")
    }

    static func parse(_ root: JSONValue, path: String) throws(VerifyError) -> VerifyConfig {
        guard root.isObject else { throw .invalidFile(path, "the top level must be an object") }
        func strings(_ v: JSONValue?, _ key: String) throws(VerifyError) -> [String] {
            guard let v else { return [] }
            guard v.isArray else { throw .invalidFile(path, "'\(key)' must be an array of strings") }
            var out: [String] = []
            for e in v.elements {
                guard let s = e.string else { throw .invalidFile(path, "'\(key)' must be an array of strings") }
                out.append(s)
            }
            return out
        }
        var c = VerifyConfig()
        if let ef = root["extraFields"] {
            guard ef.isObject else { throw .invalidFile(path, "'extraFields' must be an object") }
            c.extraHeaders = try strings(ef["headers"], "extraFields.headers")
            c.extraQuery = try strings(ef["query"], "extraFields.query")
            c.extraBody = try strings(ef["body"], "extraFields.body")
        }
        c.allowFingerprints = Set(try strings(root["allowFingerprints"], "allowFingerprints"))
        c.disabledDetectors = Set(try strings(root["disableDetectors"], "disableDetectors"))
        return c
    }
}

/// Errors of the verify library (config and baseline files).
public enum VerifyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadableFile(String)
    /// The file is not the JSON shape expected; the second value says what is wrong.
    case invalidFile(String, String)
    /// The file could not be written.
    case unwritableFile(String)

    public var description: String {
        switch self {
        case .unreadableFile(let p): "cannot read '\(p)': check that the file exists and is readable"
        case .invalidFile(let p, let why): "'\(p)' is not valid: \(why)"
        case .unwritableFile(let p): "cannot write '\(p)': check the folder exists and is writable"
        }
    }
}
