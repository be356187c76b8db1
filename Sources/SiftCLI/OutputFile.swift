import Foundation
import SiftCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way a command opens its `-o` file. A device, FIFO or socket, or a symbolic link, is
/// written as it is (through the link; never replaced). A regular file or a new path gets a
/// temporary file in the same folder, renamed over PATH by `commit()`, so PATH is never left
/// half-written. Every failure is an `OutputFile.Failure` (`pbsift: PATH: reason`, exit 2).
final class OutputFile: @unchecked Sendable {
    /// An open, write, close or rename error on the output path.
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "\(path): \(reason)" }

        init(path: String, errno e: Int32) {
            self.path = path
            self.reason = String(cString: strerror(e))
        }

        /// Tells standard error; returns exit status 2.
        func report(_ io: CommandIO) -> ExitStatus {
            io.err("pbsift: \(Escape.terminal(path)): \(Escape.terminal(reason))\n")
            return .incomplete
        }
    }

    let path: String
    private var fd: Int32
    /// The temporary file renamed over `path` on commit; nil when writing in place.
    private var temp: String?
    private var mode: mode_t = 0

    init(path: String) throws(Failure) {
        self.path = path
        var st = stat()
        let exists = lstat(path, &st) == 0
        let type = st.st_mode & S_IFMT
        if exists && type != S_IFREG {
            // A device, FIFO, socket or symbolic link: open it as it is.
            fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | (type == S_IFLNK ? O_CREAT : 0), 0o666)
            guard fd >= 0 else { throw Failure(path: path, errno: errno) }
            return
        }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        var template = Array((dir + "/." + url.lastPathComponent + ".pbsift-XXXXXX").utf8CString)
        fd = template.withUnsafeMutableBufferPointer { p in p.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            // Name the reason the folder gives (missing, not writable) against PATH.
            throw Failure(path: path, errno: errno)
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

    /// Writes all of `data`.
    func write(_ data: Data) throws(Failure) {
        let code: Int32 = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard var p = raw.baseAddress else { return 0 }
            var left = raw.count
            while left > 0 {
                let n = systemWrite(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                left -= n
                p += n
            }
            return 0
        }
        if code != 0 { throw Failure(path: path, errno: code) }
    }

    /// Closes the file and, for a temporary file, renames it over PATH.
    func commit() throws(Failure) {
        if temp != nil { fchmod(fd, mode) }
        let rc = close(fd)
        fd = -1
        if rc != 0 { throw Failure(path: path, errno: errno) }
        if let t = temp {
            guard rename(t, path) == 0 else { throw Failure(path: path, errno: errno) }
            temp = nil
        }
    }

    /// Writes `text` to PATH in one go: the whole report, or a `Failure`.
    static func write(_ text: String, to path: String) throws(Failure) {
        let file = try OutputFile(path: path)
        try file.write(Data(text.utf8))
        try file.commit()
    }
}

private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, p, n)
    #else
    Darwin.write(fd, p, n)
    #endif
}
