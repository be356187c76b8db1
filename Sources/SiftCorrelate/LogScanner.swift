import Foundation
import Synchronization
import SiftArchive
import SiftCore

/// One server log line that carries a wanted request id.
public struct ServerLine: Sendable, Equatable {
    /// The log file as found (`logs/api.log.1.gz`, `-` for standard input).
    public var file: String
    /// 1-based line number in the (decompressed) file.
    public var line: Int
    /// The wanted ids the line carries (usually one).
    public var ids: [RequestID]
    /// What the line says.
    public var parsed: ParsedLine

    public init(file: String, line: Int, ids: [RequestID], parsed: ParsedLine) {
        self.file = file
        self.line = line
        self.ids = ids
        self.parsed = parsed
    }
}

/// A request id seen in a line inside some session's window that is not one of the wanted ids.
public struct SeenID: Sendable, Equatable {
    /// The id seen.
    public var id: RequestID
    /// The line's timestamp on the server's clock.
    public var ts: Double
    /// Bit `k` set: the line carries user id `k` of `ScanRequest.userIds` (the first 64).
    public var userMask: UInt64
}

/// What to look for in the logs.
public struct ScanRequest: Sendable {
    /// The ids whose lines are parsed and returned.
    public var ids: RequestIDSet
    /// Server-clock intervals: a line in one of them has its other ids recorded as `SeenID`s.
    /// Empty: nothing is recorded.
    public var windows: [(lo: Double, hi: Double)]
    /// Users whose presence in a window line is recorded (`SeenID.userMask`); at most 64 are used.
    public var userIds: [String]

    public init(ids: RequestIDSet, windows: [(lo: Double, hi: Double)] = [], userIds: [String] = []) {
        self.ids = ids
        self.windows = windows
        self.userIds = userIds
    }
}

/// Bounds and knobs of a scan.
public struct ScanOptions: Sendable {
    /// Bytes read per call (and the scanning granularity).
    public var chunkBytes: Int = 1 << 20
    /// A longer line is skipped and counted (`LogFileSummary.longLines`).
    public var maxLineBytes: Int = 1 << 20
    /// Files (and segments of large plain files) scanned at once.
    public var workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// A plain file at least twice this size is split into segments scanned in parallel.
    public var segmentBytes: Int64 = 64 << 20
    /// Matching lines kept in all (the rest are counted in `LogScanResult.droppedLines`).
    public var maxServerLines: Int = 50_000
    /// Window ids kept in all (the rest are counted in `LogScanResult.droppedSeen`).
    public var maxSeen: Int = 200_000
    /// Bytes one gzip file may inflate to.
    public var maxInflatedBytes: Int64 = 1 << 40
    /// Files a folder walk may yield.
    public var maxFiles: Int = 100_000
    /// Called from the scanning threads with the bytes of each chunk read (for a progress line).
    public var progress: (@Sendable (Int64) -> Void)?

    public init() {}
}

/// What scanning one log file found.
public struct LogFileSummary: Sendable, Equatable {
    /// The log file as found (`-` for standard input).
    public var file: String
    /// `plain`, `gzip`, or `stream` (standard input or a pipe; gzip or not).
    public var encoding: String
    /// The format of the first matching line, when there is one.
    public var format: LogFormat?
    /// Bytes scanned (after decompression).
    public var bytes: Int64 = 0
    /// Lines scanned (an overlong one counts).
    public var lines = 0
    /// Lines carrying a wanted id.
    public var matchedLines = 0
    /// Lines over `ScanOptions.maxLineBytes`, skipped.
    public var longLines = 0
    /// Lowercase, names the file: why it was not read in full.
    public var error: String?
}

