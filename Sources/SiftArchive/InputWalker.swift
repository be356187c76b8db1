import Foundation

/// Walks one input and hands every regular file in it to a visitor, bounded by `ReadLimits`.
///
/// - `path` is a file or folder on disk, or `-` for standard input (JSON Lines, possibly gzip'd).
///   The path you name is opened even if it is a link; inside it, no link is ever followed.
/// - The container is recognised by its bytes (zip `PK\x03\x04`/`PK\x05\x06`/`PK\x07\x08`, gzip
///   `1f 8b` then a tar inside or not, ustar magic at offset 257 or a valid tar header checksum, else
///   JSON Lines), falling back to the name (`.zip`, `.tar`) when the bytes say nothing.
/// - A folder's files are visited in sorted order of their relative names (by UTF-8 bytes).
/// - A bare file is visited as one entry named by its file name (without `.gz` after inflating);
///   an empty file is an empty JSON Lines entry.
/// - Names from an archive are cleaned (`CleanName`); an unsafe name is an `.unsafePath` issue and
///   the entry is still visited under its cleaned name (nothing is ever written to disk).
/// - Problems a source throws while the visitor reads are recorded in the result before the throw,
///   so the visitor only stops reading that entry; it must not report them again. An entry's
///   `source` is valid only during the callback.
public enum InputWalker {
    /// Walks `path` and calls `visit` once per regular file, in container order (sorted for folders).
    public static func walk(path: String, limits: ReadLimits = .default, visit: (ArchiveEntry) -> Void) -> WalkResult {
        withoutActuallyEscaping(visit) { visit in
            let state = WalkState(limits: limits, visit: visit)
            state.container = walkInput(path: path, state: state)
            return state.result
        }
    }

