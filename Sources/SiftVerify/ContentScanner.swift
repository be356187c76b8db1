import SiftArchive
import SiftCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A finding before it is placed at a record: the value is turned into a preview and a fingerprint
/// as soon as the record is done, and never stored beyond that.
struct RawHit {
    var rule: RuleID
    var severity: Severity
    var location: String
    var value: String
    var message: String
    /// A bound stopped the checks here (`verify.bound`): no value, and the input is not verified in full.
    var bound = false
}

/// One step of a location path inside a record.
enum PathComp {
    case key(String)
    case index(Int)
    /// A member name as it stands on the tape (a string value): made a String only when rendered.
    case name(JSONValue)

    /// `.name` as the `.key` it stands for.
    var resolved: PathComp {
        if case .name(let v) = self { return .key(v.string ?? "") }
        return self
    }
}

/// What the checks ask of a name, packed in a word (`ContentScanner.nameFacts` caches it by the
/// name's bytes): its hints, and whether the body list, the header list and the URL-valued and
/// `Link` header names hold it.
struct NameFacts {
    let rawValue: UInt32
    /// Bits 16–23 are the cache's (the name's length), never a fact.
    static let lengthBits: UInt32 = 0xFF << 16
    static let headerBit: UInt32 = 1 << 24
    static let urlHeaderBit: UInt32 = 1 << 25
    static let linkHeaderBit: UInt32 = 1 << 26
    /// A detector's stem lies in the name's bytes (`DetectorEngine.hasStem`).
    static let stemBit: UInt32 = 1 << 27
    static let bodyBit: UInt32 = 1 << 31

    var hints: NameHints { NameHints(rawValue: rawValue & 0xFFFF) }
    var bodyListed: Bool { rawValue & NameFacts.bodyBit != 0 }
    var headerListed: Bool { rawValue & NameFacts.headerBit != 0 }
    var urlHeader: Bool { rawValue & NameFacts.urlHeaderBit != 0 }
    var linkHeader: Bool { rawValue & NameFacts.linkHeaderBit != 0 }
    var hasStem: Bool { rawValue & NameFacts.stemBit != 0 }
}

/// Where inside a record a value stands: `log.metadata $.a[0].b` (JSON path after a prefix) or
/// `metrics.transactions[0].remoteAddress` (dotted record fields). Rendered only when a hit needs it.
/// The first steps are held inline (no allocation for the usual two or three); deeper ones in `spill`.
struct Loc {
    var prefix: String
    var jsonPath: Bool
    private var c0: PathComp = .index(0), c1: PathComp = .index(0), c2: PathComp = .index(0), c3: PathComp = .index(0)
    private var spill: [PathComp] = []
    private var depth = 0

    init(_ prefix: String, jsonPath: Bool) {
        self.prefix = prefix
        self.jsonPath = jsonPath
    }

    mutating func push(_ c: PathComp) {
        switch depth {
        case 0: c0 = c
        case 1: c1 = c
        case 2: c2 = c
        case 3: c3 = c
        default: spill.append(c)
        }
        depth += 1
    }

    mutating func pop() {
        depth -= 1
        switch depth {
        case 0: c0 = .index(0)
        case 1: c1 = .index(0)
        case 2: c2 = .index(0)
        case 3: c3 = .index(0)
        default: spill.removeLast()
        }
    }

    /// The steps, outermost first.
    var comps: [PathComp] { (Array([c0, c1, c2, c3].prefix(depth)) + spill).map(\.resolved) }

    var lastKey: String? {
        for c in comps.reversed() { if case .key(let k) = c { return k } }
        return nil
    }

    func render() -> String {
        if jsonPath {
            var s = "$"
            for c in comps {
                switch c {
                case .key(let k): s = JSONValue.memberPath(s, clipName(k))
                case .index(let i): s += "[\(i)]"
                case .name: break   // `comps` gives names resolved
                }
            }
            return prefix.isEmpty ? s : prefix + " " + s
        }
        var s = prefix
        for c in comps {
            switch c {
            case .key(let k): s += s.isEmpty ? clipName(k) : "." + clipName(k)
            case .index(let i): s += "[\(i)]"
            case .name: break   // `comps` gives names resolved
            }
        }
        return s
    }
}

/// `a JSON Web Token`, `an AWS access key id`.
func article(_ title: String) -> String {
    guard let c = title.first else { return title }
    return ("AEIOUaeiou".contains(c) ? "an " : "a ") + title
}

/// Names from an export go into locations and messages: long ones are cut so a value can't ride along.
func clipName(_ s: String) -> String {
    // 64 bytes or fewer are 64 characters or fewer.
    if s.utf8.count <= 64 { return s }
    var count = 0
    for (i, _) in s.indices.enumerated() where i >= 64 { count = i; break }
    if count == 0 { return s }
    return String(s.prefix(64)) + "…"
}