/// Everything a scan found, in file order.
public struct LogScanResult: Sendable {
    /// Every file scanned, in order.
    public var files: [LogFileSummary] = []
    /// Problems that are not one file's (a path that does not exist, a link skipped), naming the path.
    public var errors: [String] = []
    /// Matching lines in file order, then line order.
    public var lines: [ServerLine] = []
    /// Window ids in file order.
    public var seen: [SeenID] = []
    /// Matching lines past `ScanOptions.maxServerLines`, not kept.
    public var droppedLines = 0
    /// Window ids past `ScanOptions.maxSeen`, not kept.
    public var droppedSeen = 0

    /// Bytes scanned over all files.
    public var bytes: Int64 { files.reduce(0) { $0 + $1.bytes } }
    /// Lines scanned over all files.
    public var lineCount: Int { files.reduce(0) { $0 + $1.lines } }
    /// Every error, per file and not.
    public var allErrors: [String] { errors + files.compactMap(\.error) }
}

/// Streams log files in fixed-size chunks and finds the lines of wanted request ids.
///
/// Per chunk: `memmem` finds `req_` on the raw bytes; the next 36 bytes must have the UUID shape and
/// not be followed by a letter or digit; the id is looked up as a 128-bit value in an open-addressing
/// set. Only lines with a wanted id are parsed. Lines are cut only at newlines, so an id split across
/// two reads is seen whole. Memory per worker is one buffer of `chunkBytes + maxLineBytes`.
public struct LogScanner: Sendable {
    /// What to look for.
    public var request: ScanRequest
    /// Bounds and knobs.
    public var options: ScanOptions

    public init(request: ScanRequest, options: ScanOptions = ScanOptions()) {
        self.request = request
        self.options = options
    }

    /// Scans every path (files, folders walked recursively in sorted order without following links,
    /// `.gz` by magic bytes, `-` for standard input). Several files are scanned at once; results are
    /// merged in file order, so the output does not depend on timing.
    public func scan(paths: [String]) -> LogScanResult {
        var result = LogScanResult()
        var files: [FileRef] = []
        for p in paths {
            enumerate(p, into: &files, errors: &result.errors)
        }
        if files.count > options.maxFiles {
            result.errors.append("\(files.count) log files found: only the first \(options.maxFiles) are scanned")
            files.removeLast(files.count - options.maxFiles)
        }
        // Work items: whole files, or segments of large plain files.
        var items: [WorkItem] = []
        for (k, f) in files.enumerated() {
            if f.kind == .plain, f.size >= options.segmentBytes * 2 {
                let parts = Int(min(Int64(options.workers * 4), (f.size + options.segmentBytes - 1) / options.segmentBytes))
                let step = (f.size + Int64(parts) - 1) / Int64(parts)
                var s: Int64 = 0
                while s < f.size {
                    items.append(WorkItem(file: k, start: s, end: min(f.size, s + step)))
                    s += step
                }
            } else {
                items.append(WorkItem(file: k, start: 0, end: Int64.max))
            }
        }
        // Bound what all items hold together until the merge: each keeps its share (at least 1000).
        var perItem = options
        perItem.maxServerLines = max(1000, options.maxServerLines / max(1, items.count))
        perItem.maxSeen = max(1000, options.maxSeen / max(1, items.count))
        let outcomes = LogScanner(request: request, options: perItem).run(items: items, files: files)
        // Merge in item order: line numbers of a segment follow the lines of the segments before it.
        var summaries = files.map { LogFileSummary(file: $0.display, encoding: $0.kind.encoding) }
        var lineBase = [Int](repeating: 0, count: files.count)
        var stopped = [Bool](repeating: false, count: files.count)
        for (item, out) in zip(items, outcomes) {
            let k = item.file
            if stopped[k] { continue }
            var s = summaries[k]
            s.bytes += out.bytes
            s.longLines += out.longLines
            s.matchedLines += out.matchedLines
            if s.format == nil { s.format = out.format }
            for var l in out.lines {
                if result.lines.count >= options.maxServerLines { result.droppedLines += 1; continue }
                l.line += lineBase[k]
                result.lines.append(l)
            }
            result.droppedLines += out.droppedLines
            for seen in out.seen {
                if result.seen.count >= options.maxSeen { result.droppedSeen += 1; continue }
                result.seen.append(seen)
            }
            result.droppedSeen += out.droppedSeen
            lineBase[k] += out.lines_
            s.lines += out.lines_
            if let e = out.error {
                s.error = "\(files[k].display): \(e)"
                stopped[k] = true
            }
            summaries[k] = s
        }
        result.files = summaries
        return result
    }

