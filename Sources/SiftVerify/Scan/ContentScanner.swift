import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

final class ContentScanner {
    let engine: DetectorEngine
    let headerNames: NameSet
    let queryNames: NameSet
    let bodyNames: NameSet
    /// Form and multipart field names: the body list and the query list together.
    let formNames: NameSet
    var hits: [RawHit] = []
    var scratch: [DetHit] = []
    var unescaped: [UInt8] = []

    // State the scanners of each kind of input share (their files: LinePrefilter, NameFactsCache,
    // RecordWalk, HeaderScan, URLScan, BodyScan, BodyDecode, JSONTextScan).
    /// Anchor-stem offsets in the current record line (see `DetectorEngine.stemHits`).
    var lineHits: [Int] = []
    var lineSaturatedFrom: Int? = nil
    /// The raw range (in the current line) of the value being scanned, when it came from the line.
    var rawRange: Range<Int>? = nil
    /// Where the bytes of that value start when they are the line's own (no escape to resolve).
    var rawDirect: UnsafePointer<UInt8>? = nil
    /// The record line being checked, when its stems are looked for where a check asks (`beginRecord`)
    /// rather than in one pass over the line (`beginLine`); valid until `endRecord`.
    var recordLine: UnsafeBufferPointer<UInt8>? = nil
    /// The document `recordLine` is the text of (its values are read in place there).
    var recordDoc: JSONDocument? = nil
    var recordSkip: [Range<Int>] = []
    /// Whether a stem lies in the record line outside `recordSkip` (found once, when first asked).
    var recordHasStem: Bool? = nil
    /// Each slot's answer: its `NameFacts`, with the key's length in bits 16–23 (`keyCacheEmpty`
    /// marks a slot never filled: no key is 255 bytes long here).
    let keyCacheInfo: UnsafeMutablePointer<UInt32>
    /// Each slot's key bytes as four little-endian words, zero past the key: a cached answer is used
    /// only for exactly those bytes, never for another key whose hash collides (an input can be made
    /// to collide with a name found clean).
    let keyCacheWords: UnsafeMutablePointer<UInt64>
    /// URLs found clean, by line case (see `url`).
    let cleanURLs = ByteMemo(.urls)
    /// How deep `nestedValue` has gone.
    var nesting = 0
    /// How deep JSON documents held in JSON strings have been followed.
    var jsonInString = 0
    /// How deep `encodedSpans` has decoded (base64 in hex…).
    var encodedDepth = 0
    /// Inline JSON body texts (as they stand in the line) found clean.
    let cleanBodies = ByteMemo(.cleanTexts)
    /// Base64 body texts whose decoding was found clean, tagged by the content type's class.
    let cleanBase64Bodies = ByteMemo(.cleanTexts)
    /// Where `base64Encoded` decodes a run, and `body` a base64 body (neither calls the other).
    let runBuffer = Base64Buffer()
    let bodyBuffer = Base64Buffer()
    /// Names `scanName` checked and found clean (the check depends on the name's bytes alone).
    let cleanNames = ByteMemo(.names)

    /// The most bytes one gzip body may inflate to.
    let maxInflatedBytes: Int64 = 16 << 20
    /// Nesting of encodings (gzip in base64 in multipart…) followed.
    let maxContentDepth = 4
    /// Container depth the tolerant JSON scanner tracks paths for.
    let maxJSONDepth = 256

    /// The rule of a bound that stopped the checks: the input is not verified in full (exit status 2).
    static let boundRule = VerifyRule.bound.id

    /// Reports that a bound left bytes at `location` unchecked (once per location and bound).
    func bound(_ message: String, location: String) {
        hits.append(
            RawHit(
                rule: ContentScanner.boundRule, severity: .high, location: location, value: "",
                message: message, bound: true))
    }

    /// JSON documents written inside JSON strings whose names are checked, one inside another.
    static let maxJSONInString = 8

    static let formNameBytes = ByteSet("A-Za-z0-9_.%[]-")
    static let urlHeaderNames = NameSet(["location", "referer", "referrer", "contentlocation", "link"])
    static let linkHeaderName = NameSet(["link"])

