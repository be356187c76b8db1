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
    /// Bytes written through `write` so far (where the next one goes).
    package private(set) var offset: UInt64 = 0

    public init(path: String, mode: mode_t = 0o644) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw WriteError("cannot create '\(path)': \(String(cString: strerror(errno)))") }
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    public func write(_ bytes: ArraySlice<UInt8>) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    public func write(_ raw: UnsafeRawBufferPointer) throws {
        guard let base = raw.baseAddress else { return }
        var off = 0
        while off < raw.count {
            let n = Foundation.write(fd, base + off, raw.count - off)
            if n > 0 { off += n; continue }
            if n < 0 && errno == EINTR { continue }
            throw WriteError("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        offset += UInt64(raw.count)
    }

    /// Writes `bytes` over what was written at `at` (a header filled in once its entry is written);
    /// the end of the file stays where it is.
    public func overwrite(_ bytes: [UInt8], at: UInt64) throws {
        guard at <= offset, UInt64(bytes.count) <= offset - at, let position = off_t(exactly: at) else {
            throw WriteError("cannot write '\(path)': a header past what was written")
        }
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var off = 0
            while off < raw.count {
                let n = Foundation.pwrite(fd, base + off, raw.count - off, position + off_t(off))
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

/// A scratch file for bytes that must be counted before they are written out (a tar entry, whose
/// header gives its size) or read twice (a gzip'd file, copied as it was when nothing in it
/// changes): created next to `near` under a new name and unlinked at once, so it never outlives
/// the process and is never seen in the folder. It holds bytes on disk, not in memory.
public final class SpoolFile {
    private var fd: Int32
    /// Bytes written so far.
    package private(set) var count: UInt64 = 0
    private let label: String

    /// `near`: a path whose folder holds the scratch file (the output's own).
    public init(near: String) throws {
        let url = URL(fileURLWithPath: near)
        let path = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).spool-\(UUID().uuidString.prefix(8))"
        ).path
        label = near
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WriteError("cannot create a scratch file next to '\(near)': \(String(cString: strerror(errno)))") }
        unlink(path)
    }

    deinit { if fd >= 0 { Foundation.close(fd) } }

    public func write(_ raw: UnsafeRawBufferPointer) throws {
        guard let base = raw.baseAddress else { return }
        var off = 0
        while off < raw.count {
            let n = Foundation.pwrite(fd, base + off, raw.count - off, off_t(clamping: count) + off_t(off))
            if n > 0 { off += n; continue }
            if n < 0 && errno == EINTR { continue }
            throw WriteError("cannot write a scratch file next to '\(label)': \(String(cString: strerror(errno)))")
        }
        count += UInt64(raw.count)
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// The bytes written, from the first (each call starts again at the first).
    public func reader() -> ByteSource { SpoolReader(fd: fd, end: count, label: label) }

    /// Hands every byte written, in order, to `sink`, in pieces of at most 256 KiB.
    public func copy(to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let r = reader()
        var buf = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let n = try buf.withUnsafeMutableBytes { try r.read(into: $0) }
            if n == 0 { return }
            try buf.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
    }

    private final class SpoolReader: ByteSource {
        let fd: Int32
        let end: UInt64
        let label: String
        var at: UInt64 = 0
        init(fd: Int32, end: UInt64, label: String) {
            self.fd = fd
            self.end = end
            self.label = label
        }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            guard let base = buffer.baseAddress, at < end else { return 0 }
            let want = Int(min(UInt64(buffer.count), end - at))
            while true {
                let n = Foundation.pread(fd, base, want, off_t(clamping: at))
                if n > 0 { at += UInt64(n); return n }
                if n < 0 && errno == EINTR { continue }
                throw WriteError(
                    "cannot read back a scratch file next to '\(label)': "
                        + (n == 0 ? "it ended early" : String(cString: strerror(errno))))
            }
        }
    }
}

/// Incremental deflate: a gzip member (`gzip: true`) or raw deflate. The bytes produced do not
/// depend on how the input is cut into `write` calls.
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
    public func write(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Compresses `bytes`; returns what deflate produced so far.
    public func write(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        run(bytes, flush: Z_NO_FLUSH) { out += $0 }
        return out
    }

    /// Compresses `bytes`, handing what deflate produces to `sink` in pieces of at most 64 KiB.
    public func write(_ bytes: UnsafeRawBufferPointer, to sink: (ArraySlice<UInt8>) throws -> Void) rethrows {
        try run(bytes, flush: Z_NO_FLUSH, sink)
    }

    /// Ends the stream; returns the rest.
    public func finish() -> [UInt8] {
        guard !done else { return [] }
        done = true
        var out: [UInt8] = []
        run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH) { out += $0 }
        return out
    }

    private func run(_ bytes: UnsafeRawBufferPointer, flush: Int32, _ sink: (ArraySlice<UInt8>) throws -> Void) rethrows {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var rest = bytes
        repeat {
            // zlib's lengths are 32-bit: a larger span is fed in pieces.
            let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(1 << 30))
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(piece.count))
            let mode = rest.isEmpty ? flush : Z_NO_FLUSH
            strm.pointee.next_in = piece.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
            strm.pointee.avail_in = uInt(piece.count)
            while true {
                var rc: Int32 = Z_OK
                let produced = chunk.withUnsafeMutableBytes { outp -> Int in
                    strm.pointee.next_out = outp.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    strm.pointee.avail_out = uInt(outp.count)
                    rc = CZlib.deflate(strm, mode)
                    return outp.count - Int(strm.pointee.avail_out)
                }
                if produced > 0 { try sink(chunk[..<produced]) }
                if rc == Z_STREAM_ERROR || rc == Z_STREAM_END { break }
                if mode != Z_FINISH && strm.pointee.avail_out != 0 { break }
                if rc == Z_BUF_ERROR && produced == 0 { break }
            }
        } while !rest.isEmpty
    }

    /// `bytes` as one gzip member.
    public static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let d = try DeflateStream(gzip: true)
        return d.write(bytes) + d.finish()
    }
}

