import Foundation

/// Where a record is: the input as given on the command line, the session file inside it, and the
/// line. The join key between analyses: every view of one record (waterfall, correlate, show,
/// report) carries the same reference.
public struct RecordRef: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var input: String
    public var file: String
    /// 1-based line in `file`.
    public var line: Int
    /// The record's place among the records of its line (`Record.ordinal`): a one-line HAR's entries
    /// share line 1 and differ here. Never shown; part of the identity.
    public var ordinal = 0

    public init(input: String, file: String, line: Int, ordinal: Int = 0) {
        self.input = input
        self.file = file
        self.line = line
        self.ordinal = ordinal
    }

    /// The record `record` of `session`.
    public init(_ record: Record, in session: SessionContext) {
        self.init(input: session.input.path, file: session.file, line: record.line, ordinal: record.ordinal)
    }

    /// Whether `other` lies in the same session file of the same input.
    public func sameFile(_ other: RecordRef) -> Bool { input == other.input && file == other.file }

    public static func < (a: RecordRef, b: RecordRef) -> Bool {
        (a.input, a.file, a.line, a.ordinal) < (b.input, b.file, b.line, b.ordinal)
    }

    /// `input:file:line`.
    public var description: String { "\(input):\(file):\(line)" }
}

/// What every view of a network record shares: where it is and how it ended, and so the one
/// definition of a failed request.
public protocol NetworkRecordView {
    /// Where the record is (the join key).
    var ref: RecordRef { get }
    /// `success`, `failure`, `pending` or `cancelled`, as the record wrote it.
    var state: String? { get }
    /// The response status, absent when no response arrived.
    var statusCode: Int? { get }
}

extension NetworkRecordView {
    /// Failed: state `failure` or `cancelled`, or an HTTP status of 400 or more (`NetworkRecord.failed`).
    public var failed: Bool { NetworkRecord.failed(state: state, statusCode: statusCode) }
}

/// A type that stores one `NetworkRecord` and adds its own fields (the waterfall's `WaterfallRequest`,
/// the join's `NetworkEntry`): the record's fields read and written through it, defined here once.
public protocol NetworkRecordHolder: NetworkRecordView {
    /// The record as every analysis sees it.
    var record: NetworkRecord { get set }
}

extension NetworkRecordHolder {
    /// Where the record is (the join key between the waterfall, the correlation, `show` and `report`).
    @inlinable public var ref: RecordRef { record.ref }
    /// The input path as given on the command line.
    @inlinable public var input: String {
        get { record.ref.input }
        set { record.ref.input = newValue }
    }
    /// The session file inside the input.
    @inlinable public var file: String {
        get { record.ref.file }
        set { record.ref.file = newValue }
    }
    /// 1-based line in `file`.
    @inlinable public var line: Int {
        get { record.ref.line }
        set { record.ref.line = newValue }
    }
    /// The session the record belongs to (nil for stdin without a header).
    @inlinable public var sessionId: String? {
        get { record.sessionId }
        set { record.sessionId = newValue }
    }
    @inlinable public var seq: Int? {
        get { record.seq }
        set { record.seq = newValue }
    }
    @inlinable public var recordId: String? {
        get { record.recordId }
        set { record.recordId = newValue }
    }
    @inlinable public var requestId: String? {
        get { record.requestId }
        set { record.requestId = newValue }
    }
    @inlinable public var echoedRequestId: String? {
        get { record.echoedRequestId }
        set { record.echoedRequestId = newValue }
    }
    @inlinable public var method: String? {
        get { record.method }
        set { record.method = newValue }
    }
    /// The record's URL (userinfo removed, secret query values masked, where the reader masked it).
    @inlinable public var url: String? {
        get { record.url }
        set { record.url = newValue }
    }
    @inlinable public var statusCode: Int? {
        get { record.statusCode }
        set { record.statusCode = newValue }
    }
    /// `success`, `failure`, `pending`, `cancelled`.
    @inlinable public var state: String? {
        get { record.state }
        set { record.state = newValue }
    }
    /// The record's `error`: `description (domain code)`, when it failed.
    @inlinable public var error: String? {
        get { record.error }
        set { record.error = newValue }
    }
    /// A request that got no answer in time: the platform's time-out error (`NSURLErrorDomain -1001`,
    /// "timed out"), without a status. The one definition every report and picture uses.
    public var timedOut: Bool {
        guard statusCode == nil, let e = error?.lowercased() else { return false }
        return e.contains("timed out") || e.contains("timeout") || e.contains("-1001")
    }
    @inlinable public var ts: Double? {
        get { record.ts }
        set { record.ts = newValue }
    }
    @inlinable public var duration: Double? {
        get { record.duration }
        set { record.duration = newValue }
    }
}

