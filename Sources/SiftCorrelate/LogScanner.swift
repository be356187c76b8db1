import Foundation
import Synchronization
import SiftArchive
import SiftCore

/// Streams log files in fixed-size chunks and finds the lines of wanted request ids.
///
/// Per chunk: `memchr` finds the `q` of `req_` on the raw bytes; the next 36 bytes must have the UUID shape and
/// not be followed by a letter or digit; the id is looked up as a 128-bit value in an open-addressing
/// set. Only lines with a wanted id are parsed. Lines are cut only at newlines, so an id split across
/// two reads is seen whole. Memory per worker is one buffer of `chunkBytes + maxLineBytes`.
public struct LogScanner: Sendable {
    /// What to look for.
    public var request: ScanRequest {
        didSet { windows = IntervalUnion(request.windows) }
    }
    /// Bounds and knobs.
    public var options: ScanOptions
    /// `request.windows` sorted and merged, once for every file (a hundred thousand session windows
    /// are not sorted again for each of thousands of files).
    private(set) var windows: IntervalUnion

    public init(request: ScanRequest, options: ScanOptions = ScanOptions()) {
        self.request = request
        self.options = options
        self.windows = IntervalUnion(request.windows)
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
        // What each file is, from its first lines (read before the scan: a W3C `#Fields:` directive
        // there names the columns of every line after it).
        let sniffed = files.map { sniff($0) }
        for k in files.indices { files[k].w3cFields = sniffed[k]?.w3cFields ?? [] }
        // Work items: whole files, or segments of large plain files.
        var items: [WorkItem] = []
        for (k, f) in files.enumerated() {
            if f.kind == .plain, f.size >= options.segmentBytes * 2 {
                // Division first: no sum of sizes can overflow, whatever `stat` reported.
                let parts = Int(min(Int64(options.workers * 4), f.size / options.segmentBytes + 1))
                let step = f.size / Int64(parts) + 1
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
        let scanner = LogScanner(request: request, options: perItem)
        let readAhead = options.workers > items.count
        // Merge in item order: line numbers of a segment follow the lines of the segments before it.
        // Items are scanned a batch at a time and merged before the next batch, so what the items
        // found is held for one batch, never for thousands of log files at once.
        var summaries = files.map { LogFileSummary(file: $0.display, encoding: $0.kind.encoding) }
        var lineBase = [Int](repeating: 0, count: files.count)
        var stopped = [Bool](repeating: false, count: files.count)
        func merge(_ items: [WorkItem], _ outcomes: [ItemOutcome]) {
            for (item, out) in zip(items, outcomes) {
                let k = item.file
                if stopped[k] { continue }
                var s = summaries[k]
                s.bytes += out.bytes
                s.longLines += out.longLines
                s.matchedLines += out.matchedLines
                if s.format == nil { s.format = out.format }
                s.fieldsRead = Array(Set(s.fieldsRead).union(out.fieldsRead)).sorted()
                s.readUnits.merge(out.readUnits)
                if let f = out.firstTs { s.firstTs = min(s.firstTs ?? f, f) }
                if let l = out.lastTs { s.lastTs = max(s.lastTs ?? l, l) }
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
        }
        let batch = max(32, options.workers * 8)
        var next = 0
        while next < items.count {
            let part = Array(items[next..<min(items.count, next + batch)])
            next += part.count
            merge(part, scanner.run(items: part, files: files, readAhead: readAhead))
        }
        // What each file is, from its first lines: a file none of whose first lines reads as a log line
        // (a README beside the logs) says so, and the format shown is the first line's when no line
        // carried a wanted id.
        for k in files.indices {
            guard let s = sniffed[k] else { continue }
            summaries[k].readsAsLog = s.isLog
            if summaries[k].format == nil { summaries[k].format = s.format }
        }
        result.files = summaries
        if !paths.isEmpty, !result.serverSideRead {
            let what =
                files.isEmpty
                ? "no log file found"
                : "\(files.count) file\(files.count == 1 ? "" : "s"), none with a line of a known log format (a time it places) among its first \(LogScanner.sniffLines)"
            result.errors.append("\(paths.joined(separator: ", ")): no server log line read (\(what)): the server's side is not checked")
        }
        return result
    }

    // MARK: - Files

    enum Kind: Equatable {
        /// A regular file: read with `pread`, split into segments when large.
        case plain
        /// Compressed (gzip, zlib, one inside another): read in order, every layer inflated.
        case gzip
        case zlib
        /// Standard input or a pipe named on the command line (`<(zcat …)`): read in order, gzip by its first bytes.
        case stream

        var encoding: String {
            switch self {
            case .plain: "plain"
            case .gzip: "gzip"
            case .zlib: "zlib"
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
        /// The columns a W3C extended log's `#Fields:` directive names (among the file's first lines).
        var w3cFields: [String] = []

        var openFlags: Int32 { O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW) }

        /// Opens the file (its path as bytes: a name that is not UTF-8 opens exactly that file). A pipe
        /// is opened without waiting for a writer (`awaitWriter` waits, bounded).
        func openFD() -> Int32 {
            PathBytes.cString(path).withUnsafeBufferPointer {
                open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), openFlags | (kind == .stream ? O_NONBLOCK : 0))
            }
        }
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
            walk(path, into: &files, errors: &errors)
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

    /// A folder: the files of the one folder walk (`FolderListing`, the exports' too), with its
    /// entry bound; a link, FIFO, device or socket inside is never opened, and is an error naming it.
    func walk(_ dir: String, into files: inout [FileRef], errors: inout [String]) {
        let listing = FolderListing.list(root: dir, maxEntries: options.maxEntries)
        if let why = listing.rootError {
            errors.append("\(dir): cannot open the folder: \(why)")
            return
        }
        var hinted = false
        for skip in listing.skipped {
            var line = "\(LogScanner.join(dir, skip.relative)): \(skip.reason)"
            if skip.why == .link && !hinted {
                // A folder of links (Kubernetes' /var/log/containers) is read by naming its files: a link
                // named on the command line is followed once.
                hinted = true
                line +=
                    " (a link named on the command line is followed: to read a folder of links, name its files: --logs \(LogScanner.join(dir, "*.log")))"
            }
            errors.append(line)
        }
        for f in listing.files {
            regular(f.path, display: LogScanner.join(dir, f.relative), size: f.size, follow: false, into: &files, errors: &errors)
        }
    }

    /// `dir/name`, as errors and summaries show a file found in a folder.
    static func join(_ dir: String, _ name: String) -> String {
        dir.hasSuffix("/") ? dir + name : dir + "/" + name
    }

    /// A regular file to scan, or an error naming it when it is compressed in a way this scanner does not read.
    func regular(_ path: String, display: String, size: Int64, follow: Bool, into files: inout [FileRef], errors: inout [String]) {
        let head = Sniff.head(ofFile: path, follow: follow)
        if let c = Sniff.unsupportedCompression(head) {
            errors.append("\(display): \(c)-compressed, which is not read: decompress it to standard input (--logs -)")
            return
        }
        let zlib = head.withUnsafeBufferPointer { Deflate.isZlib($0) }
        files.append(
            FileRef(path: path, display: display, kind: Sniff.isGzip(head) ? .gzip : zlib ? .zlib : .plain, size: size, follow: follow))
    }

    /// `source` with every compression layer it starts with inflated (gzip, zlib, one inside
    /// another, at most `Sniff.maxGzipLayers`), each bounded by `limit`.
    static func inflated(_ source: ByteSource, limit: Int64) -> ByteSource {
        var current = source
        for _ in 0..<Sniff.maxGzipLayers {
            let peek = PrefixedSource.peek(current, count: 2)
            if Sniff.isGzip(peek.peeked) {
                current = GzipSource(wrapping: peek, limit: limit)
            } else if peek.peeked.withUnsafeBufferPointer({ Deflate.isZlib($0) }), let z = try? ZlibSource(wrapping: peek, limit: limit) {
                current = z
            } else {
                return peek
            }
        }
        return current
    }

    /// Waits until a pipe opened without waiting has bytes, was closed by its writer, or is held open
    /// by one (a producer slow to start is then waited for as long as it takes); gives up after
    /// `seconds` with no writer at all (a FIFO nobody writes to never hangs a run). Returns the byte
    /// the check had to read (to be read again first), or nil when no writer came.
    static func awaitWriter(_ fd: Int32, seconds: Double) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 100) > 0 { return [] }
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            if n == 1 { return [byte] }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return [] }
            if n < 0 && errno == EINTR { continue }
            if Date() >= deadline { return nil }
        }
    }

    /// Lines looked at first in each file to tell a server log from another file (a README).
    static let sniffLines = 64

    /// Whether one of the first lines of `file` (64 lines, 64 KiB, inflated) reads as a server log
    /// line, and the format of the first that does; nil for a stream (read once, not looked at first).
    func sniff(_ file: FileRef) -> (isLog: Bool, format: LogFormat?, w3cFields: [String])? {
        guard file.kind != .stream else { return nil }
        let fd = file.openFD()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 64 << 10)
        var n = 0
        let src =
            file.kind == .plain ? FileSource(fileDescriptor: fd) : LogScanner.inflated(FileSource(fileDescriptor: fd), limit: 64 << 10)
        while n < head.count {
            let k = (try? head.withUnsafeMutableBytes { try src.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[n...])) }) ?? 0
            if k <= 0 { break }
            n += k
        }
        var start = 0
        var seen = 0
        var read = options.read
        var found: (Bool, LogFormat?)?
        while start < n, seen < LogScanner.sniffLines {
            var end = start
            while end < n, head[end] != 0x0A { end += 1 }
            if end > start {
                seen += 1
                let line = Array(head[start..<end])
                if let fields = W3C.directive(line) {
                    read.w3cFields = fields
                } else if found == nil, head[start] != UInt8(ascii: "#") {
                    let parsed = line.withUnsafeBufferPointer { LineParser.parse($0, options: read) }
                    if parsed.ts != nil { found = (true, parsed.format) }
                }
                if found != nil && (!read.w3cFields.isEmpty || head[start] != UInt8(ascii: "#")) { break }
            }
            start = end + 1
        }
        return (found?.0 ?? false, found?.1, read.w3cFields)
    }

    // MARK: - Workers

    func run(items: [WorkItem], files: [FileRef], readAhead: Bool? = nil) -> [ItemOutcome] {
        let slots = Mutex<[ItemOutcome?]>(Array(repeating: nil, count: items.count))
        let next = Atomic<Int>(0)
        let workers = max(1, min(options.workers, items.count))
        let stdinAt = items.firstIndex { files[$0.file].kind == .stream }
        // A spare core inflates ahead of the scan (one gzip file, or stdin).
        let readAhead = readAhead ?? (options.workers > items.count)
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
        var scanOptions = options
        scanOptions.read.w3cFields = file.w3cFields
        var scanner = ChunkScanner(request: request, windows: windows, options: scanOptions, display: file.display)
        scanner.watchDirectives = file.kind == .stream || !file.w3cFields.isEmpty
        switch file.kind {
        case .plain:
            let fd = file.openFD()
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
        case .gzip, .zlib:
            let fd = file.openFD()
            guard fd >= 0 else {
                scanner.out.error = "cannot open: \(String(cString: strerror(errno)))"
                return scanner.out
            }
            defer { close(fd) }
            let gz = LogScanner.inflated(FileSource(fileDescriptor: fd), limit: options.maxInflatedBytes)
            let src: ByteSource = readAhead ? ReadAheadSource(gz, bufferBytes: options.chunkBytes) : gz
            defer { (src as? ReadAheadSource)?.close() }
            scanner.run(start: 0, end: Int64.max) { try src.read(into: $0) }
        case .stream:
            let fd = file.path == "-" ? 0 : file.openFD()
            guard fd >= 0 else {
                scanner.out.error = "cannot open: \(String(cString: strerror(errno)))"
                return scanner.out
            }
            defer { if fd != 0 { close(fd) } }
            var first: [UInt8] = []
            if fd != 0 {
                guard let got = LogScanner.awaitWriter(fd, seconds: options.pipeWriterWait) else {
                    scanner.out.error = "no writer opened the pipe within \(Int(options.pipeWriterWait)) s: not read"
                    return scanner.out
                }
                first = got
                let flags = fcntl(fd, F_GETFL)
                if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
            }
            var src = LogScanner.inflated(
                PrefixedSource(prefix: first, inner: FileSource(fileDescriptor: fd)), limit: options.maxInflatedBytes)
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
    /// Which of time, status and duration some line with a wanted id gave.
    var fieldsRead: Set<LogField> = []
    /// The units those lines' durations were read in, and whether their times had a fraction.
    var readUnits = ReadUnits()
    /// Earliest and latest time of the lines whose time was read.
    var firstTs: Double?
    var lastTs: Double?
    var lines: [ServerLine] = []
    var droppedLines = 0
    var seen: [SeenID] = []
    var droppedSeen = 0
    var error: String?
}