/// Walks record fields, bodies, URLs and blobs, applying the redaction contract and the detectors.
/// Hits collect in `hits` until the caller takes them.
final class ContentScanner {
    let engine: DetectorEngine
    let headerNames: NameSet
    let queryNames: NameSet
    let bodyNames: NameSet
    /// Form and multipart field names: the body list and the query list together.
    let formNames: NameSet
    var hits: [RawHit] = []
    private var scratch: [DetHit] = []
    private var unescaped: [UInt8] = []

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
        hits.append(RawHit(rule: ContentScanner.boundRule, severity: .high, location: location, value: "",
                           message: message, bound: true))
    }

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

    // MARK: - Line prefilter

    /// Anchor-stem offsets in the current record line (see `DetectorEngine.stemHits`).
    private var lineHits: [Int] = []
    private var lineSaturatedFrom: Int? = nil
    /// The raw range (in the current line) of the value being scanned, when it came from the line.
    var rawRange: Range<Int>? = nil
    /// Where the bytes of that value start when they are the line's own (no escape to resolve).
    private var rawDirect: UnsafePointer<UInt8>? = nil

    /// Prepares the prefilter for one record line: one pass over its raw bytes.
    /// `skip`: ascending, disjoint ranges (inline JSON body texts) the JSON scanner checks value by value
    /// itself, so the line pass leaves out their keys and structure.
    func beginLine(_ bytes: [UInt8], skip: [Range<Int>] = []) {
        endRecord()
        lineHits.removeAll(keepingCapacity: true)
        lineSaturatedFrom = nil
        bytes.withUnsafeBufferPointer { b in
            var from = 0
            // Each stretch before a skipped range, then the one after the last (no array made for it).
            for k in 0...skip.count {
                let r = k < skip.count ? skip[k] : b.count..<b.count
                guard r.lowerBound >= from && r.upperBound <= b.count else { continue }
                if r.lowerBound > from, lineSaturatedFrom == nil {
                    lineSaturatedFrom = engine.stemHits(UnsafeBufferPointer(rebasing: b[from..<r.lowerBound]), base: from, into: &lineHits)
                }
                from = r.upperBound
            }
        }
    }

    /// The record line being checked, when its stems are looked for where a check asks (`beginRecord`)
    /// rather than in one pass over the line (`beginLine`); valid until `endRecord`.
    private var recordLine: UnsafeBufferPointer<UInt8>? = nil
    /// The document `recordLine` is the text of (its values are read in place there).
    private var recordDoc: JSONDocument? = nil
    private var recordSkip: [Range<Int>] = []
    /// Whether a stem lies in the record line outside `recordSkip` (found once, when first asked).
    private var recordHasStem: Bool? = nil

    /// Prepares the prefilter for one record line without a pass over it: a value, name or part of the
    /// line is looked at when a check asks about it (most of a line is names, numbers and structure,
    /// and names are asked about through `nameFacts`). `line` must stay valid until `endRecord()`;
    /// `skip` as for `beginLine`. The checks find what they find after `beginLine(line, skip)`.
    func beginRecord(_ line: UnsafeBufferPointer<UInt8>, of doc: JSONDocument, skip: [Range<Int>]) {
        lineHits.removeAll(keepingCapacity: true)
        lineSaturatedFrom = nil
        recordLine = line
        recordDoc = doc
        recordSkip = skip
        recordHasStem = nil
    }

    /// Ends what `beginRecord` began (the line is no longer read).
    func endRecord() {
        recordLine = nil
        recordDoc = nil
        recordHasStem = nil
    }

    /// Whether a stem lies in the line outside the skipped ranges: `beginLine` found some stem offset.
    private var lineHasStem: Bool {
        guard let line = recordLine else { return !(lineHits.isEmpty && lineSaturatedFrom == nil) }
        if let known = recordHasStem { return known }
        var found = false
        var from = 0
        // The stretches `beginLine` scans: before each skipped range it takes, and after the last.
        for k in 0...recordSkip.count where !found {
            let r = k < recordSkip.count ? recordSkip[k] : line.count..<line.count
            guard r.lowerBound >= from && r.upperBound <= line.count else { continue }
            if r.lowerBound > from { found = engine.hasStem(UnsafeBufferPointer(rebasing: line[from..<r.lowerBound])) }
            from = r.upperBound
        }
        recordHasStem = found
        return found
    }

    /// `lineHasStem`, found at once when `b` (a part of the record line outside the skipped ranges)
    /// holds a stem itself: a URL's `://` or a listed name's own stem tells without a look at the rest.
    private func lineHasStem(holding b: UnsafeBufferPointer<UInt8>) -> Bool {
        if recordHasStem == nil, let line = recordLine, let lb = line.baseAddress, let p = b.baseAddress,
           p >= lb, p + b.count <= lb + line.count {
            let s = p - lb, e = s + b.count
            if !recordSkip.contains(where: { $0.overlaps(s..<e) }) && engine.hasStem(b) { recordHasStem = true }
        }
        return lineHasStem
    }

    /// Whether a stem starts in `b` (a value the line pass left out).
    @inline(__always) func hasStem(_ b: UnsafeBufferPointer<UInt8>) -> Bool { engine.hasStem(b) }

    /// Whether an anchor stem starts inside `r` (offsets in the current line). Asked of a record line
    /// (`beginRecord`), whether one lies inside `r`: a value's raw range holds its quotes, and no stem
    /// holds a quote, so a stem starting in one lies in it; a part of a URL the detectors scan alone
    /// holds every anchor they can find there whole, and so its stem.
    @inline(__always) func rawHasHit(_ r: Range<Int>) -> Bool {
        if let line = recordLine {
            guard r.lowerBound >= 0 && r.upperBound <= line.count else { return true }
            return engine.hasStem(UnsafeBufferPointer(rebasing: line[r]))
        }
        if let s = lineSaturatedFrom, r.upperBound > s { return true }
        if lineHits.isEmpty { return false }
        var lo = 0, hi = lineHits.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if lineHits[mid] < r.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        return lo < lineHits.count && lineHits[lo] < r.upperBound
    }

    // MARK: - Key facts cache

    private static let keyCacheSize = 8192
    /// Keys of fewer than this many bytes are cached; a longer one is looked up each time.
    private static let keyCacheWidth = 32
    /// Each slot's answer: its `NameFacts`, with the key's length in bits 16–23 (`keyCacheEmpty`
    /// marks a slot never filled: no key is 255 bytes long here).
    private let keyCacheInfo: UnsafeMutablePointer<UInt32>
    private static let keyCacheEmpty: UInt32 = 0xFF << 16
    /// Each slot's key bytes as four little-endian words, zero past the key: a cached answer is used
    /// only for exactly those bytes, never for another key whose hash collides (an input can be made
    /// to collide with a name found clean).
    private let keyCacheWords: UnsafeMutablePointer<UInt64>

    /// The key bytes `p[from..<min(from + 8, count)]` as a little-endian word, zero above them.
    /// `readable`: how many bytes from `p` may be read (at least `count`); a whole word is loaded when it fits.
    @inline(__always) static func keyWord(_ p: UnsafePointer<UInt8>, _ from: Int, _ count: Int, _ readable: Int) -> UInt64 {
        let m = count - from
        if m <= 0 { return 0 }
        if from + 8 <= readable {
            let w = UInt64(littleEndian: UnsafeRawPointer(p + from).loadUnaligned(as: UInt64.self))
            return m >= 8 ? w : w & ((1 << UInt64(m << 3)) &- 1)
        }
        var w: UInt64 = 0
        var k = 0
        while k < m && k < 8 {
            w |= UInt64(p[from + k]) << UInt64(k << 3)
            k += 1
        }
        return w
    }

    /// Whether a raw JSON key is on the body list, and its hints; cached by the key's bytes.
    /// `readable`: how many bytes from the key's start may be read (the rest of the text it stands
    /// in), so that its bytes are loaded a word at a time; nil when only the key itself may be.
    @inline(__always) func keyInfo(_ raw: UnsafeBufferPointer<UInt8>, readable: Int? = nil) -> (listed: Bool, hints: NameHints) {
        let f = nameFacts(raw, readable: readable)
        return (f.bodyListed, f.hints)
    }

    /// `keyInfo` with the key's hash given (tests force collisions through it).
    func keyInfo(_ raw: UnsafeBufferPointer<UInt8>, hash: UInt64) -> (listed: Bool, hints: NameHints) {
        let f = nameFacts(raw, hash: hash)
        return (f.bodyListed, f.hints)
    }

    /// Everything the checks ask of a name (`NameFacts`), cached by the name's bytes. `readable`: as
    /// for `keyInfo`.
    @inline(__always) func nameFacts(_ raw: UnsafeBufferPointer<UInt8>, readable: Int? = nil) -> NameFacts {
        let n = raw.count
        guard n < ContentScanner.keyCacheWidth, let p = raw.baseAddress else { return computeNameFacts(raw) }
        let r = max(readable ?? n, n)
        let w0 = ContentScanner.keyWord(p, 0, n, r)
        let w1 = n > 8 ? ContentScanner.keyWord(p, 8, n, r) : 0
        let w2 = n > 16 ? ContentScanner.keyWord(p, 16, n, r) : 0
        let w3 = n > 24 ? ContentScanner.keyWord(p, 24, n, r) : 0
        var h = (w0 &* 0x9E37_79B9_7F4A_7C15) ^ (w1 &* 0xC2B2_AE3D_27D4_EB4F) ^ (w2 &* 0x1656_67B1_9E37_79F9)
            ^ (w3 &* 0x85EB_CA77_C2B2_AE63) ^ UInt64(n)
        h ^= h >> 29
        return nameFacts(raw, words: (w0, w1, w2, w3), hash: h &* 0xBF58_476D_1CE4_E5B9)
    }

    /// `nameFacts` with the name's hash given (tests force collisions through it).
    func nameFacts(_ raw: UnsafeBufferPointer<UInt8>, hash: UInt64) -> NameFacts {
        let n = raw.count
        guard n < ContentScanner.keyCacheWidth, let p = raw.baseAddress else { return computeNameFacts(raw) }
        let words = (ContentScanner.keyWord(p, 0, n, n), ContentScanner.keyWord(p, 8, n, n), ContentScanner.keyWord(p, 16, n, n),
                     ContentScanner.keyWord(p, 24, n, n))
        return nameFacts(raw, words: words, hash: hash)
    }

    /// The cache lookup of a name under 32 bytes, given its bytes as words (`keyWord`) and its hash.
    /// Two slots per hash: two names a run keeps using whose hashes meet (`method` and `function` do)
    /// both stay, rather than each pushing the other out.
    @inline(__always) private func nameFacts(_ raw: UnsafeBufferPointer<UInt8>, words: (UInt64, UInt64, UInt64, UInt64),
                                             hash h: UInt64) -> NameFacts {
        let first = Int(truncatingIfNeeded: (h >> 17) ^ h) & (ContentScanner.keyCacheSize - 2)
        let n = raw.count
        @inline(__always) func holds(_ slot: Int) -> Bool {
            let kept = keyCacheWords + slot * 4
            return Int((keyCacheInfo[slot] >> 16) & 0xFF) == n && kept[0] == words.0 && kept[1] == words.1 && kept[2] == words.2
                && kept[3] == words.3
        }
        if holds(first) { return NameFacts(rawValue: keyCacheInfo[first] & ~NameFacts.lengthBits) }
        if holds(first + 1) { return NameFacts(rawValue: keyCacheInfo[first + 1] & ~NameFacts.lengthBits) }
        let facts = computeNameFacts(raw)
        // The newest name in the first slot; the one it displaces moves to the second.
        keyCacheInfo[first + 1] = keyCacheInfo[first]
        (keyCacheWords + (first + 1) * 4).update(from: keyCacheWords + first * 4, count: 4)
        keyCacheInfo[first] = facts.rawValue | UInt32(n) << 16
        let kept = keyCacheWords + first * 4
        kept[0] = words.0
        kept[1] = words.1
        kept[2] = words.2
        kept[3] = words.3
        return facts
    }

    /// What `nameFacts` caches: the contract's lists and the hints of a raw name.
    private func computeNameFacts(_ raw: UnsafeBufferPointer<UInt8>) -> NameFacts {
        var v = NameHints.of(raw: raw).rawValue
        if bodyNames.contains(raw: raw) { v |= NameFacts.bodyBit }
        if headerNames.contains(raw: raw) { v |= NameFacts.headerBit }
        if ContentScanner.urlHeaderNames.contains(raw: raw) { v |= NameFacts.urlHeaderBit }
        if ContentScanner.linkHeaderName.contains(raw: raw) { v |= NameFacts.linkHeaderBit }
        if engine.hasStem(raw) { v |= NameFacts.stemBit }
        return NameFacts(rawValue: v)
    }

    /// `keyInfo` for a key already decoded to a String.
    func keyInfo(_ key: String) -> (listed: Bool, hints: NameHints) {
        var k = key
        return k.withUTF8 { keyInfo($0) }
    }

    /// Hints of a member name standing on the tape (cached; no String made).
    func hints(_ name: JSONValue) -> NameHints { name.withStringUTF8 { nameFacts($0).hints } }

    /// Calls `body` with a member name's bytes as `withStringUTF8` gives them: read where they stand in
    /// the record line when it is written plainly.
    @inline(__always) func withNameBytes<R>(_ name: JSONValue, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let line = recordLine, name.doc === recordDoc, let r = name.plainContentRange, r.upperBound <= line.count {
            return body(UnsafeBufferPointer(rebasing: line[r]))
        }
        return name.withStringUTF8(body)
    }

    /// Facts of a member name standing on the tape (cached; no String made).
    @inline(__always) func nameFacts(_ name: JSONValue) -> NameFacts {
        if let line = recordLine, name.doc === recordDoc, let r = name.plainContentRange, r.upperBound <= line.count {
            // A name of the record line, read where it stands (its bytes are what `withStringUTF8` gives).
            return nameFacts(UnsafeBufferPointer(rebasing: line[r]), readable: line.count - r.lowerBound)
        }
        return name.withStringUTF8 { nameFacts($0) }
    }

    /// Hints of a name (cached).
    func hints(_ key: String) -> NameHints { keyInfo(key).hints }

    // MARK: - Detectors and contract breaches

    /// Runs the detectors over `b`, reporting each match at `location`.
    func shapes(_ b: UnsafeBufferPointer<UInt8>, hints: NameHints, skipURL: Bool = false, raw: Range<Int>? = nil,
                location: () -> String) {
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
        let complete = engine.scan(ScanInput(b: b, hints: hints), skipURLStructural: skipURL, into: &scratch)
        if !complete {
            bound("more than \(engine.maxCandidates) credential-anchor candidates in one value; the rest of it was not checked",
                  location: location())
        }
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
            var message = d.rule == VerifyRule.urlUserinfo.id
                ? "a URL carries a password in its userinfo"
                : "the value looks like \(article(d.title))"
            if h.severity < d.severity {
                message += "; rated \(h.severity.rawValue) below the rule's \(d.severity.rawValue): "
                    + ContentScanner.loweredBecause(d, h)
            }
            hits.append(RawHit(rule: d.rule, severity: h.severity, location: loc, value: value, message: message))
        }
    }

    /// Why a match stands below its rule's severity, said in every format's message.
    static func loweredBecause(_ d: Detector, _ h: DetHit) -> String {
        if h.placeholder { return "a placeholder or documentation value" }
        if h.severity == .low { return "a test-mode or sandbox key" }
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

    /// Names `scanName` checked and found clean (the check depends on the name's bytes alone).
    private let cleanNames = ByteMemo(.names)

    /// The detectors over the percent-decoding of `b`, when it holds a `%XX` escape; a value already
    /// reported from `hits[since...]` (found in the text as it stands) is not reported again.
    func percentEncoded(_ b: UnsafeBufferPointer<UInt8>, since: Int, location: () -> String) {
        guard let base = b.baseAddress, memchr(base, 0x25, b.count) != nil else { return }
        let decoded = Percent.decode(b, plusIsSpace: false)
        guard decoded.count < b.count else { return }
        decoded.withUnsafeBufferPointer { decodedForm($0, since: since, location: location) }
    }

    /// The detectors over a decoded form `d` of a value, when it holds a detector's stem; a value
    /// already reported from `hits[since...]` (found in the text as it stands) is not reported again.
    private func decodedForm(_ d: UnsafeBufferPointer<UInt8>, since: Int, location: () -> String) {
        guard hasStem(d) else { return }
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        let mark = hits.count
        shapes(d, hints: [], location: location)
        guard hits.count > mark else { return }
        let known = Set(hits[since..<mark].map(\.value))
        let fresh = hits[mark...].filter { $0.bound || !known.contains($0.value) }
        hits.removeSubrange(mark...)
        hits.append(contentsOf: fresh)
    }

    /// The detectors over each base64 run of `b` (20 characters or more of either alphabet), decoded,
    /// when it decodes to something holding a detector's stem: a credential written in base64 in a
    /// message or a field leaks just the same. A value already reported from `hits[since...]` is not
    /// reported again.
    func base64Encoded(_ b: UnsafeBufferPointer<UInt8>, since: Int, location: () -> String) {
        guard b.count >= ContentScanner.base64MinRun else { return }
        var i = 0
        while i < b.count {
            guard ContentScanner.base64Bytes.contains(b[i]) else { i += 1; continue }
            var e = i
            while e < b.count && ContentScanner.base64Bytes.contains(b[e]) { e += 1 }
            defer { i = e }
            let n = e - i
            guard n >= ContentScanner.base64MinRun else { continue }
            // A run whose length leaves one symbol over can't end a base64 text: that symbol goes.
            runBuffer.withDecoded(UnsafeBufferPointer(rebasing: b[i..<(e - (n % 4 == 1 ? 1 : 0))])) { decoded in
                if let decoded { decodedForm(decoded, since: since, location: location) }
            }
        }
    }

    static let base64Bytes = ByteSet("A-Za-z0-9+/_-")
    /// Where `base64Encoded` decodes a run, and `body` a base64 body (neither calls the other).
    private let runBuffer = Base64Buffer()
    private let bodyBuffer = Base64Buffer()
    static let base64MinRun = 20

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
            jsonText(b, location: location, rawBase: 0)
            let found = Set(hits[before...].map(\.value))
            let mark = hits.count
            shapes(b, hints: [], raw: 0..<b.count) { location }
            if hits.count > mark {
                let extra = hits[mark...].filter { h in
                    h.bound || !found.contains { f in !f.isEmpty && (h.value.contains(f) || f.contains(h.value)) }
                }
                hits.removeSubrange(mark...)
                hits.append(contentsOf: extra)
            }
        }
    }

    /// A value under a listed name that is not exactly `***`: high, critical when it also has a credential shape.
    func breach(_ rule: RuleID, what: String, value b: UnsafeBufferPointer<UInt8>, location: String) {
        let shape = engine.shapeOf(b)
        var message = "\(what) is on the SDK's redaction list but its value is not ***"
        if let shape { message += "; it looks like \(article(shape.title))" }
        hits.append(RawHit(rule: rule, severity: shape == nil ? .high : .critical, location: location,
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
              b[3] | 0x20 == UInt8(ascii: "p") else { return false }
        let at = b[4] | 0x20 == UInt8(ascii: "s") ? 5 : 4
        return b[at] == UInt8(ascii: ":") && b[at + 1] == UInt8(ascii: "/") && b[at + 2] == UInt8(ascii: "/")
    }

    @inline(__always) static func isMask(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        (b.count == 3 && b[0] == 0x2A && b[1] == 0x2A && b[2] == 0x2A) || ScrubPlaceholder.matches(b)
    }

    // MARK: - Record fields (tape values)

    /// Calls `body` with a string value's decoded bytes (no copy when it has no escape); while it runs,
    /// `rawRange` is the value's place in the line, for the prefilter.
    func withStringBytes<R>(_ v: JSONValue, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let line = recordLine, v.doc === recordDoc, v.isString {
            // A value of the record line: read where it stands (no slice of the document's bytes made).
            let r = v.contentRange
            let saved = rawRange, savedDirect = rawDirect
            rawRange = (r.lowerBound - 1)..<(r.upperBound + 1)
            defer { rawRange = saved; rawDirect = savedDirect }
            let inner = UnsafeBufferPointer(rebasing: line[r])
            if let base = inner.baseAddress, memchr(base, 0x5C, inner.count) != nil {
                rawDirect = nil
                let decoded = v.stringBytes
                return decoded.withUnsafeBufferPointer(body)
            }
            rawDirect = inner.baseAddress
            return body(inner)
        }
        let raw = v.rawBytes
        let saved = rawRange, savedDirect = rawDirect
        rawRange = raw.startIndex..<raw.endIndex
        defer { rawRange = saved; rawDirect = savedDirect }
        let direct: R? = raw.withUnsafeBufferPointer { rb -> R? in
            guard rb.count >= 2 else { return nil }
            let inner = UnsafeBufferPointer(rebasing: rb[1..<(rb.count - 1)])
            if let base = inner.baseAddress, memchr(base, 0x5C, inner.count) != nil { return nil }
            rawDirect = inner.baseAddress
            return body(inner)
        }
        if let direct { return direct }
        rawDirect = nil
        let decoded = v.stringBytes
        return decoded.withUnsafeBufferPointer(body)
    }

    /// Walks a value: under `names` (when given) a listed key must hold `***`; every string gets the detectors.
    func walk(_ v: JSONValue, _ loc: inout Loc, names: NameSet?, rule: RuleID?, what: String, listed: Bool, hints: NameHints) {
        switch v.kind {
        case .object:
            v.forEachMemberName { k, x in
                let l = listed || (names.map { set in k.withStringUTF8 { set.contains(raw: $0) } } ?? false)
                loc.push(.name(k))
                let facts = nameFacts(k)
                scanName(k, facts: facts) { loc.render() }
                walk(x, &loc, names: names, rule: rule, what: what, listed: l, hints: facts.hints)
                loc.pop()
            }
        case .array:
            var i = 0
            v.forEachElement { x in
                loc.push(.index(i))
                walk(x, &loc, names: names, rule: rule, what: what, listed: listed, hints: hints)
                loc.pop()
                i += 1
            }
        case .string:
            withStringBytes(v) { b in
                if listed, let rule {
                    if !b.isEmpty && !ContentScanner.isMask(b) {
                        breach(rule, what: "\(what) '\(clipName(loc.lastKey ?? ""))'", value: b, location: loc.render())
                    }
                } else {
                    let mark = hits.count
                    shapes(b, hints: hints) { loc.render() }
                    if ContentScanner.isURL(b) {
                        listedQuery(b, location: loc.render())
                    } else {
                        percentEncoded(b, since: mark) { loc.render() }
                        // A JSON document serialised into a metadata value: its names are on the same list.
                        if let rule, names != nil && jsonInString < 3 && looksLikeJSON(b, level: 0) {
                            innerDocument(b, shapeHitsFrom: mark, location: loc.render(), rule: rule, what: what)
                        }
                    }
                }
            }
        case .number:
            if listed, let rule {
                let raw = Array(v.rawBytes)
                raw.withUnsafeBufferPointer { breach(rule, what: "\(what) '\(clipName(loc.lastKey ?? ""))'", value: $0, location: loc.render()) }
            }
        default:
            break
        }
    }

    /// `walk` of a string value under no name list and no listed name (`walk(v, &loc, names: nil, …,
    /// listed: false, hints:)`): the detectors, then a URL's listed query or the percent-decoding.
    /// `location` is what `loc.render()` gives there, made only when a check needs it.
    @inline(__always) func plainString(_ v: JSONValue, hints: NameHints, location: () -> String) {
        withStringBytes(v) { b in
            let mark = hits.count
            shapes(b, hints: hints, location: location)
            if ContentScanner.isURL(b) {
                listedQuery(b, location: location())
            } else {
                percentEncoded(b, since: mark, location: location)
            }
        }
    }

    /// Free text (a log message, an error description): detectors only, on the text and on its
    /// percent-decoding (a credential written `%67%68%70…` in a message leaks just the same).
    func freeText(_ v: JSONValue, location: String) {
        if v.isString {
            withStringBytes(v) { b in
                let mark = hits.count
                shapes(b, hints: []) { location }
                percentEncoded(b, since: mark) { location }
            }
        } else {
            var loc = Loc(location, jsonPath: false)
            walk(v, &loc, names: nil, rule: nil, what: "", listed: false, hints: [])
        }
    }

    /// `request.headers` / `response.headers`: the header list, URL-valued headers, detectors on the rest.
    func headers(_ list: JSONValue, side: String) {
        var index = 0
        list.forEachElement { h in
            defer { index += 1 }
            let (nameMember, valueMember) = ContentScanner.nameAndValue(h)
            guard let nameNode = nameMember, nameNode.isString, let value = valueMember else {
                var loc = Loc("\(side).headers[\(index)]", jsonPath: false)
                walk(h, &loc, names: nil, rule: nil, what: "", listed: false, hints: [])
                return
            }
            // The name's facts from its bytes (cached); its text is made only for a location or a message.
            let facts = nameFacts(nameNode)
            scanName(nameNode, facts: facts) { "\(side).headers[\(index)].name" }
            guard value.isString else { return }
            func name() -> String { nameNode.string ?? "" }
            withStringBytes(value) { b in
                if facts.headerListed {
                    if !ContentScanner.isMask(b) {
                        let name = name()
                        breach(VerifyRule.header.id, what: "header '\(clipName(name))'", value: b, location: "\(side).headers[\(clipName(name))]")
                    }
                    return
                }
                if facts.urlHeader {
                    let name = name()
                    let location = "\(side).headers[\(clipName(name))]"
                    if facts.linkHeader {
                        linkHeader(b, location: location, header: name)
                    } else {
                        url(b, location: location, queryRule: VerifyRule.urlInHeader.id, header: name)
                    }
                } else {
                    shapes(b, hints: facts.hints) { "\(side).headers[\(clipName(name()))]" }
                }
            }
        }
    }

    private static let nameWord: StaticString = "name"
    private static let valueWord: StaticString = "value"

    /// `h.member("name")` and `h.member("value")` (the first member of each name), found in one pass.
    static func nameAndValue(_ h: JSONValue) -> (name: JSONValue?, value: JSONValue?) {
        h.doc.withTape { t in
            var name: Int? = nil, value: Int? = nil
            let nameBytes = UnsafeBufferPointer(start: nameWord.utf8Start, count: nameWord.utf8CodeUnitCount)
            let valueBytes = UnsafeBufferPointer(start: valueWord.utf8Start, count: valueWord.utf8CodeUnitCount)
            t.forEachMember(h.tapeIndex) { k, v in
                if name == nil && t.equals(k, nameBytes) {
                    name = v
                } else if value == nil && t.equals(k, valueBytes) {
                    value = v
                }
            }
            return (name.map(t.value), value.map(t.value))
        }
    }

    /// `Link: <url>; rel=…, <url>; …`: every URL in angle brackets.
    private func linkHeader(_ b: UnsafeBufferPointer<UInt8>, location: String, header: String) {
        var i = 0
        var scanned = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "<") {
                var e = i + 1
                while e < b.count && b[e] != UInt8(ascii: ">") { e += 1 }
                url(UnsafeBufferPointer(rebasing: b[(i + 1)..<e]), location: location, queryRule: VerifyRule.urlInHeader.id, header: header)
                // The text between URLs (parameters) still gets the detectors.
                if i > scanned { shapes(UnsafeBufferPointer(rebasing: b[scanned..<i]), hints: []) { location } }
                i = e + 1
                scanned = min(i, b.count)
            } else {
                i += 1
            }
        }
        if scanned < b.count { shapes(UnsafeBufferPointer(rebasing: b[scanned..<b.count]), hints: []) { location } }
    }

    /// A URL: the password of its userinfo, its listed query (and fragment) parameters, detectors elsewhere.
    /// A URL found clean is remembered (`cleanURLs`): records repeat their endpoints.
    func url(_ b: UnsafeBufferPointer<UInt8>, location: String, queryRule: RuleID, header: String? = nil) {
        // What the checks find in a URL depends on its bytes alone (the rule, the header and the location
        // only name what they find; the line's stem offsets only let clean parts be skipped), except that
        // its parameter names are checked as values only in a line holding some stem (`scanName`): the
        // memo keeps the two cases apart. Not inside a nested value (its bounds depend on the nesting).
        let memo = nesting == 0 && encodedDepth == 0 && jsonInString == 0
        let tag: UInt8 = lineHasStem(holding: b) ? 2 : 1
        if memo && cleanURLs.contains(b, tag: tag) { return }
        let mark = hits.count
        defer { if memo && hits.count == mark { cleanURLs.insert(b, tag: tag) } }
        urlChecks(b, location: location, queryRule: queryRule, header: header)
    }

    /// URLs found clean, by line case (see `url`).
    private let cleanURLs = ByteMemo(.urls)

    /// `url`'s checks.
    private func urlChecks(_ b: UnsafeBufferPointer<UInt8>, location: String, queryRule: RuleID, header: String?) {
        let n = b.count
        // When `b` is the value as it stands in the line (no escape: the raw range is the text and its two
        // quotes), each part is prefiltered by its own raw range rather than the whole URL's.
        let rawStart: Int? = b.baseAddress != nil && b.baseAddress == rawDirect ? rawRange.flatMap { $0.count == n + 2 ? $0.lowerBound + 1 : nil } : nil
        func raw(_ lo: Int, _ hi: Int) -> Range<Int>? { rawStart.map { ($0 + lo)..<($0 + hi) } }
        var q = n, f = n
        for i in 0..<n {
            if b[i] == UInt8(ascii: "?") && q == n { q = i }
            if b[i] == UInt8(ascii: "#") { f = i; break }
        }
        if q > f { q = f }
        // Userinfo: scheme://user:password@host
        var pw: DetMatch? = nil
        let t = ScanInput(b: UnsafeBufferPointer(rebasing: b[0..<q]), hints: [])
        var authorityEnd = q
        if let sep = t.find(Array("://".utf8), 0, q) {
            pw = urlPassword(t, sep + 3, limit: q)
            var e = sep + 3
            while e < q && !Sets.authorityStop.contains(b[e]) { e += 1 }
            authorityEnd = e
        }
        if let pw, !ContentScanner.isMask(UnsafeBufferPointer(rebasing: b[pw.start..<pw.end])) {
            let value = UnsafeBufferPointer(rebasing: b[pw.start..<pw.end])
            let shape = engine.shapeOf(value)
            // A user name alone (no password) that looks random: a token used as the user.
            let userOnly = pw.severity == .medium
            let what = userOnly ? "a random-looking user name (a token)" : "a password"
            var message = header.map { "a URL in header '\(clipName($0))' carries \(what) in its userinfo" }
                ?? "the URL carries \(what) in its userinfo"
            if let shape { message += "; it looks like \(article(shape.title))" }
            let severity: Severity = shape != nil ? .critical : userOnly ? .medium : .high
            hits.append(RawHit(rule: VerifyRule.urlUserinfo.id, severity: severity, location: location,
                               value: String(decoding: value, as: UTF8.self), message: message))
        }
        // Detectors over scheme, authority and path (the password was reported above).
        let before = hits.count
        shapes(UnsafeBufferPointer(rebasing: b[0..<authorityEnd]), hints: [], skipURL: true, raw: raw(0, authorityEnd)) { location }
        if let pw, hits.count > before {
            // Scan around the password (reported above) so a token used as the user name is still seen.
            hits.removeSubrange(before...)
            shapes(UnsafeBufferPointer(rebasing: b[0..<pw.start]), hints: [], skipURL: true, raw: raw(0, pw.start)) { location }
            shapes(UnsafeBufferPointer(rebasing: b[pw.end..<authorityEnd]), hints: [], skipURL: true, raw: raw(pw.end, authorityEnd)) { location }
        }
        // The path may carry a URL of its own (a redirect target with userinfo): every detector runs there.
        if authorityEnd < q { shapes(UnsafeBufferPointer(rebasing: b[authorityEnd..<q]), hints: [], raw: raw(authorityEnd, q)) { location } }
        if q < f {
            params(UnsafeBufferPointer(rebasing: b[(q + 1)..<f]), sigil: "?", location: location, rule: queryRule, header: header,
                   rawStart: rawStart.map { $0 + q + 1 })
        }
        if f + 1 < n {
            params(UnsafeBufferPointer(rebasing: b[(f + 1)..<n]), sigil: "#", location: location, rule: queryRule, header: header,
                   rawStart: rawStart.map { $0 + f + 1 })
        }
    }

    /// How deep `nestedValue` has gone.
    private var nesting = 0
    /// How deep JSON documents held in JSON strings have been followed.
    private var jsonInString = 0
    /// How deep `encodedSpans` has decoded (base64 in hex…).
    var encodedDepth = 0

    /// A query value that is a URL or a query of its own (a redirect target, `return_to=`), or that
    /// is percent-encoded once more: its listed parameters and its shapes are checked too, three
    /// levels deep.
    private func nestedValue(_ v: UnsafeBufferPointer<UInt8>, location: String) {
        guard nesting < 3 else { return }
        nesting += 1
        defer { nesting -= 1 }
        if v.contains(UInt8(ascii: "?")) || v.contains(UInt8(ascii: "#")) { listedQuery(v, location: location) }
        if v.contains(UInt8(ascii: "%")) {
            let again = Percent.decode(v, plusIsSpace: true)
            guard again.count < v.count else { return }
            again.withUnsafeBufferPointer { d in
                shapes(d, hints: []) { location }
                nestedValue(d, location: location)
            }
        }
    }

    /// A URL standing in any other field (the detectors ran over it whole): its query and fragment
    /// parameters under the contract's query names must be `***` too.
    func listedQuery(_ b: UnsafeBufferPointer<UInt8>, location: String) {
        let n = b.count
        var q = n, f = n
        for i in 0..<n {
            if b[i] == UInt8(ascii: "?") && q == n { q = i }
            if b[i] == UInt8(ascii: "#") { f = i; break }
        }
        if q > f { q = f }
        if q < f {
            params(UnsafeBufferPointer(rebasing: b[(q + 1)..<f]), sigil: "?", location: location, rule: VerifyRule.query.id,
                   header: nil, onlyListed: true)
        }
        if f + 1 < n {
            params(UnsafeBufferPointer(rebasing: b[(f + 1)..<n]), sigil: "#", location: location, rule: VerifyRule.query.id,
                   header: nil, onlyListed: true)
        }
    }

    /// `a=1&b=2` of a query or fragment (`onlyListed`: only the listed names are checked).
    /// `rawStart`: where `b` starts in the line when it stands there as is; a value that needs no decoding
    /// is then prefiltered by its own raw range.
    private func params(_ b: UnsafeBufferPointer<UInt8>, sigil: String, location: String, rule: RuleID, header: String?,
                        onlyListed: Bool = false, rawStart: Int? = nil) {
        // Values are percent-decoded: the raw-line prefilter does not apply to them.
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        var start = 0
        while start <= b.count {
            var end = start
            while end < b.count && b[end] != UInt8(ascii: "&") && b[end] != UInt8(ascii: ";") { end += 1 }
            if end > start {
                let pair = UnsafeBufferPointer(rebasing: b[start..<end])
                var eq = pair.count
                for k in 0..<pair.count where pair[k] == UInt8(ascii: "=") { eq = k; break }
                let rawName = UnsafeBufferPointer(rebasing: pair[0..<eq])
                let rawValue = eq < pair.count ? UnsafeBufferPointer(rebasing: pair[(eq + 1)...]) : UnsafeBufferPointer(rebasing: pair[pair.count...])
                // Percent-decode only when there is something to decode.
                let name = ContentScanner.needsDecoding(rawName) ? Percent.decode(rawName, plusIsSpace: true) : nil
                let value = ContentScanner.needsDecoding(rawValue) ? Percent.decode(rawValue, plusIsSpace: true) : nil
                func withBytes<R>(_ decoded: [UInt8]?, _ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
                    if let decoded { return decoded.withUnsafeBufferPointer(body) }
                    return body(raw)
                }
                withBytes(name, rawName) { n in
                    let listed = queryNames.contains(raw: n)
                    func nameText() -> String { clipName(String(decoding: n, as: UTF8.self)) }
                    if onlyListed && !listed { return }
                    if !listed { scanName(String(decoding: n, as: UTF8.self)) { "\(location) \(sigil)\(nameText())" } }
                    withBytes(value, rawValue) { v in
                        if listed {
                            if !v.isEmpty && !ContentScanner.isMask(v) {
                                let what = header.map { "query parameter '\(nameText())' of a URL in header '\(clipName($0))'" }
                                    ?? "query parameter '\(nameText())'"
                                breach(rule, what: what, value: v, location: "\(location) \(sigil)\(nameText())")
                            }
                        } else {
                            let valueRaw = value == nil && eq < pair.count ? rawStart.map { ($0 + start + eq + 1)..<($0 + end) } : nil
                            shapes(v, hints: keyInfo(n).hints, raw: valueRaw) { "\(location) \(sigil)\(nameText())" }
                            // Only a value holding `?`, `#` or `%` has anything nested (its location is built then).
                            if v.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "%") }) {
                                nestedValue(v, location: "\(location) \(sigil)\(nameText())")
                            }
                        }
                    }
                }
            }
            start = end + 1
        }
    }

    // MARK: - Bodies

    /// A body object: inline text, base64, or a blob reference (returned for the caller to resolve later).
    func body(_ v: JSONValue, location: String) -> String? {
        guard v.isObject else { return nil }
        let m = ContentScanner.bodyMembers(v)
        if m.blob == nil, let enc = m.encoding, enc.stringEquals("utf8"), let t = m.text, t.isString {
            textBody(t, contentType: m.contentType?.string, location: location)
            extras(v, location: location)
            return nil
        }
        if m.blob.map({ !$0.isString }) ?? true, let enc = m.encoding, enc.stringEquals("base64"), let d = m.data, d.isString {
            // What `Body` makes of it (`.base64`), decoded from the value's bytes without a String in between
            // (bytes that are not base64 fail the decoding either way).
            let contentType = m.contentType?.string
            let saved = rawRange, savedDirect = rawDirect
            // What `content` finds in the decoding depends on its bytes and on the content type's class
            // alone (multipart and form types aside): bytes found clean before are clean again.
            let tag: UInt8 = ContentScanner.typeHas(contentType, ContentScanner.multipartWord)
                || ContentScanner.typeHas(contentType, ContentScanner.formWord) ? 0 : (contentType ?? "").isEmpty ? 1 : 2
            let memo = tag != 0 && saved == nil && jsonInString == 0 && nesting == 0 && encodedDepth == 0
            withStringBytes(d) { data in
                if memo && cleanBase64Bodies.contains(data, tag: tag) { return }
                let mark = hits.count
                defer { if memo && hits.count == mark { cleanBase64Bodies.insert(data, tag: tag) } }
                bodyBuffer.withDecoded(data) { decoded in
                    // The decoding is checked with the scanner's state as it was outside `withStringBytes`.
                    let inner = rawRange, innerDirect = rawDirect
                    rawRange = saved
                    rawDirect = savedDirect
                    if let decoded { content(decoded, contentType: contentType, location: location, depth: 0) }
                    rawRange = inner
                    rawDirect = innerDirect
                }
            }
            extras(v, location: location)
            return nil
        }
        let body = Body(location: location, json: v)
        switch body.content {
        case .text:
            if let t = m.text, t.isString {
                withStringBytes(t) { content($0, contentType: body.contentType, location: location, depth: 0) }
            }
        case .base64(let bytes, _):
            if let bytes { bytes.withUnsafeBufferPointer { content($0, contentType: body.contentType, location: location, depth: 0) } }
        case .blob(let hex, _, _, _):
            // A reference that is not `sha256:<64 hex>` is text like any other: a credential can stand there.
            if hex == nil, let r = m.blob, r.isString {
                withStringBytes(r) { shapes($0, hints: []) { "\(location).blob" } }
            }
            return hex
        case .none, .invalid:
            break
        }
        extras(v, location: location)
        return nil
    }

    /// The members of a body object `body` reads: the first of each name, as `member` finds it, in one pass.
    struct BodyMembers {
        var blob: JSONValue? = nil
        var encoding: JSONValue? = nil
        var text: JSONValue? = nil
        var contentType: JSONValue? = nil
        var data: JSONValue? = nil
    }

    private static let blobWord: StaticString = "blob"
    private static let encodingWord: StaticString = "encoding"
    private static let textWord: StaticString = "text"
    private static let contentTypeWord: StaticString = "contentType"
    private static let dataWord: StaticString = "data"

    static func bodyMembers(_ v: JSONValue) -> BodyMembers {
        v.doc.withTape { t in
            var found: (blob: Int?, encoding: Int?, text: Int?, contentType: Int?, data: Int?) = (nil, nil, nil, nil, nil)
            @inline(__always) func bytes(_ w: StaticString) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(start: w.utf8Start, count: w.utf8CodeUnitCount)
            }
            t.forEachMember(v.tapeIndex) { k, x in
                if found.blob == nil && t.equals(k, bytes(blobWord)) {
                    found.blob = x
                } else if found.encoding == nil && t.equals(k, bytes(encodingWord)) {
                    found.encoding = x
                } else if found.text == nil && t.equals(k, bytes(textWord)) {
                    found.text = x
                } else if found.contentType == nil && t.equals(k, bytes(contentTypeWord)) {
                    found.contentType = x
                } else if found.data == nil && t.equals(k, bytes(dataWord)) {
                    found.data = x
                }
            }
            return BodyMembers(blob: found.blob.map(t.value), encoding: found.encoding.map(t.value), text: found.text.map(t.value),
                               contentType: found.contentType.map(t.value), data: found.data.map(t.value))
        }
    }

    /// Any other member of a body object (a hostile writer's extras) gets the detectors.
    private func extras(_ v: JSONValue, location: String) {
        v.forEachMemberName { k, x in
            guard x.isString, !k.stringEquals("text"), !k.stringEquals("data"), !k.stringEquals("blob") else { return }
            // `walk` of the string under `Loc(location)` holding the name.
            plainString(x, hints: hints(k)) { location.isEmpty ? clipName(k.string ?? "") : location + "." + clipName(k.string ?? "") }
        }
    }

    /// Inline JSON body texts (as they stand in the line) found clean.
    private let cleanBodies = ByteMemo(.cleanTexts)
    /// Base64 body texts whose decoding was found clean, tagged by the content type's class.
    private let cleanBase64Bodies = ByteMemo(.cleanTexts)

    /// An inline utf8 body: a JSON document is scanned where it stands in the line (still escaped);
    /// anything else is decoded and dispatched by content.
    private func textBody(_ t: JSONValue, contentType: String?, location: String) {
        let raw = t.rawBytes
        let direct: Bool = raw.withUnsafeBufferPointer { rb in
            guard rb.count >= 2, !ContentScanner.typeHas(contentType, ContentScanner.multipartWord),
                  !ContentScanner.typeHas(contentType, ContentScanner.formWord) else { return false }
            let inner = UnsafeBufferPointer(rebasing: rb[1..<(rb.count - 1)])
            guard looksLikeJSON(inner, level: 1) else { return false }
            // What the scan finds depends on the text's bytes alone here (its own stems, no enclosing
            // value or document): a text found clean before is clean again.
            let memo = rawRange == nil && jsonInString == 0 && nesting == 0 && encodedDepth == 0
            if memo && cleanBodies.contains(inner) { return true }
            let mark = hits.count
            jsonText(inner, location: location, level: 1, rawBase: raw.startIndex + 1, ownStems: true)
            if memo && hits.count == mark { cleanBodies.insert(inner) }
            return true
        }
        if !direct {
            // The line pass left this text out (see `beginLine`): decode it and scan it in full.
            let saved = rawRange
            rawRange = nil
            let decoded = t.stringBytes
            decoded.withUnsafeBufferPointer { content($0, contentType: contentType, location: location, depth: 0) }
            rawRange = saved
        }
    }

    /// Body bytes of any kind: gzip, multipart, form, JSON (complete or cut), or text. Binary is skipped.
    func content(_ b: UnsafeBufferPointer<UInt8>, contentType: String?, location: String, depth: Int) {
        guard !b.isEmpty else { return }
        guard depth <= maxContentDepth else {
            bound("encodings nested more than \(maxContentDepth + 1) deep (gzip in gzip…); the innermost \(b.count) bytes were not checked",
                  location: location)
            return
        }
        if b.count >= 2 && b[0] == 0x1F && b[1] == 0x8B {
            let saved = rawRange
            rawRange = nil
            defer { rawRange = saved }
            let inflated = inflate(b)
            if Int64(inflated.count) >= maxInflatedBytes {
                bound("gzip body inflates past \(maxInflatedBytes >> 20) MiB; bytes after that were not checked", location: location)
            }
            inflated.withUnsafeBufferPointer { content($0, contentType: contentType, location: location, depth: depth + 1) }
            return
        }
        if ContentScanner.typeHas(contentType, ContentScanner.multipartWord) || ((contentType ?? "").isEmpty && Shape.hasPrefix(b, "--")) {
            if multipart(b, contentType: contentType ?? "", location: location, depth: depth) { return }
        }
        if ContentScanner.typeHas(contentType, ContentScanner.formWord) {
            form(b, location: location)
            return
        }
        var i = 0
        while i < b.count && ByteSet.space.contains(b[i]) { i += 1 }
        if i < b.count && (b[i] == UInt8(ascii: "{") || b[i] == UInt8(ascii: "[")) {
            jsonText(b, location: location)
            return
        }
        guard Shape.looksLikeText(b) else {
            // Binary bytes (protobuf, gRPC framing): the printable runs inside still get the detectors.
            let saved = rawRange
            rawRange = nil
            for r in Shape.printableRuns(b) { shapes(UnsafeBufferPointer(rebasing: b[r]), hints: []) { location } }
            rawRange = saved
            return
        }
        if looksLikeForm(b) {
            form(b, location: location)
            return
        }
        shapes(b, hints: []) { location }
    }

    /// `a=b&c=d` with no white space: a form body without a content type.
    private func looksLikeForm(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count < 1 << 20 else { return false }
        let nameSet = ContentScanner.formNameBytes
        let first = ScanInput(b: b, hints: []).run(0, nameSet, max: 128)
        guard first > 0, first < b.count, b[first] == UInt8(ascii: "=") else { return false }
        for c in b where c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { return false }
        return true
    }

    /// Inflates gzip bytes, bounded; what was inflated before damage or the bound is kept.
    func inflate(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let src = GzipSource(wrapping: MemorySource(Array(b)), limit: maxInflatedBytes)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while Int64(out.count) < maxInflatedBytes {
            let n: Int
            do { n = try buf.withUnsafeMutableBytes { try src.read(into: $0) } } catch { break }
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    /// `application/x-www-form-urlencoded`.
    func form(_ b: UnsafeBufferPointer<UInt8>, location: String) {
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        var start = 0
        while start < b.count {
            var end = start
            while end < b.count && b[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                let pair = UnsafeBufferPointer(rebasing: b[start..<end])
                var eq = pair.count
                for k in 0..<pair.count where pair[k] == UInt8(ascii: "=") { eq = k; break }
                let name = Percent.decode(UnsafeBufferPointer(rebasing: pair[0..<eq]), plusIsSpace: true)
                let value = eq < pair.count ? Percent.decode(UnsafeBufferPointer(rebasing: pair[(eq + 1)...]), plusIsSpace: true) : []
                let nameText = clipName(String(decoding: name, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                let loc = "\(location) form:\(nameText)"
                let listed = name.withUnsafeBufferPointer { formNames.contains(raw: $0) }
                if !listed { scanName(String(decoding: name, as: UTF8.self)) { loc } }
                value.withUnsafeBufferPointer { v in
                    if listed {
                        if !v.isEmpty && !ContentScanner.isMask(v) { breach(VerifyRule.formField.id, what: "form field '\(nameText)'", value: v, location: loc) }
                    } else {
                        shapes(v, hints: name.withUnsafeBufferPointer { NameHints.of(raw: $0) }) { loc }
                    }
                }
            }
            start = end + 1
        }
    }

    /// `multipart/form-data` (or any multipart): part names from Content-Disposition, part bodies scanned.
    /// Returns false when no boundary could be found.
    func multipart(_ b: UnsafeBufferPointer<UInt8>, contentType: String, location: String, depth: Int) -> Bool {
        var boundary: [UInt8] = []
        if let r = contentType.range(of: "boundary=", options: .caseInsensitive) {
            var s = String(contentType[r.upperBound...])
            if let semi = s.firstIndex(of: ";") { s = String(s[..<semi]) }
            s = s.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            boundary = Array(s.utf8)
        }
        let t = ScanInput(b: b, hints: [])
        if boundary.isEmpty || t.find(Array("--".utf8) + boundary, 0, b.count) == nil {
            // Sniff: the first line is `--boundary`.
            guard Shape.hasPrefix(b, "--") else { return false }
            var e = 2
            while e < b.count && e < 202 && b[e] != 0x0D && b[e] != 0x0A { e += 1 }
            boundary = Array(b[2..<e])
            if boundary.isEmpty { return false }
        }
        let delim = Array("--".utf8) + boundary
        var pos = t.find(delim, 0, b.count)
        while let p = pos {
            var s = p + delim.count
            if s + 1 < b.count && b[s] == UInt8(ascii: "-") && b[s + 1] == UInt8(ascii: "-") { break }   // closing delimiter
            if s < b.count && b[s] == 0x0D { s += 1 }
            if s < b.count && b[s] == 0x0A { s += 1 }
            let next = t.find(delim, s, b.count)
            var e = next ?? b.count
            if next != nil {
                if e > s && b[e - 1] == 0x0A { e -= 1 }
                if e > s && b[e - 1] == 0x0D { e -= 1 }
            }
            if e > s { part(UnsafeBufferPointer(rebasing: b[s..<e]), location: location, depth: depth) }
            pos = next
        }
        return true
    }

    /// One multipart part: headers, a blank line, the body.
    private func part(_ b: UnsafeBufferPointer<UInt8>, location: String, depth: Int) {
        let t = ScanInput(b: b, hints: [])
        var headerEnd = b.count, bodyStart = b.count
        if let k = t.find(Array("\r\n\r\n".utf8), 0, b.count) { headerEnd = k; bodyStart = k + 4 }
        else if let k = t.find(Array("\n\n".utf8), 0, b.count) { headerEnd = k; bodyStart = k + 2 }
        let headerText = String(decoding: UnsafeBufferPointer(rebasing: b[0..<headerEnd]), as: UTF8.self)
        var name = "", partType: String? = nil, hasFile = false
        for line in headerText.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let lower = line.lowercased()
            if lower.hasPrefix("content-disposition:") {
                name = dispositionParam(String(line), "name") ?? ""
                hasFile = dispositionParam(String(line), "filename") != nil
            } else if lower.hasPrefix("content-type:") {
                partType = String(line.dropFirst("content-type:".count)).trimmingCharacters(in: .whitespaces)
            }
        }
        let body = UnsafeBufferPointer(rebasing: b[bodyStart..<b.count])
        let nameText = clipName(name)
        let loc = "\(location) multipart:\(nameText)"
        // The part headers (file name, content type) get the detectors like any text.
        if headerEnd > 0 { shapes(UnsafeBufferPointer(rebasing: b[0..<headerEnd]), hints: []) { loc } }
        if !name.isEmpty && formNames.contains(name) {
            if !body.isEmpty && !ContentScanner.isMask(body) {
                breach(VerifyRule.multipartField.id, what: "multipart field '\(nameText)'", value: body, location: loc)
            }
            return
        }
        if partType == nil && !hasFile {
            if !body.isEmpty && (body[0] == UInt8(ascii: "{") || body[0] == UInt8(ascii: "[") || (body.count >= 2 && body[0] == 0x1F && body[1] == 0x8B)) {
                content(body, contentType: nil, location: loc, depth: depth + 1)
            } else {
                shapes(body, hints: NameHints.of(name: name)) { loc }
            }
        } else {
            content(body, contentType: partType, location: loc, depth: depth + 1)
        }
    }

    private func dispositionParam(_ line: String, _ param: String) -> String? {
        // name="x" or name=x, not matching filename= when asking for name=.
        let lower = line.lowercased()
        var searchFrom = lower.startIndex
        while let r = lower.range(of: param + "=", range: searchFrom..<lower.endIndex) {
            let prev = r.lowerBound == lower.startIndex ? " " : lower[lower.index(before: r.lowerBound)]
            if prev == " " || prev == ";" || prev == "\t" {
                let offset = lower.distance(from: lower.startIndex, to: r.upperBound)
                let rest = line.dropFirst(offset)
                if rest.first == "\"" {
                    let inner = rest.dropFirst()
                    return String(inner.prefix { $0 != "\"" })
                }
                return String(rest.prefix { $0 != ";" && $0 != " " })
            }
            searchFrom = r.upperBound
        }
        return nil
    }

    // MARK: - Tolerant JSON text scanner

    private struct Frame {
        var isObject: Bool
        var keyStart = -1
        var keyEnd = -1
        var keyEscaped = false
        var haveKey = false
        var keyListed = false
        var keyHints: NameHints = []
        var index = 0
        /// Listed by an enclosing key.
        var listedAbove: Bool
        /// Hints of the key holding this container (used for array elements).
        var hintsAbove: NameHints
    }

    /// Whether JSON text, possibly still escaped once (`level` 1: the raw bytes of a JSON string that
    /// holds a JSON document), starts like an object or array.
    func looksLikeJSON(_ b: UnsafeBufferPointer<UInt8>, level: Int) -> Bool {
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1; continue }
            if level == 1 && c == 0x5C && i + 1 < b.count && (b[i + 1] == UInt8(ascii: "n") || b[i + 1] == UInt8(ascii: "r") || b[i + 1] == UInt8(ascii: "t")) {
                i += 2
                continue
            }
            return c == UInt8(ascii: "{") || c == UInt8(ascii: "[")
        }
        return false
    }

    /// The bytes that end a number or `true`/`false`/`null` in `jsonText`.
    private static let scalarStops = ByteSet(",}] \n\r\t\"\\")

    /// Decodes a key or value range of the scanned text: once per escaping level.
    private func decode(_ raw: UnsafeBufferPointer<UInt8>, level: Int) -> [UInt8] {
        let once = ContentScanner.unescapeJSON(raw)
        if level == 0 { return once }
        return once.withUnsafeBufferPointer { ContentScanner.unescapeJSON($0) }
    }

    /// Scans JSON text that may be cut short or damaged: every string and number is visited with its key
    /// path, without needing the document to be complete or valid. Body-list names must hold `***`.
    ///
    /// `level` 1 scans the raw bytes of a JSON string holding the document (a body's `text` as it stands in
    /// the record line) without unescaping it first: `\\"` is a quote there. `rawBase` is the offset of `b`
    /// in the record line, for the line prefilter: a plain value with no anchor stem and no hinted name is
    /// skipped without running the detectors.
    func jsonText(_ b: UnsafeBufferPointer<UInt8>, location: String, level: Int = 0, rawBase: Int? = nil, ownStems: Bool = false) {
        guard let p = b.baseAddress else { return }
        let maxDepth = maxJSONDepth
        withUnsafeTemporaryAllocation(of: Frame.self, capacity: maxDepth) { frames in
            let fr = frames.baseAddress!
            let n = b.count
            var depth = 0, overflow = 0, i = 0
            var deepReported = false
            let bs: UInt8 = 0x5C, quote: UInt8 = 0x22
            let scalarStops = ContentScanner.scalarStops
            // Without the line's offsets (`rawBase`), or with `ownStems`, one pass over the text finds where
            // stems start (and how short they are), for every value at once.
            let useOwn = ownStems || rawBase == nil || recordLine != nil
            var own: [Int] = []
            let ownSaturated = useOwn ? engine.stemStarts(b, into: &own) : nil
            let hitsCopy = useOwn ? own : lineHits
            let saturated = useOwn ? ownSaturated : lineSaturatedFrom
            var cursor = 0
            hitsCopy.withUnsafeBufferPointer { hits in
                /// Whether the string `s..<e` of `b` must be looked at (strings come in increasing order): an
                /// anchor stem starts in it, or it may be a URL or a JSON document (their listed names are
                /// checked whatever the stems); without `ownStems` or the line's offsets, also an escaped one.
                @inline(__always) func hit(_ s: Int, _ e: Int, escaped: Bool) -> Bool {
                    let v = UnsafeBufferPointer(rebasing: b[s..<e])
                    if useOwn {
                        // Past the last offset kept, the string is looked at on its own.
                        if let sat = saturated, e > sat {
                            if hasStem(v) { return true }
                        } else if DetectorEngine.stemInside(hits, &cursor, s, e) {
                            return true
                        }
                    } else if let base = rawBase {
                        let lo = base + s, hi = base + e
                        if let sat = saturated, hi > sat { return true }
                        while cursor < hits.count && hits[cursor] < lo { cursor += 1 }
                        if cursor < hits.count && hits[cursor] < hi { return true }
                    } else {
                        return true
                    }
                    // A URL or a JSON document in a string has its listed names checked whatever
                    // the stems (`{"data":"{\"otp\":…}"}`, `?otp=…`).
                    // Only a string starting with `h`, or with white space, an escape, `{` or `[`, can be either.
                    if e > s {
                        let c0 = p[s]
                        if c0 | 0x20 == UInt8(ascii: "h") {
                            if ContentScanner.isURL(v) { return true }
                        } else if c0 == UInt8(ascii: "{") || c0 == UInt8(ascii: "[") || c0 == bs || c0 == 0x20 || c0 == 0x0A || c0 == 0x0D
                                    || c0 == 0x09 {
                            if looksLikeJSON(v, level: 1) { return true }
                        }
                    }
                    // A run that may be an encoded credential (`{"d":"Z2hw…"}`) is decoded by `shapes`.
                    if EncodedSpans.mayHold(v, raw: true) { return true }
                    return useOwn && !ownStems && escaped
                }
                while i < n {
                    let c = p[i]
                    switch c {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        if overflow > 0 || depth >= maxDepth {
                            if overflow == 0 && !deepReported {
                                deepReported = true
                                bound("JSON nested deeper than \(maxDepth) levels; values below that depth were checked for credential shapes but not against the redaction lists",
                                      location: location)
                            }
                            overflow += 1
                        } else {
                            var listed = false, hints: NameHints = []
                            if depth > 0 {
                                let top = fr[depth - 1]
                                if top.isObject {
                                    if top.haveKey { listed = top.keyListed || top.listedAbove; hints = top.keyHints }
                                } else {
                                    listed = top.listedAbove
                                    hints = top.hintsAbove
                                }
                            }
                            (fr + depth).initialize(to: Frame(isObject: c == UInt8(ascii: "{"), listedAbove: listed, hintsAbove: hints))
                            depth += 1
                        }
                        i += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        if overflow > 0 { overflow -= 1 } else if depth > 0 { depth -= 1 }
                        i += 1
                    case UInt8(ascii: ","):
                        if overflow == 0 && depth > 0 {
                            if fr[depth - 1].isObject { fr[depth - 1].haveKey = false } else { fr[depth - 1].index += 1 }
                        }
                        i += 1
                    case quote, bs:
                        // A string: `"` at level 0, `\\"` at level 1; anything else here is skipped.
                        var s: Int
                        if level == 0 {
                            if c == bs { i += 2; continue }
                            s = i + 1
                        } else {
                            if c == quote || i + 1 >= n || p[i + 1] != quote { i += (c == bs ? 2 : 1); continue }
                            s = i + 2
                        }
                        var j = s
                        var escaped = false
                        var e = n, next = n
                        if level == 0 {
                            while j < n {
                                j = ByteScan.first(quote, or: bs, in: p, from: j, n)
                                if j >= n { break }
                                if p[j] == quote { e = j; next = j + 1; break }
                                escaped = true
                                j += 2
                            }
                        } else {
                            while j < n {
                                // Only a backslash can end or escape anything here: jump to the next one.
                                j = ByteScan.first(bs, in: p, from: j, n)
                                if j >= n { j = n; break }
                                let nx = j + 1 < n ? p[j + 1] : 0
                                if nx == quote { e = j; next = j + 2; break }
                                escaped = true
                                if nx == bs { j += (j + 2 < n && p[j + 2] == bs) ? 4 : 3 } else { j += 2 }
                            }
                        }
                        e = min(e, n)
                        i = next
                        if s > e { s = e }
                        guard overflow == 0, depth > 0 else {
                            // Top level, or nested past the depth tracked: the detectors still run.
                            if hit(s, e, escaped: escaped) {
                                jsonValue(b, s, e, isString: true, escaped: escaped, listed: false, hints: [], frames: fr, depth: depth,
                                          overflow: overflow, level: level, rawBase: rawBase, location: location, ownStems: ownStems)
                            }
                            continue
                        }
                        let top = fr[depth - 1]
                        if top.isObject && !top.haveKey {
                            let raw = UnsafeBufferPointer(rebasing: b[s..<e])
                            let info = escaped ? decode(raw, level: level).withUnsafeBufferPointer { keyInfo($0) } : keyInfo(raw, readable: n - s)
                            fr[depth - 1].keyStart = s
                            fr[depth - 1].keyEnd = e
                            fr[depth - 1].keyEscaped = escaped
                            fr[depth - 1].haveKey = true
                            fr[depth - 1].keyListed = info.listed
                            fr[depth - 1].keyHints = info.hints
                            // The name itself gets the detectors, like a value.
                            if hit(s, e, escaped: escaped) {
                                jsonValue(b, s, e, isString: true, escaped: escaped, listed: false, hints: [], frames: fr, depth: depth,
                                          overflow: overflow, level: level, rawBase: rawBase, location: location, ownStems: ownStems)
                            }
                            continue
                        }
                        let listed = top.isObject ? (top.keyListed || top.listedAbove) : top.listedAbove
                        let hints = top.isObject ? top.keyHints : top.hintsAbove
                        // Escapes can't hide an anchor from the stems (they stop before `/`, `"` and `\\`, and
                        // `\\u` is a stem itself), so the raw range decides for escaped values too.
                        if listed || !hints.isEmpty || hit(s, e, escaped: escaped) {
                            jsonValue(b, s, e, isString: true, escaped: escaped, listed: listed, hints: hints, frames: fr, depth: depth,
                                      overflow: overflow, level: level, rawBase: rawBase, location: location, ownStems: ownStems)
                        }
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                        var j = i + 1
                        while j < n && !scalarStops.contains(p[j]) { j += 1 }
                        if overflow == 0 && depth > 0 {
                            let top = fr[depth - 1]
                            let listed = top.isObject ? (top.haveKey && (top.keyListed || top.listedAbove)) : top.listedAbove
                            // Numbers matter only under a listed name; true, false and null never hold a secret.
                            if listed && c != UInt8(ascii: "t") && c != UInt8(ascii: "f") && c != UInt8(ascii: "n") {
                                jsonValue(b, i, min(j, i + 64), isString: false, escaped: false, listed: true, hints: [], frames: fr,
                                          depth: depth, overflow: overflow, level: level, rawBase: rawBase, location: location, ownStems: ownStems)
                            }
                        }
                        i = j
                    default:
                        i += 1
                    }
                }
            }
        }
    }

    /// One value the JSON scanner could not skip: a breach under a listed name, or the detectors.
    private func jsonValue(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, isString: Bool, escaped: Bool, listed: Bool,
                           hints: NameHints, frames fr: UnsafeMutablePointer<Frame>, depth: Int, overflow: Int, level: Int,
                           rawBase: Int?, location: String, ownStems: Bool) {
        if overflow == 0 && depth > 0 && fr[depth - 1].isObject && !fr[depth - 1].haveKey { return }
        func keyName(_ f: Frame) -> String {
            let raw = UnsafeBufferPointer(rebasing: b[f.keyStart..<f.keyEnd])
            if f.keyEscaped { return String(decoding: decode(raw, level: level), as: UTF8.self) }
            return String(decoding: raw, as: UTF8.self)
        }
        func path() -> String {
            var s = "$"
            for k in 0..<depth {
                let f = fr[k]
                if f.isObject {
                    if f.haveKey { s = JSONValue.memberPath(s, clipName(keyName(f))) }
                } else {
                    s += "[\(f.index)]"
                }
            }
            if overflow > 0 { s += "…" }
            return location.isEmpty ? s : location + " " + s
        }
        func innermostKey() -> String {
            var k = depth - 1
            while k >= 0 {
                if fr[k].isObject && fr[k].haveKey { return keyName(fr[k]) }
                k -= 1
            }
            return ""
        }
        let raw = UnsafeBufferPointer(rebasing: b[s..<e])
        if !isString {
            breach(VerifyRule.bodyField.id, what: "body field '\(clipName(innermostKey()))'", value: raw, location: path())
            return
        }
        func handle(_ v: UnsafeBufferPointer<UInt8>, _ rawRange: Range<Int>?) {
            if listed {
                if !v.isEmpty && !ContentScanner.isMask(v) {
                    breach(VerifyRule.bodyField.id, what: "body field '\(clipName(innermostKey()))'", value: v, location: path())
                }
            } else {
                let before = hits.count
                shapes(v, hints: hints, raw: rawRange) { path() }
                if ContentScanner.isURL(v) { listedQuery(v, location: path()) }
                if jsonInString < 3 && looksLikeJSON(v, level: 0) { innerDocument(v, shapeHitsFrom: before, location: path()) }
            }
        }
        if escaped {
            let d = decode(raw, level: level)
            let saved = rawRange
            rawRange = nil
            d.withUnsafeBufferPointer { handle($0, nil) }
            rawRange = saved
        } else {
            // With `ownStems` the value passed its own stem check already: the detectors run in full.
            handle(raw, ownStems ? nil : rawBase.map { ($0 + s)..<($0 + e) })
        }
    }

    /// A JSON document serialised into a string (`{"data":"{\"token\":…}"}`): its names are checked
    /// against the body list like the outer ones, three levels deep. The string's shapes were found
    /// already (from `shapeHitsFrom`): only the inner breaches are kept, and a shape hit on the same value
    /// gives way to the breach.
    func innerDocument(_ v: UnsafeBufferPointer<UInt8>, shapeHitsFrom before: Int, location: String,
                       rule: RuleID = VerifyRule.bodyField.id, what: String = "body field") {
        jsonInString += 1
        defer { jsonInString -= 1 }
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        let mid = hits.count
        jsonText(v, location: location, ownStems: true)
        var breaches = hits[mid...].filter { $0.rule == VerifyRule.bodyField.id }
        if rule != VerifyRule.bodyField.id {
            for k in breaches.indices {
                breaches[k].rule = rule
                if breaches[k].message.hasPrefix("body field ") { breaches[k].message = what + breaches[k].message.dropFirst(10) }
            }
        }
        hits.removeSubrange(mid...)
        guard !breaches.isEmpty else { return }
        let values = Set(breaches.map(\.value))
        let kept = hits[before..<mid].filter { !values.contains($0.value) }
        hits.replaceSubrange(before..<mid, with: kept)
        hits.append(contentsOf: breaches)
    }

    /// Resolves JSON string escapes (`\n`, `\"`, `\uXXXX` with surrogate pairs); tolerant of a cut escape.
    static func unescapeJSON(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for k in 0..<4 {
                guard let h = Shape.hexNibble(b[at + k]) else { return nil }
                v = v << 4 | UInt32(h)
            }
            return v
        }
        func scalar(_ v: UInt32) {
            let s = Unicode.Scalar(v) ?? "\u{FFFD}"
            out.append(contentsOf: Array(String(Character(s)).utf8))
        }
        while i < b.count {
            let c = b[i]
            if c != 0x5C || i + 1 >= b.count { out.append(c); i += 1; continue }
            let x = b[i + 1]
            switch x {
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "b"): out.append(0x08); i += 2
            case UInt8(ascii: "f"): out.append(0x0C); i += 2
            case UInt8(ascii: "u"):
                guard let hi = hex4(i + 2) else { out.append(x); i += 2; continue }
                i += 6
                if hi >= 0xD800 && hi < 0xDC00, i + 6 <= b.count, b[i] == 0x5C, b[i + 1] == UInt8(ascii: "u"),
                   let lo = hex4(i + 2), lo >= 0xDC00 && lo < 0xE000 {
                    scalar(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                    i += 6
                } else {
                    scalar(hi)
                }
            default: out.append(x); i += 2
            }
        }
        return out
    }
}

import Foundation

extension DetectorEngine {
    private static let cacheLock = NSLock()
    nonisolated(unsafe) private static var cache: [Set<String>: DetectorEngine] = [:]

    /// One engine per set of disabled detectors, built once per process: an engine never changes after
    /// it is built, and building one (tables over every anchor) costs more than checking a small export.
    static func shared(disabled: Set<String>) -> DetectorEngine {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        if let e = cache[disabled] { return e }
        let e = DetectorEngine(disabled: disabled)
        if cache.count < 8 { cache[disabled] = e }
        return e
    }
}
