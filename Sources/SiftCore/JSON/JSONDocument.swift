// A strict, bounded JSON parser that records where each value sits in the input bytes (a "tape")
// instead of building a tree of Swift values. Strings and numbers are decoded only when asked for,
// so walking a record to find one field costs little more than scanning its bytes.

import Synchronization

/// The kind of one JSON value.
public enum JSONKind: UInt8, Sendable {
    case null, `false`, `true`, number, string, array, object
}

/// Why a line is not one valid JSON value.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case empty, syntax, tooDeep, tooMany, unterminated, trailing
    }
    public var reason: Reason
    /// Byte offset (0-based) in the parsed text.
    public var offset: Int
    public var message: String
    public var description: String { "\(message) at byte \(offset + 1)" }
}

@usableFromInline
struct JSONNode {
    @usableFromInline var kind: JSONKind
    /// For strings: the content has a backslash escape.
    @usableFromInline var escaped: Bool
    /// Start and end offsets: for strings, the content between the quotes; otherwise the whole value.
    @usableFromInline var start: Int32
    @usableFromInline var end: Int32
    /// Index of the first node after this value's subtree.
    @usableFromInline var next: Int32
    /// Members (objects) or elements (arrays).
    @usableFromInline var count: Int32
}

/// One parsed JSON text. Immutable; values are reached through `root`.
public final class JSONDocument: @unchecked Sendable {
    public let bytes: [UInt8]
    /// The tape. A constant: a `var` of a class costs a dynamic exclusivity check at every read.
    @usableFromInline let nodes: [JSONNode]
    /// Some object holds the same member name twice (readers disagree on which copy counts).
    /// Looked for the first time it is asked (most commands never ask), then remembered.
    public var hasDuplicateKeys: Bool {
        var state = duplicateState.load(ordering: .relaxed)
        if state == 0 {
            state = findsDuplicateKeys() ? 2 : 1
            // Threads that look at once find the same answer: whichever stores last stores it too.
            duplicateState.store(state, ordering: .relaxed)
        }
        return state == 2
    }
    /// `hasDuplicateKeys`: 0 not looked for yet, 1 no, 2 yes.
    private let duplicateState = Atomic<UInt8>(0)

    /// The most values a line of an export may hold (`ReadLimits.maxJSONValues`): a value costs 20
    /// bytes on the tape, so a 16 MiB line of `[0,0,…]` would take 160 MiB; one of a million values
    /// takes 20 MiB. A record holds a few hundred.
    public static let maxLineValues = 1 << 20

    /// Parses `bytes` as exactly one JSON value (surrounding white space allowed), at most `maxDepth`
    /// deep and of at most `maxValues` values (objects, arrays, names and scalars, each counted).
    public convenience init(bytes: [UInt8], maxDepth: Int = 512, maxValues: Int = Int.max) throws(JSONParseError) {
        try self.init(bytes: bytes, maxDepth: maxDepth, maxValues: maxValues, scratch: nil)
    }

    /// The same, the tape built in `scratch` (then copied at its size): the lines of a batch, parsed
    /// one after the other on one thread, share one room for their tapes instead of each making its own.
    init(bytes: [UInt8], maxDepth: Int = 512, maxValues: Int = Int.max, scratch: TapeStorage?) throws(JSONParseError) {
        self.bytes = bytes
        // Offsets are 32-bit on the tape: a text of 2 GiB or more is refused, never truncated.
        guard bytes.count < Int(Int32.max) else {
            throw JSONParseError(reason: .syntax, offset: 0, message: "JSON text of \(bytes.count) bytes is over the 2 GiB bound")
        }
        let capacity = min(max(8, bytes.count / 12), JSONTapeParser.maxReserve)
        var parser =
            scratch.map { JSONTapeParser(maxDepth: maxDepth, maxValues: maxValues, storage: $0, capacity: capacity) }
            ?? JSONTapeParser(maxDepth: maxDepth, maxValues: maxValues, capacity: capacity)
        let result: Result<[JSONNode], JSONParseError> = bytes.withUnsafeBufferPointer { buf in
            parser.parse(buf)
        }
        switch result {
        case .success(let n): self.nodes = n
        case .failure(let e): throw e
        }
    }

    /// Whether some object of the tape holds a member name twice (escapes resolved): the first
    /// object of two members or more for which `JSONTapeParser.hasDuplicates` says so.
    private func findsDuplicateKeys() -> Bool {
        var keyHashes: [UInt64] = []
        return bytes.withUnsafeBufferPointer { b in
            nodes.withUnsafeBufferPointer { tape in
                for i in tape.indices where tape[i].kind == .object && tape[i].count >= 2 {
                    if JSONTapeParser.hasDuplicates(b, tape, object: i, count: Int(tape[i].count), keyHashes: &keyHashes) {
                        return true
                    }
                }
                return false
            }
        }
    }

