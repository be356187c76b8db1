import SiftArchive

/// Walks a HAR document (one JSON object, often pretty-printed, possibly hundreds of MB) as a stream:
/// the members of `log` other than `entries` are captured whole (bounded), and `entries` is handed
/// out one element at a time, so memory follows the largest entry, never the file.
///
/// It only checks structure (strings, nesting, separators); each captured value is then parsed by
/// `JSONDocument`, which checks the rest. Damage is reported with its byte offset and line.
struct HARStream {
    /// One step of the walk.
    enum Event {
        /// A member of `log` other than `entries` (`version`, `creator`, `browser`, `pages`, `comment`…).
        case logMember(name: String, bytes: [UInt8])
        /// A member of the root object other than `log`, with the line where it starts.
        case rootMember(name: String, bytes: [UInt8], line: Int)
        /// `log.entries[index]`, its raw bytes, and the line and byte offset where it starts.
        case entry(index: Int, bytes: [UInt8], line: Int, offset: Int64)
        /// An entry (or a member of `log`) over the size bound: skipped, its size counted.
        case tooLarge(what: String, bytes: Int64, line: Int, offset: Int64)
        /// The structure is broken here; nothing after it can be placed, so the walk ends.
        case damaged(message: String, line: Int, offset: Int64)
        /// The bytes end before the document does.
        case truncated(message: String, line: Int, offset: Int64)
        /// After the document's end, another JSON object starts here: it is walked as the first was.
        case another(line: Int, offset: Int64)
        /// After the document's end, bytes that start no object: handed out as they are, at most
        /// `maxValue` at a time (each piece repeats the last 256 bytes of the one before it).
        case trailing(bytes: [UInt8], line: Int, offset: Int64)
    }

    private let source: ByteSource
    private let maxValue: Int
    private var chunk: [UInt8]
    private var pos = 0
    private var end = 0
    private var eof = false
    /// What the source threw, if it did (the bytes before it are good).
    private(set) var sourceError: Error?
    /// Absolute offset of `chunk[pos]`, and the 1-based line there.
    private(set) var offset: Int64 = 0
    private(set) var line = 1
    /// Bytes consumed from the source.
    private(set) var bytesRead: Int64 = 0

    private enum State { case start, rootMembers, logMembers, entries(Int), after, trailing, done }
    private var state = State.start
    private var sawLog = false
    private var sawEntries = false
    /// Where inside the document we are, for messages (`log.entries[3]`).
    private var place = "the document"

    init(source: ByteSource, maxValue: Int, chunkSize: Int = 256 << 10) {
        self.source = source
        self.maxValue = max(1, maxValue)
        self.chunk = [UInt8](repeating: 0, count: chunkSize)
    }

    /// The line where the last member handed out (`logMember`) starts.
    private(set) var memberLine = 1

    /// Whether the document had a `log` object with an `entries` array.
    var foundEntries: Bool { sawEntries }

    // MARK: bytes

    private mutating func fill() -> Bool {
        if pos < end { return true }
        if eof { return false }
        do {
            let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            pos = 0
            end = n
            bytesRead += Int64(n)
            if n == 0 { eof = true }
            return n > 0
        } catch {
            sourceError = error
            eof = true
            pos = 0
            end = 0
            return false
        }
    }

    private mutating func peek() -> UInt8? {
        guard fill() else { return nil }
        return chunk[pos]
    }

    private mutating func advance() {
        if chunk[pos] == 0x0A { line += 1 }
        pos += 1
        offset += 1
    }

    private mutating func skipWS() {
        while let c = peek(), c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { advance() }
    }

    // MARK: values

    private enum Step<T> {
        case ok(T)
        case stop(Event)
    }

    private enum Capture {
        case value([UInt8])
        case tooLarge(Int64)
        case broken(String)
        case ended
    }

    /// Reads one JSON value's bytes at the current position, keeping at most `limit` of them.
    private mutating func capture(limit: Int) -> Capture {
        var out: [UInt8] = []
        var size: Int64 = 0
        var keep = true
        guard let first = peek() else { return .ended }
        guard JSONValueEnd.canStart(first) else { return .broken("unexpected character '\(printable(first))'") }
        var scanner = JSONValueEnd(first: first)
        while true {
            guard fill() else { return .ended }
            // Scan the rest of the chunk in one call; copy what it consumed at once.
            let start = pos
            var newlines = 0
            let (i, done) = chunk.withUnsafeBufferPointer { scanner.scan($0, from: start, to: end, newlines: &newlines) }
            let n = i - start
            size += Int64(n)
            if keep {
                if out.count + n <= limit { out += chunk[start..<i] } else { keep = false; out = [] }
            }
            pos = i
            offset += Int64(n)
            line += newlines
            if done { return keep ? .value(out) : .tooLarge(size) }
        }
    }

