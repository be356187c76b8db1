import Foundation
import SiftArchive

// One way from export text to printed text.
//
// Every string that came from an export or a server log is *untrusted*: it may hold a credential
// (as a value, a name, or an encoded form of one) and it may hold terminal control sequences. It
// reaches an output only through a `Redactor`, and a medium's escaping (`Escape`) runs after it.
//
// - A single string: wrap it in `Untrusted` where it is read (`s.untrusted`); `redactor.text(u)` /
//   `redactor.url(u)` give a `Redacted<String>` (not yet escaped), which `SafeText` interpolates
//   escaped for a terminal. The redactor takes no `String`.
// - A report model: conform it to `Redactable`; `redactor.apply(model)` gives a `Redacted<Model>`,
//   the only thing renderers accept. Inside `redacted(by:)` each field is redacted as
//   `r.text(field.untrusted).value`.
// - A JSON tree (records, HAR entries): `redactor.json(tree)` gives a `Redacted<JSONOut>`.

/// Text that came from an export or a server log. It has no public way back to `String`: it
/// becomes printable only through `Redactor.text(_:)` or `Redactor.url(_:)`. Interpolating it
/// prints a placeholder, never the text.
public struct Untrusted: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    let raw: String
    public init(_ raw: String) { self.raw = raw }
    public var description: String { "‹untrusted›" }
    public var debugDescription: String { "‹untrusted›" }
    /// Whether the text is empty (safe to ask: it reveals nothing).
    public var isEmpty: Bool { raw.isEmpty }
}

extension String {
    /// This text as read from an export or a log: printable only through a `Redactor`.
    public var untrusted: Untrusted { Untrusted(self) }
}

extension Optional where Wrapped == String {
    /// This text, when there is one, as read from an export or a log.
    public var untrusted: Untrusted? { map(Untrusted.init) }
}

/// What kind of text a detector looks at: a URL is masked by its structure (userinfo, query pairs).
public enum UntrustedKind: Sendable {
    case text
    case url
}

/// Finds credentials in one text, with the checks `verify` runs. Implemented by `SiftVerify`.
public protocol SecretDetector: AnyObject, Sendable {
    /// The credential values in `text`: substrings of it, or the decoded form of an encoded part
    /// (percent-encoding, a form body, a JSON document in a string).
    func secrets(in text: String, kind: UntrustedKind) -> [String]
    /// Whether a query parameter name is one whose value the SDK must send as `***`.
    func isListedQueryName(_ name: String) -> Bool
}

/// A model whose every export- or log-derived string has been through a `Redactor`.
public protocol Redactable: Sendable {
    /// A copy with every untrusted string redacted (names as well as values).
    func redacted(by redactor: Redactor) -> Self
}

/// A value that went through a `Redactor`. Only `Redactor.apply(_:)` makes one, so a renderer that
/// takes `Redacted<T>` can't be handed raw export text.
public struct Redacted<Value: Sendable>: Sendable {
    public let value: Value
    fileprivate init(_ value: Value) { self.value = value }
}

extension Redacted {
    /// A part of the redacted value (`outcome.project(\.findings)`). A key path only reads what is
    /// there, so no text can be added on the way: there is no closure-taking `map`.
    public func project<T: Sendable>(_ part: KeyPath<Value, T>) -> Redacted<T> { Redacted<T>(value[keyPath: part]) }
}

extension Optional where Wrapped == Redacted<String> {
    /// The redacted text, when there was one (`r.text(field.untrusted).value` for an optional field).
    public var value: String? { self?.value }
}

extension Redacted where Value == [String: JSONOut] {
    /// The cells of a flattened record for these columns (`RecordFlattener.cell`).
    public func cells(_ columns: [String]) -> Redacted<[String]> {
        Redacted<[String]>(columns.map { RecordFlattener.cell(value, column: $0) })
    }
}

extension Redacted {
    /// The elements `isIncluded` keeps, in order (filtering adds no text).
    public func filter<E: Sendable>(_ isIncluded: (E) -> Bool) -> Redacted<[E]> where Value == [E] {
        Redacted<[E]>(value.filter(isIncluded))
    }
}