/// The typed view of a network record as the export holds it: the fields every analysis reads,
/// defined once. The waterfall (`WaterfallRequest`) and the join (`NetworkEntry`) store one of these
/// and add only what is theirs.
///
/// Stored compactly, since a large export keeps a hundred thousand of them: numbers are fixed-width
/// values (an absent one is a sentinel, not an optional's extra bytes), and texts read through a
/// `StringPool` share one copy of each repeated value (methods, states, URLs, errors).
public struct NetworkRecord: NetworkRecordView, Sendable, Equatable {
    public var ref: RecordRef
    public var sessionId: String?
    /// The record's `id`.
    public var recordId: String?
    /// The minted and the echoed `X-Request-Id`, as written (one copy when they are equal).
    public var requestId: String?
    public var echoedRequestId: String?
    public var method: String?
    public var url: String?
    public var state: String?
    /// The error the request ended with: `description (domain code)`.
    public var error: String?
    // Inlinable (seq and status): a record held inside a larger value in an array is read where it
    // stands, not copied whole to call a getter in another module.
    @usableFromInline var seqRaw = Int.min
    @usableFromInline var statusRaw = Int.min
    private var tsRaw = Double.nan
    private var durationRaw = Double.nan

    @inlinable public var seq: Int? {
        get { seqRaw == .min ? nil : seqRaw }
        set { seqRaw = newValue ?? .min }
    }
    /// The response status, absent when no response arrived.
    @inlinable public var statusCode: Int? {
        get { statusRaw == .min ? nil : statusRaw }
        set { statusRaw = newValue ?? .min }
    }
    /// The record's `ts` (device clock, seconds since 1970).
    public var ts: Double? {
        get { tsRaw.isNaN ? nil : tsRaw }
        set { tsRaw = newValue ?? .nan }
    }
    /// The record's `duration`, seconds, as written.
    public var duration: Double? {
        get { durationRaw.isNaN ? nil : durationRaw }
        set { durationRaw = newValue ?? .nan }
    }

    /// A record at `ref` with no field read yet.
    public init(ref: RecordRef, sessionId: String? = nil) {
        self.ref = ref
        self.sessionId = sessionId
    }

    /// The view of `record`, or nil when it is not a network record.
    public init?(_ record: Record, in session: SessionContext) {
        guard record.type == .network else { return nil }
        self.init(network: record, input: session.input.path, file: session.file, sessionId: session.sessionId)
    }

    /// The view of `record`, known to be a network record, at line `record.line` of `file` in `input`.
    /// With `limits`, long texts are cut as `TextLimits` says; with `pool`, repeated texts share storage.
    public init(
        network record: Record, input: String, file: String, sessionId: String?, limits: TextLimits? = nil,
        pool: StringPool? = nil
    ) {
        self.init(ref: RecordRef(input: input, file: file, line: record.line, ordinal: record.ordinal), sessionId: sessionId)
        seq = record.seq
        ts = record.ts
        var seen: UInt16 = 0
        let root = record.json.tapeIndex
        record.json.doc.withTape { t in
            t.forEachMember(root) { k, v in
                guard let f = Field(t, k), seen & f.bit == 0 else { return }
                seen |= f.bit
                set(f, t, v, limits: limits, pool: pool)
            }
        }
        shareIds()
    }

    /// The members of a network record this view reads.
    public enum Field: UInt8, CaseIterable, Sendable {
        case id, requestId, echoedRequestId, method, url, statusCode, state, error, duration

        /// The field a member name stands for.
        public init?(_ name: String) {
            switch name {
            case "id": self = .id
            case "requestId": self = .requestId
            case "echoedRequestId": self = .echoedRequestId
            case "method": self = .method
            case "url": self = .url
            case "statusCode": self = .statusCode
            case "state": self = .state
            case "error": self = .error
            case "duration": self = .duration
            default: return nil
            }
        }

