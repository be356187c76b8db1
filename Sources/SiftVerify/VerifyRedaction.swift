import SiftArchive
import SiftCore
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Verify's checks as the output layer's `SecretDetector`: the `Redactor` runs them over each text
/// it prints, so a credential is masked wherever it stands, whether or not a verify pass saw it.
public final class VerifyTextDetector: SecretDetector, @unchecked Sendable {
    private let scanner: ContentScanner
    /// Whether a request or record id of the canonical shape (`IdShape.request`, `IdShape.record`) is
    /// answered without the scan.
    private let idShortcut: Bool

    /// Every detector is on (a detector turned off for reporting still masks), the contract's names
    /// are extended as `config` says.
    public convenience init(config: VerifyConfig = VerifyConfig()) {
        self.init(config: config, idShortcut: true)
    }

    /// `idShortcut` false: every text is scanned, request and record ids too (the tests compare both ways).
    init(config: VerifyConfig, idShortcut: Bool) {
        scanner = ContentScanner(
            config: VerifyConfig(
                extraHeaders: config.extraHeaders, extraQuery: config.extraQuery,
                extraBody: config.extraBody))
        self.idShortcut = idShortcut
    }

    public func isListedQueryName(_ name: String) -> Bool { scanner.queryNames.contains(name) }

    public func secrets(in text: String, kind: UntrustedKind) -> [String] {
        // A request id (`req_` and a lowercase UUID; an export holds one a request) holds nothing
        // the checks below could find: no anchor of any detector fits in it or in its base64
        // decoding, and neither holds an encoded run (RequestIdShapeTests proves it for every such id).
        // A record id (`rec_` and eight lowercase hex digits; one a record) likewise: no anchor fits
        // in it, and it is shorter than any run the encoded-run checks decode (RecordIdShapeTests).
        if idShortcut && kind == .text && (IdShape.request.isCanonical(text) || IdShape.record.isCanonical(text)) { return [] }
        scanner.hits.removeAll(keepingCapacity: true)
        scanner.beginLine([])
        var t = text
        t.withUTF8 { b in
            switch kind {
            case .url:
                scanner.url(b, location: "", queryRule: VerifyRule.query.id)
                // Shapes anywhere in it too (a path segment, a query name, the fragment), as
                // stored and percent-decoded.
                scanner.shapes(b, hints: []) { "" }
                if b.contains(UInt8(ascii: "%")) {
                    let decoded = Percent.decode(b, plusIsSpace: false)
                    decoded.withUnsafeBufferPointer { scanner.shapes($0, hints: []) { "" } }
                }
            case .text:
                // Shapes anywhere (JSON keys included), then the text as verify reads a body: JSON
                // and form text by their names, percent-encoded text decoded.
                scanner.shapes(b, hints: []) { "" }
                var i = 0
                while i < b.count && ByteSet.space.contains(b[i]) { i += 1 }
                let structured = i < b.count && (b[i] == UInt8(ascii: "{") || b[i] == UInt8(ascii: "["))
                let gzip = b.count >= 2 && b[0] == 0x1F && b[1] == 0x8B // `Sniff.isGzip`, without the generic call
                if structured || VerifyTextDetector.holds(b, UInt8(ascii: "=")) || gzip {
                    scanner.content(b, contentType: nil, location: "", depth: 0)
                }
                // Percent-encoded text decoded, again while it still is (three times at most, as a
                // query value is).
                if VerifyTextDetector.holds(b, UInt8(ascii: "%")) {
                    var encoded = Array(b)
                    for _ in 0..<3 where encoded.contains(UInt8(ascii: "%")) {
                        let decoded = encoded.withUnsafeBufferPointer { Percent.decode($0, plusIsSpace: false) }
                        guard decoded.count < encoded.count else { break }
                        decoded.withUnsafeBufferPointer { scanner.shapes($0, hints: []) { "" } }
                        encoded = decoded
                    }
                }
                scanner.base64Encoded(b, since: 0) { "" }
                contractPairs(b, into: &pairs)
            }
        }
        // A bound hit (`verify.bound`) carries no value to mask.
        let values = scanner.hits.filter { !$0.bound }.map(\.value) + pairs
        scanner.hits.removeAll(keepingCapacity: true)
        pairs.removeAll(keepingCapacity: true)
        return values
    }

    /// Whether `b` holds the byte `c` (memchr).
    private static func holds(_ b: UnsafeBufferPointer<UInt8>, _ c: UInt8) -> Bool {
        guard let base = b.baseAddress, !b.isEmpty else { return false }
        return memchr(base, Int32(c), b.count) != nil
    }