    // MARK: - Files

    enum Kind: Equatable {
        /// A regular file: read with `pread`, split into segments when large.
        case plain
        case gzip
        /// Standard input or a pipe named on the command line (`<(zcat …)`): read in order, gzip by its first bytes.
        case stream

        var encoding: String {
            switch self {
            case .plain: "plain"
            case .gzip: "gzip"
            case .stream: "stream"
            }
        }
    }

    struct FileRef {
        var path: String
        var display: String
        var kind: Kind
        var size: Int64
        /// Opened through a link (only for a link named on the command line).
        var follow = false

        var openFlags: Int32 { O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW) }
    }

    struct WorkItem {
        var file: Int
        var start: Int64
        var end: Int64
    }

    func enumerate(_ path: String, into files: inout [FileRef], errors: inout [String]) {
        if path == "-" {
            files.append(FileRef(path: "-", display: "-", kind: .stream, size: 0))
            return
        }
        var st = stat()
        guard lstat(path, &st) == 0 else {
            errors.append("\(path): cannot read: \(String(cString: strerror(errno)))")
            return
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            regular(path, display: path, size: Int64(st.st_size), follow: false, into: &files, errors: &errors)
        case S_IFDIR:
            walk(path, into: &files, errors: &errors, depth: 0)
        case S_IFIFO:
            files.append(FileRef(path: path, display: path, kind: .stream, size: 0))
        case S_IFLNK:
            // A link named on the command line is the user's choice: followed once, to a regular file or a
            // pipe (`<(zcat …)` is a link to one). Links met inside folders never are.
            var target = stat()
            guard stat(path, &target) == 0 else {
                errors.append("\(path): a broken link: skipped")
                return
            }
            switch target.st_mode & S_IFMT {
            case S_IFREG:
                regular(path, display: path, size: Int64(target.st_size), follow: true, into: &files, errors: &errors)
            case S_IFIFO:
                files.append(FileRef(path: path, display: path, kind: .stream, size: 0, follow: true))
            default:
                errors.append("\(path): a link to something other than a regular file or a pipe: skipped")
            }
        default:
            errors.append("\(path): not a regular file or folder: skipped")
        }
    }

    func walk(_ dir: String, into files: inout [FileRef], errors: inout [String], depth: Int) {
        guard depth < 64, files.count <= options.maxFiles else { return }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            errors.append("\(dir): cannot list the folder")
            return
        }
        for name in names.sorted() {
            let full = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            var st = stat()
            guard lstat(full, &st) == 0 else {
                errors.append("\(full): cannot read: \(String(cString: strerror(errno)))")
                continue
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                regular(full, display: full, size: Int64(st.st_size), follow: false, into: &files, errors: &errors)
            case S_IFDIR:
                walk(full, into: &files, errors: &errors, depth: depth + 1)
            default:
                break  // links, devices, sockets: never followed inside a folder
            }
        }
    }

    /// Whether the file starts with the gzip magic bytes `1f 8b`.
    static func isGzip(_ path: String, follow: Bool = false) -> Bool {
        magic(path, follow: follow).starts(with: [0x1F, 0x8B])
    }

    /// The first bytes of a file (empty when it cannot be read).
    static func magic(_ path: String, follow: Bool = false) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 6)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 6, 0) }
        return n > 0 ? Array(head[0..<n]) : []
    }

    /// The name of a compression this scanner does not read, recognised by its magic bytes.
    static func unsupportedCompression(_ head: [UInt8]) -> String? {
        if head.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return "zstd" }
        if head.starts(with: [0x42, 0x5A, 0x68]) { return "bzip2" }
        if head.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return "xz" }
        if head.starts(with: [0x04, 0x22, 0x4D, 0x18]) { return "lz4" }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "zip" }
        return nil
    }

    /// A regular file to scan, or an error naming it when it is compressed in a way this scanner does not read.
    func regular(_ path: String, display: String, size: Int64, follow: Bool, into files: inout [FileRef], errors: inout [String]) {
        let head = LogScanner.magic(path, follow: follow)
        if let c = LogScanner.unsupportedCompression(head) {
            errors.append("\(display): \(c)-compressed, which is not read: decompress it to standard input (--logs -)")
            return
        }
        files.append(FileRef(path: path, display: display, kind: head.starts(with: [0x1F, 0x8B]) ? .gzip : .plain, size: size, follow: follow))
    }

    // MARK: - Workers

    func run(items: [WorkItem], files: [FileRef]) -> [ItemOutcome] {
        let slots = Mutex<[ItemOutcome?]>(Array(repeating: nil, count: items.count))
        let next = Atomic<Int>(0)
        let workers = max(1, min(options.workers, items.count))
        let stdinAt = items.firstIndex { files[$0.file].kind == .stream }
        // A spare core inflates ahead of the scan (one gzip file, or stdin).
        let readAhead = options.workers > items.count
        let body: @Sendable (Int) -> Void = { _ in
            while true {
                let k = next.add(1, ordering: .relaxed).oldValue
                guard k < items.count else { return }
                let item = items[k]
                let file = files[item.file]
                let out = self.scanItem(item, file: file, readAhead: readAhead)
                slots.withLock { $0[k] = out }
            }
        }
        if workers == 1 || stdinAt != nil && items.count == 1 {
            body(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers, execute: body)
        }
        return slots.withLock { $0.map { $0 ?? ItemOutcome() } }
    }

    func scanItem(_ item: WorkItem, file: FileRef, readAhead: Bool) -> ItemOutcome {
        var scanner = ChunkScanner(request: request, options: options, display: file.display)
        switch file.kind {
        case .plain:
            let fd = open(file.path, file.openFlags)
            guard fd >= 0 else {
                scanner.out.error = "cannot open: \(String(cString: strerror(errno)))"
                return scanner.out
            }
            defer { close(fd) }
            var offset = item.start > 0 ? item.start - 1 : 0
            scanner.run(start: item.start, end: item.end) { buf in
                while true {
                    let n = pread(fd, buf.baseAddress, buf.count, off_t(offset))
                    if n >= 0 { offset += Int64(n); return n }
                    if errno == EINTR { continue }
                    throw ArchiveError(.unreadable, "read failed: \(String(cString: strerror(errno)))")
                }
            }
        case .gzip:
            let fd = open(file.path, file.openFlags)
            guard fd >= 0 else {
                scanner.out.error = "cannot open: \(String(cString: strerror(errno)))"
                return scanner.out
            }
            defer { close(fd) }
            let source = FileSource(fileDescriptor: fd)
            let gz = GzipSource(wrapping: source, limit: options.maxInflatedBytes)
            let src: ByteSource = readAhead ? ReadAheadSource(gz, bufferBytes: options.chunkBytes) : gz
            defer { (src as? ReadAheadSource)?.close() }
            scanner.run(start: 0, end: Int64.max) { try src.read(into: $0) }
        case .stream:
            let fd = file.path == "-" ? 0 : open(file.path, file.openFlags)
            guard fd >= 0 else {
                scanner.out.error = "cannot open: \(String(cString: strerror(errno)))"
                return scanner.out
            }
            defer { if fd != 0 { close(fd) } }
            let raw = PeekSource(FileSource(fileDescriptor: fd))
            var src: ByteSource = raw.startsWithGzipMagic() ? GzipSource(wrapping: raw, limit: options.maxInflatedBytes) : raw
            if readAhead { src = ReadAheadSource(src, bufferBytes: options.chunkBytes) }
            defer { (src as? ReadAheadSource)?.close() }
            scanner.run(start: 0, end: Int64.max) { try src.read(into: $0) }
        }
        return scanner.out
    }
}