        /// The field the member name at tape index `k` stands for (its bytes compared where they lie).
        @inlinable public init?(_ t: JSONTapeView, _ k: Int) {
            if t.isEscaped(k) {
                guard let name = t.value(k).string else { return nil }
                self.init(name)
                return
            }
            let b = t.raw(k)
            @inline(__always) func eq(_ s: StaticString) -> Bool {
                s.utf8CodeUnitCount == b.count && memcmp(s.utf8Start, b.baseAddress!, b.count) == 0
            }
            switch b.count {
            case 2: if eq("id") { self = .id; return }
            case 3: if eq("url") { self = .url; return }
            case 5: if eq("state") { self = .state; return }; if eq("error") { self = .error; return }
            case 6: if eq("method") { self = .method; return }
            case 8: if eq("duration") { self = .duration; return }
            case 9: if eq("requestId") { self = .requestId; return }
            case 10: if eq("statusCode") { self = .statusCode; return }
            case 15: if eq("echoedRequestId") { self = .echoedRequestId; return }
            default: break
            }
            return nil
        }

        /// A bit of its own, for a caller's "first of a repeated name wins" mask (bits 0…8).
        public var bit: UInt16 { 1 << UInt16(rawValue) }
    }

    /// How long texts are cut (`nil` limits: never).
    public struct TextLimits: Sendable {
        /// Ids and URLs.
        public var long: Int
        /// Method and state.
        public var short = 64
        /// The error's description and domain.
        public var description = 256
        public var domain = 128

        public init(long: Int) { self.long = long }
    }

    /// Reads member `field` from its value `v` (the first of a repeated name, as `JSONValue`'s subscript).
    public mutating func set(_ field: Field, from v: JSONValue, limits: TextLimits?, pool: StringPool?) {
        let long = limits?.long ?? .max
        let short = limits?.short ?? .max
        switch field {
        case .id: recordId = StringPool.text(v, max: long, pool: nil)
        case .requestId: requestId = StringPool.text(v, max: long, pool: nil)
        case .echoedRequestId: echoedRequestId = StringPool.text(v, max: long, pool: nil)
        case .method: method = StringPool.text(v, max: short, pool: pool)
        case .url: url = StringPool.text(v, max: long, pool: pool)
        case .statusCode: statusCode = v.int
        case .state: state = StringPool.text(v, max: short, pool: pool)
        case .duration: duration = v.double
        case .error:
            var text = StringPool.text(v["description"], max: limits?.description ?? .max, pool: nil) ?? ""
            let domain = StringPool.text(v["domain"], max: limits?.domain ?? .max, pool: nil)
            let code = v["code"]?.int
            if domain != nil || code != nil {
                let tag = [domain, code.map(String.init)].compactMap { $0 }.joined(separator: " ")
                text += text.isEmpty ? tag : " (\(tag))"
            }
            error = text.isEmpty ? nil : (pool?.intern(text) ?? text)
        }
    }

    /// `set(_:from:limits:pool:)` for the value at tape index `v` (the same result, read off the tape).
    public mutating func set(_ field: Field, _ t: JSONTapeView, _ v: Int, limits: TextLimits?, pool: StringPool?) {
        let long = limits?.long ?? .max
        let short = limits?.short ?? .max
        switch field {
        case .id: recordId = StringPool.text(t, v, max: long, pool: nil)
        case .requestId: requestId = StringPool.text(t, v, max: long, pool: nil)
        case .echoedRequestId:
            // Most records echo the minted id: the same bytes share its string.
            if let m = requestId, t.kind(v) == .string, !t.isEscaped(v), m.utf8.count <= long, StringPool.same(m, t.raw(v)) {
                echoedRequestId = m
            } else {
                echoedRequestId = StringPool.text(t, v, max: long, pool: nil)
            }
        case .method: method = StringPool.text(t, v, max: short, pool: pool)
        case .url: url = StringPool.text(t, v, max: long, pool: pool)
        case .statusCode: statusCode = t.int(v)
        case .state: state = StringPool.text(t, v, max: short, pool: pool)
        case .duration: duration = t.double(v)
        case .error: set(.error, from: t.value(v), limits: limits, pool: pool)
        }
    }

    /// The echoed id shares the minted one's storage when they are equal (most records).
    public mutating func shareIds() {
        if let e = echoedRequestId, let m = requestId, e == m { echoedRequestId = m }
    }

    public static func == (a: NetworkRecord, b: NetworkRecord) -> Bool {
        a.ref == b.ref && a.sessionId == b.sessionId && a.recordId == b.recordId && a.requestId == b.requestId
            && a.echoedRequestId == b.echoedRequestId && a.method == b.method && a.url == b.url && a.state == b.state
            && a.error == b.error && a.seq == b.seq && a.statusCode == b.statusCode && a.ts == b.ts && a.duration == b.duration
    }