/// The one redactor: replaces every credential in an untrusted text by its masked preview.
///
/// It knows the values a `verify` pass found (`known`, matched in one pass over each text whatever
/// their number) and runs verify's detectors (`detector`) over each text itself, so a credential
/// verify did not see (a name, a record type, a server message) or saw only in decoded form is
/// masked too. In a URL the userinfo is dropped and the value of a listed query parameter, or of
/// one that holds a credential once percent-decoded, becomes `***`.
public final class Redactor: @unchecked Sendable {
    private let known: ValueMatcher
    private let detector: SecretDetector?
    /// Makes another detector like `detector`, so threads redacting at once each run their own.
    private let makeDetector: (@Sendable () -> SecretDetector)?
    /// Detectors made by `makeDetector` not in use (guarded by `lock`, which guards only the detectors).
    private var spare: [SecretDetector] = []
    private let lock = NSLock()
    /// Every string value is masked whatever it holds (names still go through the checks): for a
    /// record whose check did not end (a bound) or whose reading is ambiguous (a name held twice).
    private var masksEveryValue = false
    /// Every mask is written `***`, as the SDK masks a listed field: for outputs that are read back
    /// as an export (`har`, `records`), so that they pass `verify` as the SDK's own exports do.
    private var masksAsTheSDK = false

    /// `known`: values already known to be secret (never printed). `detector`: verify's checks, run
    /// by one thread at a time. Not public: outside this module a redactor always runs a detector.
    init(known: [String], detector: SecretDetector?) {
        self.known = ValueMatcher(known)
        self.detector = detector
        self.makeDetector = nil
    }

    /// `makeDetector`: verify's checks; each thread redacting at the same time runs a detector of
    /// its own (one is made when every other is in use).
    public init(known: [String] = [], makeDetector: @escaping @Sendable () -> SecretDetector) {
        self.known = ValueMatcher(known)
        let first = makeDetector()
        self.detector = first
        self.makeDetector = makeDetector
        self.spare = [first]
    }

    /// A redactor that masks only `known` values and runs no detector: for tests that check what a
    /// renderer does with a value they chose, never for output.
    @_spi(Testing) public static func identity(known: [String] = []) -> Redactor {
        Redactor(known: known, detector: nil)
    }

    /// The same detector with more known values (e.g. those one record holds).
    public func adding(known values: [String]) -> Redactor {
        let r =
            makeDetector.map { Redactor(known: known.values + values, makeDetector: $0) }
            ?? Redactor(known: known.values + values, detector: detector)
        r.masksAsTheSDK = masksAsTheSDK
        r.masksEveryValue = masksEveryValue
        return r
    }

    /// The same redactor masking every string value (not names): what prints a record that verify
    /// could not check in full, so nothing it holds is shown as checked.
    public func maskingEveryValue() -> Redactor {
        let r = makeDetector.map { Redactor(known: known.values, makeDetector: $0) } ?? Redactor(known: known.values, detector: detector)
        r.masksEveryValue = true
        r.masksAsTheSDK = masksAsTheSDK
        return r
    }

    /// The same redactor writing each mask as `***` (the SDK's mask) instead of a preview.
    public func maskingAsTheSDK() -> Redactor {
        let r = makeDetector.map { Redactor(known: known.values, makeDetector: $0) } ?? Redactor(known: known.values, detector: detector)
        r.masksEveryValue = masksEveryValue
        r.masksAsTheSDK = true
        return r
    }

    /// `s` with each preview (`EXAM…(24 chars)`, `…(value hidden)`) and the withheld text replaced by
    /// `***` (a mask for a record not checked in full stays, saying so).
    static func sdkMasks(_ s: String) -> String {
        guard s.contains("…(") || s.contains(withheldText) else { return s }
        var out = s
        for r in maskRanges(in: s).reversed() where !s[r].hasPrefix(uncheckedPrefix) { out.replaceSubrange(r, with: "***") }
        return out
    }

    private static let uncheckedPrefix = "[hidden: not checked in full, "