    private static func walkInput(path: String, state: WalkState) -> ContainerKind {
        if path == "-" {
            walkStdin(FileSource(fileDescriptor: 0), state: state)
            return .stdin
        }
        var st = stat()
        // Paths are bytes (see `PathBytes`): a name that is not UTF-8 opens exactly that file.
        let rc = PathBytes.cString(path).withUnsafeBufferPointer {
            stat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st)
        }
        guard rc == 0 else {
            state.unreadable(errnoText())
            return .unknown
        }
        let base = baseName(path)
        switch st.st_mode & S_IFMT {
        case S_IFDIR:
            FolderWalker(root: path, state: state).run()
            return .folder
        case S_IFREG:
            break
        case S_IFIFO:
            // A pipe named on the command line (`<(zcat …)`): opened without waiting for a writer, then
            // read as a stream, waiting at most `pipeWaitSeconds` for each byte.
            guard let (fd, _) = openNonBlocking(path, type: S_IFIFO, state: state) else { return .unknown }
            return walkStream(PipeSource(owning: fd, wait: state.limits.pipeWaitSeconds), name: base, state: state)
        default:
            // A device or a socket: never opened (a tape or a terminal could block, /dev/zero never ends).
            state.unreadable("\(specialKind(st.st_mode)), not a file, folder or pipe; not read")
            return .unknown
        }
        guard let (fd, fst) = openNonBlocking(path, type: S_IFREG, state: state) else { return .unknown }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let file = FileSource(owning: fd)
        let size = Int64(fst.st_size)
        var head = [UInt8](repeating: 0, count: 512)
        let got: Int
        do {
            got = try head.withUnsafeMutableBytes { b in try file.pread(into: b.baseAddress!, count: 512, at: 0) }
        } catch {
            state.unreadable("cannot read: \(describe(error))")
            return .unknown
        }
        head.removeSubrange(got...)
        if size == 0 || got == 0 {
            state.deliver(raw: base, declaredSize: 0, source: file, clean: false, wholeInput: true)
            return .jsonl
        }
        switch Sniff.kind(head, name: base) {
        case .zip:
            ZipReader(file: file, size: size, state: state).run()
            return .zip
        case .tar:
            TarReader(stream: LimitSource(file, limit: state.limits.maxInputBytes, what: "tar stream"), state: state, drain: false).run()
            return .tar
        case .gzip:
            return walkGzip(file, name: base, state: state)
        case .jsonl:
            state.deliver(raw: base, declaredSize: size, source: file, clean: false, wholeInput: true)
            return .jsonl
        }
    }

    /// Opens `path` without blocking (a pipe does not wait for a writer) and checks it is still of
    /// `type`; nil, with the input unreadable, otherwise.
    private static func openNonBlocking(_ path: String, type: mode_t, state: WalkState) -> (Int32, stat)? {
        let fd = PathBytes.cString(path).withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        }
        guard fd >= 0 else {
            state.unreadable(errnoText())
            return nil
        }
        var fst = stat()
        guard fstat(fd, &fst) == 0, fst.st_mode & S_IFMT == type else {
            close(fd)
            state.unreadable("changed while being opened")
            return nil
        }
        return (fd, fst)
    }

    /// Standard input: JSON Lines, gzip'd or not; one entry named `-`.
    static func walkStdin(_ input: ByteSource, state: WalkState) {
        let source = Sniff.inflatingIfGzip(input, limit: state.limits.maxInputBytes).source
        if let gz = source as? GzipSource { state.keepHeaderTexts(of: gz, entry: "-") }
        state.deliver(raw: "-", declaredSize: nil, source: source, clean: false, wholeInput: true)
    }

    /// A non-seekable input named by path: gzip, tar or JSON Lines by its first bytes (zip needs seeking).
    private static func walkStream(_ input: ByteSource, name: String, state: WalkState) -> ContainerKind {
        let peek = PrefixedSource.peek(input, count: 512)
        switch Sniff.kind(peek.peeked, name: name) {
        case .zip:
            state.issue(.unsupported, entry: nil, message: "a zip archive, which cannot be read from a pipe; pass a file")
            state.isUnreadable = true
            return .zip
        case .tar:
            TarReader(stream: LimitSource(peek, limit: state.limits.maxInputBytes, what: "tar stream"), state: state, drain: false).run()
            return .tar
        case .gzip:
            return walkGzip(peek, name: name, state: state)
        case .jsonl:
            state.deliver(raw: name, declaredSize: nil, source: peek, clean: false, wholeInput: true)
            return .jsonl
        }
    }

    /// A gzip stream: a tar inside (ustar magic or a valid header checksum) or one JSON Lines entry.
    private static func walkGzip(_ input: ByteSource, name: String, state: WalkState) -> ContainerKind {
        let gz = GzipSource(wrapping: input, limit: state.limits.maxInputBytes)
        var entryName = name
        if entryName.hasSuffix(".gz"), entryName.count > 3 { entryName.removeLast(3) }
        state.keepHeaderTexts(of: gz, entry: nil)
        let peek = PrefixedSource.peek(gz, count: 512)
        if Sniff.isTar(peek.peeked) {
            TarReader(stream: peek, state: state, drain: true).run()
            return .tarGz
        }
        state.deliver(raw: entryName, declaredSize: nil, source: peek, clean: false, wholeInput: true)
        return .jsonlGz
    }

    /// `a character device`, `a block device`, `a socket`.
    static func specialKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFIFO: return "a pipe"
        default: return "a special file"
        }
    }

    public static func baseName(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p.removeLast() }
        if let slash = p.lastIndex(of: "/"), p.index(after: slash) < p.endIndex { return String(p[p.index(after: slash)...]) }
        return String(p)
    }
}

/// Recognising what bytes are by their first bytes: the one sniffer of pbsift (exports, their
/// entries, and server logs).
public enum Sniff {
    enum Kind { case zip, tar, gzip, jsonl }

    /// Whether `head` starts with the gzip magic `1f 8b`.
    public static func isGzip<C: Collection>(_ head: C) -> Bool where C.Element == UInt8 {
        head.starts(with: [0x1F, 0x8B])
    }

    /// `source` inflated (at most `limit` bytes) when its first bytes are gzip's, else `source` as it
    /// is; the bytes looked at are replayed either way (a read error is kept for the next read).
    public static func inflatingIfGzip(
        _ source: ByteSource, limit: Int64,
        headerText: ((_ field: String, _ member: Int, _ bytes: [UInt8], _ clipped: Bool) -> Void)? = nil
    ) -> (source: ByteSource, gzip: Bool) {
        let peek = PrefixedSource.peek(source, count: 2)
        guard isGzip(peek.peeked) else { return (peek, false) }
        let gz = GzipSource(wrapping: peek, limit: limit)
        gz.onHeaderText = headerText
        return (gz, true)
    }

    /// The most gzip layers a file is read through (gzip inside gzip inside …), each bounded on its own.
    public static let maxGzipLayers = 5

