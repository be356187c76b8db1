import Foundation

/// A buffered, forward-only reader over a tar stream (plain, or inflated from gzip).
final class TarStream {
    private let src: ByteSource
    private static let size = 128 * 1024
    private let buf = UnsafeMutableRawPointer.allocate(byteCount: TarStream.size, alignment: 16)
    private var pos = 0
    private var len = 0
    private var eof = false
    /// Bytes of the tar stream consumed so far.
    private(set) var offset: Int64 = 0

    init(_ src: ByteSource) { self.src = src }
    deinit { buf.deallocate() }

    /// Reads up to `count` bytes into `dst`; 0 only at the end of the stream.
    func read(into dst: UnsafeMutableRawPointer, count: Int) throws -> Int {
        guard count > 0 else { return 0 }
        if pos == len {
            if eof { return 0 }
            if count >= TarStream.size {
                // Large reads bypass the buffer.
                let n = try src.read(into: UnsafeMutableRawBufferPointer(start: dst, count: count))
                if n == 0 { eof = true }
                offset += Int64(n)
                return n
            }
            pos = 0
            len = try src.read(into: UnsafeMutableRawBufferPointer(start: buf, count: TarStream.size))
            if len == 0 { eof = true; return 0 }
        }
        let n = min(count, len - pos)
        dst.copyMemory(from: buf + pos, byteCount: n)
        pos += n
        offset += Int64(n)
        return n
    }

    /// Reads exactly `count` bytes unless the stream ends; returns how many were read.
    func readFully(into dst: UnsafeMutableRawPointer, count: Int) throws -> Int {
        var got = 0
        while got < count {
            let n = try read(into: dst + got, count: count - got)
            if n == 0 { break }
            got += n
        }
        return got
    }

    /// Skips `count` bytes; returns how many were skipped (fewer at the end of the stream).
    func skip(_ count: Int64) throws -> Int64 {
        var left = count
        while left > 0 {
            if pos == len {
                if eof { break }
                pos = 0
                len = try src.read(into: UnsafeMutableRawBufferPointer(start: buf, count: TarStream.size))
                if len == 0 { eof = true; break }
            }
            let n = Int(min(Int64(len - pos), left))
            pos += n
            offset += Int64(n)
            left -= Int64(n)
        }
        return count - left
    }
}

/// The fields of a 512-byte tar header that matter here.
enum TarHeader {
    /// Whether the block's stored checksum matches (unsigned sum, or the historic signed sum).
    static func checksumMatches(_ block: UnsafeRawBufferPointer) -> Bool {
        guard block.count >= 512, let stored = number(block, 148, 8) else { return false }
        var unsigned: Int64 = 0
        var signed: Int64 = 0
        for i in 0..<512 {
            let b = (148..<156).contains(i) ? UInt8(ascii: " ") : block[i]
            unsigned += Int64(b)
            signed += Int64(Int8(bitPattern: b))
        }
        return stored == unsigned || stored == signed
    }

    /// An octal field (leading spaces, ending at NUL or space) or a base-256 one (GNU, high bit set).
    static func number(_ block: UnsafeRawBufferPointer, _ at: Int, _ width: Int) -> Int64? {
        let first = block[at]
        if first & 0x80 != 0 {
            guard first == 0x80 else { return nil } // negative or oversized
            var v: Int64 = 0
            for i in (at + 1)..<(at + width) {
                guard v < (1 << 54) else { return nil }
                v = v << 8 | Int64(block[i])
            }
            return v
        }
        var i = at
        let end = at + width
        while i < end, block[i] == UInt8(ascii: " ") { i += 1 }
        var v: Int64 = 0
        var digits = 0
        while i < end {
            let c = block[i]
            if c == 0 || c == UInt8(ascii: " ") { break }
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "7"), v < (1 << 58) else { return nil }
            v = v * 8 + Int64(c - UInt8(ascii: "0"))
            digits += 1
            i += 1
        }
        return digits > 0 ? v : nil
    }

    /// A NUL-terminated text field.
    static func text(_ block: UnsafeRawBufferPointer, _ at: Int, _ width: Int) -> String {
        var end = at
        while end < at + width, block[end] != 0 { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: block[at..<end]), as: UTF8.self)
    }
}

/// The data of one tar entry, read from the stream; ends early → `.truncated`.
final class TarEntrySource: ByteSource {
    private let stream: TarStream
    let size: Int64
    private(set) var consumed: Int64 = 0