    /// Where a redacted text holds a mask: `***`, a preview with the head `SecretMask.preview` shows
    /// (`EXAM…(24 chars)`, `…(value hidden)`), the withheld text, a mask of a record not checked in full.
    public static func maskRanges(in s: String) -> [Range<String.Index>] {
        var out: [Range<String.Index>] = []
        var i = s.startIndex
        while i < s.endIndex {
            let rest = s[i...]
            var end: String.Index?
            var start = i
            if rest.hasPrefix("***") {
                end = s.index(i, offsetBy: 3)
            } else if rest.hasPrefix(withheldText) {
                end = s.index(i, offsetBy: withheldText.count)
            } else if rest.hasPrefix(uncheckedPrefix), let close = rest.firstIndex(of: "]") {
                end = s.index(after: close)
            } else if s[i] == "…", rest.dropFirst().hasPrefix("(") {
                // `(N chars)` after a head of min(4, N / 4) characters, or `(value hidden)` after none.
                let inner = rest.dropFirst(2)
                let digits = inner.prefix { $0.isASCII && $0.isNumber }
                let tail = digits.isEmpty ? "value hidden)" : " chars)"
                if inner.dropFirst(digits.count).hasPrefix(tail) {
                    end = s.index(inner.startIndex, offsetBy: digits.count + tail.count)
                    var shown = digits.isEmpty ? 0 : min(4, (Int(digits.prefix(9)) ?? 0) / 4)
                    let floor = out.last?.upperBound ?? s.startIndex
                    while shown > 0, start > floor {
                        start = s.index(before: start)
                        shown -= 1
                    }
                }
            }
            if let e = end {
                out.append(start..<e)
                i = e
            } else {
                i = s.index(after: i)
            }
        }
        return out
    }

    /// The secrets a flagged value is made of, each a secret alone: the token after a scheme word
    /// (`Bearer X`), the user and password of a Basic pair, each value of a cookie list. What masks
    /// the value masks them, wherever they stand; what replaces it replaces them too.
    public static func parts(of value: String) -> [String] { ValueMatcher.withParts(value).filter { $0 != value } }

    /// What stands for a value of a record not checked in full.
    public static func uncheckedMask(_ s: String) -> String { "[hidden: not checked in full, \(s.utf8.count) bytes]" }

    /// Redacts a model (every string of it) for a renderer.
    public func apply<T: Redactable>(_ value: T) -> Redacted<T> { Redacted(value.redacted(by: self)) }

    /// Redacts every element of a list.
    public func apply<T: Redactable>(_ values: [T]) -> Redacted<[T]> { Redacted(values.map { $0.redacted(by: self) }) }

    /// Free text, printable once escaped for its medium.
    public func text(_ u: Untrusted) -> Redacted<String> { Redacted(redactText(u.raw)) }

    /// Free text, when there is one.
    public func text(_ u: Untrusted?) -> Redacted<String>? { u.map(text) }

    /// A text that does not repeat (a record or request id): redacted as `text(_:)` does, without
    /// the memo (an entry per id would fill it with texts never asked for again).
    public func uniqueText(_ u: Untrusted?) -> Redacted<String>? {
        guard let u else { return nil }
        if masksEveryValue, !u.raw.isEmpty { return Redacted(Redactor.uncheckedMask(u.raw)) }
        return Redacted(u.raw.isEmpty ? u.raw : redactTextUncached(u.raw))
    }

    /// A URL, printable once escaped for its medium.
    public func url(_ u: Untrusted) -> Redacted<String> { Redacted(redactURL(u.raw)) }

    /// A URL, when there is one.
    public func url(_ u: Untrusted?) -> Redacted<String>? { u.map(url) }

    /// Every string in a JSON value (read from an export), object keys included.
    public func json(_ v: JSONOut) -> Redacted<JSONOut> { Redacted(redactJSON(v)) }

    /// Every string in a JSON object (read from an export), keys included.
    public func json(object o: [String: JSONOut]) -> Redacted<[String: JSONOut]> {
        guard case .object(let out) = redactJSON(.object(o)) else { return Redacted([:]) }
        return Redacted(out)
    }