    /// A member name held more than once in one object (`duplicateKeys()`).
    public struct DuplicateName: Sendable {
        /// The name, decoded.
        public let name: String
        /// Where each copy's name stands (its content between the quotes), in order.
        public let ranges: [Range<Int>]
        /// The copies (indices into `ranges`, the first one first) whose value is written differently
        /// from every earlier copy's. A copy whose value is the same text as an earlier copy's reads
        /// the same: checking one checks both, so only these need a look of their own.
        public let distinct: [Int]

        public init(name: String, ranges: [Range<Int>], distinct: [Int]? = nil) {
            self.name = name
            self.ranges = ranges
            self.distinct = distinct ?? Array(ranges.indices)
        }

        /// The copy that stands in the k-th later document (`laterCopies`): the k-th copy with a
        /// value of its own, or the last of them.
        public func kept(_ k: Int) -> Int { distinct[min(k, distinct.count - 1)] }
    }

    /// The document once per later copy of the repeated names `duplicates` (from `duplicateKeys()`), at
    /// most 63 documents: in the k-th, every copy of each repeated name but its k-th with a value of
    /// its own (or its last) is renamed out of the way (its first character becomes `_`, see
    /// `setAside`), so a reader that takes one copy sees that one. Readers disagree on which copy
    /// counts; checking each of these checks every copy (a copy whose value is written as an earlier
    /// one's is checked with it). Made one at a time as the sequence is walked: a 16 MiB line holds
    /// one copy at a time, not 63.
    /// `limit`: only the first `limit` of them (see `laterCopiesChecked`).
    public func laterCopies(_ duplicates: [DuplicateName], limit: Int = Int.max) -> some Sequence<JSONDocument> {
        let bytes = self.bytes
        return (1..<(1 + min(max(0, limit), Self.laterCopyCount(duplicates)))).lazy.compactMap { k -> JSONDocument? in
            var b = bytes
            for d in duplicates {
                let keep = d.kept(k)
                for (j, r) in d.ranges.enumerated() where j != keep { Self.setAside(&b, r) }
            }
            return try? JSONDocument(bytes: b)
        }
    }

    /// The bytes of later copies checked per line (four copies of a line at the 16 MiB line bound;
    /// 63 copies of any line up to 1 MiB): each later copy is the whole line again, so a 16 MiB line
    /// holding a name 63 times would be checked 63 times over. Copies past it are named, not checked.
    public static let laterCopyBudget = 64 << 20

    /// How many documents `laterCopies` makes for `duplicates`: one fewer than the most copies of a
    /// name with values of their own, at most 63 (a name with more has those past the 64th unchecked).
    public static func laterCopyCount(_ duplicates: [DuplicateName]) -> Int {
        duplicates.isEmpty ? 0 : min(duplicates.map(\.distinct.count).max() ?? 1, 64) - 1
    }

    /// How many of the later copies of a text of `bytes` bytes fit `budget`.
    public static func laterCopiesChecked(
        _ duplicates: [DuplicateName], bytes: Int,
        budget: Int = laterCopyBudget
    ) -> Int {
        min(laterCopyCount(duplicates), budget / max(1, bytes))
    }

    /// Renames the member name whose content is `b[r]` out of the way, keeping the text valid JSON and
    /// its length: every byte of its first character (a UTF-8 sequence, or an escape such as `\"` or
    /// `\u00e9`) becomes `_`. `message` becomes `_essage`.
    static func setAside(_ b: inout [UInt8], _ r: Range<Int>) {
        guard let first = r.first else { return }
        var end = first + 1
        if b[first] == UInt8(ascii: "\\") {
            end = first + (first + 1 < r.upperBound && b[first + 1] == UInt8(ascii: "u") ? 6 : 2)
        } else if b[first] >= 0xC0 {
            while end < r.upperBound && b[end] & 0xC0 == 0x80 { end += 1 }
        }
        for i in first..<min(end, r.upperBound) { b[i] = UInt8(ascii: "_") }
    }

    /// The names the copies set aside by `laterCopies` carry there (`_essage` for `message`): what a
    /// location inside such a copy is named.
    public func setAsideNames(_ duplicates: [DuplicateName]) -> Set<String> {
        var names = Set<String>()
        for d in duplicates {
            var last: Range<Int>?
            for r in d.ranges {
                // Copies are nearly always written alike: each way of writing the name is renamed once.
                if let l = last, bytes[l].elementsEqual(bytes[r]) { continue }
                last = r
                var b = Array(bytes[r])
                Self.setAside(&b, 0..<b.count)
                names.insert(String(decoding: JSONValue.unescape(b, 0, b.count), as: UTF8.self))
            }
        }
        return names
    }

