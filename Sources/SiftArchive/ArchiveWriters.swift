import CZlib
import Foundation

/// Why writing an output failed.
public struct WriteError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A file created for writing that must not exist yet and is never reached through a link
/// (`O_CREAT | O_EXCL | O_NOFOLLOW`).
public final class NewFile {
    private var fd: Int32
    public let path: String

    public init(path: String, mode: mode_t = 0o644) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw WriteError("cannot create '\(path)': \(String(cString: strerror(errno)))") }
    }

    public func write(_ bytes: [UInt8]) throws {
        var off = 0
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while off < raw.count {
                let n = Foundation.write(fd, base + off, raw.count - off)
                if n > 0 { off += n; continue }
                if n < 0 && errno == EINTR { continue }
                throw WriteError("cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
        }
    }

    public func close() throws {
        guard fd >= 0 else { return }
        let r = fsync(fd) == 0 && Foundation.close(fd) == 0
        fd = -1
        if !r { throw WriteError("cannot finish '\(path)': \(String(cString: strerror(errno)))") }
    }

    deinit { if fd >= 0 { Foundation.close(fd) } }
}

/// Incremental deflate: a gzip member (`gzip: true`) or raw deflate.
public final class DeflateStream {
    private let strm: UnsafeMutablePointer<z_stream>
    private var done = false

    public init(gzip: Bool, level: Int32 = 6) throws {
        strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        guard pbsift_deflateInit2(strm, level, gzip ? 31 : -15) == Z_OK else {
            strm.deallocate()
            throw WriteError("cannot start deflate")
        }
    }

    deinit {
        deflateEnd(strm)
        strm.deallocate()
    }

    /// Compresses `bytes`; returns what deflate produced so far.
    public func write(_ bytes: [UInt8]) -> [UInt8] { run(bytes, flush: Z_NO_FLUSH) }

    /// Ends the stream; returns the rest.
    public func finish() -> [UInt8] {
        guard !done else { return [] }
        done = true
        return run([], flush: Z_FINISH)
    }

    private func run(_ bytes: [UInt8], flush: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var input = bytes
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        input.withUnsafeMutableBytes { inp in
            strm.pointee.next_in = inp.baseAddress?.assumingMemoryBound(to: Bytef.self)
            strm.pointee.avail_in = uInt(inp.count)
            while true {
                var rc: Int32 = Z_OK
                let produced = chunk.withUnsafeMutableBytes { outp -> Int in
                    strm.pointee.next_out = outp.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    strm.pointee.avail_out = uInt(outp.count)
                    rc = CZlib.deflate(strm, flush)
                    return outp.count - Int(strm.pointee.avail_out)
                }
                out += chunk[..<produced]
                if rc == Z_STREAM_ERROR || rc == Z_STREAM_END { break }
                if flush != Z_FINISH && strm.pointee.avail_out != 0 { break }
                if rc == Z_BUF_ERROR && produced == 0 { break }
            }
        }
        return out
    }

    /// `bytes` as one gzip member.
    public static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let d = try DeflateStream(gzip: true)
        return d.write(bytes) + d.finish()
    }
}

/// Writes a zip archive (stored or deflate entries, no zip64) to a sink as entries are added.
public final class ZipWriter {
    private let sink: ([UInt8]) throws -> Void
    private var offset: UInt64 = 0
    private var central: [UInt8] = []
    private var count = 0

    public init(sink: @escaping ([UInt8]) throws -> Void) { self.sink = sink }

    private func emit(_ b: [UInt8]) throws {
        try sink(b)
        offset += UInt64(b.count)
    }