    /// A parsed JSON object written as one line of JSON (keys sorted, then a newline), every name and
    /// string through this redactor: what `json(object:)` of the object's `out` with `replacing` put
    /// in, written by `Escape.jsonLine`, prints, without building the `JSONOut` tree (a line of a
    /// million values is written value by value). `replacing`: top-level members added, or put in
    /// place of the object's own. A name held twice: its last copy stands, as in `JSONValue.out`.
    public func jsonLine(_ object: JSONValue, replacing: [String: JSONOut]) -> SafeText {
        var w = JSONWriter(pretty: false)
        if object.isObject {
            writeObject(object, replacing: replacing, into: &w)
        } else {
            w.beginObject()
            w.endObject()
        }
        w.newline()
        return SafeText(verified: w.text)
    }

    private func writeValue(_ v: JSONValue, into w: inout JSONWriter) {
        switch v.kind {
        case .null: w.null()
        case .true: w.bool(true)
        case .false: w.bool(false)
        case .number:
            if let i = Redactor.plainInt(v) { w.int(i) } else { w.value(v.out) }
        case .string: w.string(redactText(v.string ?? ""))
        case .array:
            w.beginArray()
            v.forEachElement { x in
                w.element()
                writeValue(x, into: &w)
            }
            w.endArray()
        case .object:
            writeObject(v, replacing: [:], into: &w)
        }
    }

    private func writeObject(_ v: JSONValue, replacing: [String: JSONOut], into w: inout JSONWriter) {
        enum Member { case parsed(JSONValue), given(JSONOut) }
        var members: [String: Member] = [:]
        v.forEachMember { k, x in members[k] = .parsed(x) }
        for (k, x) in replacing { members[k] = .given(x) }
        var named: [String: Member] = [:]
        for k in members.keys.sorted() { named[redactName(k)] = members[k] }
        w.beginObject()
        for k in named.keys.sorted() {
            w.key(k)
            switch named[k] {
            case .parsed(let x)?: writeValue(x, into: &w)
            case .given(let x)?: w.value(redactJSON(x))
            case nil: w.null()
            }
        }
        w.endObject()
    }