    /// The one definition of a failed request: it ended in `failure` or was `cancelled`, or the
    /// server answered with a status of 400 or more.
    public static func failed(state: String?, statusCode: Int?) -> Bool {
        endedWithoutResponse(state: state) || (statusCode ?? 0) >= 400
    }

    /// Whether `record` is a network record that failed (without building the whole view, and
    /// without making a String of its state: asked of every record a report reads).
    public static func failed(_ record: Record) -> Bool {
        guard record.type == .network else { return false }
        let j = record.json
        if let state = j.member("state"), state.stringEquals("failure") || state.stringEquals("cancelled") { return true }
        return (j.member("statusCode")?.int ?? 0) >= 400
    }

    /// The states of a request that did not complete: `failure` and `cancelled`.
    public static func endedWithoutResponse(state: String?) -> Bool {
        state == "failure" || state == "cancelled"
    }
}

extension NetworkRecord: Redactable {
    public func redacted(by r: Redactor) -> NetworkRecord {
        var x = self
        x.redact(by: r)
        return x
    }

    /// Every text that came from the export, redacted in place (the input path is the user's own).
    public mutating func redact(by r: Redactor) {
        redact(unique: { r.text($0.untrusted).value }, repeated: { r.text($0.untrusted).value }, url: { r.url($0.untrusted).value })
    }

    /// Every text that came from the export, redacted in place: `unique` for the ids, `repeated` for
    /// texts many records share (file, session, method, state, error) and `url` for the URL, which a
    /// caller may redact once each so that the redacted copies are shared too.
    public mutating func redact(unique: (String?) -> String?, repeated: (String?) -> String?, url: (String?) -> String?) {
        redact(unique: unique, repeated: { s, _ in repeated(s) }, url: url)
    }

    /// `redact(unique:repeated:url:)` telling `repeated` which text it is given (`RepeatedText`):
    /// a caller may keep the last one of each apart, since records in a row share them.
    public mutating func redact(
        unique: (String?) -> String?, repeated: (String?, RepeatedText) -> String?,
        url: (String?) -> String?
    ) {
        let sameIds = echoedRequestId == requestId
        ref.file = repeated(ref.file, .file) ?? ""
        sessionId = repeated(sessionId, .sessionId)
        recordId = unique(recordId)
        requestId = unique(requestId)
        echoedRequestId = sameIds ? requestId : unique(echoedRequestId)
        method = repeated(method, .method)
        self.url = url(self.url)
        state = repeated(state, .state)
        error = repeated(error, .error)
    }

    /// The texts of a record that many records share.
    public enum RepeatedText: Int, CaseIterable, Sendable {
        case file, sessionId, method, state, error
    }
}

/// One shared copy of each repeated text: the same URL, host, method or error on a hundred thousand
/// requests is one string, not a hundred thousand. Bounded: up to `maxEntries` texts of `maxBytes`
/// in all; past that a text is returned as a copy of its own. Texts of 15 bytes or fewer are stored
/// inside a `String` anyway and are never pooled. Not thread-safe: one per collector.
public final class StringPool {
    private var slots: [String?]
    private var mask: Int
    private var count = 0
    private var bytes = 0
    public let maxEntries: Int
    public let maxBytes: Int
    /// Heap bytes of the texts handed out as copies of their own (the pool was full), about: what
    /// pooling did not bound, for a caller that keeps a budget.
    package private(set) var unpooledBytes = 0

