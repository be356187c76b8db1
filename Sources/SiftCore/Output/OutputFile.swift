import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why output could not be written: `pbsift: PATH: reason`, exit status 2. PATH is the `-o` file,
/// or `standard output`.
public struct OutputFailure: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public init(path: String, errno e: Int32) {
        self.init(path: path, reason: String(cString: strerror(e)))
    }

    /// The line standard error gets: `pbsift: PATH: reason`.
    public var message: String { "pbsift: \(Escape.terminal(path)): \(Escape.terminal(reason))\n" }
    /// `message`, for standard error.
    public var line: SafeText { SafeText(verified: message) }
}

/// The one way a command opens its `-o` file (through `OutputSink.file`). A device, FIFO or socket,
/// or a symbolic link, is written as it is (through the link; never replaced). A regular file or a
/// new path gets a temporary file in the same folder, renamed over PATH by `commit()`, so PATH is
/// never left half-written. Every failure is an `OutputFailure`.
final class OutputFile: @unchecked Sendable {
    let path: String
    private(set) var fd: Int32
    /// The temporary file renamed over `path` on commit; nil when writing in place.
    private var temp: String?
    private var mode: mode_t = 0

    init(path: String) throws(OutputFailure) {
        self.path = path
        var st = stat()
        let exists = lstat(path, &st) == 0
        let type = st.st_mode & S_IFMT
        if exists && type != S_IFREG {
            // A device, FIFO, socket or symbolic link: open it as it is.
            fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | (type == S_IFLNK ? O_CREAT : 0), 0o666)
            guard fd >= 0 else { throw OutputFailure(path: path, errno: errno) }
            return
        }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        var template = Array((dir + "/." + url.lastPathComponent + ".pbsift-XXXXXX").utf8CString)
        fd = template.withUnsafeMutableBufferPointer { p in p.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            // Name the reason the folder gives (missing, not writable) against PATH.
            throw OutputFailure(path: path, errno: errno)
        }
        temp = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if exists {
            mode = st.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let temp { unlink(temp) }
    }

    /// Closes the file and, for a temporary file, renames it over PATH.
    func commit() throws(OutputFailure) {
        if temp != nil { fchmod(fd, mode) }
        let rc = close(fd)
        fd = -1
        if rc != 0 { throw OutputFailure(path: path, errno: errno) }
        if let t = temp {
            guard rename(t, path) == 0 else { throw OutputFailure(path: path, errno: errno) }
            temp = nil
        }
    }
}

/// Writes all of `count` bytes at `p` to `fd`; 0, or the errno that stopped it.
public func writeAll(_ fd: Int32, _ p: UnsafeRawPointer, _ count: Int) -> Int32 {
    var p = p
    var left = count
    while left > 0 {
        #if canImport(Glibc)
            let n = Glibc.write(fd, p, left)
        #else
            let n = Darwin.write(fd, p, left)
        #endif
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        if n == 0 { return EIO }
        left -= n
        p += n
    }
    return 0
}