    /// A number written as digits (`-?[0-9]{1,15}`) as `JSONValue.out` reads it, without its text as a String.
    private static func plainInt(_ v: JSONValue) -> Int? {
        let r = v.contentRange
        return v.doc.bytes.withUnsafeBufferPointer { b -> Int? in
            var k = r.lowerBound
            var neg = false
            if k < r.upperBound && b[k] == 0x2D { neg = true; k += 1 }
            guard k < r.upperBound, r.upperBound - k <= 15 else { return nil }
            var n = 0
            while k < r.upperBound {
                let c = b[k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                n = n * 10 + Int(c - 0x30)
                k += 1
            }
            return neg ? -n : n
        }
    }

    private func redactJSON(_ v: JSONOut) -> JSONOut {
        switch v {
        case .string(let s): return .string(redactText(s))
        case .array(let a): return .array(a.map(redactJSON))
        case .object(let o):
            var out: [String: JSONOut] = [:]
            for (k, x) in o { out[redactName(k)] = redactJSON(x) }
            return .object(out)
        default: return v
        }
    }

    // MARK: memo

    /// Exports repeat their texts (the same URLs, headers and messages on every request), and
    /// redacting is a pure function of the text for one redactor: each short text is redacted once.
    /// Bounded: texts up to 2 KiB, 16 MiB of entries in all; past that every text is redacted anew.
    private struct MemoKey: Hashable {
        let url: Bool
        let text: String
    }
    private var memo: [MemoKey: String] = [:]
    private var memoBytes = 0
    /// Guards `memo` and `memoBytes`: a lock of their own, not the detectors' (threads redacting side
    /// by side take both for every text, and one lock for both made them wait on each other).
    private let memoLock = NSLock()
    private static let memoTextLimit = 2048
    private static let memoByteLimit = 16 << 20

    private func memoized(_ s: String, url: Bool, _ redact: (String) -> String) -> String {
        guard s.utf8.count <= Redactor.memoTextLimit else { return redact(s) }
        let key = MemoKey(url: url, text: s)
        memoLock.lock()
        let hit = memo[key]
        memoLock.unlock()
        if let hit { return hit }
        let out = redact(s)
        memoLock.lock()
        if memoBytes < Redactor.memoByteLimit {
            memo[key] = out
            memoBytes += s.utf8.count + out.utf8.count + 64
        }
        memoLock.unlock()
        return out
    }

    private func detect(_ s: String, _ kind: UntrustedKind) -> [String] {
        guard let detector else { return [] }
        guard let makeDetector else {
            lock.lock()
            defer { lock.unlock() }
            return detector.secrets(in: s, kind: kind)
        }
        lock.lock()
        let idle = spare.popLast()
        lock.unlock()
        let d = idle ?? makeDetector()
        let found = d.secrets(in: s, kind: kind)
        lock.lock()
        spare.append(d)
        lock.unlock()
        return found
    }

    // MARK: text

    private func redactText(_ s: String) -> String {
        guard !s.isEmpty else { return s }
        if masksEveryValue { return Redactor.uncheckedMask(s) }
        let out = memoized(s, url: false, redactTextUncached)
        return masksAsTheSDK && out != s ? Redactor.sdkMasks(out) : out
    }

    /// A member name: checked, never masked whole (the names of a record hidden value by value stay
    /// readable, and two names never become one).
    private func redactName(_ s: String) -> String {
        guard !s.isEmpty else { return s }
        return memoized(s, url: false, redactTextUncached)
    }

    private func redactTextUncached(_ s: String) -> String {
        var out = known.replace(Redactor.droppingUserinfos(s))
        // A known value inside a base64 run (a websocket message, a value the detectors read only
        // under a name they no longer see): the run goes.
        if !known.values.isEmpty, Redactor.base64Runs(out).contains(where: { known.occurs(in: $0) }) {
            out = Redactor.maskEncodedTokens(out, holding: known.values)
        }
        // A masked preview (`AKIA…(20 chars)`) is never masked again: redacting is idempotent.
        let found = detect(out, .text).filter { !$0.isEmpty && !$0.contains("…") }
        guard !found.isEmpty else { return out }
        var unmatched: [String] = []
        for v in Set(found).sorted(by: { $0.utf8.count > $1.utf8.count }) {
            if out.contains(v) {
                out = out.replacingOccurrences(of: v, with: SecretMask.preview(v))
            } else {
                unmatched.append(v)
            }
        }
        if !unmatched.isEmpty { out = Redactor.maskEncodedTokens(out, holding: unmatched) }
        return stillHolding(out, .text) ? Redactor.withheldText : out
    }

    /// What stands for a text in which a credential was found but could not be masked where it
    /// stands (a form the masking does not undo, such as a JSON `\u` escape inside a body).
    public static let withheldText = "[withheld: the text holds a credential]"

    /// Whether verify's detectors still find a credential in a text already masked: the last check
    /// before a text found to hold one is printed (a value found only once decoded may stand in a
    /// form no masking step recognises).
    private func stillHolding(_ s: String, _ kind: UntrustedKind) -> Bool {
        !detect(s, kind).filter { !$0.isEmpty && !$0.contains("…") && $0 != "***" }.isEmpty
    }

    /// Replaces each token (a run without white space or quotes) whose percent- or base64-decoded
    /// form holds one of `values` by the preview of that decoded form.
    static func maskEncodedTokens(_ s: String, holding values: [String]) -> String {
        var out = ""
        var token = ""
        func flush() {
            guard !token.isEmpty else { return }
            let once = Redactor.percentDecoded(token)
            let decoded =
                ([once, once.flatMap(Redactor.percentDecoded), Base64.decode(token).flatMap { String(validating: $0, as: UTF8.self) }]
                    .compactMap { $0 }) + Redactor.base64Runs(token)
            if decoded.contains(where: { d in values.contains { d.contains($0) } }) || values.contains(where: { token.contains($0) }) {
                out += SecretMask.preview(decoded.first ?? token)
            } else {
                out += token
            }
            token = ""
        }
        for ch in s {
            if ch.isWhitespace || ch == "\"" || ch == "'" || ch == "<" || ch == ">" {
                flush()
                out.append(ch)
            } else {
                token.append(ch)
            }
        }
        flush()
        return out
    }

    /// Each run of 16 base64 symbols or more inside `token` (`k=<base64>`, `"<base64>",`), decoded.
    static func base64Runs(_ token: String) -> [String] {
        var out: [String] = []
        var run: [UInt8] = []
        func flush() {
            defer { run.removeAll(keepingCapacity: true) }
            guard run.count >= 16 else { return }
            if run.count % 4 == 1 { run.removeLast() }
            if let d = run.withUnsafeBufferPointer({ Base64.decode(bytes: $0) }) { out.append(String(decoding: d, as: UTF8.self)) }
        }
        for c in token.utf8 {
            switch c {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2B, 0x2F, 0x2D, 0x5F: run.append(c)
            default: flush()
            }
        }
        flush()
        return out
    }

    /// `%XX` (and `+` as a space) resolved; nil when there is nothing to resolve.
    static func percentDecoded(_ s: String) -> String? {
        guard s.contains("%") || s.contains("+") else { return nil }
        return String(decoding: Percent.decode(Array(s.utf8), plusIsSpace: true), as: UTF8.self)
    }

    // MARK: URL

    private func redactURL(_ s: String) -> String {
        guard !s.isEmpty else { return s }
        if masksEveryValue { return Redactor.uncheckedMask(s) }
        let out = memoized(s, url: true, redactURLUncached)
        return masksAsTheSDK && out != s ? Redactor.sdkMasks(out) : out
    }

    private func redactURLUncached(_ s: String) -> String {
        var url = Redactor.droppingUserinfo(s)
        // Where the query and fragment start.
        let q = url.firstIndex(where: { $0 == "?" || $0 == "#" })
        let head = q.map { String(url[..<$0]) } ?? url
        let found = Set(detect(url, .url).filter { !$0.isEmpty && !$0.contains("…") })
        var out = redactHead(head, found: found)
        if let q {
            var rest = Substring(url[q...])
            while let sigil = rest.first {
                rest = rest.dropFirst()
                let end = sigil == "?" ? rest.firstIndex(of: "#") ?? rest.endIndex : rest.endIndex
                out.append(sigil)
                out += redactPairs(String(rest[..<end]), found: found)
                rest = rest[end...]
            }
        }
        url = out
        return !found.isEmpty && stillHolding(url, .url) ? Redactor.withheldText : url
    }

    private func redactHead(_ head: String, found: Set<String>) -> String {
        var out = known.replace(head)
        var unmatched: [String] = []
        for v in found.sorted(by: { $0.utf8.count > $1.utf8.count }) {
            if out.contains(v) {
                out = out.replacingOccurrences(of: v, with: SecretMask.preview(v))
            } else {
                unmatched.append(v)
            }
        }
        // A value found only once decoded: the path segment holding its encoded form goes.
        guard !unmatched.isEmpty else { return out }
        return out.split(separator: "/", omittingEmptySubsequences: false)
            .map { Redactor.maskEncodedTokens(String($0), holding: unmatched) }.joined(separator: "/")
    }

    /// `a=1&b=2`: the value of a listed name, or one holding a credential, becomes `***`.
    private func redactPairs(_ text: String, found: Set<String>) -> String {
        var parts: [String] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: false) {
            guard let eq = pair.firstIndex(of: "=") else {
                parts.append(holds(String(pair), found) ? "***" : String(pair))
                continue
            }
            let name = String(pair[..<eq])
            let value = String(pair[pair.index(after: eq)...])
            let plainName = Redactor.percentDecoded(name) ?? name
            let shownName = holds(name, found) ? SecretMask.preview(plainName) : name
            if value.isEmpty || value == "***" {
                parts.append(shownName + "=" + value)
            } else if detector?.isListedQueryName(plainName) == true || holds(value, found)
                || Redactor.looksLikeJWT(Redactor.percentDecoded(value) ?? value)
            {
                parts.append(shownName + "=***")
            } else {
                parts.append(shownName + "=" + value)
            }
        }
        return parts.joined(separator: "&")
    }