    private func printable(_ c: UInt8) -> String {
        (c >= 0x20 && c < 0x7F) ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }

    /// A member name (at most 4 KiB), then `:`.
    private mutating func memberName() -> Step<String> {
        skipWS()
        let at = (line, offset)
        switch capture(limit: 4096) {
        case .value(let bytes):
            guard bytes.first == 0x22, let doc = try? JSONDocument(bytes: bytes, maxDepth: 1), let name = doc.root.string else {
                return .stop(.damaged(message: "expected a member name in \(place)", line: at.0, offset: at.1))
            }
            skipWS()
            guard let c = peek() else { return .stop(ended()) }
            guard c == 0x3A else {
                return .stop(
                    .damaged(
                        message: "expected ':' after \"\(Escape.terminal(String(name.prefix(40))))\" in \(place)",
                        line: line, offset: offset))
            }
            advance()
            skipWS()
            return .ok(name)
        case .tooLarge:
            return .stop(.damaged(message: "a member name over 4096 bytes in \(place)", line: at.0, offset: at.1))
        case .broken(let why):
            return .stop(.damaged(message: "\(why) in \(place)", line: at.0, offset: at.1))
        case .ended:
            return .stop(ended())
        }
    }

    private func ended() -> Event {
        .truncated(message: "the HAR ends inside \(place)", line: line, offset: offset)
    }

    /// After a member or an element: `,` (more follows: true) or the closing byte (false).
    private mutating func separator(close: UInt8) -> Step<Bool> {
        skipWS()
        guard let c = peek() else { return .stop(ended()) }
        if c == 0x2C { advance(); return .ok(true) }
        if c == close { advance(); return .ok(false) }
        return .stop(
            .damaged(
                message: "expected ',' or '\(printable(close))' in \(place), found '\(printable(c))'",
                line: line, offset: offset))
    }

    /// Skips or keeps the value of a member that is not walked into.
    private mutating func otherValue(name: String, keep: Bool, root: Bool = false) -> Event? {
        let at = (line, offset)
        memberLine = line
        switch capture(limit: keep ? maxValue : 0) {
        case .value(let bytes):
            guard keep else { return nil }
            return root ? .rootMember(name: name, bytes: bytes, line: at.0) : .logMember(name: name, bytes: bytes)
        case .tooLarge(let n):
            return keep ? .tooLarge(what: root ? name : "log.\(name)", bytes: n, line: at.0, offset: at.1) : nil
        case .broken(let why): return .damaged(message: "\(why) in \(place)", line: at.0, offset: at.1)
        case .ended: return ended()
        }
    }

    // MARK: the walk

    /// The next event, or nil at the end of the document.
    mutating func next() -> Event? {
        if let p = pending { pending = nil; return p }
        return step()
    }

    private var pending: Event?
    /// The last bytes of the trailing piece handed out before, repeated at the start of the next.
    private var carry: [UInt8] = []