    /// `source` inflated once for each gzip layer it starts with, at most `layers` of them, each layer's
    /// output bounded by `limit` bytes (`GzipSource`); the bytes looked at are replayed either way.
    /// `layers` in the result: how many were inflated.
    public static func inflatingGzipLayers(
        _ source: ByteSource, limit: Int64,
        layers: Int = maxGzipLayers,
        headerText: ((_ field: String, _ member: Int, _ bytes: [UInt8], _ clipped: Bool) -> Void)? = nil
    ) -> (source: ByteSource, layers: Int) {
        var current = source
        var n = 0
        while n < layers {
            let layer = n + 1
            let (next, gzip) = inflatingIfGzip(
                current, limit: limit,
                headerText: headerText.map { f in
                    { field, member, bytes, clipped in
                        f(layer > 1 ? "\(field) (gzip layer \(layer))" : field, member, bytes, clipped)
                    }
                })
            current = next
            guard gzip else { break }
            n += 1
        }
        return (current, n)
    }

    /// The name of a compression pbsift does not read, recognised by its magic bytes.
    public static func unsupportedCompression(_ head: [UInt8]) -> String? {
        if head.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return "zstd" }
        if head.starts(with: [0x42, 0x5A, 0x68]) { return "bzip2" }
        if head.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return "xz" }
        if head.starts(with: [0x04, 0x22, 0x4D, 0x18]) { return "lz4" }
        // The legacy .lzma header: properties 0x5D, a 64 KiB–64 MiB dictionary.
        if head.count >= 5, head[0] == 0x5D, head[1] == 0, head[2] == 0, head[4] == 0 { return "lzma" }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "zip" }
        return nil
    }

    /// The first `count` bytes of the file at `path` (empty when it cannot be read); a link is
    /// opened only when `follow`.
    public static func head(ofFile path: String, count: Int = 6, follow: Bool = false) -> [UInt8] {
        let fd = PathBytes.cString(path).withUnsafeBufferPointer {
            open(
                UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self),
                O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW))
        }
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: max(0, count))
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(head[0..<n]) : []
    }

    static func kind(_ head: [UInt8], name: String) -> Kind {
        if head.count >= 4, head[0] == 0x50, head[1] == 0x4B,
            (head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6) || (head[2] == 7 && head[3] == 8)
        {
            return .zip
        }
        if isGzip(head) { return .gzip }
        if isTar(head) { return .tar }
        let lower = name.lowercased()
        if lower.hasSuffix(".zip") { return .zip }
        if lower.hasSuffix(".tar") { return .tar }
        return .jsonl
    }

    /// A ustar magic at offset 257, or a first block whose header checksum is right.
    static func isTar(_ head: [UInt8]) -> Bool {
        guard head.count >= 512 else { return false }
        if Array(head[257..<262]) == Array("ustar".utf8) { return true }
        return head.withUnsafeBytes { TarHeader.checksumMatches(UnsafeRawBufferPointer(rebasing: $0[0..<512])) }
    }
}

/// What one walk has found so far, shared by the container readers.
final class WalkState {
    let limits: ReadLimits
    let visit: (ArchiveEntry) -> Void
    var container = ContainerKind.unknown
    var issues: [ArchiveIssue] = []
    var bytesRead: Int64 = 0
    var isUnreadable = false
    /// Set once a bound is reached: the walk stops.
    var stopped = false
    private var entries = 0
    /// Every cleaned entry name delivered, for duplicates (long names held as digests).
    private var seen = SeenNames()

    init(limits: ReadLimits, visit: @escaping (ArchiveEntry) -> Void) {
        self.limits = limits
        self.visit = visit
    }

    var result: WalkResult {
        var r = WalkResult(container: container, issues: issues, unreadable: isUnreadable, bytesRead: bytesRead)
        r.texts = texts
        return r
    }

    /// Texts the containers carry (`ContainerText`), at most `maxTextBytes` in all.
    private(set) var texts: [ContainerText] = []
    private var textBytes = 0
    /// The most bytes of container texts kept for the checks, per input.
    static let maxTextBytes = 16 << 20

    /// Keeps a container's text for the checks; one clipped or past the bound is an issue that makes
    /// the input partial (the rest of it was not checked).
    func text(entry: String?, label: String, bytes: [UInt8], clipped: Bool = false) {
        guard !bytes.isEmpty || clipped else { return }
        if clipped || textBytes + bytes.count > WalkState.maxTextBytes {
            issue(.unsupported, entry: entry, message: "the \(label) is longer than the bound; the rest of it was not checked")
            if clipped && textBytes + bytes.count <= WalkState.maxTextBytes {
                textBytes += bytes.count
                texts.append(ContainerText(entry: entry, label: label, bytes: bytes))
            }
            return
        }
        textBytes += bytes.count
        texts.append(ContainerText(entry: entry, label: label, bytes: bytes))
    }

