import SiftCore

/// Verify's checks as the output layer's `SecretDetector`: the `Redactor` runs them over each text
/// it prints, so a credential is masked wherever it stands, whether or not a verify pass saw it.
public final class VerifyTextDetector: SecretDetector, @unchecked Sendable {
    private let scanner: ContentScanner

    /// Every detector is on (a detector turned off for reporting still masks), the contract's names
    /// are extended as `config` says.
    public init(config: VerifyConfig = VerifyConfig()) {
        scanner = ContentScanner(config: VerifyConfig(extraHeaders: config.extraHeaders, extraQuery: config.extraQuery,
                                                      extraBody: config.extraBody))
    }

    public func isListedQueryName(_ name: String) -> Bool { scanner.queryNames.contains(name) }

    public func secrets(in text: String, kind: UntrustedKind) -> [String] {
        scanner.hits.removeAll(keepingCapacity: true)
        scanner.beginLine([])
        var t = text
        t.withUTF8 { b in
            switch kind {
            case .url:
                scanner.url(b, location: "", queryRule: "redaction.query")
            case .text:
                scanner.content(b, contentType: nil, location: "", depth: 0)
                if b.contains(UInt8(ascii: "%")) {
                    let decoded = Shape.percentDecode(b, plusIsSpace: false)
                    decoded.withUnsafeBufferPointer { scanner.shapes($0, hints: []) { "" } }
                }
            }
        }
        let values = scanner.hits.filter { !$0.bound }.map(\.value)
        scanner.hits.removeAll(keepingCapacity: true)
        return values
    }
}

extension Redactor {
    /// The redactor every command prints through: verify's detectors over each text, plus the
    /// values a verify pass found (`known`, never printed).
    public static func verify(config: VerifyConfig = VerifyConfig(), known: [String] = []) -> Redactor {
        Redactor(known: known, detector: VerifyTextDetector(config: config))
    }
}

/// The credentials one record holds, with every check `verify` runs (inline content; blobs are not
/// read), and which of its bodies hold one: a command printing a record masks the values and
/// withholds those bodies (their stored form may decode back to the value).
public final class RecordSecrets: @unchecked Sendable {
    private let worker: VerifyWorker

    public init(config: VerifyConfig = VerifyConfig()) {
        worker = VerifyWorker(config: config)
    }

    /// The distinct values, and the sides (`request`, `response`) whose body holds one.
    public func scan(_ record: Record) -> (values: [String], bodies: Set<String>) {
        var refs: [String] = []
        worker.scan(record, refs: &refs)
        var values: [String] = []
        var seen = Set<String>()
        var bodies = Set<String>()
        for h in worker.scanner.hits {
            if !h.value.isEmpty && seen.insert(h.value).inserted { values.append(h.value) }
            for side in ["request", "response"] where h.location.hasPrefix(side + ".body") { bodies.insert(side) }
            if h.location.hasPrefix("frame.body") { bodies.insert("frame") }
        }
        worker.scanner.hits.removeAll(keepingCapacity: true)
        return (values, bodies)
    }
}