    private mutating func step() -> Event? {
        while true {
            switch state {
            case .done:
                return nil
            case .after:
                // White space and NUL bytes may follow a document; anything else is read too.
                while let c = peek(), c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x00 { advance() }
                guard let c = peek() else { state = .done; return nil }
                if c == 0x7B || c == 0xEF {
                    sawLog = false
                    sawEntries = false
                    state = .start
                    return .another(line: line, offset: offset)
                }
                state = .trailing
            case .trailing:
                let at = (line, offset)
                var out = carry
                let limit = max(maxValue, carry.count + 1)
                while out.count < limit, fill() {
                    let n = min(end - pos, limit - out.count)
                    for i in pos..<(pos + n) where chunk[i] == 0x0A { line += 1 }
                    out += chunk[pos..<(pos + n)]
                    pos += n
                    offset += Int64(n)
                }
                guard out.count > carry.count else { state = .done; return nil }
                carry = Array(out.suffix(256))
                return .trailing(bytes: out, line: at.0, offset: at.1)
            case .start:
                // A UTF-8 byte order mark, then `{`.
                if peek() == 0xEF { advance(); if peek() == 0xBB { advance() }; if peek() == 0xBF { advance() } }
                skipWS()
                guard let c = peek() else { state = .done; return ended() }
                guard c == 0x7B else {
                    state = .done
                    return .damaged(message: "a HAR starts with '{', not '\(printable(c))'", line: line, offset: offset)
                }
                advance()
                skipWS()
                if peek() == 0x7D { advance(); state = .after; continue }
                state = .rootMembers
            case .rootMembers:
                place = "the document"
                let name: String
                switch memberName() {
                case .ok(let n): name = n
                case .stop(let e): state = .done; return e
                }
                if name == "log" && !sawLog && peek() == 0x7B {
                    sawLog = true
                    advance()
                    skipWS()
                    if peek() == 0x7D {
                        advance()
                        if let e = afterLog() { return e }
                        continue
                    }
                    state = .logMembers
                    continue
                }
                // Any other member is kept too: verify reads it, so nothing in the file goes unchecked.
                let event = otherValue(name: name, keep: true, root: true)
                if case .damaged = event { state = .done; return event }
                if case .truncated = event { state = .done; return event }
                var after: Event?
                switch separator(close: 0x7D) {
                case .ok(let more): if !more { state = .after }
                case .stop(let e): state = .done; after = e
                }
                if let event { pending = after; return event }
                if let after { return after }
            case .logMembers:
                place = "log"
                let name: String
                switch memberName() {
                case .ok(let n): name = n
                case .stop(let e): state = .done; return e
                }
                if name == "entries" && !sawEntries && peek() == 0x5B {
                    sawEntries = true
                    advance()
                    skipWS()
                    if peek() == 0x5D {
                        advance()
                        if let e = afterLogMember() { return e }
                        continue
                    }
                    state = .entries(0)
                    continue
                }
                let event = otherValue(name: name, keep: true)
                if case .damaged = event { state = .done; return event }
                if case .truncated = event { state = .done; return event }
                let after = afterLogMember()
                if let event { pending = after; return event }
                if let after { return after }
            case .entries(let index):
                place = "log.entries[\(index)]"
                skipWS()
                let at = (line, offset)
                var event: Event
                switch capture(limit: maxValue) {
                case .value(let bytes): event = .entry(index: index, bytes: bytes, line: at.0, offset: at.1)
                case .tooLarge(let n): event = .tooLarge(what: place, bytes: n, line: at.0, offset: at.1)
                case .broken(let why): state = .done; return .damaged(message: "\(why) in \(place)", line: at.0, offset: at.1)
                case .ended: state = .done; return ended()
                }
                skipWS()
                if peek() == 0x7B {
                    // `} {`: a missing comma between two entries; read on.
                    state = .entries(index + 1)
                    return event
                }
                switch separator(close: 0x5D) {
                case .ok(let more):
                    if more {
                        state = .entries(index + 1)
                    } else {
                        place = "log"
                        if let e = afterLogMember() { pending = event; return e }
                    }
                case .stop(let e):
                    state = .done
                    pending = e
                }
                return event
            }
        }
    }

    /// After a member of `log`: `,` → more members, `}` → back in the root object.
    private mutating func afterLogMember() -> Event? {
        place = "log"
        switch separator(close: 0x7D) {
        case .ok(let more):
            if more { state = .logMembers; return nil }
            return afterLog()
        case .stop(let e):
            state = .done
            return e
        }
    }

    /// After `log`'s closing brace: more members of the root, or its end.
    private mutating func afterLog() -> Event? {
        place = "the document"
        switch separator(close: 0x7D) {
        case .ok(let more):
            state = more ? .rootMembers : .after
            return nil
        case .stop(let e):
            state = .done
            return e
        }
    }

    /// Whether `prefix` (the first bytes of an input) is the start of a HAR document: `{`, then the
    /// member `"log"` (white space and a byte order mark allowed).
    static func looksLikeHAR(_ prefix: [UInt8]) -> Bool {
        var i = 0
        if prefix.count >= 3, prefix[0] == 0xEF, prefix[1] == 0xBB, prefix[2] == 0xBF { i = 3 }
        func ws() { while i < prefix.count, prefix[i] == 0x20 || prefix[i] == 0x0A || prefix[i] == 0x0D || prefix[i] == 0x09 { i += 1 } }
        ws()
        guard i < prefix.count, prefix[i] == 0x7B else { return false }
        i += 1
        ws()
        let key: [UInt8] = Array("\"log\"".utf8)
        guard i + key.count <= prefix.count, Array(prefix[i..<i + key.count]) == key else { return false }
        i += key.count
        ws()
        return i < prefix.count && prefix[i] == 0x3A
    }
}