    init(config: VerifyConfig) {
        engine = DetectorEngine.shared(disabled: config.disabledDetectors)
        headerNames = NameSet(ContractNames.headers + config.extraHeaders)
        queryNames = NameSet(ContractNames.query + config.extraQuery)
        bodyNames = NameSet(ContractNames.body + config.extraBody)
        formNames = NameSet(ContractNames.body + ContractNames.query + config.extraBody + config.extraQuery)
        keyCacheInfo = UnsafeMutablePointer<UInt32>.allocate(capacity: ContentScanner.keyCacheSize)
        keyCacheInfo.initialize(repeating: ContentScanner.keyCacheEmpty, count: ContentScanner.keyCacheSize)
        keyCacheWords = UnsafeMutablePointer<UInt64>.allocate(capacity: ContentScanner.keyCacheSize * 4)
        keyCacheWords.initialize(repeating: 0, count: ContentScanner.keyCacheSize * 4)
    }

    deinit {
        keyCacheInfo.deallocate()
        keyCacheWords.deallocate()
    }

    // MARK: - Detectors and contract breaches

    /// Runs the detectors over `b`, reporting each match at `location`.
    func shapes(
        _ b: UnsafeBufferPointer<UInt8>, hints: NameHints, skipURL: Bool = false, raw: Range<Int>? = nil,
        location: () -> String
    ) {
        guard !b.isEmpty else { return }
        // A request id of the SDK's shape holds no anchor and no encoded run (`RequestIdShapeTests`
        // proves it for every such id): without hints, nothing can be found in it.
        if hints.isEmpty && b.count == IdShape.request.length && IdShape.request.isCanonical(b) { return }
        let since = hits.count
        if hints.isEmpty, let r = raw ?? rawRange, !rawHasHit(r) {
            encodedSpans(b, covered: [], since: since, location: location)
            return
        }
        scratch.removeAll(keepingCapacity: true)
        var unchecked: String? = nil
        let complete = engine.scan(ScanInput(b: b, hints: hints), skipURLStructural: skipURL, into: &scratch, unchecked: &unchecked)
        if !complete {
            bound(
                "more than \(engine.maxCandidates) credential-anchor candidates in one value; the rest of it was not checked",
                location: location())
        }
        if let unchecked { bound(unchecked, location: location()) }
        guard !scratch.isEmpty else {
            encodedSpans(b, covered: [], since: since, location: location)
            return
        }
        let covered = scratch.compactMap { engine.detectors[$0.detector].generic ? nil : $0.start..<$0.end }
        defer { encodedSpans(b, covered: covered, since: since, location: location) }
        let loc = location()
        for h in scratch {
            let d = engine.detectors[h.detector]
            let value = String(decoding: UnsafeBufferPointer(rebasing: b[h.start..<h.end]), as: UTF8.self)
            var message =
                d.rule == VerifyRule.urlUserinfo.id
                ? "a URL carries a password in its userinfo"
                : "the value looks like \(article(d.title))"
            if h.severity < d.severity {
                message +=
                    "; rated \(h.severity.rawValue) below the rule's \(d.severity.rawValue): "
                    + ContentScanner.loweredBecause(d, h)
            }
            hits.append(RawHit(rule: d.rule, severity: h.severity, location: loc, value: value, message: message))
        }
    }

    /// Why a match stands below its rule's severity, said in every format's message.
    static func loweredBecause(_ d: Detector, _ h: DetHit) -> String {
        if let reason = h.reason { return reason }
        if h.placeholder { return "a placeholder or documentation value" }
        if h.testMode { return "a test-mode or sandbox key" }
        if d.id == "generic-secret" { return "a signature made with a key, not the key" }
        if d.id == "url-userinfo" { return "a user name alone, no password" }
        return "a lower-risk form of this credential"
    }

    /// A name (a JSON key, a header or parameter name) is checked like a value: a credential used as a
    /// name leaks just the same. Skipped when the record line holds no anchor at all.
    /// Names with a stem that the detectors found nothing in are remembered (`cleanNames`): records repeat them.
    func scanName(_ key: String, location: () -> String) {
        guard !key.isEmpty, lineHasStem else { return }
        var k = key
        k.withUTF8 { scanName(bytes: $0, location: location) }
    }

    /// `scanName` of a member name of the record line (a string value on its tape): skipped without
    /// decoding it when no stem starts in its raw bytes (escapes can't hide one: see `jsonText`).
    @inline(__always) func scanName(_ name: JSONValue, location: () -> String) {
        if recordLine != nil {
            name.withStringUTF8 { b in
                if nameFacts(b).hasStem { scanName(bytes: b, location: location) }
            }
            return
        }
        guard rawHasHit(name.contentRange) else { return }
        name.withStringUTF8 { scanName(bytes: $0, location: location) }
    }

