import Foundation

/// Walks one input and hands every regular file in it to a visitor, bounded by `ReadLimits`.
///
/// STUB: the full implementation (zip, tar, gzip, folder walking without following links) replaces
/// this file. Contract:
/// - `path` is a file or folder on disk, or `-` for standard input (JSON Lines, possibly gzip'd).
/// - The container is recognised by its bytes (zip `PK\x03\x04`/`PK\x05\x06`, gzip `1f 8b` then a
///   tar inside or not, ustar magic at offset 257, else JSON Lines), falling back to the name.
/// - A folder's files are visited in sorted order of their relative names; links are never followed.
/// - A bare file is visited as one entry named by its file name (without `.gz` after inflating).
/// - Problems a source throws while the visitor reads are recorded in the result before the throw,
///   so the visitor only stops reading that entry; it must not report them again.
public enum InputWalker {
    public static func walk(path: String, limits: ReadLimits = .default, visit: (ArchiveEntry) -> Void) -> WalkResult {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            return WalkResult(container: .unknown, issues: [ArchiveIssue(problem: .unreadable, entry: nil, message: "no such file or folder")], unreadable: true)
        }
        if isDir.boolValue {
            guard let e = FileManager.default.enumerator(atPath: path) else {
                return WalkResult(container: .folder, unreadable: true)
            }
            var names: [String] = []
            while let n = e.nextObject() as? String { names.append(n) }
            for n in names.sorted() {
                let full = path + "/" + n
                var d: ObjCBool = false
                if FileManager.default.fileExists(atPath: full, isDirectory: &d), !d.boolValue, let s = try? FileSource(path: full) {
                    visit(ArchiveEntry(name: n, rawName: n, declaredSize: nil, source: s))
                }
            }
            return WalkResult(container: .folder)
        }
        guard let s = try? FileSource(path: path) else {
            return WalkResult(container: .unknown, unreadable: true)
        }
        let name = (path as NSString).lastPathComponent
        visit(ArchiveEntry(name: name, rawName: name, declaredSize: nil, source: s))
        return WalkResult(container: .jsonl)
    }
}

/// Reads a file on disk in order. Refuses to open anything but a regular file (no links, devices, FIFOs).
public final class FileSource: ByteSource {
    private let fd: Int32
    public init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw ArchiveError(.unreadable, "cannot open: \(String(cString: strerror(errno)))") }
        self.fd = fd
    }
    /// Wraps an already open descriptor (standard input); it is not closed.
    public init(fileDescriptor: Int32) { self.fd = fileDescriptor; owns = false }
    private var owns = true
    deinit { if owns { close(fd) } }
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = Foundation.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ArchiveError(.unreadable, "read failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// Bytes already in memory (tests, small blobs).
public final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public convenience init(_ string: String) { self.init(Array(string.utf8)) }
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - offset)
        if n <= 0 { return 0 }
        bytes.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + offset, byteCount: n)
        }
        offset += n
        return n
    }
}

/// Inflates a gzip stream (RFC 1952), member after member, checking each member's CRC-32 and size.
///
/// STUB (passes bytes through): the real one throws `ArchiveError(.truncated)` when the stream ends
/// inside a member, `.corrupt` on bad deflate data, `.crcMismatch` on a bad trailer, and
/// `.decompressionLimit` once more than `limit` bytes have been produced.
public final class GzipSource: ByteSource {
    private let inner: ByteSource
    public init(wrapping inner: ByteSource, limit: Int64? = nil) { self.inner = inner }
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try inner.read(into: buffer) }
}