    /// `eyJ…` with two dots: a JSON Web Token, however short its parts.
    static func looksLikeJWT(_ v: String) -> Bool {
        v.utf8.count > 3 && v.hasPrefix("eyJ") && v.utf8.filter({ $0 == 0x2E }).count == 2
    }

    /// Whether a stored query part holds a credential, as stored or once decoded.
    private func holds(_ part: String, _ found: Set<String>) -> Bool {
        // Decoded as many times as verify decodes a query value (a value percent-encoded twice).
        var forms = [part]
        while forms.count < 4, let next = Redactor.percentDecoded(forms[forms.count - 1]), next != forms[forms.count - 1] {
            forms.append(next)
        }
        return forms.contains { f in known.occurs(in: f) || found.contains { f.utf8.contains($0.utf8) } }
    }

    /// Every `scheme://user:pass@host` in a free text loses its userinfo, as a URL does.
    static func droppingUserinfos(_ s: String) -> String {
        guard mayHoldUserinfo(s) else { return s }
        var out = ""
        var rest = Substring(s)
        while let sep = rest.range(of: "://") {
            out += rest[..<sep.upperBound]
            rest = rest[sep.upperBound...]
            let end = rest.firstIndex(where: { "/?#\"'<> \t\n\r".contains($0) }) ?? rest.endIndex
            if let at = rest[..<end].lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        }
        return out + rest
    }

