import Foundation
import SiftArchive
import SiftCore

// Scrub's streamed rewrite: a session file is read, edited and written a line at a time, any other
// large file a piece at a time, so memory is bounded by one line (and its parse), not by the file.

/// Where one rewritten entry's bytes go, a piece at a time (small pieces are gathered first).
final class EntrySink {
    private let put: (UnsafeRawBufferPointer) throws -> Void
    private let end: () throws -> Void
    private var buffer: [UInt8] = []
    private static let flushAt = 256 << 10

    init(put: @escaping (UnsafeRawBufferPointer) throws -> Void, end: @escaping () throws -> Void) {
        self.put = put
        self.end = end
    }

    func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }

    func write(_ raw: UnsafeRawBufferPointer) throws {
        guard raw.count > 0 else { return }
        if raw.count >= EntrySink.flushAt {
            try flush()
            try put(raw)
            return
        }
        buffer.append(contentsOf: raw)
        if buffer.count >= EntrySink.flushAt { try flush() }
    }

    func write(byte: UInt8) throws {
        buffer.append(byte)
        if buffer.count >= EntrySink.flushAt { try flush() }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try put($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is gathered, then ends the entry.
    func finish() throws {
        try flush()
        try end()
    }
}

/// Splits a stream into lines (without their `\n`), holding one line and one chunk. A line over
/// `maxLine` bytes is an error: the first read of the input refused such a line, so meeting one
/// here means the input changed in between.
struct ScrubLineSplitter {
    private let source: ByteSource
    private let maxLine: Int
    private var chunk = [UInt8](repeating: 0, count: 256 << 10)
    private var start = 0
    private var end = 0
    private var eof = false
    private var pending: [UInt8] = []

    init(source: ByteSource, maxLine: Int) {
        self.source = source
        self.maxLine = maxLine
    }

    /// The next line and whether a `\n` ended it; nil at the end.
    mutating func next() throws -> (line: [UInt8], terminated: Bool)? {
        while true {
            if start < end {
                let s = start, e = end
                let found: Int? = chunk.withUnsafeBufferPointer { b in
                    memchr(b.baseAddress! + s, 0x0A, e - s).map { b.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
                }
                if let nl = found {
                    var line: [UInt8]
                    if pending.isEmpty {
                        line = Array(chunk[s..<nl])
                    } else {
                        pending.append(contentsOf: chunk[s..<nl])
                        line = pending
                        pending = []
                    }
                    start = nl + 1
                    try check(line.count)
                    return (line, true)
                }
                pending.append(contentsOf: chunk[s..<e])
                start = end
                try check(pending.count)
            }
            if eof {
                guard !pending.isEmpty else { return nil }
                let line = pending
                pending = []
                return (line, false)
            }
            let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { eof = true }
            start = 0
            end = n
        }
    }

    private func check(_ count: Int) throws {
        guard count <= maxLine else {
            throw WriteError("a line is over the \(maxLine)-byte line limit (the input changed since it was checked)")
        }
    }
}

/// `first`, then the rest of `rest`.
final class ChainSource: ByteSource {
    private let first: MemorySource
    private let rest: ByteSource
    private var inFirst = true

    init(_ first: [UInt8], _ rest: ByteSource) {
        self.first = MemorySource(first)
        self.rest = rest
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if inFirst {
            let n = try first.read(into: buffer)
            if n > 0 { return n }
            inFirst = false
        }
        return try rest.read(into: buffer)
    }
}

/// Hands out `inner`'s bytes and keeps a copy of each in `spool`.
final class TeeSource: ByteSource {
    private let inner: ByteSource
    private let spool: SpoolFile

    init(_ inner: ByteSource, into spool: SpoolFile) {
        self.inner = inner
        self.spool = spool
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try inner.read(into: buffer)
        if n > 0 { try spool.write(UnsafeRawBufferPointer(rebasing: buffer[..<n])) }
        return n
    }

    /// Reads (and keeps) the rest.
    func drain() throws {
        var buf = [UInt8](repeating: 0, count: 256 << 10)
        while try buf.withUnsafeMutableBytes({ try read(into: $0) }) > 0 {}
    }
}

/// `ScrubValues.replace` on a stream: the same forms, replaced in the same order, with the same
/// result as on the whole text. One stage per form; each scans what reaches it for its form and keeps
/// back the last bytes, in which a match could still begin, until more arrive.
struct StreamReplacer {
    private struct Stage {
        let needle: [UInt8]
        let with: [UInt8]
        let placeholder: String
        var carry: [UInt8] = []
    }
    private var stages: [Stage] = []

    init(values: ScrubValues) {
        for e in values.entries {
            for form in e.forms where !form.isEmpty {
                stages.append(Stage(needle: form, with: Array(e.placeholder.utf8), placeholder: e.placeholder))
            }
        }
    }

    /// `bytes` through every stage; the placeholders written go in `used`. `final`: the end of the stream.
    mutating func push(_ bytes: [UInt8], final: Bool, used: inout Set<String>) -> (out: [UInt8], changed: Bool) {
        var current = bytes
        var changed = false
        for i in stages.indices {
            var buf = stages[i].carry
            buf.append(contentsOf: current)
            let (out, keepFrom, hit) = StreamReplacer.scan(buf, stages[i].needle, stages[i].with, final: final)
            stages[i].carry = Array(buf[keepFrom...])
            if hit {
                changed = true
                used.insert(stages[i].placeholder)
            }
            current = out
        }
        return (current, changed)
    }

    /// Replaces each match of `needle` that lies whole in `hay`, left to right, not overlapping;
    /// returns the text up to `keepFrom` (after the last match, the last `needle.count - 1` bytes are
    /// kept back unless `final`).
    private static func scan(_ hay: [UInt8], _ needle: [UInt8], _ with: [UInt8], final: Bool) -> ([UInt8], Int, Bool) {
        let n = needle.count
        var out: [UInt8] = []
        out.reserveCapacity(hay.count)
        var last = 0
        var hit = false
        hay.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { nd in
                var i = 0
                while i + n <= h.count {
                    guard let p = memchr(h.baseAddress! + i, Int32(nd[0]), h.count - n - i + 1) else { break }
                    let at = h.baseAddress!.distance(to: p.assumingMemoryBound(to: UInt8.self))
                    if memcmp(h.baseAddress! + at, nd.baseAddress!, n) == 0 {
                        out.append(contentsOf: h[last..<at])
                        out.append(contentsOf: with)
                        hit = true
                        i = at + n
                        last = i
                    } else {
                        i = at + 1
                    }
                }
            }
        }
        let keepFrom = final ? hay.count : max(last, hay.count - (n - 1))
        out.append(contentsOf: hay[last..<keepFrom])
        return (out, keepFrom, hit)
    }
}

extension Scrubber {
    static func isGzip(_ b: [UInt8]) -> Bool { b.count >= 2 && b[0] == 0x1F && b[1] == 0x8B }

    /// Up to `count` bytes from the start of `source` (fewer at its end).
    static func read(_ source: ByteSource, upTo count: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: min(count, 256 << 10))
        while out.count < count {
            let want = min(buf.count, count - out.count)
            let n = try buf.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want])) }
            if n == 0 { break }
            out += buf[..<n]
        }
        return out
    }

    /// One line of a session file with its values replaced (a frame record replaced whole); nil
    /// when nothing changed.
    mutating func line(_ line: [UInt8], number: Int) throws -> [UInt8]? {
        let doc = try? JSONDocument(bytes: line, maxDepth: limits.maxJSONDepth, maxValues: limits.maxJSONValues)
        if let doc, doc.root["type"]?.string == "frame" {
            framesReplaced += 1
            return frameStandIn(doc.root)
        }
        if let doc, let edited = try resolved(doc, edited: try document(doc), line: number) { return edited }
        // A damaged line is read as text by verify: its values are replaced where they stand.
        return values.replace(line, used: &used)
    }

    /// A session file (JSON Lines), a line at a time into `sink`: each line that parses is edited,
    /// any other is kept as it is. Without a sink, stops at the first line that would change.
    /// Returns whether anything changed.
    mutating func streamLines(_ source: ByteSource, to sink: EntrySink?) throws -> Bool {
        var lines = ScrubLineSplitter(source: source, maxLine: limits.maxLineBytes)
        var number = 0
        var changed = false
        while let (line, terminated) = try lines.next() {
            number += 1
            // A blank line holds nothing to edit.
            let blank = line.isEmpty || (line.count == 1 && line[0] == 0x0D)
            let edited = blank ? nil : try self.line(line, number: number)
            if edited != nil {
                changed = true
                if sink == nil { return true }
            }
            if let sink {
                try sink.write(edited ?? line)
                if terminated { try sink.write(byte: 0x0A) }
            }
        }
        return changed
    }

    /// A session file or a HAR document into `sink`, streamed: a HAR a value at a time, a session
    /// file a line at a time, and gzip inside the gzip inflated, edited and compressed again as it
    /// goes (`depth`: gzip layers already inflated inside the entry).
    mutating func jsonText(_ source: ByteSource, to sink: EntrySink?, depth: Int = 0) throws -> Bool {
        let peek = PrefixedSource.peek(source, count: 64)
        let head = peek.peeked
        if Scrubber.isGzip(head) && depth < Scrubber.maxGzipDepth {
            guard let sink else {
                return try jsonText(GzipSource(wrapping: peek, limit: limits.maxInputBytes), to: nil, depth: depth + 1)
            }
            return try gzipped(peek, scratchNear: scratchNear, to: sink) { s, source, sink in
                try s.jsonText(source, to: sink, depth: depth + 1)
            }
        }
        if HARMapping.looksLikeHAR(head) { return try harText(peek, to: sink) }
        return try streamLines(peek, to: sink)
    }

    /// Any other file (notes, export.json, a stray .json), as verify reads it: one of up to a line's
    /// bound is rewritten whole (a JSON document in it edited as one); a larger one has its values
    /// replaced as text, a piece at a time. `depth`: gzip layers already inflated around it.
    mutating func otherText(_ source: ByteSource, to sink: EntrySink?, depth: Int) throws -> Bool {
        let bound = limits.maxLineBytes
        let head = try Scrubber.read(source, upTo: bound + 1)
        if head.count <= bound {
            let out = depth == 0 ? ((try? content(head)) ?? values.replace(head, used: &used)) : try content(head, depth: depth)
            try sink?.write(out ?? head)
            return out != nil
        }
        var replacer = StreamReplacer(values: values)
        let rest = ChainSource(head, source)
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        var changed = false
        while true {
            let n = try buf.withUnsafeMutableBytes { try rest.read(into: $0) }
            let (out, hit) = replacer.push(Array(buf[..<n]), final: n == 0, used: &used)
            if hit {
                changed = true
                if sink == nil { return true }
            }
            try sink?.write(out)
            if n == 0 { return changed }
        }
    }

    /// A gzip'd file inside a folder or an archive: its inflated bytes go through `transform`, and
    /// what comes out is compressed again; a file in which nothing changes is copied as it was. The
    /// compressed bytes are kept in a scratch file next to `scratchNear` while a first read (stopping
    /// at the first change) tells which.
    mutating func gzipped(
        _ source: ByteSource, scratchNear: String, to sink: EntrySink,
        transform: (inout Scrubber, ByteSource, EntrySink?) throws -> Bool
    ) throws -> Bool {
        let spool = try SpoolFile(near: scratchNear)
        let tee = TeeSource(source, into: spool)
        var trial = self
        let changes = try transform(&trial, GzipSource(wrapping: tee, limit: limits.maxInputBytes), nil)
        try tee.drain()
        guard changes else {
            try spool.copy { try sink.write($0) }
            return false
        }
        let gz = try DeflateStream(gzip: true)
        let compressing = EntrySink(
            put: { raw in try gz.write(raw) { piece in try piece.withUnsafeBytes { try sink.write($0) } } },
            end: { try sink.write(gz.finish()) })
        _ = try transform(&self, GzipSource(wrapping: spool.reader(), limit: limits.maxInputBytes), compressing)
        try compressing.finish()
        return true
    }
}