/// What one work item (a file or a segment of one) found. Line numbers are local to the item.
struct ItemOutcome: Sendable {
    var bytes: Int64 = 0
    /// Lines that start in the item.
    var lines_ = 0
    var longLines = 0
    var matchedLines = 0
    var format: LogFormat?
    var lines: [ServerLine] = []
    var droppedLines = 0
    var seen: [SeenID] = []
    var droppedSeen = 0
    var error: String?
}

/// Replays the first bytes it peeked at, then reads on.
final class PeekSource: ByteSource {
    let inner: ByteSource
    var head: [UInt8] = []
    var headAt = 0
    var peeked = false

    init(_ inner: ByteSource) { self.inner = inner }

    func startsWithGzipMagic() -> Bool {
        peeked = true
        var buf = [UInt8](repeating: 0, count: 2)
        var got = 0
        while got < 2 {
            let n = (try? buf.withUnsafeMutableBytes { try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[got...])) }) ?? 0
            if n <= 0 { break }
            got += n
        }
        head = Array(buf[0..<got])
        return got == 2 && head[0] == 0x1F && head[1] == 0x8B
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if headAt < head.count {
            let n = min(buffer.count, head.count - headAt)
            head.withUnsafeBytes { src in
                if let base = src.baseAddress { out.copyMemory(from: base + headAt, byteCount: n) }
            }
            headAt += n
            return n
        }
        return try inner.read(into: buffer)
    }
}