    public init(maxEntries: Int = 4096, maxBytes: Int = 1 << 20) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        var n = 16
        while n < maxEntries * 2 { n *= 2 }
        slots = Array(repeating: nil, count: n)
        mask = n - 1
        copies = .allocate(capacity: StringPool.copySlots)
        copies.initialize(repeating: Copy(), count: StringPool.copySlots)
    }

    deinit {
        copies.deinitialize(count: StringPool.copySlots)
        copies.deallocate()
    }

    /// A text `internCopy` pooled, by the address of the storage it was asked with. The entry
    /// holds that text, so no other text can take the address while it stands.
    private struct Copy {
        var address: UInt = 0
        var asked: String?
        var pooled = ""
    }
    private static let copySlots = 256
    /// Held through a pointer: read for every text, with no access or uniqueness check each time.
    private let copies: UnsafeMutablePointer<Copy>

    /// `intern(s)`, for texts that come again and again in the same storage (another pool's copies,
    /// when several threads each pool what they read): one seen before costs a comparison of
    /// addresses, not a hash and a comparison of its bytes. The pool ends the same as with `intern`.
    public func internCopy(_ s: String) -> String {
        guard s.utf8.count > 15 else { return s }
        guard let address = s.utf8.withContiguousStorageIfAvailable({ UInt(bitPattern: $0.baseAddress) }) else {
            return intern(s)
        }
        let slot = copies + Int(truncatingIfNeeded: (address >> 4) ^ (address >> 12)) & (StringPool.copySlots - 1)
        if slot.pointee.address == address, slot.pointee.asked != nil { return slot.pointee.pooled }
        let unpooled = unpooledBytes
        let out = intern(s)
        // A text the pool could not keep is counted each time it is asked for, as `intern` does.
        if unpooledBytes == unpooled { slot.pointee = Copy(address: address, asked: s, pooled: out) }
        return out
    }

    @inline(__always) private static func hash(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for c in b { h = (h ^ UInt64(c)) &* 0x100_0000_01B3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The pooled string of UTF-8 `b` (made the first time it is seen).
    public func string(_ b: UnsafeBufferPointer<UInt8>) -> String {
        guard b.count > 15 else { return String(decoding: b, as: UTF8.self) }
        return find(b, orAdd: String(decoding: b, as: UTF8.self))
    }

    /// The slot holding `b`'s text, or `make()` put in the free slot where it belongs (while the
    /// pool has room; else only counted in `unpooledBytes`).
    private func find(_ b: UnsafeBufferPointer<UInt8>, orAdd make: @autoclosure () -> String) -> String {
        var i = StringPool.hash(b) & mask
        while let s = slots[i] {
            var t = s
            let equal = t.withUTF8 { u in u.count == b.count && memcmp(u.baseAddress!, b.baseAddress!, b.count) == 0 }
            if equal { return s }
            i = (i + 1) & mask
        }
        let s = make()
        if count < maxEntries && bytes + b.count <= maxBytes {
            slots[i] = s
            count += 1
            bytes += b.count
        } else {
            unpooledBytes += StringPool.heapBytes(s)
        }
        return s
    }

    /// What a string keeps on the heap, about: nothing up to 15 bytes (stored inline), else its
    /// bytes and a header.
    public static func heapBytes(_ s: String?) -> Int {
        guard let n = s?.utf8.count, n > 15 else { return 0 }
        return n + 33
    }

    /// The pooled copy of `s`.
    public func intern(_ s: String) -> String {
        guard s.utf8.count > 15 else { return s }
        var t = s
        return t.withUTF8 { find($0, orAdd: s) }
    }

    /// Whether `s` is exactly the bytes `b`.
    @inlinable public static func same(_ s: String, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var s = s
        return s.withUTF8 { u in u.count == b.count && (b.count == 0 || memcmp(u.baseAddress!, b.baseAddress!, b.count) == 0) }
    }

    /// `text(_:max:pool:)` of the value at tape index `i` (the same text, read off the tape).
    public static func text(_ t: JSONTapeView, _ i: Int, max: Int, pool: StringPool?) -> String? {
        guard t.kind(i) == .string else { return nil }
        if !t.isEscaped(i) {
            let b = t.raw(i)
            if b.count <= max {
                let s = pool?.string(b) ?? String(decoding: b, as: UTF8.self)
                if s.utf8.count <= max { return s }
            }
        }
        return text(t.value(i), max: max, pool: pool)
    }

    /// A string member's text cut to `max` UTF-8 bytes (then `…` after the first `max` characters),
    /// as the waterfall always cut them; nil when `v` is not a string. Through `pool` when given.
    public static func text(_ v: JSONValue?, max: Int, pool: StringPool?) -> String? {
        guard let v, v.isString else { return nil }
        let n = v.node
        if let pool, !n.escaped, Int(n.end - n.start) <= max {
            let s = v.doc.bytes.withUnsafeBufferPointer { pool.string(UnsafeBufferPointer(rebasing: $0[Int(n.start)..<Int(n.end)])) }
            if s.utf8.count <= max { return s }
        }
        guard let s = v.string else { return nil }
        let cut = s.utf8.count <= max ? s : String(s.prefix(max)) + "…"
        return pool?.intern(cut) ?? cut
    }
}