/// Writes a zip archive (stored or deflate entries) to a sink as entries are added, in zip64 form
/// where a size, an offset or the count of entries does not fit the 32-bit (16-bit) fields
/// (APPNOTE 4.5.3: a zip64 extra field in the entry's records, and a zip64 end record and locator).
///
/// An entry is added whole (`add`) or written a piece at a time (`begin`, then the entry's `write`
/// and `finish`), its size and CRC-32 not known up front. Written to a file (`init(file:)`), such an
/// entry's local header is filled in once its data is written, as Info-ZIP's zip does on a seekable
/// output; written to a sink that cannot go back (`init(sink:)`), the values follow the data in a
/// data descriptor (flag bit 3). Either way the central directory holds them.
public final class ZipWriter {
    private let sink: ([UInt8]) throws -> Void
    private let file: NewFile?
    private var offset: UInt64 = 0
    private var central: [UInt8] = []
    private var count = 0
    private var entryOpen = false
    /// Sizes and offsets from this value up are written in zip64 fields. 0xFFFF_FFFF in use;
    /// tests lower it to check the zip64 records without writing 4 GiB.
    var zip32Limit: UInt64 = 0xFFFF_FFFF

    public init(sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        self.file = nil
    }

    /// Writes to `file`, going back to fill in the local header of an entry written in pieces.
    public init(file: NewFile) {
        self.sink = { try file.write($0) }
        self.file = file
        offset = file.offset
    }

    private func emit(_ b: [UInt8]) throws {
        try sink(b)
        offset += UInt64(b.count)
    }

    private func emit(_ b: ArraySlice<UInt8>) throws {
        if let file { try file.write(b) } else { try sink(Array(b)) }
        offset += UInt64(b.count)
    }

    private func emit(_ b: UnsafeRawBufferPointer) throws {
        if let file { try file.write(b) } else { try sink(Array(b)) }
        offset += UInt64(b.count)
    }

