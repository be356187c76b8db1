import Foundation

/// Reads a file on disk in order. Refuses to open anything but a regular file (no links, devices, FIFOs).
public final class FileSource: ByteSource {
    let fd: Int32
    private let owns: Bool

    /// Opens `path` for reading without following a link in its last component; throws `.unreadable`
    /// for a missing file, a link, or anything that is not a regular file.
    public convenience init(path: String) throws {
        try self.init(pathBytes: PathBytes.cString(path))
    }

    /// Opens a NUL-terminated byte path (names that are not UTF-8 stay openable).
    init(pathBytes: [UInt8]) throws {
        let fd = pathBytes.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        }
        guard fd >= 0 else { throw ArchiveError(.unreadable, "cannot open: \(errnoText())") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ArchiveError(.unreadable, "not a regular file")
        }
        // Back to blocking reads for a regular file (O_NONBLOCK only guarded the open of a FIFO).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        self.fd = fd
        self.owns = true
    }

    /// Wraps an already open descriptor (standard input); it is not closed.
    public init(fileDescriptor: Int32) {
        self.fd = fileDescriptor
        self.owns = false
    }

    /// Takes ownership of an open descriptor (closed on deinit).
    init(owning fd: Int32) {
        self.fd = fd
        self.owns = true
    }

    deinit { if owns { close(fd) } }

    /// Fills up to `buffer.count` bytes from the descriptor; 0 at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Foundation.read(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ArchiveError(.unreadable, "read failed: \(errnoText())")
        }
    }

    /// Reads up to `count` bytes at `offset` without moving the file position.
    func pread(into base: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws -> Int {
        var got = 0
        while got < count {
            let n = Foundation.pread(fd, base + got, count - got, off_t(offset) + off_t(got))
            if n > 0 { got += n; continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw ArchiveError(.unreadable, "read failed at offset \(offset + Int64(got)): \(errnoText())")
        }
        return got
    }
}

/// A pipe (FIFO) opened non-blocking: each read waits at most `wait` seconds for data, so a pipe that
/// nothing writes to ends the input with `.unreadable` instead of blocking forever.
final class PipeSource: ByteSource {
    private let fd: Int32
    private let wait: Double
    /// A writer has been seen (data, EAGAIN or a hang-up): a 0-byte read is then the end.
    private var sawWriter = false

    init(owning fd: Int32, wait: Double) {
        self.fd = fd
        self.wait = wait.isFinite ? min(max(0, wait), 86_400) : 10
    }

    deinit { close(fd) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(wait * 1e9)
        while true {
            let n = Foundation.read(fd, base, buffer.count)
            if n > 0 {
                sawWriter = true
                return n
            }
            if n == 0 && sawWriter { return 0 }
            if n < 0 {
                if errno == EINTR { continue }
                guard errno == EAGAIN || errno == EWOULDBLOCK else {
                    throw ArchiveError(.unreadable, "read failed: \(errnoText())")
                }
                sawWriter = true
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else {
                let secs = wait == wait.rounded() ? String(Int(wait)) : String(wait)
                throw ArchiveError(
                    .unreadable,
                    sawWriter
                        ? "the pipe gave no data for \(secs) s; stopped reading"
                        : "nothing wrote to the pipe within \(secs) s; not read")
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(min(1000, max(1, (deadline - now) / 1_000_000)))
            if poll(&p, 1, ms) > 0, p.revents & Int16(POLLIN | POLLHUP) != 0 {
                sawWriter = true
            }
        }
    }
}

/// Bytes already in memory (tests, small blobs).
public final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    /// Serves `bytes` from the start.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Serves the UTF-8 bytes of `string`.
    public convenience init(_ string: String) { self.init(Array(string.utf8)) }

    /// Copies the next bytes into `buffer`; 0 at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - offset)
        guard n > 0, let dst = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { src in
            if let s = src.baseAddress { dst.copyMemory(from: s + offset, byteCount: n) }
        }
        offset += n
        return n
    }
}

/// Hands out some bytes already read (a sniffed prefix), then the rest of `inner`; a problem met
/// while reading the prefix is thrown once the prefix has been handed out.
/// A source whose first bytes were already read (to sniff them); hands them out again first.
public final class PrefixedSource: ByteSource {
    private var prefix: [UInt8]
    private var pos = 0
    private let inner: ByteSource
    private var pending: Error?

    public init(prefix: [UInt8], inner: ByteSource, pending: Error? = nil) {
        self.prefix = prefix
        self.inner = inner
        self.pending = pending
    }

    /// Reads from `inner` until `count` bytes, the end, or an error; never throws (the error is kept).
    public static func peek(_ inner: ByteSource, count: Int) -> PrefixedSource {
        var bytes = [UInt8](repeating: 0, count: count)
        var have = 0
        while have < count {
            do {
                let n = try bytes.withUnsafeMutableBytes { try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[have...])) }
                if n == 0 { break }
                have += n
            } catch let failure {
                return PrefixedSource(prefix: Array(bytes[..<have]), inner: inner, pending: failure)
            }
        }
        return PrefixedSource(prefix: Array(bytes[..<have]), inner: inner)
    }

    /// The bytes read ahead.
    public var peeked: [UInt8] { prefix }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if pos < prefix.count {
            let n = min(buffer.count, prefix.count - pos)
            guard n > 0, let dst = buffer.baseAddress else { return 0 }
            prefix.withUnsafeBytes { src in
                if let s = src.baseAddress { dst.copyMemory(from: s + pos, byteCount: n) }
            }
            pos += n
            if pos == prefix.count { prefix = []; pos = 0 }
            return n
        }
        if let e = pending { throw e }
        return try inner.read(into: buffer)
    }
}

/// Lets at most `limit` bytes through from `inner`; one more byte throws `.decompressionLimit`.
final class LimitSource: ByteSource {
    private let inner: ByteSource
    private let limit: Int64
    private(set) var total: Int64 = 0
    private let what: String

    init(_ inner: ByteSource, limit: Int64, what: String) {
        self.inner = inner
        self.limit = limit
        self.what = what
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let room = limit - total
        if room <= 0 {
            var one: UInt8 = 0
            let n = try withUnsafeMutableBytes(of: &one) { try inner.read(into: $0) }
            if n == 0 { return 0 }
            throw ArchiveError(.decompressionLimit, "\(what) passes the limit of \(limit) bytes (--max-input-bytes raises it)")
        }
        let cap = Int(min(Int64(buffer.count), room))
        let n = try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<cap]))
        total += Int64(n)
        return n
    }
}

func errnoText() -> String {
    String(cString: strerror(errno)).lowercased()
}