    init(stream: TarStream, size: Int64) {
        self.stream = stream
        self.size = size
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let left = size - consumed
        guard left > 0, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n = try stream.read(into: base, count: Int(min(Int64(buffer.count), left)))
        if n == 0 {
            throw ArchiveError(
                .truncated, "tar archive ends inside the entry's data at tar offset \(stream.offset) (\(consumed) of \(size) bytes)")
        }
        consumed += Int64(n)
        return n
    }
}

/// Walks a tar stream: ustar, pax (`x`, `g`), GNU long names (`L`), without seeking.
/// Pax records that name, size or link an entry are its structure; every other (a comment, an
/// extended attribute, an owner) is a `ContainerText`.
struct TarReader {
    /// Pax keys that are the entry's structure (its name, link and size), read as such.
    static let structuralPax: Set<String> = ["path", "linkpath", "size"]
    let stream: TarStream
    let state: WalkState
    /// Whether the stream is compressed. Either way it is read to its end after the end-of-archive
    /// blocks (which lets gzip check its trailer), and the bytes there must be zero.
    let drain: Bool
    private static let maxMetaBytes: Int64 = 1 << 20
    private static let maxMetaRun = 64

    init(stream: ByteSource, state: WalkState, drain: Bool) {
        self.stream = TarStream(stream)
        self.state = state
        self.drain = drain
    }

    func run() {
        do {
            try walk()
        } catch {
            let e = error as? ArchiveError ?? ArchiveError(.unreadable, "\(error)")
            state.issue(e.problem, entry: nil, offset: stream.offset, message: "tar stream: \(e.message)")
        }
    }

    private func walk() throws {
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)
        defer { block.deallocate() }
        var pax: [String: String] = [:]
        var globalPax: [String: String] = [:]
        var longName: String?
        var longLink: String?
        var metaRun = 0
        var sawEntry = false