/// The chunk loop and the per-region byte scan of one work item.
struct ChunkScanner {
    let request: ScanRequest
    let options: ScanOptions
    let display: String
    var out = ItemOutcome()
    /// Lines before the current region.
    var lineBase = 0
    let userNeedles: [[UInt8]]
    let windows: [(lo: Double, hi: Double)]
    var wantedScratch: [RequestID] = []
    var othersScratch: [RequestID] = []

    init(request: ScanRequest, options: ScanOptions, display: String) {
        self.request = request
        self.options = options
        self.display = display
        self.userNeedles = request.userIds.prefix(64).map { Array($0.utf8) }
        // Sorted and merged, for a binary search per line.
        var w = request.windows.filter { $0.lo <= $0.hi }.sorted { $0.lo < $1.lo }
        var merged: [(lo: Double, hi: Double)] = []
        for x in w {
            if let last = merged.last, x.lo <= last.hi { merged[merged.count - 1].hi = max(last.hi, x.hi) } else { merged.append(x) }
        }
        w = merged
        self.windows = w
    }

    /// Reads with `read` until it returns 0 or throws; scans the lines that start in [start, end).
    /// `read` must deliver the bytes from `start - 1` (from 0 when `start` is 0).
    mutating func run(start: Int64, end: Int64, read: (UnsafeMutableRawBufferPointer) throws -> Int) {
        let cap = options.chunkBytes + options.maxLineBytes
        let buf = UnsafeMutablePointer<UInt8>.allocate(capacity: cap)
        defer { buf.deallocate() }
        var tail = 0                                  // buf[0..<tail]: the start of an unfinished line
        var abs0: Int64 = start > 0 ? start - 1 : 0   // file offset of buf[0]
        var skipping = start > 0                      // before the first line that starts in the segment
        var inLong = false                            // inside a line over the bound
        while true {
            let n: Int
            do {
                n = try read(UnsafeMutableRawBufferPointer(start: buf + tail, count: min(options.chunkBytes, cap - tail)))
            } catch {
                out.error = "\(error)"
                return
            }
            if n == 0 { break }
            options.progress?(Int64(n))
            var avail = tail + n
            if skipping || inLong {
                guard let nl = memchr(buf, 0x0A, avail) else {
                    if inLong { out.bytes += Int64(avail) }
                    abs0 += Int64(avail)
                    tail = 0
                    continue
                }
                let k = buf.distance(to: nl.assumingMemoryBound(to: UInt8.self)) + 1
                if inLong { out.bytes += Int64(k) }
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
                    startLongLine(avail, &abs0, &inLong)
                    tail = 0
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
                startLongLine(rest, &abs0, &inLong)
                tail = 0
            } else {
                memmove(buf, buf + regionEnd, rest)
                tail = rest
            }
        }
        // A last line without a newline.
        if tail > 0 && !inLong && !skipping && abs0 < end {
            lineBase = out.lines_
            scanRegion(UnsafePointer(buf), tail)
            out.lines_ += 1
            out.bytes += Int64(tail)
        }
    }

