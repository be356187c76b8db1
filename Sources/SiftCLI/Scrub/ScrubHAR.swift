import Foundation
import SiftArchive
import SiftCore

/// Reads a HAR document a piece at a time for scrub: the bytes between values (white space,
/// punctuation) and member names of the root object, `log` and `log.entries` one by one, and any
/// other value (an entry, `creator`, `pages`…) whole, up to `maxValue` bytes. Memory follows the
/// largest such value, never the file.
struct HARPieces {
    private let source: ByteSource
    private let maxValue: Int
    private var chunk = [UInt8](repeating: 0, count: 256 << 10)
    private var pos = 0
    private var end = 0
    private var eof = false
    /// The 1-based line of the next byte.
    private(set) var line = 1

    init(source: ByteSource, maxValue: Int) {
        self.source = source
        self.maxValue = max(1, maxValue)
    }

    private mutating func fill() throws -> Bool {
        if pos < end { return true }
        if eof { return false }
        let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
        pos = 0
        end = n
        if n == 0 { eof = true }
        return n > 0
    }

    /// The next byte, not consumed; nil at the end.
    mutating func peek() throws -> UInt8? { try fill() ? chunk[pos] : nil }

    /// Consumes the next byte into `out`.
    mutating func take(into out: inout [UInt8]) throws {
        guard try fill() else { throw WriteError("the HAR ends early (the input changed since it was checked)") }
        if chunk[pos] == 0x0A { line += 1 }
        out.append(chunk[pos])
        pos += 1
    }

    /// White space (and a byte order mark) into `out`; true when it stopped with `out` at `upTo` bytes.
    mutating func space(into out: inout [UInt8], upTo: Int) throws -> Bool {
        while let c = try peek(), c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0xEF || c == 0xBB || c == 0xBF {
            if out.count >= upTo { return true }
            try take(into: &out)
        }
        return false
    }

    /// The rest of the source, a chunk at a time.
    mutating func rest(_ flush: ([UInt8]) throws -> Void) throws {
        while try fill() {
            try flush(Array(chunk[pos..<end]))
            pos = end
        }
    }

    /// The error for text that is not the HAR it was checked to be.
    func broken() -> WriteError {
        WriteError("the HAR is not well formed near line \(line) (the input changed since it was checked)")
    }

    /// One JSON value's bytes (a string, a number, a literal, an object or an array); its
    /// structure is only followed (strings, nesting), `JSONDocument` checks the rest.
    mutating func value() throws -> [UInt8] {
        var out: [UInt8] = []
        guard let first = try peek() else { throw WriteError("the HAR ends early (the input changed since it was checked)") }
        var scanner = JSONValueEnd(first: first)
        while try fill() {
            let start = pos
            var newlines = 0
            let (i, done) = chunk.withUnsafeBufferPointer { scanner.scan($0, from: start, to: end, newlines: &newlines) }
            guard out.count + (i - start) <= maxValue else {
                throw WriteError("a HAR value over \(maxValue) bytes is not rewritten")
            }
            out += chunk[start..<i]
            pos = i
            line += newlines
            if done { return out }
        }
        if scanner.scalar && !out.isEmpty { return out }
        throw WriteError("the HAR ends early (the input changed since it was checked)")
    }
}

extension Scrubber {
    /// A HAR document streamed into `sink`: the root object, `log` and `log.entries` are walked and
    /// copied as they stand; each other value (an entry, `creator`, `pages`…) is edited as a document
    /// of its own, as the whole document would be. A name held twice in the root object or in `log`
    /// (`verify.duplicate-key`) is renamed in its later copies (`_log~2`), as in an entry. Without a
    /// sink, stops at the first change. Returns whether anything changed.
    mutating func harText(_ source: ByteSource, to sink: EntrySink?) throws -> Bool {
        var r = HARPieces(source: source, maxValue: limits.maxLineBytes)
        var changed = false
        var pending: [UInt8] = []
        try harSpace(&r, &pending, sink, &changed)
        if try harObject(&r, level: 0, &pending, sink, &changed), sink == nil { return true }
        // Anything after the document is text: its values are replaced where they stand.
        var replacer = StreamReplacer(values: values)
        let (out, hit) = replacer.push(pending, final: false, used: &used)
        try sink?.write(out)
        changed = changed || hit
        try r.rest { piece in
            let (out, hit) = replacer.push(piece, final: false, used: &used)
            changed = changed || hit
            try sink?.write(out)
        }
        let (tail, last) = replacer.push([], final: true, used: &used)
        try sink?.write(tail)
        return changed || last
    }

    /// White space into `pending`, handed on each MiB (a document may hold any amount of it).
    private mutating func harSpace(
        _ r: inout HARPieces, _ pending: inout [UInt8], _ sink: EntrySink?,
        _ changed: inout Bool
    ) throws {
        while try r.space(into: &pending, upTo: 1 << 20) { try harFlush(&pending, sink, &changed) }
    }