        while !state.stopped {
            let at = stream.offset
            let got = try stream.readFully(into: block.baseAddress!, count: 512)
            if got == 0 {
                state.issue(
                    .truncated, entry: nil, offset: at,
                    message: sawEntry
                        ? "tar archive ends at offset \(at) without its end-of-archive blocks"
                        : "tar archive is empty (no header at offset 0)")
                return
            }
            if got < 512 {
                state.issue(.truncated, entry: nil, offset: at, message: "tar header at offset \(at) is cut short (\(got) of 512 bytes)")
                return
            }
            let view = UnsafeRawBufferPointer(block)
            if isZero(view) {
                let at2 = stream.offset
                let got2 = try stream.readFully(into: block.baseAddress!, count: 512)
                if got2 == 0 || (got2 == 512 && isZero(UnsafeRawBufferPointer(block))) {
                    // Writers pad to a record size with zeros; anything else there is read by no one.
                    let (_, nonZero) = try skipZeros(.max)
                    if let nonZero {
                        state.issue(
                            .corrupt, entry: nil, offset: nonZero,
                            message:
                                "bytes after the tar end-of-archive blocks are not zero (at tar offset \(nonZero)); they belong to no entry and were not checked"
                        )
                    }
                    return
                }
                if got2 < 512 {
                    state.issue(
                        .truncated, entry: nil, offset: at2, message: "tar archive ends inside its end-of-archive blocks at offset \(at2)")
                    return
                }
                state.issue(.corrupt, entry: nil, offset: at, message: "lone zero block at tar offset \(at); reading on")
            }
            guard TarHeader.checksumMatches(view) else {
                state.issue(
                    .corrupt, entry: nil, offset: stream.offset - 512,
                    message: "tar header at offset \(stream.offset - 512) has a bad checksum; the rest of the archive was not read")
                return
            }
            let headerAt = stream.offset - 512
            let type = view[156]
            guard var size = TarHeader.number(view, 124, 12) else {
                state.issue(
                    .corrupt, entry: nil, offset: headerAt,
                    message: "tar header at offset \(headerAt) has an unreadable size; the rest of the archive was not read")
                return
            }
            let padding = { (n: Int64) -> Int64 in (512 - n % 512) % 512 }

            // Meta headers that describe the next entry.
            if type == UInt8(ascii: "x") || type == UInt8(ascii: "g") || type == UInt8(ascii: "L") || type == UInt8(ascii: "K") {
                metaRun += 1
                if metaRun > TarReader.maxMetaRun {
                    state.issue(
                        .corrupt, entry: nil, offset: headerAt,
                        message:
                            "more than \(TarReader.maxMetaRun) extended headers in a row at tar offset \(headerAt); the rest of the archive was not read"
                    )
                    return
                }
                guard size <= TarReader.maxMetaBytes else {
                    state.issue(
                        .corrupt, entry: nil, offset: headerAt,
                        message:
                            "extended header at tar offset \(headerAt) is \(size) bytes, over the \(TarReader.maxMetaBytes)-byte bound; ignored"
                    )
                    guard try skip(size + padding(size), at: headerAt) else { return }
                    continue
                }
                var data = [UInt8](repeating: 0, count: Int(size))
                let n =
                    size == 0
                    ? 0
                    : try data.withUnsafeMutableBytes { b in
                        guard let base = b.baseAddress else { return 0 }
                        return try stream.readFully(into: base, count: Int(size))
                    }
                guard n == Int(size) else {
                    state.issue(
                        .truncated, entry: nil, offset: stream.offset,
                        message: "tar archive ends inside the extended header at offset \(headerAt)")
                    return
                }
                guard try skip(padding(size), at: headerAt) else { return }
                switch type {
                case UInt8(ascii: "x"), UInt8(ascii: "g"):
                    guard let records = parsePax(data) else {
                        state.issue(
                            .corrupt, entry: nil, offset: headerAt, message: "pax header at tar offset \(headerAt) is malformed; ignored")
                        continue
                    }
                    if type == UInt8(ascii: "x") {
                        pax.merge(records) { _, new in new }
                    } else {
                        globalPax.merge(records) { _, new in new }
                        for (k, v) in records.sorted(by: { $0.key < $1.key }) where !TarReader.structuralPax.contains(k) {
                            state.text(entry: nil, label: "tar global pax record '\(k)'", bytes: Array(v.utf8))
                        }
                    }
                case UInt8(ascii: "L"):
                    longName = String(decoding: data.prefix { $0 != 0 }, as: UTF8.self)
                default:
                    longLink = String(decoding: data.prefix { $0 != 0 }, as: UTF8.self)
                }
                continue
            }
            metaRun = 0
            sawEntry = true

            var name = TarHeader.text(view, 0, 100)
            let magic = Array(view[257..<263])
            if magic == Array("ustar\u{0}".utf8) {
                let prefix = TarHeader.text(view, 345, 155)
                if !prefix.isEmpty { name = prefix + "/" + name }
            }
            if let n = globalPax["path"], !n.isEmpty { name = n }
            if let n = longName { name = n }
            if let n = pax["path"], !n.isEmpty { name = n }
            var linkTarget = longLink ?? TarHeader.text(view, 157, 100)
            if let l = globalPax["linkpath"] { linkTarget = l }
            if let l = pax["linkpath"] { linkTarget = l }
            for source in [globalPax, pax] {
                if let s = source["size"], !s.isEmpty {
                    guard let v = Int64(s), v >= 0, v < (1 << 58) else {
                        state.issue(
                            .corrupt, entry: nil, offset: headerAt,
                            message: "pax size '\(s)' at tar offset \(headerAt) is not a size; the rest of the archive was not read")
                        return
                    }
                    size = v
                }
            }
            let entryPax = pax
            pax = [:]
            longName = nil
            longLink = nil

            let shown = CleanName(name).name
            // What the header carries beside the name and the data: scanned like the entry's text.
            for (k, v) in entryPax.sorted(by: { $0.key < $1.key }) where !TarReader.structuralPax.contains(k) {
                state.text(entry: shown, label: "tar pax record '\(k)'", bytes: Array(v.utf8))
            }
            if magic == Array("ustar\u{0}".utf8) || magic == Array("ustar ".utf8) {
                for (field, at) in [("owner name", 265), ("group name", 297)] {
                    let t = TarHeader.text(view, at, 32)
                    if !t.isEmpty { state.text(entry: shown, label: "tar header \(field)", bytes: Array(t.utf8)) }
                }
            }
            guard state.countEntry(shown) else { return }
            switch type {
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"):
                if size == 0, CleanName(name).isDirectory { continue } // an old-style directory entry
                let data = TarEntrySource(stream: stream, size: size)
                let es = state.deliver(raw: name, declaredSize: size, source: data)
                if es.failure != nil || state.stopped { return }
                guard try skip(size - data.consumed, at: headerAt, entry: shown) else { return }
                guard try padded(padding(size), at: headerAt, entry: shown) else { return }
            case UInt8(ascii: "5"):
                continue
            case UInt8(ascii: "1"), UInt8(ascii: "2"):
                let kind = type == UInt8(ascii: "1") ? "hard link" : "symbolic link"
                state.issue(
                    .linkSkipped, entry: shown, offset: headerAt,
                    message: "tar entry '\(shown)' at offset \(headerAt) is a \(kind) to '\(linkTarget)'; skipped")
            case UInt8(ascii: "3"), UInt8(ascii: "4"), UInt8(ascii: "6"):
                let kind = type == UInt8(ascii: "3") ? "character device" : type == UInt8(ascii: "4") ? "block device" : "fifo"
                state.issue(
                    .linkSkipped, entry: shown, offset: headerAt,
                    message: "tar entry '\(shown)' at offset \(headerAt) is a \(kind); skipped")
            default:
                let shownType = type >= 0x21 && type < 0x7F ? String(UnicodeScalar(type)) : "0x" + String(type, radix: 16)
                state.issue(
                    .unsupported, entry: shown, offset: headerAt,
                    message: "tar entry '\(shown)' at offset \(headerAt) has unknown type '\(shownType)'; skipped")
                guard try skip(size + padding(size), at: headerAt, entry: shown) else { return }
            }
        }
    }

    /// Skips entry data; false (with a `.truncated` issue) when the stream ends first.
    private func skip(_ count: Int64, at headerAt: Int64, entry: String? = nil) throws -> Bool {
        let done = try stream.skip(count)
        if done < count {
            state.issue(
                .truncated, entry: entry, offset: stream.offset,
                message: "tar archive ends at offset \(stream.offset) inside the entry whose header is at offset \(headerAt)")
            return false
        }
        return true
    }

    /// Reads up to `count` bytes that should be zero; how many were read, and where the first byte
    /// that is not zero stands.
    private func skipZeros(_ count: Int64) throws -> (done: Int64, nonZeroAt: Int64?) {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer { chunk.deallocate() }
        var done: Int64 = 0
        var nonZero: Int64?
        while done < count {
            let at = stream.offset
            let n = try stream.read(into: chunk.baseAddress!, count: Int(min(Int64(chunk.count), count - done)))
            if n == 0 { break }
            if nonZero == nil, let i = UnsafeRawBufferPointer(rebasing: chunk[..<n]).firstIndex(where: { $0 != 0 }) {
                nonZero = at + Int64(i)
            }
            done += Int64(n)
        }
        return (done, nonZero)
    }

    /// The padding after an entry's data: zeros in a tar; bytes there are read by no one, so any
    /// other byte is an issue. False (with a `.truncated` issue) when the stream ends first.
    private func padded(_ count: Int64, at headerAt: Int64, entry: String) throws -> Bool {
        let (done, nonZero) = try skipZeros(count)
        if let nonZero {
            state.issue(
                .corrupt, entry: entry, offset: nonZero,
                message:
                    "tar entry '\(entry)': the padding after its data is not zero (at tar offset \(nonZero)); those bytes belong to no entry and were not checked"
            )
        }
        if done < count {
            state.issue(
                .truncated, entry: entry, offset: stream.offset,
                message: "tar archive ends at offset \(stream.offset) inside the entry whose header is at offset \(headerAt)")
            return false
        }
        return true
    }

    private func isZero(_ b: UnsafeRawBufferPointer) -> Bool {
        for i in stride(from: 0, to: 512, by: 8) where b.loadUnaligned(fromByteOffset: i, as: UInt64.self) != 0 {
            return false
        }
        return true
    }

    /// Parses pax records `"<len> <key>=<value>\n"`; nil when malformed.
    private func parsePax(_ data: [UInt8]) -> [String: String]? {
        var out: [String: String] = [:]
        var i = 0
        while i < data.count {
            if data[i] == 0 { break } // NUL padding after the records
            var len = 0
            var j = i
            while j < data.count, data[j] >= UInt8(ascii: "0"), data[j] <= UInt8(ascii: "9"), len < 1 << 30 {
                len = len * 10 + Int(data[j] - UInt8(ascii: "0"))
                j += 1
            }
            guard j < data.count, data[j] == UInt8(ascii: " "), len > j - i + 1, i + len <= data.count,
                data[i + len - 1] == UInt8(ascii: "\n")
            else { return nil }
            let record = data[(j + 1)..<(i + len - 1)]
            guard let eq = record.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let key = String(decoding: record[record.startIndex..<eq], as: UTF8.self)
            let value = String(decoding: record[(eq + 1)...], as: UTF8.self)
            out[key] = value
            i += len
        }
        return out
    }
}