    /// The unfinished line at the front of the buffer passed the bound: count it and skip to its end.
    mutating func startLongLine(_ bytes: Int, _ abs0: inout Int64, _ inLong: inout Bool) {
        inLong = true
        out.longLines += 1
        out.lines_ += 1
        out.bytes += Int64(bytes)
        abs0 += Int64(bytes)
    }

    /// Finds the ids in a region of whole lines; returns the number of newlines in it.
    @discardableResult
    mutating func scanRegion(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int {
        var pos = 0
        var counted = 0           // a line start; the newlines before it are in `linesBefore`
        var linesBefore = 0
        while pos + 40 <= count {
            guard let f = ByteSearch.findReq(base + pos, count - pos) else { break }
            let p = pos + f
            guard p + 40 <= count, let first = RequestID.parseUUID(base + p + 4),
                  p + 40 == count || !RequestID.isWordByte(base[p + 40]) else {
                pos = p + 4
                continue
            }
            // The line around the hit: walk the newlines up to it (they are counted on the way).
            var ls = counted
            while let nl = ByteSearch.index(of: 0x0A, base + ls, p - ls) {
                ls += nl + 1
                linesBefore += 1
            }
            counted = ls
            let le = ByteSearch.index(of: 0x0A, base + p + 40, count - p - 40).map { p + 40 + $0 } ?? count
            handleLine(base + ls, le - ls, first: first, firstAt: p - ls, lineNumber: lineBase + linesBefore + 1)
            pos = le + 1
        }
        if counted < count { linesBefore += countNewlines(base + counted, count - counted) }
        return linesBefore
    }

    /// One line holding at least one well-formed id (the first at `firstAt`).
    mutating func handleLine(_ line: UnsafePointer<UInt8>, _ n: Int, first: RequestID, firstAt: Int, lineNumber: Int) {
        // Reused buffers: no allocation per line.
        var wanted = wantedScratch
        var others = othersScratch
        wanted.removeAll(keepingCapacity: true)
        others.removeAll(keepingCapacity: true)
        wantedScratch = []
        othersScratch = []
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
            let parsed = LineParser.parse(UnsafeBufferPointer(start: line, count: n), hint: out.format)
            if out.format == nil { out.format = parsed.format }
            ts = parsed.ts
            if out.lines.count < options.maxServerLines {
                out.lines.append(ServerLine(file: display, line: lineNumber, ids: wanted, parsed: parsed))
            } else {
                out.droppedLines += 1
            }
        }
        guard !others.isEmpty else { return }
        if ts == nil { ts = LogTime.find(in: line, count: n) }
        guard let t = ts, inWindow(t) else { return }
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

    func inWindow(_ t: Double) -> Bool {
        var lo = 0
        var hi = windows.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if windows[mid].hi < t { lo = mid + 1 } else { hi = mid }
        }
        return lo < windows.count && windows[lo].lo <= t
    }

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