    private static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * UInt32($0)) & 0xFF) } }

    /// Adds one file (`name` relative, `/`-separated), compressed with deflate when `deflate` is set.
    public func add(name: String, bytes: [UInt8], deflate: Bool = false) throws {
        let data = deflate ? try ZipWriter.rawDeflate(bytes) : bytes
        guard bytes.count < Int(UInt32.max), data.count < Int(UInt32.max), offset < UInt64(UInt32.max), count < 0xFFFF else {
            throw WriteError("the zip output would need zip64, which this writer does not write")
        }
        let n = Array(name.utf8)
        let crc = CRC32.checksum(bytes)
        let size = UInt32(bytes.count)
        let here = UInt32(offset)
        // Version 2.0, flag bit 11 (UTF-8 names), stored (0) or deflate (8), no time.
        let common = ZipWriter.le16(20) + ZipWriter.le16(0x0800) + ZipWriter.le16(deflate ? 8 : 0) + ZipWriter.le16(0) + ZipWriter.le16(0x21)
            + ZipWriter.le32(crc) + ZipWriter.le32(UInt32(data.count)) + ZipWriter.le32(size) + ZipWriter.le16(n.count) + ZipWriter.le16(0)
        try emit([0x50, 0x4B, 0x03, 0x04] + common + n)
        try emit(data)
        central += [0x50, 0x4B, 0x01, 0x02] + ZipWriter.le16(0x031E) + common + ZipWriter.le16(0) + ZipWriter.le16(0)
            + ZipWriter.le16(0) + ZipWriter.le32(0o100644 << 16) + ZipWriter.le32(here) + n
        count += 1
    }

    /// `bytes` as one raw deflate stream (zip method 8).
    static func rawDeflate(_ bytes: [UInt8]) throws -> [UInt8] {
        let d = try DeflateStream(gzip: false)
        return d.write(bytes) + d.finish()
    }

    /// Writes the central directory and its end record.
    public func finish() throws {
        guard offset < UInt64(UInt32.max) else { throw WriteError("the zip output would need zip64") }
        let start = UInt32(offset)
        let dir = central
        try emit(dir)
        try emit([0x50, 0x4B, 0x05, 0x06] + ZipWriter.le16(0) + ZipWriter.le16(0) + ZipWriter.le16(count) + ZipWriter.le16(count)
                 + ZipWriter.le32(UInt32(dir.count)) + ZipWriter.le32(start) + ZipWriter.le16(0))
    }
}

/// Writes a ustar archive to a sink as entries are added (names up to 255 bytes, split at a `/`).
public final class TarWriter {
    private let sink: ([UInt8]) throws -> Void

    public init(sink: @escaping ([UInt8]) throws -> Void) { self.sink = sink }

    private static func octal(_ v: Int, _ width: Int) -> [UInt8] {
        let s = String(v, radix: 8)
        let digits = Array(String(repeating: "0", count: max(0, width - 1 - s.count)).utf8) + Array(s.utf8)
        return digits + [0]
    }

    /// Adds one regular file.
    public func add(name: String, bytes: [UInt8]) throws {
        var nameBytes = Array(name.utf8)
        var prefix: [UInt8] = []
        if nameBytes.count > 100 {
            guard let cut = nameBytes.indices.reversed().first(where: { nameBytes[$0] == 0x2F && $0 <= 155 && nameBytes.count - $0 - 1 <= 100 })
            else { throw WriteError("the name '\(name)' is too long for a ustar header") }
            prefix = Array(nameBytes[..<cut])
            nameBytes = Array(nameBytes[(cut + 1)...])
        }
        guard bytes.count < 0o77777777777 else { throw WriteError("'\(name)' is too large for a ustar header") }
        var h = [UInt8](repeating: 0, count: 512)
        func put(_ at: Int, _ b: [UInt8]) { for (i, c) in b.enumerated() { h[at + i] = c } }
        put(0, nameBytes)
        put(100, TarWriter.octal(0o644, 8))
        put(108, TarWriter.octal(0, 8))
        put(116, TarWriter.octal(0, 8))
        put(124, TarWriter.octal(bytes.count, 12))
        put(136, TarWriter.octal(0, 12))
        put(148, Array(repeating: 0x20, count: 8))
        h[156] = UInt8(ascii: "0")
        put(257, Array("ustar\u{0}00".utf8))
        put(345, prefix)
        let sum = h.reduce(0) { $0 + Int($1) }
        put(148, Array(String(sum, radix: 8).leftPad(6).utf8) + [0, 0x20])
        try sink(h)
        try sink(bytes)
        let pad = (512 - bytes.count % 512) % 512
        if pad > 0 { try sink([UInt8](repeating: 0, count: pad)) }
    }

    /// The two zero blocks that end the archive.
    public func finish() throws { try sink([UInt8](repeating: 0, count: 1024)) }
}

extension String {
    fileprivate func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
