import Foundation
import SiftCore

/// What `verify` checks beyond the SDK's own lists: extra names, disabled detectors, allowed fingerprints.
///
/// Built from `--extra-field` and from the config file's `extraFields`, `allowFingerprints` and
/// `disableDetectors` (the command line's one config reader, `docs/config.md`).
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

    public init(
        extraHeaders: [String] = [], extraQuery: [String] = [], extraBody: [String] = [],
        disabledDetectors: Set<String> = [], allowFingerprints: Set<String> = []
    ) {
        self.extraHeaders = extraHeaders
        self.extraQuery = extraQuery
        self.extraBody = extraBody
        self.disabledDetectors = disabledDetectors
        self.allowFingerprints = allowFingerprints
    }

    /// Adds a name (from `--extra-field`) to every list: headers, query parameters and body fields.
    /// Whether a finding is reported under this config: its detector or rule is not turned off and its
    /// fingerprint is not allowed.
    public func reports(_ f: Finding) -> Bool {
        if disabledDetectors.contains(f.rule) { return false }
        if f.rule.hasPrefix("secret."), disabledDetectors.contains(String(f.rule.dropFirst(7))) { return false }
        if let fp = f.fingerprint, allowFingerprints.contains(fp) { return false }
        return true
    }

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

    /// Whether `id` names a detector (`jwt`) or a rule (`secret.jwt`, `redaction.query`) that
    /// `disabledDetectors` can turn off.
    public static func isKnownDetector(_ id: String) -> Bool { knownDetectorIds.contains(id) }

    static let knownDetectorIds: Set<String> = {
        var ids = Set(VerifyRules.rules.map(\.id))
        for d in detectorCatalogue {
            ids.insert(d.id)
            ids.insert(d.rule.id)
        }
        return ids
    }()
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