    private var pairs: [String] = []
    private static let nameBytes = ByteSet("A-Za-z0-9_-")
    private static let valueStops: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x26, 0x3B, 0x2C, 0x22, 0x27, 0x7D, 0x5D, 0x29, 0x3E]

    /// `token=…`, `password: …`, `"secret":"…"` in free text (a server message, an error
    /// description): the value after a name of the contract's lists. Values shorter than four bytes
    /// are left (they can't be masked without masking ordinary text), as are numbers after `code`.
    private func contractPairs(_ b: UnsafeBufferPointer<UInt8>, into out: inout [String]) {
        let n = b.count
        var i = 0
        while i < n {
            let c = b[i]
            guard c == UInt8(ascii: "=") || c == UInt8(ascii: ":") else { i += 1; continue }
            var e = i
            if e > 0 && (b[e - 1] == 0x22 || b[e - 1] == 0x27) { e -= 1 }
            var s = e
            while s > 0 && Self.nameBytes.contains(b[s - 1]) { s -= 1 }
            let name = UnsafeBufferPointer(rebasing: b[s..<e])
            guard e > s, scanner.formNames.contains(raw: name) || scanner.headerNames.contains(raw: name) else { i += 1; continue }
            var v = i + 1
            while v < n && (b[v] == 0x20 || b[v] == 0x22 || b[v] == 0x27) { v += 1 }
            var w = v
            while w < n && !Self.valueStops.contains(b[w]) { w += 1 }
            let first = String(decoding: UnsafeBufferPointer(rebasing: b[v..<w]), as: UTF8.self)
            if ["bearer", "basic", "token"].contains(first.lowercased()) && w < n && b[w] == 0x20 {
                // `Authorization: Bearer <value>`: the value is the next word.
                var x = w + 1
                while x < n && !Self.valueStops.contains(b[x]) { x += 1 }
                if x - (w + 1) >= 4 { out.append(String(decoding: UnsafeBufferPointer(rebasing: b[(w + 1)..<x]), as: UTF8.self)) }
            } else if w - v >= 4 && first != "***"
                && !(ContractNames.normalise(String(decoding: name, as: UTF8.self)) == "code"
                    && first.allSatisfy(\.isNumber))
            {
                out.append(first)
            }
            i = max(w, i + 1)
        }
    }
}

/// An id the SDK mints, in its canonical form: a prefix, then lowercase hex digits, with dashes at
/// fixed offsets. Any other text, however close, is not of this shape.
struct IdShape: Sendable {
    let length: Int
    let prefix: [UInt8]
    /// Offsets that hold a dash.
    let dashes: [Int]
    /// What each offset holds: a byte it must equal, or 0 for a lowercase hex digit.
    private let fixed: [UInt8]

    init(prefix: String, length: Int, dashes: [Int] = []) {
        self.length = length
        self.prefix = Array(prefix.utf8)
        self.dashes = dashes
        var fixed = [UInt8](repeating: 0, count: length)
        for (i, c) in self.prefix.enumerated() { fixed[i] = c }
        for d in dashes { fixed[d] = UInt8(ascii: "-") }
        self.fixed = fixed
    }

    /// The bytes a canonical id may hold at `offset`: the prefix's, a dash, or a lowercase hex digit.
    func allowed(at offset: Int) -> [UInt8] {
        fixed[offset] != 0 ? [fixed[offset]] : Array("0123456789abcdef".utf8)
    }

    func isCanonical(_ s: String) -> Bool {
        guard s.utf8.count == length else { return false }
        var s = s
        return s.withUTF8 { isCanonical($0) }
    }

    func isCanonical(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count == length else { return false }
        return fixed.withUnsafeBufferPointer { f in
            for i in 0..<length {
                let c = b[i], k = f[i]
                if k != 0 {
                    guard c == k else { return false }
                } else {
                    guard (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) else { return false }
                }
            }
            return true
        }
    }
}

extension IdShape {
    /// `req_` followed by a UUID in its canonical form, lowercase:
    /// `req_f7950b6d-14ef-48e9-ba3a-0bf13e20089b` (the ids the SDK gives each request).
    static let request = IdShape(prefix: "req_", length: 40, dashes: [12, 17, 22, 27])

    /// `rec_` followed by eight lowercase hex digits: `rec_0c1d2e3f` (the id the SDK gives each record).
    static let record = IdShape(prefix: "rec_", length: 12)
}

extension Redactor {
    /// The redactor every command prints through: verify's detectors over each text, plus the
    /// values a verify pass found (`known`, never printed).
    public static func verify(config: VerifyConfig = VerifyConfig(), known: [String] = []) -> Redactor {
        Redactor(known: known, makeDetector: { VerifyTextDetector(config: config) })
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

    /// What one record holds: its distinct flagged values, the sides (`request`, `response`) whose
    /// body holds one, and whether the check read all of it.
    public struct Found: Sendable {
        public var values: [String]
        public var bodies: Set<String>
        /// False when a check stopped at a bound or the record holds a name twice (its reading is
        /// ambiguous): then no value of it counts as checked.
        public var complete: Bool

        /// The redactor to print the record with: `base` knowing its values, or masking every value
        /// when the record was not checked in full.
        public func redactor(_ base: Redactor) -> Redactor {
            let r = values.isEmpty ? base : base.adding(known: values)
            return complete ? r : r.maskingEveryValue()
        }
    }

    /// What `record` holds, with every check verify runs.
    public func scan(_ record: Record) -> Found {
        var refs: [String] = []
        worker.scan(record, refs: &refs)
        var values: [String] = []
        var seen = Set<String>()
        var bodies = Set<String>()
        var complete = record.duplicateNames.isEmpty && record.copies.isEmpty && !record.json.doc.hasDuplicateKeys
        for h in worker.scanner.hits {
            if h.bound { complete = false }
            if !h.value.isEmpty && seen.insert(h.value).inserted { values.append(h.value) }
            for side in ["request", "response"] where h.location.hasPrefix(side + ".body") { bodies.insert(side) }
            if h.location.hasPrefix("frame.body") { bodies.insert("frame") }
        }
        worker.scanner.hits.removeAll(keepingCapacity: true)
        return Found(values: values, bodies: bodies, complete: complete)
    }
}
