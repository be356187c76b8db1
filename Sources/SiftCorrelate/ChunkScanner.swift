import Foundation
import SiftArchive
import SiftCore

/// The chunk loop and the per-region byte scan of one work item.
struct ChunkScanner {
    let request: ScanRequest
    /// The scan's options; a W3C `#Fields:` directive met in the lines updates `read.w3cFields` for
    /// the lines after it (a stream is not looked at first, and IIS writes a new directive on restart).
    var options: ScanOptions
    /// Whether `#Fields:` directives are looked for in the lines: in a W3C log, and in a stream (not
    /// looked at first); other files are not searched for them.
    var watchDirectives = false
    let display: String
    var out = ItemOutcome()
    /// Lines before the current region.
    var lineBase = 0
    let userNeedles: [[UInt8]]
    let windows: IntervalUnion
    var wantedScratch: [RequestID] = []
    var othersScratch: [RequestID] = []
    /// The date and time of day of the last line's time, read once per second of log.
    var seconds = LogTime.SecondCache()
    /// The last pretty-printed JSON record found (its region and bounds), and member-looking lines
    /// for which none was.
    var prettyCache: (base: UnsafePointer<UInt8>, start: Int, end: Int)?
    var prettyMisses = 0

    /// `windows`: `request.windows` as one `IntervalUnion` (made once per scan, not per file).
    init(request: ScanRequest, windows: IntervalUnion, options: ScanOptions, display: String) {
        self.request = request
        self.options = options
        self.display = display
        self.userNeedles = request.userIds.prefix(64).map { Array($0.utf8) }
        self.windows = windows
    }

    /// Reads with `read` until it returns 0 or throws; scans the lines that start in [start, end).
    /// `read` must deliver the bytes from `start - 1` (from 0 when `start` is 0).
    ///
    /// A line over `maxLineBytes` is not held: its bytes stream through the buffer and only its request
    /// ids (and a time near its start) are read, so a request whose only line is that long is still found.
    mutating func run(start: Int64, end: Int64, read: (UnsafeMutableRawBufferPointer) throws -> Int) {
        let cap = options.chunkBytes + options.maxLineBytes
        let buf = UnsafeMutablePointer<UInt8>.allocate(capacity: cap)
        defer { buf.deallocate() }
        var tail = 0 // buf[0..<tail]: the start of an unfinished line
        var abs0: Int64 = start > 0 ? start - 1 : 0 // file offset of buf[0]
        var skipping = start > 0 // before the first line that starts in the segment
        var inLong = false // inside a line over the bound; buf[0..<tail] is its carry
        while true {
            let n: Int
            do {
                n = try read(UnsafeMutableRawBufferPointer(start: buf + tail, count: min(options.chunkBytes, cap - tail)))
            } catch {
                out.error = "\(error)"
                if inLong { finishLongLine() }
                return
            }
            if n == 0 { break }
            options.progress?(Int64(n))
            var avail = tail + n
            if skipping || inLong {
                let carry = inLong ? tail : 0
                guard let nl = memchr(buf, 0x0A, avail) else {
                    if inLong {
                        out.bytes += Int64(n)
                        let keep = streamLongPiece(UnsafePointer(buf), avail, final: false)
                        memmove(buf, buf + avail - keep, keep)
                        abs0 += Int64(avail - keep)
                        tail = keep
                    } else {
                        abs0 += Int64(avail)
                        tail = 0
                    }
                    continue
                }
                let k = buf.distance(to: nl.assumingMemoryBound(to: UInt8.self)) + 1
                if inLong {
                    out.bytes += Int64(k - carry)
                    streamLongPiece(UnsafePointer(buf), k - 1, final: true)
                    finishLongLine()
                }
                abs0 += Int64(k)
                memmove(buf, buf + k, avail - k)
                avail -= k
                skipping = false
                inLong = false
            }
            // buf[0..<avail] starts at a line start, at file offset abs0.
            if abs0 >= end { return }
            guard avail > 0, let lastNL = ByteSearch.lastIndex(of: 0x0A, buf, avail) else {
                if avail >= options.maxLineBytes {
                    tail = startLongLine(buf, 0, avail, &abs0)
                    inLong = true
                } else {
                    tail = avail
                }
                continue
            }
            var regionEnd = lastNL + 1
            var finished = false
            if abs0 + Int64(regionEnd) > end {
                // Stop after the line holding byte `end - 1`.
                let from = Int(end - 1 - abs0)
                if let nl = memchr(buf + from, 0x0A, regionEnd - from) {
                    regionEnd = buf.distance(to: nl.assumingMemoryBound(to: UInt8.self)) + 1
                }
                finished = true
            }
            lineBase = out.lines_
            out.lines_ += scanRegion(UnsafePointer(buf), regionEnd)
            out.bytes += Int64(regionEnd)
            if finished { return }
            abs0 += Int64(regionEnd)
            let rest = avail - regionEnd
            if rest >= options.maxLineBytes {
                tail = startLongLine(buf, regionEnd, rest, &abs0)
                inLong = true
            } else {
                memmove(buf, buf + regionEnd, rest)
                tail = rest
            }
        }
        if inLong {
            // The file ends inside a long line: what its carry holds is its last bytes.
            streamLongPiece(UnsafePointer(buf), tail, final: true)
            finishLongLine()
            return
        }
        // A last line without a newline.
        if tail > 0 && !skipping && abs0 < end {
            lineBase = out.lines_
            scanRegion(UnsafePointer(buf), tail)
            out.lines_ += 1
            out.bytes += Int64(tail)
        }
    }