    /// Whether the bytes of `s` hold both `://` and `@` (one pass over UTF-8, where Foundation's
    /// `contains` cost thousands of instructions a text). A text this lets through needlessly
    /// comes back unchanged from `droppingUserinfos`.
    static func mayHoldUserinfo(_ s: String) -> Bool {
        // Most texts hold no `@`: memchr says so without looking at each byte here.
        let noAt = s.utf8.withContiguousStorageIfAvailable { b in
            b.isEmpty || memchr(b.baseAddress!, 0x40, b.count) == nil
        }
        if noAt == true { return false }
        var at = false
        var sep = false
        var p1: UInt8 = 0
        var p2: UInt8 = 0
        for c in s.utf8 {
            if c == 0x40 {
                at = true
            } else if c == 0x2F && p1 == 0x2F && p2 == 0x3A {
                sep = true
            }
            if at && sep { return true }
            p2 = p1
            p1 = c
        }
        return false
    }

    /// `scheme://user:pass@host/…` → `scheme://host/…`.
    static func droppingUserinfo(_ s: String) -> String {
        guard let sep = s.range(of: "://"), s.distance(from: s.startIndex, to: sep.lowerBound) < 32 else { return s }
        let authorityEnd = s[sep.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? s.endIndex
        guard let at = s[sep.upperBound..<authorityEnd].lastIndex(of: "@") else { return s }
        return String(s[..<sep.upperBound]) + String(s[s.index(after: at)...])
    }
}

/// Known secret values, indexed by their first four bytes: one pass over a text finds them all.
/// Values shorter than four bytes are ignored (they can't be told from ordinary text).
struct ValueMatcher: Sendable {
    private var byPrefix: [UInt32: [[UInt8]]] = [:]
    private(set) var values: [String] = []

    init(_ values: [String]) {
        for v in Set(values.flatMap(ValueMatcher.withParts)) {
            let b = Array(v.utf8)
            guard b.count >= 4 else { continue }
            byPrefix[ValueMatcher.key(b, 0), default: []].append(b)
            self.values.append(v)
        }
        for k in byPrefix.keys { byPrefix[k]?.sort { $0.count > $1.count } }
    }

    /// Shortest part of a known value that is known too: shorter ones (`en`, `1`) are not secrets alone.
    static let minPart = 8

    /// A known value and the secrets it is made of, each known alone: a flagged header's credential
    /// after its scheme word (`Bearer X`, `Token X`, `Basic X` and the user and password `X` decodes to),
    /// and each value of a cookie or parameter list (`sid=Y; lang=en`). The bare token of a flagged
    /// `Authorization` is masked wherever else it appears, not only beside its scheme.
    static func withParts(_ value: String) -> [String] {
        var out = [value]
        func add(_ part: Substring) {
            let p = part.trimmingCharacters(in: .whitespaces)
            if p.utf8.count >= minPart && p != value { out.append(p) }
        }
        if let space = value.firstIndex(of: " ") {
            let scheme = value[..<space].lowercased()
            let rest = value[value.index(after: space)...]
            if ["bearer", "token", "basic", "digest", "bot", "sso-key", "apikey", "api-key", "hmac"].contains(scheme) {
                add(rest)
                if scheme == "basic", let decoded = Base64.decode(rest.trimmingCharacters(in: .whitespaces)),
                    let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":")
                {
                    add(Substring(text))
                    add(text[text.index(after: colon)...])
                }
            }
        }
        if value.contains("=") {
            for pair in value.split(separator: ";") + (value.contains(";") ? [] : value.split(separator: "&")) {
                if let eq = pair.firstIndex(of: "=") { add(pair[pair.index(after: eq)...]) }
            }
        }
        return out
    }