    /// A gzip header's texts, kept for `entry` (nil: the input's own gzip).
    func keepHeaderTexts(of gz: GzipSource, entry: String?) {
        gz.onHeaderText = { [unowned self] field, member, bytes, clipped in
            self.text(entry: entry, label: member > 1 ? "\(field) of member \(member)" : field, bytes: bytes, clipped: clipped)
        }
    }

    func issue(_ problem: ArchiveProblem, entry: String?, offset: Int64? = nil, message: String) {
        issues.append(ArchiveIssue(problem: problem, entry: entry, offset: offset, message: message))
        if problem == .decompressionLimit { stopped = true }
    }

    func unreadable(_ message: String) {
        issue(.unreadable, entry: nil, message: message)
        isUnreadable = true
    }

    /// Counts one entry (file, folder, link); false, with an issue, once `maxEntries` is passed.
    func countEntry(_ name: String) -> Bool {
        if stopped { return false }
        entries += 1
        if entries > limits.maxEntries {
            issue(.decompressionLimit, entry: name, message: "more than \(limits.maxEntries) entries; '\(name)' and the rest were not read")
            return false
        }
        return true
    }

    /// Cleans the name (optionally), notes duplicates, and visits one regular file. Returns the
    /// wrapper, so the caller can tell whether reading it already met (and recorded) a problem.
    @discardableResult
    func deliver(
        raw: String, declaredSize: Int64?, source: ByteSource, clean: Bool = true, wholeInput: Bool = false,
        deflated: Bool = false
    ) -> EntrySource {
        var name = raw
        if clean {
            let c = CleanName(raw)
            name = c.name
            if let why = c.unsafeReason {
                issue(.unsafePath, entry: name, message: "entry name '\(raw)' \(why); read as '\(name)'")
            }
        }
        if !seen.insert(name) {
            issue(.duplicateEntry, entry: name, message: "entry '\(name)' appears more than once; every copy is read")
        }
        let es = EntrySource(inner: source, state: self, name: name, wholeInput: wholeInput)
        var entry = ArchiveEntry(name: name, rawName: raw, declaredSize: declaredSize, source: es, isWholeInput: wholeInput)
        entry.isDeflated = deflated
        visit(entry)
        es.closed = true
        return es
    }
}

/// The source a visitor sees: counts bytes against `maxInputBytes` and records every problem the
/// inner source throws (once) before rethrowing it.
final class EntrySource: ByteSource {
    private let inner: ByteSource
    private unowned let state: WalkState
    let name: String
    private(set) var failure: ArchiveError?
    private(set) var delivered: Int64 = 0
    private(set) var atEnd = false
    var closed = false

    /// The entry is the whole input: its messages need no entry name (the caller prints the path).
    let wholeInput: Bool

    init(inner: ByteSource, state: WalkState, name: String, wholeInput: Bool = false) {
        self.inner = inner
        self.state = state
        self.name = name
        self.wholeInput = wholeInput
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let f = failure { throw f }
        if closed || atEnd || buffer.count == 0 { return 0 }
        do {
            let room = state.limits.maxInputBytes - state.bytesRead
            let n: Int
            if room <= 0 {
                var one: UInt8 = 0
                if try withUnsafeMutableBytes(of: &one, { try inner.read(into: $0) }) == 0 {
                    atEnd = true
                    return 0
                }
                throw ArchiveError(
                    .decompressionLimit,
                    "input passes the limit of \(state.limits.maxInputBytes) bytes (--max-input-bytes raises it); the rest was not read")
            } else {
                let cap = Int(min(Int64(buffer.count), room))
                n = try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<cap]))
            }
            if n == 0 { atEnd = true }
            delivered += Int64(n)
            state.bytesRead += Int64(n)
            return n
        } catch {
            let base = error as? ArchiveError ?? ArchiveError(.unreadable, "read failed: \(error)")
            let e =
                wholeInput
                ? ArchiveError(base.problem, delivered == 0 ? base.message : "\(base.message) (at byte \(delivered))")
                : ArchiveError(base.problem, "\(name): \(base.message) (at byte \(delivered) of the entry)")
            failure = e
            state.issue(e.problem, entry: name, offset: delivered, message: e.message)
            throw e
        }
    }
}

func describe(_ error: Error) -> String {
    (error as? ArchiveError)?.message ?? "\(error)"
}