    /// A line over the bound whose first `count` bytes are at `buf[from...]` (file offset `abs0` is
    /// `buf[from]`): count it, read its ids and a time near its start, and keep its last bytes at the
    /// front of the buffer (returned: how many) so an id cut by the next read is seen whole.
    mutating func startLongLine(_ buf: UnsafeMutablePointer<UInt8>, _ from: Int, _ count: Int, _ abs0: inout Int64) -> Int {
        out.longLines += 1
        out.lines_ += 1
        out.bytes += Int64(count)
        let line = UnsafePointer(buf + from)
        long = LongLine(
            number: out.lines_,
            ts: LogTime.findZoned(in: line, count: min(count, 64 << 10))
                .map { $0.1 ? $0.0 : LineParser.localize($0.0, options.read) })
        let keep = streamLongPiece(line, count, final: false)
        memmove(buf, buf + from + count - keep, keep)
        abs0 += Int64(count - keep)
        return keep
    }

    /// What is known of the long line being streamed.
    struct LongLine {
        var number: Int
        var ts: Double?
        var wanted: [RequestID] = []
    }

    var long: LongLine?

    /// Reads the ids in `p[0..<count]`, a piece of a long line. Unless `final` (the line ends at `count`),
    /// an id must be followed by a byte of the piece (so its end is known); the last 40 bytes, which may
    /// hold an id not yet decided, are left to be carried (returned: how many).
    @discardableResult
    mutating func streamLongPiece(_ p: UnsafePointer<UInt8>, _ count: Int, final: Bool) -> Int {
        var pos = 0
        while pos + 40 <= count, let f = ByteSearch.findReq(p + pos, count - pos) {
            let k = pos + f
            guard k + 40 <= count else { break }
            if !final && k + 40 == count { break }
            if let id = RequestID.parseUUID(p + k + 4), k + 40 == count || !RequestID.isWordByte(p[k + 40]),
                request.ids.contains(id), long?.wanted.contains(id) == false, (long?.wanted.count ?? 0) < 64
            {
                long?.wanted.append(id)
            }
            pos = k + 4
        }
        return final ? 0 : min(count, 40)
    }

    /// The long line ended: a line with a wanted id is kept, with its time when one was read near its start.
    mutating func finishLongLine() {
        guard let l = long else { return }
        long = nil
        guard !l.wanted.isEmpty else { return }
        out.matchedLines += 1
        if let t = l.ts {
            out.firstTs = min(out.firstTs ?? t, t)
            out.lastTs = max(out.lastTs ?? t, t)
        }
        let parsed = ParsedLine(
            format: out.format ?? .plain, ts: l.ts,
            message: "(a line over the \(options.maxLineBytes)-byte line bound: only its request ids and time were read)")
        if out.lines.count < options.maxServerLines {
            out.lines.append(ServerLine(file: display, line: l.number, ids: l.wanted, parsed: parsed))
        } else {
            out.droppedLines += 1
        }
    }