    private static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * UInt32($0)) & 0xFF) } }
    private static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(v >> (8 * UInt64($0)) & 0xFF) } }

    /// A 32-bit field: the value, or 0xFFFF_FFFF when it goes in the zip64 extra field.
    private func field(_ v: UInt64, _ wide: Bool) -> [UInt8] { ZipWriter.le32(wide ? 0xFFFF_FFFF : UInt32(v)) }

    /// The local header. `zip64`: with a zip64 extra field holding both sizes (the 32-bit fields 0xFFFF_FFFF).
    private func localHeader(_ n: [UInt8], flags: Int, method: Int, crc: UInt32, compressed: UInt64, size: UInt64, zip64: Bool) -> [UInt8] {
        // Version 2.0 (4.5 with zip64), flag bit 11 (UTF-8 names), stored (0) or deflate (8), no time.
        var h: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + ZipWriter.le16(zip64 ? 45 : 20) + ZipWriter.le16(flags) + ZipWriter.le16(method)
        h += ZipWriter.le16(0) + ZipWriter.le16(0x21) + ZipWriter.le32(crc) + field(compressed, zip64) + field(size, zip64)
        h += ZipWriter.le16(n.count) + ZipWriter.le16(zip64 ? 20 : 0) + n
        if zip64 { h += ZipWriter.le16(1) + ZipWriter.le16(16) + ZipWriter.le64(size) + ZipWriter.le64(compressed) }
        return h
    }

    /// The central-directory record; a value at or over the limit goes in its zip64 extra field.
    private func centralRecord(
        _ n: [UInt8], flags: Int, method: Int, crc: UInt32, compressed: UInt64, size: UInt64,
        at: UInt64, localZip64: Bool
    ) {
        let wideSize = size >= zip32Limit, wideCompressed = compressed >= zip32Limit, wideAt = at >= zip32Limit
        var extra: [UInt8] = []
        if wideSize { extra += ZipWriter.le64(size) }
        if wideCompressed { extra += ZipWriter.le64(compressed) }
        if wideAt { extra += ZipWriter.le64(at) }
        if !extra.isEmpty { extra = ZipWriter.le16(1) + ZipWriter.le16(extra.count) + extra }
        let zip64 = localZip64 || !extra.isEmpty
        central +=
            [0x50, 0x4B, 0x01, 0x02] + ZipWriter.le16(zip64 ? 0x032D : 0x031E) + ZipWriter.le16(zip64 ? 45 : 20)
            + ZipWriter.le16(flags) + ZipWriter.le16(method) + ZipWriter.le16(0) + ZipWriter.le16(0x21) + ZipWriter.le32(crc)
            + field(compressed, wideCompressed) + field(size, wideSize) + ZipWriter.le16(n.count) + ZipWriter.le16(extra.count)
            + ZipWriter.le16(0) + ZipWriter.le16(0) + ZipWriter.le16(0) + ZipWriter.le32(0o100644 << 16) + field(at, wideAt) + n + extra
        count += 1
    }

    /// Adds one file (`name` relative, `/`-separated), compressed with deflate when `deflate` is set.
    public func add(name: String, bytes: [UInt8], deflate: Bool = false) throws {
        guard !entryOpen else { throw WriteError("a zip entry is still being written") }
        let data = deflate ? try ZipWriter.rawDeflate(bytes) : bytes
        let n = Array(name.utf8)
        guard n.count <= 0xFFFF else { throw WriteError("the name '\(name)' is too long for a zip entry") }
        let crc = CRC32.checksum(bytes)
        let size = UInt64(bytes.count), compressed = UInt64(data.count)
        let here = offset
        let zip64 = size >= zip32Limit || compressed >= zip32Limit
        try emit(localHeader(n, flags: 0x0800, method: deflate ? 8 : 0, crc: crc, compressed: compressed, size: size, zip64: zip64))
        try emit(data)
        centralRecord(n, flags: 0x0800, method: deflate ? 8 : 0, crc: crc, compressed: compressed, size: size, at: here, localZip64: zip64)
    }

    /// Starts an entry written a piece at a time. `sizeHint`: about how many bytes it will hold
    /// (unknown: nil). An entry that may reach the 32-bit limit (a hint from half of it up, or none)
    /// gets a zip64 extra field in its local header, as Python's zipfile and Info-ZIP's zip decide
    /// from the size they expect; one that then passes the limit without it is an error, never a
    /// damaged archive.
    public func begin(name: String, deflate: Bool, sizeHint: Int64?) throws -> Entry {
        guard !entryOpen else { throw WriteError("a zip entry is still being written") }
        let n = Array(name.utf8)
        guard n.count <= 0xFFFF else { throw WriteError("the name '\(name)' is too long for a zip entry") }
        let zip64 = sizeHint.map { $0 < 0 || UInt64($0) >= zip32Limit / 2 } ?? true
        let flags = file == nil ? 0x0808 : 0x0800
        let e = Entry(
            writer: self, name: n, shown: name, deflate: deflate ? try DeflateStream(gzip: false) : nil,
            flags: flags, zip64: zip64, headerAt: offset)
        try emit(localHeader(n, flags: flags, method: deflate ? 8 : 0, crc: 0, compressed: 0, size: 0, zip64: zip64))
        entryOpen = true
        return e
    }

    /// One entry being written: `write` its bytes (uncompressed), then `finish`.
    public final class Entry {
        private let writer: ZipWriter
        private let name: [UInt8]
        private let shown: String
        private let deflate: DeflateStream?
        private let flags: Int
        private let zip64: Bool
        private let headerAt: UInt64
        private var crc = CRC32()
        private var size: UInt64 = 0
        private var compressed: UInt64 = 0
        private var done = false

        fileprivate init(
            writer: ZipWriter, name: [UInt8], shown: String, deflate: DeflateStream?, flags: Int, zip64: Bool, headerAt: UInt64
        ) {
            self.writer = writer
            self.name = name
            self.shown = shown
            self.deflate = deflate
            self.flags = flags
            self.zip64 = zip64
            self.headerAt = headerAt
        }

        public func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }

        public func write(_ raw: UnsafeRawBufferPointer) throws {
            guard !done, raw.count > 0 else { return }
            crc.update(raw)
            size += UInt64(raw.count)
            if let deflate {
                try deflate.write(raw) { piece in
                    try writer.emit(piece)
                    compressed += UInt64(piece.count)
                }
            } else {
                try writer.emit(raw)
                compressed += UInt64(raw.count)
            }
        }

        /// Ends the entry: the rest of its compressed bytes, its sizes and CRC-32.
        public func finish() throws {
            guard !done else { return }
            done = true
            if let deflate {
                let rest = deflate.finish()
                try writer.emit(rest)
                compressed += UInt64(rest.count)
            }
            writer.entryOpen = false
            guard zip64 || (size < writer.zip32Limit && compressed < writer.zip32Limit) else {
                throw WriteError(
                    "'\(shown)' grew to \(size) bytes, past what a zip entry holds without zip64, which its header had no room for")
            }
            let method = deflate == nil ? 0 : 8
            if let file = writer.file {
                try file.overwrite(
                    writer.localHeader(
                        name, flags: flags, method: method, crc: crc.value, compressed: compressed,
                        size: size, zip64: zip64), at: headerAt)
            } else {
                // The data descriptor, with 8-byte sizes where the local header has a zip64 field.
                let sizes =
                    zip64
                    ? ZipWriter.le64(compressed) + ZipWriter.le64(size)
                    : ZipWriter.le32(UInt32(compressed)) + ZipWriter.le32(UInt32(size))
                try writer.emit([0x50, 0x4B, 0x07, 0x08] + ZipWriter.le32(crc.value) + sizes)
            }
            writer.centralRecord(
                name, flags: flags, method: method, crc: crc.value, compressed: compressed, size: size,
                at: headerAt, localZip64: zip64)
        }
    }

    /// `bytes` as one raw deflate stream (zip method 8).
    public static func rawDeflate(_ bytes: [UInt8]) throws -> [UInt8] {
        let d = try DeflateStream(gzip: false)
        return d.write(bytes) + d.finish()
    }

    /// Writes the central directory and its end record (with a zip64 end record and locator before
    /// it when the count, the directory's size or its offset does not fit).
    public func finish() throws {
        guard !entryOpen else { throw WriteError("a zip entry is still being written") }
        let start = offset
        let dir = central
        central = []
        try emit(dir)
        let size = UInt64(dir.count), entries = UInt64(count)
        let zip64 = entries >= 0xFFFF || size >= zip32Limit || start >= zip32Limit
        if zip64 {
            let record = offset
            // Zip64 end record: its size after this field (44), made by / needed 4.5, disks 0, counts, size, offset.
            try emit(
                [0x50, 0x4B, 0x06, 0x06] + ZipWriter.le64(44) + ZipWriter.le16(0x032D) + ZipWriter.le16(45)
                    + ZipWriter.le32(0) + ZipWriter.le32(0) + ZipWriter.le64(entries) + ZipWriter.le64(entries)
                    + ZipWriter.le64(size) + ZipWriter.le64(start))
            try emit([0x50, 0x4B, 0x06, 0x07] + ZipWriter.le32(0) + ZipWriter.le64(record) + ZipWriter.le32(1))
        }
        let narrowCount = ZipWriter.le16(entries >= 0xFFFF ? 0xFFFF : Int(entries))
        try emit(
            [0x50, 0x4B, 0x05, 0x06] + ZipWriter.le16(0) + ZipWriter.le16(0) + narrowCount + narrowCount
                + field(size, size >= zip32Limit) + field(start, start >= zip32Limit) + ZipWriter.le16(0))
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
        try sink(TarWriter.header(name: name, size: UInt64(bytes.count)))
        try sink(bytes)
        try pad(UInt64(bytes.count))
    }

    /// Adds one regular file of `size` bytes, which `copy` hands over in pieces (a spooled entry).
    public func add(name: String, size: UInt64, copy: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        try sink(TarWriter.header(name: name, size: size))
        var written: UInt64 = 0
        try copy { piece in
            written += UInt64(piece.count)
            try sink(Array(piece))
        }
        guard written == size else { throw WriteError("'\(name)' held \(written) bytes, not the \(size) its tar header says") }
        try pad(size)
    }

    private func pad(_ size: UInt64) throws {
        let pad = Int((512 - size % 512) % 512)
        if pad > 0 { try sink([UInt8](repeating: 0, count: pad)) }
    }

    /// The header blocks of one regular file: one ustar block when the name and size fit it, else a
    /// pax extended header (`x`, POSIX.1-2001) carrying the whole `path` and/or `size` first, and a
    /// ustar block whose own fields hold what fits (a reader that knows pax takes the extended values).
    static func header(name: String, size: UInt64) -> [UInt8] {
        let fitted = ustarName(name)
        let sizeFits = size < 0o77777777777
        var records: [UInt8] = []
        if fitted == nil { records += paxRecord("path", Array(name.utf8)) }
        if !sizeFits { records += paxRecord("size", Array(String(size).utf8)) }
        let (nameBytes, prefix) = fitted ?? (shortName(name), [])
        let block = ustarBlock(name: nameBytes, prefix: prefix, size: sizeFits ? size : 0, type: UInt8(ascii: "0"))
        guard !records.isEmpty else { return block }
        let paxName = Array("PaxHeaders/".utf8) + shortName(name).prefix(100 - 11)
        var out = ustarBlock(name: paxName, prefix: [], size: UInt64(records.count), type: UInt8(ascii: "x"))
        out += records
        out += [UInt8](repeating: 0, count: (512 - records.count % 512) % 512)
        return out + block
    }

    /// `name` as ustar's `name` (100 bytes) and `prefix` (155 bytes) split at a `/`; nil when it does not fit.
    private static func ustarName(_ name: String) -> (name: [UInt8], prefix: [UInt8])? {
        let bytes = Array(name.utf8)
        guard bytes.count > 100 else { return (bytes, []) }
        guard let cut = bytes.indices.reversed().first(where: { bytes[$0] == 0x2F && $0 <= 155 && bytes.count - $0 - 1 <= 100 })
        else { return nil }
        return (Array(bytes[(cut + 1)...]), Array(bytes[..<cut]))
    }

    /// The leaf of `name`, at most 99 bytes on whole characters: what a reader without pax support sees.
    private static func shortName(_ name: String) -> [UInt8] {
        let leaf = name.split(separator: "/").last.map(String.init) ?? "_"
        var out: [UInt8] = []
        for c in leaf.unicodeScalars {
            let u = Array(String(c).utf8)
            if out.count + u.count > 99 { break }
            out += u
        }
        return out.isEmpty ? Array("_".utf8) : out
    }

    /// One pax record, `"<length> <key>=<value>\n"`, its length counting its own digits.
    static func paxRecord(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let body = 1 + key.utf8.count + 1 + value.count + 1
        var length = body + String(body).count
        if String(length).count != String(body).count { length = body + String(length).count }
        return Array("\(length) \(key)=".utf8) + value + [0x0A]
    }

    private static func ustarBlock(name: [UInt8], prefix: [UInt8], size: UInt64, type: UInt8) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 512)
        func put(_ at: Int, _ b: [UInt8]) { for (i, c) in b.enumerated() { h[at + i] = c } }
        put(0, name)
        put(100, TarWriter.octal(0o644, 8))
        put(108, TarWriter.octal(0, 8))
        put(116, TarWriter.octal(0, 8))
        put(124, TarWriter.octal(Int(size), 12))
        put(136, TarWriter.octal(0, 12))
        put(148, Array(repeating: 0x20, count: 8))
        h[156] = type
        put(257, Array("ustar\u{0}00".utf8))
        put(345, prefix)
        let sum = h.reduce(0) { $0 + Int($1) }
        put(148, Array(String(sum, radix: 8).leftPad(6).utf8) + [0, 0x20])
        return h
    }

    /// The two zero blocks that end the archive.
    public func finish() throws { try sink([UInt8](repeating: 0, count: 1024)) }
}

extension String {
    fileprivate func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