    /// `scanName` of a member name whose facts (`nameFacts(name)`) are known: in a record line
    /// (`beginRecord`), a name with no stem in its bytes is skipped without another look.
    @inline(__always) func scanName(_ name: JSONValue, facts: NameFacts, location: () -> String) {
        if recordLine != nil {
            guard facts.hasStem else { return }
        } else {
            guard rawHasHit(name.contentRange) else { return }
        }
        name.withStringUTF8 { scanName(bytes: $0, location: location) }
    }

    /// `scanName` of a name's bytes.
    func scanName(bytes b: UnsafeBufferPointer<UInt8>, location: () -> String) {
        guard !b.isEmpty, lineHasStem(holding: b) else { return }
        guard hasStem(b), !cleanNames.contains(b) else { return }
        let saved = rawRange
        rawRange = nil
        let mark = hits.count
        shapes(b, hints: [], location: location)
        if hits.count == mark { cleanNames.insert(b) }
        rawRange = saved
    }

    /// A plain record field (`ts`, `type`, `level`, `seq`): the detectors when it is a string.
    func plainField(_ v: JSONValue, key: String) {
        guard v.isString else { return }
        withStringBytes(v) { b in shapes(b, hints: []) { key } }
    }

    /// `plainField` under a member name standing on the tape (its text made only for a location).
    func plainField(_ v: JSONValue, name: JSONValue) {
        guard v.isString else { return }
        withStringBytes(v) { b in shapes(b, hints: []) { name.string ?? "" } }
    }

    /// A line that is not a record, read as raw text: the tolerant JSON scanner (names, paths, listed
    /// fields), then the detectors over every byte for what lies outside quoted strings.
    func rawText(_ bytes: [UInt8], location: String) {
        beginLine(bytes)
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        bytes.withUnsafeBufferPointer { b in
            let before = hits.count
            jsonText(b, location: location, rawBase: 0, wholeIfNotJSON: false)
            notJSONText(b, level: 0, since: before, location: location, raw: 0..<b.count)
        }
    }

    /// A value under a listed name that is not exactly `***`: high, critical when it also has a credential shape.
    func breach(_ rule: RuleID, what: String, value b: UnsafeBufferPointer<UInt8>, location: String) {
        let shape = engine.shapeOf(b)
        var message = "\(what) is on the SDK's redaction list but its value is not ***"
        if let shape { message += "; it looks like \(article(shape.title))" }
        hits.append(
            RawHit(
                rule: rule, severity: shape == nil ? .high : .critical, location: location,
                value: String(decoding: b, as: UTF8.self), message: message))
    }

    static let multipartWord = Array("multipart/".utf8)
    static let formWord = Array("x-www-form-urlencoded".utf8)

    /// Whether a content type holds `word` (lowercase ASCII), ignoring ASCII case; no Foundation bridging.
    static func typeHas(_ contentType: String?, _ word: [UInt8]) -> Bool {
        guard var ct = contentType else { return false }
        return ct.withUTF8 { ScanInput(b: $0, hints: []).containsCI(word, 0, $0.count) }
    }

    /// Whether form or query text holds `%` or `+` (else it is its own decoding).
    @inline(__always) static func needsDecoding(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
    }

    /// Whether a value is an `http(s)://` URL: the contract's query names apply to every URL a
    /// record holds, wherever it stands (a redirect target, a URL in metadata or a HAR field).
    static func isURL(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count > 8, b[0] | 0x20 == UInt8(ascii: "h"), b[1] | 0x20 == UInt8(ascii: "t"), b[2] | 0x20 == UInt8(ascii: "t"),
            b[3] | 0x20 == UInt8(ascii: "p")
        else { return false }
        let at = b[4] | 0x20 == UInt8(ascii: "s") ? 5 : 4
        return b[at] == UInt8(ascii: ":") && b[at + 1] == UInt8(ascii: "/") && b[at + 2] == UInt8(ascii: "/")
    }

    @inline(__always) static func isMask(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        (b.count == 3 && b[0] == 0x2A && b[1] == 0x2A && b[2] == 0x2A) || ScrubPlaceholder.matches(b)
    }

}