    /// Finds the ids in a region of whole lines; returns the number of newlines in it.
    @discardableResult
    mutating func scanRegion(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int {
        // The buffer is reused: a record found in the last region is not this one's.
        prettyCache = nil
        // W3C directives in the region, in order: each names the columns of the lines after it.
        var directives = watchDirectives ? W3C.directives(base, count) : []
        var pos = 0
        var counted = 0 // a line start; the newlines before it are in `linesBefore`
        var linesBefore = 0
        while pos + 40 <= count {
            guard let f = ByteSearch.findReq(base + pos, count - pos) else { break }
            let p = pos + f
            guard p + 40 <= count, let first = RequestID.parseUUID(base + p + 4),
                p + 40 == count || !RequestID.isWordByte(base[p + 40])
            else {
                pos = p + 4
                continue
            }
            while let d = directives.first, d.at < p {
                options.read.w3cFields = d.fields
                directives.removeFirst()
            }
            // The line around the hit: walk the newlines up to it (they are counted on the way).
            var ls = counted
            while let nl = ByteSearch.index(of: 0x0A, base + ls, p - ls) {
                ls += nl + 1
                linesBefore += 1
            }
            counted = ls
            let le = ByteSearch.index(of: 0x0A, base + p + 40, count - p - 40).map { p + 40 + $0 } ?? count
            handleLine(
                base + ls, le - ls, first: first, firstAt: p - ls, lineNumber: lineBase + linesBefore + 1,
                region: (base, count, ls, le))
            if le < count {
                // The line's own newline is counted here: the next walk starts at the next line.
                counted = le + 1
                linesBefore += 1
            }
            pos = le + 1
        }
        if counted < count { linesBefore += countNewlines(base + counted, count - counted) }
        if let last = directives.last { options.read.w3cFields = last.fields }
        return linesBefore
    }

    /// The bytes of the pretty-printed JSON record (`gcloud logging read --format=json`, OpenTelemetry's
    /// console exporter) that the line at [lineStart, lineEnd) is a member of: the line is indented and
    /// starts with `"`; the record opens at the nearest line before it that is `{` alone at a smaller
    /// indentation, and closes at the first line after it that starts with `}` at that indentation.
    /// Nil when the line is no such member or the record is not whole within 64 KiB of the region.
    static func prettyRecord(_ base: UnsafePointer<UInt8>, _ count: Int, lineStart: Int, lineEnd: Int) -> UnsafeBufferPointer<UInt8>? {
        guard let indent = memberIndent(base, lineStart: lineStart, lineEnd: lineEnd) else { return nil }
        let limit = 64 << 10
        // Backward: a line that is `{` (maybe `[{`, `,{`), indented less than the member.
        var open: (at: Int, indent: Int)?
        var e = lineStart
        while e > 0, lineStart - e < limit {
            let lineEndBefore = e - 1 // the newline ending the line before
            var s0 = lineEndBefore
            while s0 > 0, base[s0 - 1] != 0x0A { s0 -= 1 }
            var j = s0
            while j < lineEndBefore, base[j] == 0x20 { j += 1 }
            var end = lineEndBefore
            while end > j, base[end - 1] == 0x20 || base[end - 1] == 0x0D { end -= 1 }
            if end - j == 1, base[j] == UInt8(ascii: "{"), j - s0 < indent {
                open = (j, j - s0)
                break
            }
            e = s0
        }
        guard let o = open else { return nil }
        // Forward: the line that starts with `}` at the opening's indentation.
        var s1 = lineEnd + 1
        while s1 < count, s1 - lineEnd < limit {
            var j = s1
            while j < count, base[j] == 0x20 { j += 1 }
            if j < count, base[j] == UInt8(ascii: "}"), j - s1 == o.indent {
                return UnsafeBufferPointer(start: base + o.at, count: j + 1 - o.at)
            }
            guard let nl = ByteSearch.index(of: 0x0A, base + s1, count - s1) else { return nil }
            s1 += nl + 1
        }
        return nil
    }

    /// The indentation of a line that reads as a member of pretty-printed JSON (indented by two or more
    /// spaces, then `"`), or nil.
    static func memberIndent(_ base: UnsafePointer<UInt8>, lineStart: Int, lineEnd: Int) -> Int? {
        var i = lineStart
        while i < lineEnd, base[i] == 0x20 { i += 1 }
        let indent = i - lineStart
        return indent >= 2 && i < lineEnd && base[i] == UInt8(ascii: "\"") ? indent : nil
    }

    /// The pretty-printed record a wanted line is a member of: the last one found is reused for the
    /// lines inside it; after 8 member-looking lines without a whole record, a file is read line by
    /// line only (each search costs up to 128 KiB: a file of broken records must stay linear).
    mutating func record(for r: (base: UnsafePointer<UInt8>, count: Int, ls: Int, le: Int)) -> UnsafeBufferPointer<UInt8>? {
        guard prettyMisses < 8, Self.memberIndent(r.base, lineStart: r.ls, lineEnd: r.le) != nil else { return nil }
        if let c = prettyCache, c.base == r.base, r.ls >= c.start, r.le <= c.end {
            return UnsafeBufferPointer(start: r.base + c.start, count: c.end - c.start)
        }
        guard let rec = Self.prettyRecord(r.base, r.count, lineStart: r.ls, lineEnd: r.le), let start = rec.baseAddress else {
            prettyMisses += 1
            return nil
        }
        let at = r.base.distance(to: start)
        prettyCache = (r.base, at, at + rec.count)
        return rec
    }

    /// One line holding at least one well-formed id (the first at `firstAt`); when the line is a member
    /// of a pretty-printed JSON record in `region`, the record is read in its place.
    mutating func handleLine(
        _ line: UnsafePointer<UInt8>, _ n: Int, first: RequestID, firstAt: Int, lineNumber: Int,
        region: (base: UnsafePointer<UInt8>, count: Int, ls: Int, le: Int)? = nil
    ) {
        // Reused buffers: no allocation per line (taken out first, so each is uniquely referenced
        // and emptying it keeps its storage).
        var wanted = wantedScratch
        var others = othersScratch
        wantedScratch = []
        othersScratch = []
        // Emptied from the end (at most a few ids each; `removeAll` costs more than that).
        while !wanted.isEmpty { wanted.removeLast() }
        while !others.isEmpty { others.removeLast() }
        defer {
            wantedScratch = wanted
            othersScratch = others
        }
        var id = first
        var at = firstAt
        while true {
            if request.ids.contains(id) {
                if !wanted.contains(id) { wanted.append(id) }
            } else if !windows.isEmpty, !others.contains(id), others.count < 16 {
                others.append(id)
            }
            // The next id in the line.
            var next: RequestID?
            var q = at + 40
            while q + 40 <= n, let f = ByteSearch.findReq(line + q, n - q) {
                let k = q + f
                if k + 40 <= n, let nid = RequestID.parseUUID(line + k + 4), k + 40 == n || !RequestID.isWordByte(line[k + 40]) {
                    next = nid
                    at = k
                    break
                }
                q = k + 4
            }
            guard let nid = next else { break }
            id = nid
        }
        var ts: Double?
        if !wanted.isEmpty {
            out.matchedLines += 1
            let bytes = region.flatMap { record(for: $0) } ?? UnsafeBufferPointer(start: line, count: n)
            var parsed = LineParser.parse(bytes, hint: out.format, options: options.read, focus: wanted[0])
            // Whether the time read is one written without a zone (the first time in the line).
            if options.read.timezone == nil, let t = parsed.ts, let p = bytes.baseAddress,
                let (found, zoned) = LogTime.findZoned(in: p, count: min(bytes.count, 4096)), !zoned, abs(found - t) < 1
            {
                parsed.naiveTime = true
            }
            if out.format == nil { out.format = parsed.format }
            // What the logger wrote after the line (a stack trace) belongs to it, as far as the region goes.
            if let r = region, bytes.baseAddress == line, r.le < r.count {
                (parsed.continuation, parsed.cause) = StackTrace.read(r.base, r.count, from: r.le + 1)
            }
            ts = parsed.ts
            // A line holding several records (an OTLP batch): each wanted id is read from its own record,
            // when the records differ; one line of one record keeps its ids together.
            var each: [(ids: [RequestID], parsed: ParsedLine)] = [(wanted, parsed)]
            if wanted.count > 1, line[0] == UInt8(ascii: "{") {
                let apart = wanted.dropFirst().map { LineParser.parse(bytes, hint: out.format, options: options.read, focus: $0) }
                if apart.contains(where: { $0 != parsed }) {
                    each = [([wanted[0]], parsed)] + zip(wanted.dropFirst(), apart).map { ([$0.0], $0.1) }
                }
            }
            for (_, p) in each {
                if p.ts != nil { out.fieldsRead.insert(.time) }
                if p.status != nil { out.fieldsRead.insert(.status) }
                if p.durationMs != nil { out.fieldsRead.insert(.duration) }
                out.readUnits.add(p)
            }
            for (ids, p) in each {
                if out.lines.count < options.maxServerLines {
                    out.lines.append(ServerLine(file: display, line: lineNumber, ids: ids, parsed: p))
                } else {
                    out.droppedLines += 1
                }
            }
        }
        if !others.isEmpty && ts == nil, let (t, zoned) = LogTime.findZoned(in: line, count: n, cache: &seconds) {
            ts = zoned ? t : LineParser.localize(t, options.read)
        }
        if let t = ts {
            out.firstTs = min(out.firstTs ?? t, t)
            out.lastTs = max(out.lastTs ?? t, t)
        }
        guard !others.isEmpty, let t = ts, inWindow(t) else { return }
        var mask: UInt64 = 0
        for (k, u) in userNeedles.enumerated() where contains(line, n, u) { mask |= 1 << UInt64(k) }
        for o in others {
            if out.seen.count < options.maxSeen {
                out.seen.append(SeenID(id: o, ts: t, userMask: mask))
            } else {
                out.droppedSeen += 1
            }
        }
    }

    func inWindow(_ t: Double) -> Bool { windows.contains(t) }

    /// Whether `word` occurs in the line as a whole token (not inside a longer word).
    func contains(_ line: UnsafePointer<UInt8>, _ n: Int, _ word: [UInt8]) -> Bool {
        guard !word.isEmpty else { return false }
        return word.withUnsafeBufferPointer { w -> Bool in
            var i = 0
            while i < n, let f = ByteSearch.find(line + i, n - i, w) {
                let k = i + f
                let before = k == 0 ? 0x20 : line[k - 1]
                let after = k + w.count >= n ? 0x20 : line[k + w.count]
                let isWord: (UInt8) -> Bool = { RequestID.isWordByte($0) || $0 == UInt8(ascii: "_") }
                if !isWord(before) && !isWord(after) { return true }
                i = k + 1
            }
            return false
        }
    }
}

/// Counts `\n` bytes, eight at a time.
@inline(__always)
func countNewlines(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
    var count = 0
    var i = 0
    let raw = UnsafeRawPointer(p)
    let ones: UInt64 = 0x0101_0101_0101_0101
    let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    while i + 32 <= n {
        var acc = 0
        for k in stride(from: 0, to: 32, by: 8) {
            let w = raw.loadUnaligned(fromByteOffset: i + k, as: UInt64.self) ^ (ones &* 0x0A)
            // High bit set in each byte that is NOT zero; count the zero bytes.
            let t = ((w & lows) &+ lows) | w
            acc += (~t & 0x8080_8080_8080_8080).nonzeroBitCount
        }
        count += acc
        i += 32
    }
    while i < n {
        if p[i] == 0x0A { count += 1 }
        i += 1
    }
    return count
}