    /// Every member name that appears more than once in one object: its decoded name, the byte
    /// ranges (content between the quotes) of each copy's name, in order, and the copies whose values
    /// are written differently. Empty for most documents.
    public func duplicateKeys() -> [DuplicateName] {
        guard hasDuplicateKeys else { return [] }
        var out: [DuplicateName] = []
        /// One name's copies: their name ranges, and the copies whose value text is new (found by
        /// a hash of it, then compared in place).
        struct Group {
            var ranges: [Range<Int>] = []
            var distinct: [Int] = []
            var byHash: [Int: [Int]] = [:]
        }
        for (i, n) in nodes.enumerated() where n.kind == .object && n.count >= 2 {
            var groups: [[UInt8]: Int] = [:]
            var order: [(name: [UInt8], group: Group)] = []
            var k = i + 1
            for _ in 0..<n.count {
                let key = nodes[k]
                let v = Int(key.next)
                let name = key.escaped ? JSONValue(doc: self, index: k).stringBytes : Array(bytes[Int(key.start)..<Int(key.end)])
                let g: Int
                if let found = groups[name] {
                    g = found
                } else {
                    g = order.count
                    groups[name] = g
                    order.append((name, Group()))
                }
                // The value's kind and text: copies written alike read alike.
                let value = nodes[v]
                let text = bytes[Int(value.start)..<Int(value.end)]
                var h = Hasher()
                h.combine(value.kind.rawValue)
                h.combine(text.count)
                text.withUnsafeBytes { h.combine(bytes: $0) }
                let hash = h.finalize()
                let seen = order[g].group.byHash[hash, default: []].contains { w in
                    let o = nodes[w]
                    return o.kind == value.kind && bytes[Int(o.start)..<Int(o.end)].elementsEqual(text)
                }
                if !seen {
                    order[g].group.distinct.append(order[g].group.ranges.count)
                    order[g].group.byHash[hash, default: []].append(v)
                }
                order[g].group.ranges.append(Int(key.start)..<Int(key.end))
                k = Int(nodes[v].next)
            }
            for (name, group) in order where group.ranges.count > 1 {
                out.append(DuplicateName(name: String(decoding: name, as: UTF8.self), ranges: group.ranges, distinct: group.distinct))
            }
        }
        return out
    }

    /// Bytes this document holds: its text and its tape (what a bound on parsed lines counts). A
    /// parsed value costs 20 bytes: a line of many small values holds ten times its length.
    public var heldBytes: Int { bytes.count + nodes.count * MemoryLayout<JSONNode>.stride }

    public convenience init(string: String, maxDepth: Int = 512) throws(JSONParseError) {
        try self.init(bytes: Array(string.utf8), maxDepth: maxDepth)
    }

    /// The top-level value.
    public var root: JSONValue { JSONValue(doc: self, index: 0) }
}

struct JSONTapeParser {
    let maxDepth: Int
    let maxValues: Int
    /// The tape being built: `used` nodes at `tape`, room for `room`, in memory `storage` owns (a
    /// node is written with a store and a compare, not an array's uniqueness and capacity checks).
    private var tape: UnsafeMutablePointer<JSONNode>
    private(set) var used = 0
    private var room: Int
    private let storage: TapeStorage
    var error: JSONParseError?

    /// `capacity`: the nodes room is made for up front (more is made as needed).
    init(maxDepth: Int, maxValues: Int = Int.max, capacity: Int = 16) {
        self.init(maxDepth: maxDepth, maxValues: maxValues, storage: TapeStorage(capacity: max(1, capacity)), capacity: 0)
    }

    /// A parser that builds its tape in `storage` (room for `capacity` nodes made up front), over
    /// whatever an earlier parse left there.
    init(maxDepth: Int, maxValues: Int = Int.max, storage: TapeStorage, capacity: Int) {
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        self.storage = storage
        storage.reserve(capacity)
        tape = storage.base
        room = storage.capacity
    }

    /// The nodes made so far.
    var nodes: [JSONNode] { Array(UnsafeBufferPointer(start: tape, count: used)) }

    /// Writes `node` at the end of the tape.
    @inline(__always)
    mutating func append(_ node: JSONNode) {
        if used == room { grow() }
        (tape + used).initialize(to: node)
        used &+= 1
    }

    @inline(never)
    mutating func grow() {
        storage.grow(keeping: used)
        tape = storage.base
        room = storage.capacity
    }

    /// The tape reserved up front: a value per 12 bytes, at most `maxReserve` values (a long line is
    /// mostly one long string: reserving for its length cost 1.7 times the line, untouched).
    static let maxReserve = 1 << 15