    @inline(__always) static func key<C: RandomAccessCollection>(_ b: C, _ i: C.Index) -> UInt32 where C.Element == UInt8 {
        UInt32(b[i]) | UInt32(b[b.index(i, offsetBy: 1)]) << 8 | UInt32(b[b.index(i, offsetBy: 2)]) << 16
            | UInt32(b[b.index(i, offsetBy: 3)]) << 24
    }

    private func hit(_ b: [UInt8], _ i: Int) -> [UInt8]? {
        guard let candidates = byPrefix[ValueMatcher.key(b, i)] else { return nil }
        return candidates.first { c in i + c.count <= b.count && b[i..<i + c.count].elementsEqual(c) }
    }

    func occurs(in text: String) -> Bool {
        guard !byPrefix.isEmpty else { return false }
        let b = Array(text.utf8)
        var i = 0
        while i + 4 <= b.count {
            if hit(b, i) != nil { return true }
            i += 1
        }
        return false
    }

    func replace(_ text: String) -> String {
        guard !byPrefix.isEmpty else { return text }
        let b = Array(text.utf8)
        var out: [UInt8] = []
        var copied = 0
        var i = 0
        while i + 4 <= b.count {
            if let h = hit(b, i) {
                if out.isEmpty { out.reserveCapacity(b.count) }
                out += b[copied..<i]
                out += Array(SecretMask.preview(String(decoding: h, as: UTF8.self)).utf8)
                i += h.count
                copied = i
            } else {
                i += 1
            }
        }
        if copied == 0 { return text }
        out += b[copied...]
        return String(decoding: out, as: UTF8.self)
    }
}

extension Finding: Redactable {
    /// Names from an export stand in a finding's location and message (a key, a header name, a
    /// record type): both are redacted, as are the file, session and record ids.
    public func redacted(by r: Redactor) -> Finding {
        var f = self
        f.file = r.text(file.untrusted)?.value
        f.sessionId = r.text(sessionId.untrusted)?.value
        f.recordId = r.text(recordId.untrusted)?.value
        f.location = r.text(location.untrusted)?.value
        f.message = r.text(message.untrusted).value
        return f
    }
}

extension SessionSummary: Redactable {
    /// The session header's fields (user id, environment, bundle id, device…) come from the export.
    public func redacted(by r: Redactor) -> SessionSummary {
        var s = self
        func t(_ s: String?) -> String? { r.text(s.untrusted)?.value }
        s.sessionId = t(sessionId)
        s.file = r.text(file.untrusted).value
        s.app = (t(app.bundleId), t(app.version), t(app.build))
        s.sdk = (t(sdk.name), t(sdk.version))
        s.device = (t(device.model), t(device.system), t(device.locale), t(device.timeZone))
        s.environmentRef = t(environmentRef)
        s.userId = t(userId)
        return s
    }
}

extension InputSummary: Redactable {
    /// The path is the user's; the errors name places inside the input (archive entry names).
    public func redacted(by r: Redactor) -> InputSummary {
        var i = self
        i.errors = errors.map { r.text($0.untrusted).value }
        return i
    }
}

extension ReadOutcome: Redactable {
    public func redacted(by r: Redactor) -> ReadOutcome {
        var o = self
        o.inputs = inputs.map { $0.redacted(by: r) }
        o.sessions = sessions.map { $0.redacted(by: r) }
        o.findings = findings.map { $0.redacted(by: r) }
        o.firstSessionIds = firstSessionIds.map { r.text($0.untrusted).value }
        return o
    }
}
