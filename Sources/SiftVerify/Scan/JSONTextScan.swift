import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ContentScanner {
    // MARK: - Tolerant JSON text scanner

    /// One tolerant scan of a JSON text: its bytes, its container frames, and where it stands.
    struct JSONScan {
        let bytes: UnsafeBufferPointer<UInt8>
        let frames: UnsafeMutablePointer<Frame>
        /// 1: the text is still escaped once (the raw bytes of a JSON string holding a document).
        let level: Int
        /// The text's offset in the record line, for the line prefilter.
        let rawBase: Int?
        let location: String
        /// The text passed its own stem check: the detectors run on every value in full.
        let ownStems: Bool
    }

    /// A value the scanner could not skip: its place in the text and how it is written.
    struct ValueSpan {
        let start: Int, end: Int
        let isString: Bool, escaped: Bool
    }

    struct Frame {
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
        /// What the current key is in a name/value pair (`{"name": "API_TOKEN", "value": "…"}`).
        var keyRole = PairRole.none
        /// The hints of the pair's name, once its `name` member was read.
        var pairHints: NameHints = []
        /// A `value` member read before the pair's `name`: judged when the name comes.
        var pendingValue: ValueSpan? = nil
    }

    /// A member of a name/value pair: an ECS task's or a Kubernetes container's environment, a
    /// CloudFormation parameter, a header list (`{"name": "X-Api-Key", "value": "…"}`).
    enum PairRole { case none, name, value }

    static func pairRole(_ raw: UnsafeBufferPointer<UInt8>) -> PairRole {
        switch raw.count {
        case 3: return raw.elementsEqual("key".utf8) || raw.elementsEqual("Key".utf8) ? .name : .none
        case 4: return raw.elementsEqual("name".utf8) || raw.elementsEqual("Name".utf8) ? .name : .none
        case 5: return raw.elementsEqual("value".utf8) || raw.elementsEqual("Value".utf8) ? .value : .none
        case 10: return raw.elementsEqual("OptionName".utf8) ? .name : .none
        case 12: return raw.elementsEqual("ParameterKey".utf8) ? .name : .none
        case 14: return raw.elementsEqual("ParameterValue".utf8) ? .value : .none
        default: return .none
        }
    }

    /// Whether JSON text, possibly still escaped once (`level` 1: the raw bytes of a JSON string that
    /// holds a JSON document), starts like an object or array.
    func looksLikeJSON(_ b: UnsafeBufferPointer<UInt8>, level: Int) -> Bool {
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1; continue }
            if level == 1 && c == 0x5C && i + 1 < b.count
                && (b[i + 1] == UInt8(ascii: "n") || b[i + 1] == UInt8(ascii: "r") || b[i + 1] == UInt8(ascii: "t"))
            {
                i += 2
                continue
            }
            return c == UInt8(ascii: "{") || c == UInt8(ascii: "[")
        }
        return false
    }

    /// The bytes that end a number or `true`/`false`/`null` in `jsonText`.
    static let scalarStops = ByteSet(",}] \n\r\t\"\\")

    /// Decodes a key or value range of the scanned text: once per escaping level.
    func decode(_ raw: UnsafeBufferPointer<UInt8>, level: Int) -> [UInt8] {
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
    ///
    /// Text that only starts like JSON (`[cohere]` then `api_key = "…"`, a `{` then prose) has bytes
    /// outside any string that the scan above does not read: the detectors then run over the whole
    /// text too, unless `wholeIfNotJSON` is false (the caller does that itself).
    func jsonText(
        _ b: UnsafeBufferPointer<UInt8>, location: String, level: Int = 0, rawBase: Int? = nil, ownStems: Bool = false,
        wholeIfNotJSON: Bool = true
    ) {
        guard let p = b.baseAddress else { return }
        let before = hits.count
        var notJSON = false
        defer { if notJSON && wholeIfNotJSON { notJSONText(b, level: level, since: before, location: location) } }
        let maxDepth = maxJSONDepth
        withUnsafeTemporaryAllocation(of: Frame.self, capacity: maxDepth) { frames in
            let fr = frames.baseAddress!
            let scan = JSONScan(bytes: b, frames: fr, level: level, rawBase: rawBase, location: location, ownStems: ownStems)
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
                            || c0 == 0x09
                        {
                            if looksLikeJSON(v, level: 1) { return true }
                        }
                    }
                    // A run that may be an encoded credential (`{"d":"Z2hw…"}`) is decoded by `shapes`.
                    if EncodedSpans.mayHold(v, raw: true) { return true }
                    // A `%XX` escape can split a stem (`gh%70_…`): the decoding is looked at.
                    if Percent.hasEscape(v) { return true }
                    return useOwn && !ownStems && escaped
                }
                while i < n {
                    let c = p[i]
                    switch c {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        if overflow > 0 || depth >= maxDepth {
                            if overflow == 0 && !deepReported {
                                deepReported = true
                                bound(
                                    "JSON nested deeper than \(maxDepth) levels; values below that depth were checked for credential shapes but not against the redaction lists",
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
                                jsonValue(
                                    ValueSpan(start: s, end: e, isString: true, escaped: escaped), listed: false, hints: [],
                                    in: scan, depth: depth, overflow: overflow)
                            }
                            continue
                        }
                        let top = fr[depth - 1]
                        if top.isObject && !top.haveKey {
                            let raw = UnsafeBufferPointer(rebasing: b[s..<e])
                            let info =
                                escaped ? decode(raw, level: level).withUnsafeBufferPointer { keyInfo($0) } : keyInfo(raw, readable: n - s)
                            fr[depth - 1].keyStart = s
                            fr[depth - 1].keyEnd = e
                            fr[depth - 1].keyEscaped = escaped
                            fr[depth - 1].haveKey = true
                            fr[depth - 1].keyListed = info.listed
                            fr[depth - 1].keyHints = info.hints
                            fr[depth - 1].keyRole = escaped ? .none : Self.pairRole(raw)
                            // The name itself gets the detectors, like a value.
                            if hit(s, e, escaped: escaped) {
                                jsonValue(
                                    ValueSpan(start: s, end: e, isString: true, escaped: escaped), listed: false, hints: [],
                                    in: scan, depth: depth, overflow: overflow)
                            }
                            continue
                        }
                        let listed = top.isObject ? (top.keyListed || top.listedAbove) : top.listedAbove
                        var hints = top.isObject ? top.keyHints : top.hintsAbove
                        let span = ValueSpan(start: s, end: e, isString: true, escaped: escaped)
                        // A pair's value takes the hints of the pair's name, in either order.
                        switch top.isObject ? top.keyRole : .none {
                        case .name:
                            let raw = UnsafeBufferPointer(rebasing: b[s..<e])
                            let named =
                                escaped
                                ? decode(raw, level: level).withUnsafeBufferPointer { NameHints.of(raw: $0) } : NameHints.of(raw: raw)
                            if !named.isEmpty {
                                fr[depth - 1].pairHints = named
                                if let pending = top.pendingValue {
                                    fr[depth - 1].pendingValue = nil
                                    jsonValue(pending, listed: false, hints: named, in: scan, depth: depth, overflow: overflow)
                                }
                            }
                        case .value:
                            if top.pairHints.isEmpty { fr[depth - 1].pendingValue = span } else { hints.formUnion(top.pairHints) }
                        case .none: break
                        }
                        // Escapes can't hide an anchor from the stems (they stop before `/`, `"` and `\\`, and
                        // `\\u` is a stem itself), so the raw range decides for escaped values too.
                        if listed || !hints.isEmpty || hit(s, e, escaped: escaped) {
                            jsonValue(span, listed: listed, hints: hints, in: scan, depth: depth, overflow: overflow)
                        }
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                        var j = i + 1
                        while j < n && !scalarStops.contains(p[j]) { j += 1 }
                        if !notJSON && !JSONScalar.isLiteral(UnsafeBufferPointer(rebasing: b[i..<j])) { notJSON = true }
                        if overflow == 0 && depth > 0 {
                            let top = fr[depth - 1]
                            let listed = top.isObject ? (top.haveKey && (top.keyListed || top.listedAbove)) : top.listedAbove
                            // Numbers matter only under a listed name; true, false and null never hold a secret.
                            if listed && c != UInt8(ascii: "t") && c != UInt8(ascii: "f") && c != UInt8(ascii: "n") {
                                jsonValue(
                                    ValueSpan(start: i, end: min(j, i + 64), isString: false, escaped: false), listed: true, hints: [],
                                    in: scan, depth: depth, overflow: overflow)
                            }
                        }
                        i = j
                    default:
                        if c != 0x20 && c != 0x0A && c != 0x0D && c != 0x09 && c != UInt8(ascii: ":") { notJSON = true }
                        i += 1
                    }
                }
            }
        }
    }

    /// The detectors over the whole of a text the JSON scan read only in part (a text that only starts
    /// like JSON, a line that is not a record; decoded once when it is still escaped, `level` 1), keeping
    /// what the JSON scan did not already report from `hits[since...]`.
    /// `raw`: the text's range in the record line, when it is the line itself (its stems are known).
    func notJSONText(_ b: UnsafeBufferPointer<UInt8>, level: Int, since: Int, location: String, raw: Range<Int>? = nil) {
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        let found = Set(hits[since...].map(\.value))
        let mark = hits.count
        if level == 0 {
            shapes(b, hints: [], raw: raw) { location }
        } else {
            decode(b, level: level).withUnsafeBufferPointer { t in shapes(t, hints: []) { location } }
        }
        guard hits.count > mark else { return }
        let extra = hits[mark...].filter { h in
            h.bound || !found.contains { f in !f.isEmpty && (h.value.contains(f) || f.contains(h.value)) }
        }
        hits.removeSubrange(mark...)
        hits.append(contentsOf: extra)
    }

    /// One value the JSON scanner could not skip: a breach under a listed name, or the detectors.
    func jsonValue(_ v: ValueSpan, listed: Bool, hints: NameHints, in scan: JSONScan, depth: Int, overflow: Int) {
        let b = scan.bytes, fr = scan.frames, level = scan.level, location = scan.location
        let s = v.start, e = v.end, isString = v.isString, escaped = v.escaped
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
                if ContentScanner.isURL(v) {
                    listedQuery(v, location: path())
                } else {
                    // A value percent-encoded whole or in part (`gh%70_…`): its decoding gets the detectors too.
                    percentEncoded(v, since: before) { path() }
                }
                if looksLikeJSON(v, level: 0) { innerDocument(v, shapeHitsFrom: before, location: path()) }
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
            handle(raw, scan.ownStems ? nil : scan.rawBase.map { ($0 + s)..<($0 + e) })
        }
    }

    /// A JSON document serialised into a string (`{"data":"{\"token\":…}"}`): its names are checked
    /// against the body list like the outer ones, `maxJSONInString` levels deep (deeper is a bound). The string's shapes were found
    /// already (from `shapeHitsFrom`): only the inner breaches are kept, and a shape hit on the same value
    /// gives way to the breach.
    func innerDocument(
        _ v: UnsafeBufferPointer<UInt8>, shapeHitsFrom before: Int, location: String,
        rule: RuleID = VerifyRule.bodyField.id, what: String = "body field"
    ) {
        guard jsonInString < ContentScanner.maxJSONInString else {
            bound(
                "JSON written inside JSON more than \(ContentScanner.maxJSONInString) levels deep; the names inside were not checked",
                location: location)
            return
        }
        jsonInString += 1
        defer { jsonInString -= 1 }
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        let mid = hits.count
        jsonText(v, location: location, ownStems: true)
        let bounds = hits[mid...].filter(\.bound)
        var breaches = hits[mid...].filter { !$0.bound && $0.rule == VerifyRule.bodyField.id }
        if rule != VerifyRule.bodyField.id {
            for k in breaches.indices {
                breaches[k].rule = rule
                if breaches[k].message.hasPrefix("body field ") { breaches[k].message = what + breaches[k].message.dropFirst(10) }
            }
        }
        hits.removeSubrange(mid...)
        hits.append(contentsOf: bounds)
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
                    let lo = hex4(i + 2), lo >= 0xDC00 && lo < 0xE000
                {
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

/// JSON's bare values.
enum JSONScalar {
    private static let number = ByteSet("0-9.eE+-")
    /// `true`, `false`, `null` or a number's characters.
    static func isLiteral(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        if Shape.all(b, number) { return true }
        return b.elementsEqual(trueWord) || b.elementsEqual(falseWord) || b.elementsEqual(nullWord)
    }
    private static let trueWord = Array("true".utf8), falseWord = Array("false".utf8), nullWord = Array("null".utf8)
}