    mutating func parse(_ buf: UnsafeBufferPointer<UInt8>) -> Result<[JSONNode], JSONParseError> {
        var i = skipWS(buf, 0)
        if i >= buf.count {
            return .failure(JSONParseError(reason: .empty, offset: 0, message: "empty line"))
        }
        i = value(buf, i, depth: 0)
        if let e = error { return .failure(e) }
        i = skipWS(buf, i)
        if i < buf.count {
            return .failure(JSONParseError(reason: .trailing, offset: i, message: "unexpected data after the JSON value"))
        }
        // The document keeps a copy of the tape's size, not the room made for it.
        return .success(nodes)
    }

    @inline(__always)
    func skipWS(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        while i < b.count {
            let c = b[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { break }
        }
        return i
    }

    mutating func tooMany(_ at: Int) -> Int {
        fail(.tooMany, at, "more than \(maxValues) JSON values")
    }

    mutating func fail(_ reason: JSONParseError.Reason, _ at: Int, _ msg: String) -> Int {
        if error == nil { error = JSONParseError(reason: reason, offset: at, message: msg) }
        return Int.max / 2
    }

    /// Parses one value at `i` (no leading white space); returns the offset after it.
    mutating func value(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, depth: Int) -> Int {
        guard i < b.count else { return fail(.unterminated, i, "line ends before the value does") }
        switch b[i] {
        case UInt8(ascii: "{"): return object(b, i, depth: depth + 1)
        case UInt8(ascii: "["): return array(b, i, depth: depth + 1)
        case UInt8(ascii: "\""): return string(b, i)
        case UInt8(ascii: "t"): return literal(b, i, "true", .true)
        case UInt8(ascii: "f"): return literal(b, i, "false", .false)
        case UInt8(ascii: "n"): return literal(b, i, "null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number(b, i)
        default: return fail(.syntax, i, "unexpected character '\(printable(b[i]))'")
        }
    }

    func printable(_ c: UInt8) -> String {
        (c >= 0x20 && c < 0x7F) ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }

    mutating func literal(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ word: StaticString, _ kind: JSONKind) -> Int {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { return fail(.unterminated, i, "line ends inside a literal") }
        let w = word.utf8Start
        for k in 0..<n where b[i + k] != w[k] {
            return fail(.syntax, i + k, "invalid literal")
        }
        append(JSONNode(kind: kind, escaped: false, start: Int32(i), end: Int32(i + n), next: Int32(used + 1), count: 0))
        return i + n
    }

    mutating func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { return fail(.unterminated, i, "line ends inside a number") }
        if b[i] == UInt8(ascii: "0") {
            i += 1
        } else if b[i] >= UInt8(ascii: "1") && b[i] <= UInt8(ascii: "9") {
            while i < b.count && b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
        } else {
            return fail(.syntax, i, "invalid number")
        }
        if i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            let d = i
            while i < b.count && b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
            if i == d { return fail(.syntax, i, "invalid number: no digit after '.'") }
        }
        if i < b.count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
            i += 1
            if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
            let d = i
            while i < b.count && b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
            if i == d { return fail(.syntax, i, "invalid number: no digit in exponent") }
        }
        append(JSONNode(kind: .number, escaped: false, start: Int32(start), end: Int32(i), next: Int32(used + 1), count: 0))
        return i
    }

    /// A string's node: its content, and in `count` the UTF-8 length of its decoded text when the
    /// content is all ASCII (escapes counted as the bytes they stand for), -1 otherwise.
    ///
    /// Sixteen bytes at a time: one bit per byte says where the quotes, backslashes, control bytes
    /// and bytes of 0x80 or more are (`StringBlock`); which bytes a backslash escapes follows from the
    /// backslash bits alone (an odd run of backslashes escapes the byte after it), so the two-byte
    /// escapes of a block (`\"`, `\n`…) are checked and counted together, with no byte-wise loop. A
    /// block stops at the first byte that ends or interrupts plain text and is not escaped: a quote,
    /// a control byte, (until the first) a byte of 0x80 or more, or the backslash of an escape that is
    /// not a two-byte one (`\u`, or invalid); an escape that begins in a block's last byte is left
    /// whole to the next block. Past a block read to its end, the string is read 64 bytes at a time
    /// the same way (`longRun`): a long body, plain or JSON text full of escapes. What
    /// a block stops at, and the last bytes of the text (under 16), go through the byte-at-a-time
    /// code, which decides every error.
    ///
    /// A short plain string (ASCII, no escape, its quote within the 64 bytes after its start: most
    /// member names and values: names, ids, timestamps, URLs) is taken here, in the caller, sixteen
    /// bytes at a time without the call; any other string goes to `longerString`, from its start.
    @inline(__always)
    mutating func string(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        let first = start &+ 1
        if let base = b.baseAddress {
            var i = first
            let last = min(b.count, first &+ 64)
            while i &+ 16 <= last {
                let (quote, special) = StringBlock.quotesAndSpecials(base + i)
                if special == 0 {
                    i &+= 16
                    continue
                }
                // The first byte that is not plain ASCII text is a quote: the string ends there.
                guard quote & special & (0 &- special) != 0 else { break }
                let end = i &+ special.trailingZeroBitCount
                append(
                    JSONNode(
                        kind: .string, escaped: false, start: Int32(truncatingIfNeeded: first),
                        end: Int32(truncatingIfNeeded: end), next: Int32(truncatingIfNeeded: used &+ 1),
                        count: Int32(truncatingIfNeeded: end &- first)))
                return end &+ 1
            }
        }
        return longerString(b, start)
    }

    /// `string` past its short plain case.
    @inline(never)
    mutating func longerString(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start + 1
        var escaped = false
        var nonASCII = false
        var saved = 0
        let n = b.count
        let base = b.baseAddress!
        @inline(__always) func width(_ v: Int) -> Int { v < 0x80 ? 1 : v < 0x800 ? 2 : 3 }
        // Offsets stay below `n` (under 2 GiB: `JSONDocument.init`), so `&+` cannot wrap here.
        while true {
            // The next byte to look at byte by byte: `at`.
            var at = i
            if i &+ 16 <= n {
                let block = StringBlock(base + i)
                var stop = block.quote | block.control | (nonASCII ? 0 : block.high)
                // The block is text to its end: what follows is read 64 bytes at a time.
                var run = false
                if block.backslash == 0 {
                    if stop == 0 {
                        i &+= 16
                        run = true
                    } else {
                        at = i &+ stop.trailingZeroBitCount
                    }
                } else {
                    let bs = block.backslash
                    // Bit k of `escapers`: byte k is a backslash that escapes byte k + 1 (the first,
                    // third… of a run); of `escapedBytes`: byte k is escaped (bit 16: the next
                    // block's first byte). The block starts with no escape pending.
                    let odd: UInt32 = 0xAAAA_AAAA
                    let terminal = (((bs << 1) | odd) &- bs) ^ odd
                    let escapers = terminal & bs
                    let escapedBytes = terminal ^ bs
                    // An escape begun in the last byte is taken whole in the next block, which starts there.
                    let width: UInt32 = escapers & 0x8000 != 0 ? 15 : 16
                    let inBlock: UInt32 = (1 << width) &- 1
                    // Escaped bytes that make no two-byte escape: the escape is read byte by byte.
                    var other = escapedBytes & ~(block.quote | bs) & inBlock
                    if other != 0 { other &= ~StringBlock.escapeLetters(base + i) }
                    stop = ((stop & ~escapedBytes) | (other >> 1)) & inBlock
                    if stop == 0 {
                        let counted = escapers & inBlock
                        if counted != 0 { escaped = true }
                        saved &+= counted.nonzeroBitCount
                        i &+= Int(width)
                        run = true
                    } else {
                        let p = stop.trailingZeroBitCount
                        let before = escapers & ((1 << UInt32(truncatingIfNeeded: p)) &- 1)
                        if before != 0 {
                            escaped = true
                            saved &+= before.nonzeroBitCount
                        }
                        at = i &+ p
                    }
                }
                if run {
                    guard i &+ 64 <= n else { continue }
                    let before = saved
                    let (next, stopped) = JSONTapeParser.longRun(base, i, n, high: !nonASCII, saved: &saved)
                    if saved != before { escaped = true }
                    guard stopped else {
                        i = next
                        continue
                    }
                    at = next
                }
            } else {
                while at < n {
                    let c = base[at]
                    if c == 0x22 || c == 0x5C || c < 0x20 || (c >= 0x80 && !nonASCII) { break }
                    at &+= 1
                }
                guard at < n else { break }
            }
            i = at
            let c = base[i]
            if c == 0x22 {
                let decoded = nonASCII ? -1 : Int32(truncatingIfNeeded: i &- start &- 1 &- saved)
                append(
                    JSONNode(
                        kind: .string, escaped: escaped, start: Int32(truncatingIfNeeded: start &+ 1),
                        end: Int32(truncatingIfNeeded: i), next: Int32(truncatingIfNeeded: used &+ 1), count: decoded))
                return i &+ 1
            }
            if c == 0x5C {
                escaped = true
                guard i + 1 < n else { break }
                let e = base[i + 1]
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    saved += 1
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 6 <= n else { return fail(.unterminated, i, "line ends inside a \\u escape") }
                    var v = 0
                    for k in 2..<6 {
                        let h = hexValue(base[i + k])
                        if h < 0 { return fail(.syntax, i + k, "invalid \\u escape") }
                        v = v << 4 | h
                    }
                    i += 6
                    if v >= 0xD800 && v < 0xE000 {
                        // A surrogate pair decodes to 4 bytes; a lone surrogate to U+FFFD (3 bytes).
                        if v < 0xDC00, i + 6 <= n, base[i] == 0x5C, base[i + 1] == UInt8(ascii: "u") {
                            var lo = 0
                            for k in 2..<6 { lo = lo << 4 | max(0, hexValue(base[i + k])) }
                            if lo >= 0xDC00 && lo < 0xE000 {
                                // 12 bytes for 4: the second escape, read next (and validated then, as
                                // any escape), counts as a lone surrogate (6 for 3), this one 6 for 1.
                                saved += 6 - 1
                                continue
                            }
                        }
                        saved += 6 - 3
                    } else {
                        saved += 6 - width(v)
                    }
                default:
                    return fail(.syntax, i + 1, "invalid escape '\\\(printable(e))'")
                }
                continue
            }
            if c >= 0x80 {
                nonASCII = true
                i += 1
                continue
            }
            return fail(.syntax, i, "control character in a string")
        }
        return fail(.unterminated, start, "line ends inside a string")
    }

    /// The string scanner's long-text loop: from `start` (a byte no backslash escapes), 64 bytes at a
    /// time while 64 are left, as the 16-byte blocks are read (`string`): which bytes a backslash
    /// escapes follows from the backslash bits, an escape begun in a block's last byte is left whole to
    /// the next block, and what each two-byte escape saves is added to `saved`. Returns the offset of
    /// the first byte the byte-at-a-time code must look at (`stopped`: a quote, a control byte, with
    /// `high` a byte of 0x80 or more, or the backslash of an escape that is not a two-byte one), or
    /// where fewer than 64 bytes are left (`stopped` false).
    @inline(__always)
    static func longRun(
        _ base: UnsafePointer<UInt8>, _ start: Int, _ n: Int, high: Bool,
        saved: inout Int
    ) -> (at: Int, stopped: Bool) {
        var i = start
        let odd: UInt64 = 0xAAAA_AAAA_AAAA_AAAA
        while i &+ 64 <= n {
            // Most blocks of a long text are plain: one test passes them.
            if StringBlock64.isPlain(base + i, high: high) {
                i &+= 64
                continue
            }
            let block = StringBlock64(base + i, high: high)
            let bs = block.backslash
            let special = block.quote | block.stop
            if bs == 0 {
                if special == 0 {
                    i &+= 64
                    continue
                }
                return (i &+ special.trailingZeroBitCount, true)
            }
            // As in `string`: bit k of `escapers`, byte k escapes byte k + 1; of `escapedBytes`, byte
            // k is escaped.
            let terminal = (((bs << 1) | odd) &- bs) ^ odd
            let escapers = terminal & bs
            let escapedBytes = terminal ^ bs
            let last = escapers >> 63 != 0
            let inBlock: UInt64 = last ? ~(1 << 63) : ~0
            var other = escapedBytes & ~(block.quote | bs) & inBlock
            if other != 0 { other &= ~StringBlock64.escapeLetters(base + i) }
            let stop = ((special & ~escapedBytes) | (other >> 1)) & inBlock
            if stop == 0 {
                saved &+= (escapers & inBlock).nonzeroBitCount
                i &+= last ? 63 : 64
                continue
            }
            let p = stop.trailingZeroBitCount
            saved &+= (escapers & ((1 << UInt64(truncatingIfNeeded: p)) &- 1)).nonzeroBitCount
            return (i &+ p, true)
        }
        return (i, false)
    }

    /// The top bit of each byte of `x`, gathered: bit k is byte k's.
    @inline(__always)
    static func bits(_ x: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: ((x >> 7) &* 0x0102_0408_1020_4080) >> 56)
    }

    mutating func array(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, depth: Int) -> Int {
        if depth > maxDepth { return fail(.tooDeep, start, "nesting deeper than \(maxDepth)") }
        let me = used
        append(JSONNode(kind: .array, escaped: false, start: Int32(start), end: 0, next: 0, count: 0))
        var i = skipWS(b, start + 1)
        var count: Int32 = 0
        if i < b.count && b[i] == UInt8(ascii: "]") {
            i += 1
        } else {
            while true {
                if used >= maxValues { return tooMany(i) }
                i = i < b.count && b[i] == UInt8(ascii: "\"") ? string(b, i) : value(b, i, depth: depth)
                if error != nil { return i }
                count += 1
                i = skipWS(b, i)
                guard i < b.count else { return fail(.unterminated, i, "line ends inside an array") }
                if b[i] == UInt8(ascii: ",") { i = skipWS(b, i + 1); continue }
                if b[i] == UInt8(ascii: "]") { i += 1; break }
                return fail(.syntax, i, "expected ',' or ']' in an array")
            }
        }
        tape[me].end = Int32(i)
        tape[me].next = Int32(used)
        tape[me].count = count
        return i
    }

    mutating func object(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, depth: Int) -> Int {
        if depth > maxDepth { return fail(.tooDeep, start, "nesting deeper than \(maxDepth)") }
        let me = used
        append(JSONNode(kind: .object, escaped: false, start: Int32(start), end: 0, next: 0, count: 0))
        var i = skipWS(b, start + 1)
        var count: Int32 = 0
        if i < b.count && b[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                if used >= maxValues - 1 { return tooMany(i) }
                guard i < b.count else { return fail(.unterminated, i, "line ends inside an object") }
                guard b[i] == UInt8(ascii: "\"") else { return fail(.syntax, i, "expected a member name") }
                i = string(b, i)
                if error != nil { return i }
                i = skipWS(b, i)
                guard i < b.count else { return fail(.unterminated, i, "line ends inside an object") }
                guard b[i] == UInt8(ascii: ":") else { return fail(.syntax, i, "expected ':' after a member name") }
                i = skipWS(b, i + 1)
                // A string value (most members' values) is read here, without the call.
                i = i < b.count && b[i] == UInt8(ascii: "\"") ? string(b, i) : value(b, i, depth: depth)
                if error != nil { return i }
                count += 1
                i = skipWS(b, i)
                guard i < b.count else { return fail(.unterminated, i, "line ends inside an object") }
                if b[i] == UInt8(ascii: ",") { i = skipWS(b, i + 1); continue }
                if b[i] == UInt8(ascii: "}") { i += 1; break }
                return fail(.syntax, i, "expected ',' or '}' in an object")
            }
        }
        tape[me].end = Int32(i)
        tape[me].next = Int32(used)
        tape[me].count = count
        return i
    }

    /// Whether two member names of the object at `tape[me]` (`count` members) are equal, escapes
    /// resolved. `keyHashes`: scratch room, kept between calls.
    static func hasDuplicates(
        _ b: UnsafeBufferPointer<UInt8>, _ tape: UnsafeBufferPointer<JSONNode>, object me: Int, count: Int,
        keyHashes: inout [UInt64]
    ) -> Bool {
        // A few names without escapes (most objects: `{"name":…,"value":…}`), each of its own length
        // (under 64): distinct bytes, so distinct names.
        if count <= 8 {
            var lengths: UInt64 = 0
            var k = me + 1
            var x = 0
            while x < count {
                let n = tape[k]
                let length = Int(truncatingIfNeeded: n.end &- n.start)
                if n.escaped || length >= 64 || lengths & (1 << UInt64(length)) != 0 { break }
                lengths |= 1 << UInt64(length)
                k = Int(tape[Int(n.next)].next)
                x &+= 1
            }
            if x == count { return false }
        }
        // Names without escapes (nearly every object): distinct fingerprints of their bytes mean
        // distinct names, and nothing more is done. Otherwise the names are hashed as decoded.
        let slots = count <= 8 ? count : 1 << (Int.bitWidth - (2 * count - 1).leadingZeroBitCount)
        let distinct = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: slots) { table in
            JSONTapeParser.distinctPlainNames(b, tape, object: me, count: count, table: table)
        }
        if distinct { return false }
        keyHashes.removeAll(keepingCapacity: true)
        var k = me + 1
        for _ in 0..<count {
            let n = tape[k]
            keyHashes.append(JSONTapeParser.keyHash(b, Int(n.start), Int(n.end), escaped: n.escaped))
            k = Int(tape[Int(n.next)].next)
        }
        if count <= 12 {
            for x in 1..<count where keyHashes[0..<x].contains(keyHashes[x]) { return true }
        } else {
            keyHashes.sort()
            for x in 1..<count where keyHashes[x] == keyHashes[x - 1] { return true }
        }
        return false
    }

    /// Whether the `count` member names of the object at `nodes[me]` are all free of escapes and
    /// their fingerprints all differ: then no two names are equal. False says only that this could
    /// not tell. `table` holds `count` fingerprints (8 names or fewer, compared pairwise) or is a
    /// hash set of a power of two slots, at least twice `count`.
    static func distinctPlainNames(
        _ b: UnsafeBufferPointer<UInt8>, _ nodes: UnsafeBufferPointer<JSONNode>, object me: Int,
        count: Int, table: UnsafeMutableBufferPointer<UInt64>
    ) -> Bool {
        guard let base = b.baseAddress else { return false }
        var k = me + 1
        if count <= 8 {
            for x in 0..<count {
                let n = nodes[k]
                if n.escaped { return false }
                let print = fingerprint(base, Int(n.start), Int(n.end), b.count)
                for y in 0..<x where table[y] == print { return false }
                table[x] = print
                k = Int(nodes[Int(n.next)].next)
            }
            return true
        }
        table.initialize(repeating: 0)
        let shift = UInt64(UInt64.bitWidth - table.count.trailingZeroBitCount)
        let last = table.count - 1
        for _ in 0..<count {
            let n = nodes[k]
            if n.escaped { return false }
            // 0 marks a free slot; a low bit set on each keeps them apart (two fingerprints that
            // differ only there are taken for equal: the decoded check then decides).
            let print = fingerprint(base, Int(n.start), Int(n.end), b.count) | 1
            var slot = Int(truncatingIfNeeded: (print &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while table[slot] != 0 {
                if table[slot] == print { return false }
                slot = (slot &+ 1) & last
            }
            table[slot] = print
            k = Int(nodes[Int(n.next)].next)
        }
        return true
    }

    /// A 64-bit fingerprint of the bytes `base[s..<e]` (`n` bytes readable from `base`): equal bytes,
    /// equal fingerprints. Their length, and their first and last eight bytes (all of them when
    /// fewer than nine).
    @inline(__always)
    static func fingerprint(_ base: UnsafePointer<UInt8>, _ s: Int, _ e: Int, _ n: Int) -> UInt64 {
        let length = e - s
        var first: UInt64 = 0, last: UInt64 = 0
        if length >= 8 {
            first = UnsafeRawPointer(base + s).loadUnaligned(as: UInt64.self)
            last = UnsafeRawPointer(base + e - 8).loadUnaligned(as: UInt64.self)
        } else if s + 8 <= n {
            // The name and what follows it (its closing quote at least), cut to the name's bytes:
            // the first byte lowest, as below.
            first = UnsafeRawPointer(base + s).loadUnaligned(as: UInt64.self).littleEndian & ((1 << UInt64(8 * length)) - 1)
        } else {
            for i in s..<e { first |= UInt64(base[i]) << UInt64(8 * (i - s)) }
        }
        return (first &* 0x9E37_79B9_7F4A_7C15) ^ ((last &* 0xC2B2_AE3D_27D4_EB4F) >> 1) ^ UInt64(length) << 56
    }

    /// FNV-1a over a member name's decoded UTF-8 bytes.
    static func keyHash(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, escaped: Bool) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        @inline(__always) func add(_ c: UInt8) { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
        guard escaped else {
            for i in s..<e { add(b[i]) }
            return h
        }
        var i = s
        while i < e {
            let c = b[i]
            guard c == 0x5C, i + 1 < e else { add(c); i += 1; continue }
            let x = b[i + 1]
            switch x {
            case UInt8(ascii: "n"): add(0x0A); i += 2
            case UInt8(ascii: "t"): add(0x09); i += 2
            case UInt8(ascii: "r"): add(0x0D); i += 2
            case UInt8(ascii: "b"): add(0x08); i += 2
            case UInt8(ascii: "f"): add(0x0C); i += 2
            case UInt8(ascii: "u") where i + 6 <= e:
                var v: UInt32 = 0
                for k in 2..<6 { v = v << 4 | UInt32(max(0, hexValue(b[i + k]))) }
                i += 6
                if v >= 0xD800 && v < 0xDC00, i + 6 <= e, b[i] == 0x5C, b[i + 1] == UInt8(ascii: "u") {
                    var lo: UInt32 = 0
                    for k in 2..<6 { lo = lo << 4 | UInt32(max(0, hexValue(b[i + k]))) }
                    if lo >= 0xDC00 && lo < 0xE000 { v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00); i += 6 }
                }
                for u in String(Character(Unicode.Scalar(v) ?? "\u{FFFD}")).utf8 { add(u) }
            default: add(x); i += 2
            }
        }
        return h
    }
}

/// The memory of a tape being built, freed with the parser that builds it.
final class TapeStorage {
    private(set) var base: UnsafeMutablePointer<JSONNode>
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    /// Room for `count` nodes at least (none kept).
    func reserve(_ count: Int) {
        guard count > capacity else { return }
        base.deallocate()
        base = .allocate(capacity: count)
        capacity = count
    }

    /// Twice the room, the first `count` nodes kept.
    func grow(keeping count: Int) {
        let bigger = UnsafeMutablePointer<JSONNode>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    deinit { base.deallocate() }
}

@inline(__always)
func hexValue(_ c: UInt8) -> Int {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c) - 48
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(c) - 87
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(c) - 55
    default: return -1
    }
}