    /// Plain bytes between values (white space, punctuation, member names): their values replaced.
    private mutating func harFlush(_ pending: inout [UInt8], _ sink: EntrySink?, _ changed: inout Bool) throws {
        guard !pending.isEmpty else { return }
        if let out = values.replace(pending, used: &used) {
            changed = true
            try sink?.write(out)
        } else {
            try sink?.write(pending)
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// One value read whole (at most a line's bound), edited as a document and written.
    private mutating func harValue(_ r: inout HARPieces, _ sink: EntrySink?, _ changed: inout Bool) throws {
        let line = r.line
        let bytes = try r.value()
        let out: [UInt8]?
        if let doc = try? JSONDocument(bytes: bytes, maxDepth: limits.maxJSONDepth, maxValues: limits.maxJSONValues) {
            out = try resolved(doc, edited: try document(doc), line: line, prefix: "_")
        } else {
            out = values.replace(bytes, used: &used)
        }
        if out != nil { changed = true }
        try sink?.write(out ?? bytes)
    }

    /// An object at `level` (0: the root, 1: `log`): its members' names and the bytes between them
    /// kept in `pending`, `log` (in the root) and `entries` (in `log`) walked into, any other value
    /// edited whole. Returns true when, without a sink, a change was met (the walk stops there).
    private mutating func harObject(
        _ r: inout HARPieces, level: Int, _ pending: inout [UInt8], _ sink: EntrySink?,
        _ changed: inout Bool
    ) throws -> Bool {
        guard try r.peek() == 0x7B else { throw r.broken() }
        try r.take(into: &pending)
        var seen = Set<String>()
        try harSpace(&r, &pending, sink, &changed)
        if try r.peek() == 0x7D { try r.take(into: &pending); return false }
        while true {
            let nameLine = r.line
            guard try r.peek() == 0x22 else { throw r.broken() }
            var nameBytes = try r.value()
            guard let name = (try? JSONDocument(bytes: nameBytes, maxDepth: 1))?.root.string else { throw r.broken() }
            if seen.contains(name) {
                var k = 2
                while seen.contains("_" + name + "~\(k)") { k += 1 }
                let renamed = "_" + name + "~\(k)"
                nameBytes = Scrubber.quoted(renamed)
                keyRenames.append((line: nameLine, from: name, to: renamed))
                seen.insert(renamed)
                if sink == nil { return true }
                changed = true
            }
            let walkInto = !seen.contains(name) && ((level == 0 && name == "log") || (level == 1 && name == "entries"))
            seen.insert(name)
            pending += nameBytes
            try harSpace(&r, &pending, sink, &changed)
            guard try r.peek() == 0x3A else { throw r.broken() }
            try r.take(into: &pending)
            try harSpace(&r, &pending, sink, &changed)
            let open = try r.peek()
            if walkInto && level == 0 && open == 0x7B {
                if try harObject(&r, level: 1, &pending, sink, &changed) { return true }
            } else if walkInto && level == 1 && open == 0x5B {
                if try harArray(&r, &pending, sink, &changed) { return true }
            } else if try harEdited(&r, &pending, sink, &changed) {
                return true
            }
            if try !harSeparator(&r, close: 0x7D, &pending, sink, &changed) { return false }
        }
    }

    /// `log.entries`: each element edited whole.
    private mutating func harArray(
        _ r: inout HARPieces, _ pending: inout [UInt8], _ sink: EntrySink?,
        _ changed: inout Bool
    ) throws -> Bool {
        try r.take(into: &pending)
        try harSpace(&r, &pending, sink, &changed)
        if try r.peek() == 0x5D { try r.take(into: &pending); return false }
        while true {
            if try harEdited(&r, &pending, sink, &changed) { return true }
            if try !harSeparator(&r, close: 0x5D, &pending, sink, &changed) { return false }
        }
    }

    /// A value edited whole, once the bytes before it are handed on. Returns true when, without a
    /// sink, a change was met.
    private mutating func harEdited(
        _ r: inout HARPieces, _ pending: inout [UInt8], _ sink: EntrySink?,
        _ changed: inout Bool
    ) throws -> Bool {
        try harFlush(&pending, sink, &changed)
        if changed && sink == nil { return true }
        try harValue(&r, sink, &changed)
        return changed && sink == nil
    }

    /// After a member or an element: `,` and the space after it (true: more follows), or `close` (false).
    private mutating func harSeparator(
        _ r: inout HARPieces, close: UInt8, _ pending: inout [UInt8], _ sink: EntrySink?,
        _ changed: inout Bool
    ) throws -> Bool {
        try harSpace(&r, &pending, sink, &changed)
        switch try r.peek() {
        case 0x2C:
            try r.take(into: &pending)
            try harSpace(&r, &pending, sink, &changed)
            return true
        case close:
            try r.take(into: &pending)
            return false
        default:
            throw r.broken()
        }
    }
}
