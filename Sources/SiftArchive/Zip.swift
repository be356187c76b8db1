import Foundation

/// Little-endian field access on a byte array.
extension Array where Element == UInt8 {
    func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
}

/// Reads a zip archive by random access (`pread`): the end record, the central directory, then
/// each entry's local header and data. Never loads the whole file.
final class ZipReader {
    private let file: FileSource
    private let size: Int64
    private let state: WalkState
    // Shared by the entry sources (only one entry is read at a time).
    let inflaterBox = InflaterBox()
    let inBuf = UnsafeMutableRawPointer.allocate(byteCount: 128 * 1024, alignment: 16)
    static let inBufSize = 128 * 1024
    /// Bytes inflated only to find where an unread entry ends (no central directory).
    private var skipped: Int64 = 0
    /// The byte ranges the central directory accounts for (entries' local headers and data, the
    /// directory, the end records); `descriptor`: a data descriptor may follow the range.
    private var covered: [(start: Int64, end: Int64, descriptor: Bool)] = []

    init(file: FileSource, size: Int64, state: WalkState) {
        self.file = file
        self.size = size
        self.state = state
    }

    deinit { inBuf.deallocate() }

    /// Reads `count` bytes at `offset`, fewer at the end of the file.
    func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, offset < size, count > 0 else { return [] }
        let n = Int(min(Int64(count), size - offset))
        var out = [UInt8](repeating: 0, count: n)
        let got = try out.withUnsafeMutableBytes { try file.pread(into: $0.baseAddress!, count: n, at: offset) }
        if got < n { out.removeSubrange(got...) }
        return out
    }

    func run() {
        do {
            try walk()
        } catch {
            state.issue((error as? ArchiveError)?.problem ?? .unreadable, entry: nil, message: "zip: \(describe(error))")
        }
    }

    private struct End {
        var entries: UInt64
        var cdSize: UInt64
        var cdOffset: UInt64
        /// Where the central directory must stop (the zip64 end record or the end record).
        var cdLimit: Int64
        /// Where the end record stands, and its length (with its comment).
        var endAt: Int64
        var endLength: Int64
    }

    private func findEnd() throws -> End? {
        let tailLength = Int(min(size, 65_535 + 22))
        let tailStart = size - Int64(tailLength)
        let tail = try bytes(at: tailStart, count: tailLength)
        guard tail.count >= 22 else { return nil }
        var best: Int?
        var i = tail.count - 22
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4B, tail[i + 2] == 5, tail[i + 3] == 6 {
                let commentLength = Int(tail.u16(i + 20))
                if i + 22 + commentLength == tail.count { best = i; break }
                if best == nil, i + 22 + commentLength <= tail.count { best = i }
            }
            i -= 1
        }
        guard let at = best else { return nil }
        let eocdPos = tailStart + Int64(at)
        var end = End(
            entries: UInt64(tail.u16(at + 10)), cdSize: UInt64(tail.u32(at + 12)),
            cdOffset: UInt64(tail.u32(at + 16)), cdLimit: eocdPos, endAt: eocdPos, endLength: 22)
        // zip64: a locator just before the end record points at the zip64 end record.
        if eocdPos >= 20 {
            let loc = try bytes(at: eocdPos - 20, count: 20)
            if loc.count == 20, loc.u32(0) == 0x0706_4B50 {
                let z64At = loc.u64(8)
                let rec = z64At < UInt64(size) ? try bytes(at: Int64(z64At), count: 56) : []
                if rec.count == 56, rec.u32(0) == 0x0606_4B50 {
                    end = End(
                        entries: rec.u64(32), cdSize: rec.u64(40), cdOffset: rec.u64(48), cdLimit: Int64(z64At),
                        endAt: eocdPos, endLength: 22)
                } else {
                    state.issue(
                        .corrupt, entry: nil, offset: Int64(clamping: z64At),
                        message: "zip64 end record not found at offset \(z64At) named by its locator; using the 32-bit end record")
                }
            }
        }
        return end
    }

    private func walk() throws {
        guard let end = try findEnd() else {
            try walkLocalHeaders(
                .truncated, "no zip end-of-central-directory record in the last 64 kib (the archive is cut short or damaged)")
            return
        }
        // Find the central directory; allow for bytes prepended to the archive (self-extractors).
        var delta: Int64 = 0
        let declared = Int64(clamping: end.cdOffset)
        let signatureAt = { (pos: Int64) throws -> Bool in
            let b = try self.bytes(at: pos, count: 4)
            return b.count == 4 && b.u32(0) == 0x0201_4B50
        }
        if try !signatureAt(declared) {
            let alt = end.cdLimit - Int64(clamping: end.cdSize)
            if alt >= 0, alt != declared, try signatureAt(alt) {
                delta = alt - declared
            } else if end.entries > 0 {
                try walkLocalHeaders(
                    .corrupt, "zip central directory not found at offset \(declared) (the end record says \(end.entries) entries)")
                return
            } else {
                return // an empty archive
            }
        }
        var pos = declared + delta
        var localDelta = delta
        if delta != 0 {
            // Bytes prepended to the archive shift the local headers too; a wrong offset in the end
            // record does not. The first central record tells which.
            let first = try bytes(at: pos, count: 46)
            if first.count == 46, first.u32(42) != 0xFFFF_FFFF {
                let local = Int64(first.u32(42))
                let shifted = try bytes(at: local + delta, count: 4)
                let unshifted = try bytes(at: local, count: 4)
                if !(shifted.count == 4 && shifted.u32(0) == 0x0403_4B50), unshifted.count == 4, unshifted.u32(0) == 0x0403_4B50 {
                    localDelta = 0
                    state.issue(
                        .corrupt, entry: nil, offset: end.cdLimit,
                        message: "zip end record puts the central directory at offset \(declared), but it is at offset \(pos)")
                }
            }
        }
        var window = Window(reader: self)
        var found: UInt64 = 0
        while pos + 46 <= end.cdLimit, !state.stopped {
            let fixed = try window.get(pos, 46)
            guard fixed.count == 46, fixed.u32(0) == 0x0201_4B50 else { break }
            let nameLength = Int(fixed.u16(28)), extraLength = Int(fixed.u16(30)), commentLength = Int(fixed.u16(32))
            let variable = try window.get(pos + 46, nameLength + extraLength)
            guard variable.count == nameLength + extraLength else { break }
            found += 1
            let recordAt = pos
            if commentLength > 0 {
                let c = pos + 46 + Int64(nameLength + extraLength)
                commentRanges.append((c, c + Int64(commentLength)))
            }
            pos += 46 + Int64(nameLength + extraLength + commentLength)
            try entry(
                fixed, name: Array(variable[..<nameLength]), extra: Array(variable[nameLength...]), recordAt: recordAt, delta: localDelta)
        }
        if !state.stopped, found != end.entries {
            state.issue(
                .corrupt, entry: nil, offset: end.cdLimit,
                message: "zip end record says \(end.entries) entries but the central directory holds \(found)")
        }
        if !state.stopped {
            covered.append((declared + delta, pos, false))
            covered.append((end.cdLimit, end.endAt + end.endLength, false)) // the zip64 end records, the end record
            unaccounted()
        }
    }

    /// Bytes the central directory accounts for in no way (before the first entry, between entries,
    /// after the end record, an archive comment, comments in the directory) are read by no one: a
    /// tool that reads local headers, or a person, may still find data there. One issue says where.
    private func unaccounted() {
        var gaps: [(Int64, Int64)] = []
        var cursor: Int64 = 0
        var descriptorAt: Int64 = -1
        for r in covered.sorted(by: { $0.start < $1.start }) {
            if r.start > cursor {
                // A data descriptor (12 or 20 bytes, 4 more with its signature) after an entry's data.
                let length = r.start - cursor
                if !(cursor == descriptorAt && [12, 16, 20, 24].contains(length)) { gaps.append((cursor, r.start)) }
            }
            if r.end >= cursor {
                cursor = r.end
                descriptorAt = r.descriptor ? r.end : -1
            }
        }
        if cursor < size, !(cursor == descriptorAt && [12, 16, 20, 24].contains(size - cursor)) { gaps.append((cursor, size)) }
        gaps.append(contentsOf: commentRanges)
        guard let first = gaps.min(by: { $0.0 < $1.0 }) else { return }
        let total = gaps.reduce(Int64(0)) { $0 + ($1.1 - $1.0) }
        let places = gaps.count == 1 ? "" : " in \(gaps.count) places"
        state.issue(
            .corrupt, entry: nil, offset: first.0,
            message: "\(total) bytes of the zip\(places) belong to no entry (the first at offset \(first.0): data before, between or "
                + "after the entries, or a comment); they were not checked")
    }

    /// Comments of central-directory records (read by no one).
    private var commentRanges: [(Int64, Int64)] = []

    /// Accounts for one entry's local header and data.
    private func cover(local: UInt64, delta: Int64, compressed: UInt64, flags: UInt16, entry: String) throws {
        guard local < (1 << 62), compressed < (1 << 62) else { return }
        let at = Int64(local) + delta
        guard at >= 0, at + 30 <= size else { return }
        let h = try bytes(at: at, count: 30)
        guard h.count == 30, h.u32(0) == 0x0403_4B50 else { return }
        let dataAt = at + 30 + Int64(h.u16(26)) + Int64(h.u16(28))
        // The local header's own extra field: bytes beside the entry's data, checked like its text.
        let extraLength = Int(h.u16(28))
        if extraLength > 0, dataAt <= size {
            state.text(
                entry: entry, label: "zip local header extra field", bytes: try bytes(at: dataAt - Int64(extraLength), count: extraLength))
        }
        covered.append((at, dataAt + Int64(compressed), flags & 0x08 != 0))
    }

    /// One central-directory record: skip what is not a readable regular file, else visit it.
    private func entry(_ f: [UInt8], name rawBytes: [UInt8], extra: [UInt8], recordAt: Int64, delta: Int64) throws {
        let raw = String(decoding: rawBytes, as: UTF8.self)
        let clean = CleanName(raw)
        let shown = clean.name
        guard state.countEntry(shown) else { return }
        state.text(entry: shown, label: "zip extra field", bytes: extra)
        let flags = f.u16(8), method = f.u16(10), crc = f.u32(16)
        var csize = UInt64(f.u32(20)), usize = UInt64(f.u32(24)), local = UInt64(f.u32(42))
        let external = f.u32(38)
        let mode = (external >> 16) & 0xF000
        let host = f.u16(4) >> 8

        // zip64 extra field: the values that overflowed 32 bits, in this order.
        if usize == 0xFFFF_FFFF || csize == 0xFFFF_FFFF || local == 0xFFFF_FFFF {
            guard let z = Self.zip64Field(extra) else {
                state.issue(
                    .corrupt, entry: shown, offset: recordAt,
                    message: "zip entry '\(shown)' (central record at offset \(recordAt)) lacks its zip64 extra field; skipped")
                return
            }
            var k = 0
            var ok = true
            for field in [0, 1, 2] {
                let needed = field == 0 ? usize == 0xFFFF_FFFF : field == 1 ? csize == 0xFFFF_FFFF : local == 0xFFFF_FFFF
                guard needed else { continue }
                guard k + 8 <= z.count else { ok = false; break }
                let v = z.u64(k)
                k += 8
                switch field {
                case 0: usize = v
                case 1: csize = v
                default: local = v
                }
            }
            guard ok else {
                state.issue(
                    .corrupt, entry: shown, offset: recordAt,
                    message: "zip entry '\(shown)' (central record at offset \(recordAt)) has a short zip64 extra field; skipped")
                return
            }
        }

        try cover(local: local, delta: delta, compressed: csize, flags: flags, entry: shown)
        if clean.isDirectory || mode == 0x4000 || (host == 0 && external & 0x10 != 0 && usize == 0) { return }
        if mode == 0xA000 {
            state.issue(.linkSkipped, entry: shown, offset: recordAt, message: "zip entry '\(shown)' is a symbolic link; skipped")
            return
        }
        if mode != 0, mode != 0x8000 {
            let kind = [0x1000: "fifo", 0x2000: "character device", 0x6000: "block device", 0xC000: "socket"][mode] ?? "special file"
            state.issue(.linkSkipped, entry: shown, offset: recordAt, message: "zip entry '\(shown)' is a \(kind); skipped")
            return
        }
        if flags & 1 != 0 {
            state.issue(.unsupported, entry: shown, offset: recordAt, message: "zip entry '\(shown)' is encrypted; skipped")
            return
        }
        guard method == 0 || method == 8 else {
            let known: [UInt16: String] = [9: "deflate64", 12: "bzip2", 14: "lzma", 93: "zstandard", 95: "xz", 99: "aes"]
            let label = known[method].map { "\(method) (\($0))" } ?? "\(method)"
            state.issue(
                .unsupported, entry: shown, offset: recordAt, message: "zip entry '\(shown)' uses compression method \(label); skipped")
            return
        }
        guard usize < (1 << 62), csize < (1 << 62), local < (1 << 62) else {
            state.issue(.corrupt, entry: shown, offset: recordAt, message: "zip entry '\(shown)' declares impossible sizes; skipped")
            return
        }
        let localAt = Int64(local) + delta
        guard localAt >= 0, localAt + 30 <= size else {
            state.issue(
                .corrupt, entry: shown, offset: Int64(local),
                message: "zip entry '\(shown)': local header offset \(local) is past the end of the file (\(size) bytes); skipped")
            return
        }
        let header = try bytes(at: localAt, count: 30)
        guard header.count == 30, header.u32(0) == 0x0403_4B50 else {
            state.issue(
                .corrupt, entry: shown, offset: localAt, message: "zip entry '\(shown)': no local header at offset \(localAt); skipped")
            return
        }
        let localNameLength = Int(header.u16(26))
        let dataAt = localAt + 30 + Int64(localNameLength) + Int64(header.u16(28))
        let localExtra = try bytes(at: localAt + 30 + Int64(localNameLength), count: Int(header.u16(28)))
        let disagreements = Self.headerDisagreements(
            local: header, localName: try bytes(at: localAt + 30, count: localNameLength), localExtra: localExtra,
            centralName: rawBytes, method: method, crc: crc, compressed: csize, uncompressed: usize)
        if !disagreements.isEmpty {
            state.issue(
                .headerMismatch, entry: shown, offset: localAt,
                message: "zip entry '\(shown)': the local header at offset \(localAt) disagrees with the central directory on "
                    + disagreements.joined(separator: ", ") + "; read as the central directory says")
        }
        guard dataAt <= size else {
            state.issue(
                .truncated, entry: shown, offset: dataAt,
                message: "zip entry '\(shown)': data offset \(dataAt) is past the end of the file; skipped")
            return
        }
        let source = ZipEntrySource(
            reader: self, file: file, fileSize: size, dataAt: dataAt, compressed: Int64(csize),
            uncompressed: Int64(usize), crc: crc, deflated: method == 8)
        state.deliver(raw: raw, declaredSize: Int64(usize), source: source, deflated: method == 8)
    }

    /// Without an end record (a cut-short download), entries are found from their local headers,
    /// one after the other, as far as the bytes go.
    private func walkLocalHeaders(_ problem: ArchiveProblem, _ why: String) throws {
        var pos: Int64 = 0
        let head = try bytes(at: 0, count: 8)
        if head.count >= 8, head.u32(0) == 0x0807_4B50 { pos = 4 } // spanned-archive marker
        let first = try bytes(at: pos, count: 4)
        state.issue(
            problem, entry: nil, offset: problem == .truncated ? size : nil,
            message: why + (first.count == 4 && first.u32(0) == 0x0403_4B50 ? "; reading entries from their local headers" : ""))
        guard first.count == 4, first.u32(0) == 0x0403_4B50 else {
            state.isUnreadable = true
            return
        }
        while !state.stopped, pos + 30 <= size {
            let h = try bytes(at: pos, count: 30)
            guard h.count == 30 else { return }
            let signature = h.u32(0)
            if signature == 0x0201_4B50 || signature == 0x0606_4B50 { return } // the central directory begins
            guard signature == 0x0403_4B50 else {
                state.issue(
                    .corrupt, entry: nil, offset: pos, message: "no zip local header at offset \(pos); the rest of the archive was not read"
                )
                return
            }
            let flags = h.u16(6), method = h.u16(8), crc = h.u32(14)
            var csize = UInt64(h.u32(18)), usize = UInt64(h.u32(22))
            let nameLength = Int(h.u16(26)), extraLength = Int(h.u16(28))
            let nameBytes = try bytes(at: pos + 30, count: nameLength)
            let extra = try bytes(at: pos + 30 + Int64(nameLength), count: extraLength)
            let dataAt = pos + 30 + Int64(nameLength + extraLength)
            guard nameBytes.count == nameLength, extra.count == extraLength, dataAt <= size else { return }
            let raw = String(decoding: nameBytes, as: UTF8.self)
            let clean = CleanName(raw)
            let shown = clean.name
            guard state.countEntry(shown) else { return }
            let z64 = Self.zip64Field(extra)
            if let z = z64 {
                if usize == 0xFFFF_FFFF, z.count >= 8 { usize = z.u64(0) }
                if csize == 0xFFFF_FFFF, z.count >= 16 { csize = z.u64(8) }
            }
            guard usize < (1 << 62), csize < (1 << 62) else {
                state.issue(
                    .corrupt, entry: shown, offset: pos,
                    message: "zip entry '\(shown)' at offset \(pos) declares impossible sizes; the rest of the archive was not read")
                return
            }
            if flags & 0x08 == 0 {
                let next = dataAt + Int64(csize)
                defer { pos = next }
                if clean.isDirectory { continue }
                if flags & 1 != 0 || (method != 0 && method != 8) {
                    state.issue(
                        .unsupported, entry: shown, offset: pos,
                        message: "zip entry '\(shown)' at offset \(pos) is "
                            + (flags & 1 != 0 ? "encrypted" : "compressed with method \(method)") + "; skipped")
                    continue
                }
                let source = ZipEntrySource(
                    reader: self, file: file, fileSize: size, dataAt: dataAt, compressed: Int64(csize),
                    uncompressed: Int64(usize), crc: crc, deflated: method == 8)
                state.deliver(raw: raw, declaredSize: Int64(usize), source: source, deflated: method == 8)
                continue
            }
            // A data descriptor follows the data: only a deflate stream tells where the data ends.
            if method == 0, clean.isDirectory {
                let d = try bytes(at: dataAt, count: 4)
                pos = dataAt + (d.count == 4 && d.u32(0) == 0x0807_4B50 ? 4 : 0) + (z64 != nil ? 20 : 12)
                continue
            }
            guard method == 8, flags & 1 == 0 else {
                state.issue(
                    .unsupported, entry: shown, offset: pos,
                    message:
                        "zip entry '\(shown)' at offset \(pos) records its size only in the missing central directory; the rest of the archive was not read"
                )
                return
            }
            let source = ZipEntrySource(
                reader: self, file: file, fileSize: size, dataAt: dataAt, compressed: size - dataAt,
                uncompressed: 0, crc: 0, deflated: true, sizesKnown: false, zip64Descriptor: z64 != nil)
            let es = state.deliver(raw: raw, declaredSize: nil, source: source, deflated: true)
            if state.stopped { return }
            if let f = es.failure {
                guard f.problem == .crcMismatch || (f.problem == .corrupt && source.finished) else { return }
            } else if !source.finished {
                guard finishUnread(source, name: shown) else { return }
            }
            guard let end = source.endOffset else { return }
            pos = end
        }
    }

    /// Inflates the rest of an entry the visitor left unread, to find where it ends; bounded.
    private func finishUnread(_ source: ZipEntrySource, name: String) -> Bool {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { scratch.deallocate() }
        do {
            while try source.read(into: scratch) > 0 {
                skipped += Int64(scratch.count)
                if skipped > state.limits.maxInputBytes {
                    state.issue(
                        .decompressionLimit, entry: name,
                        message:
                            "\(name): skipping unread entries passes the limit of \(state.limits.maxInputBytes) bytes (--max-input-bytes raises it); the rest was not read"
                    )
                    return false
                }
            }
            return true
        } catch {
            let e = error as? ArchiveError ?? ArchiveError(.unreadable, "\(error)")
            state.issue(e.problem, entry: name, message: "\(name): \(e.message)")
            return e.problem == .crcMismatch || (e.problem == .corrupt && source.finished)
        }
    }

    /// Where a local header (30 fixed bytes, its name and extra field) disagrees with its central record:
    /// `the name`, `the compression method (local 0, central 8)`, `the crc-32 (…)`, `the compressed size (…)`.
    /// With a data descriptor (flag bit 3) the local CRC and sizes are zero by design and not compared.
    static func headerDisagreements(
        local h: [UInt8], localName: [UInt8], localExtra: [UInt8], centralName: [UInt8],
        method: UInt16, crc: UInt32, compressed: UInt64, uncompressed: UInt64
    ) -> [String] {
        var out: [String] = []
        if localName != centralName { out.append("the name") }
        if h.u16(8) != method { out.append("the compression method (local \(h.u16(8)), central \(method))") }
        guard h.u16(6) & 0x08 == 0 else { return out }
        if h.u32(14) != crc { out.append("the crc-32 (local \(hex(h.u32(14))), central \(hex(crc)))") }
        var lc = UInt64(h.u32(18)), lu = UInt64(h.u32(22))
        if lu == 0xFFFF_FFFF || lc == 0xFFFF_FFFF, let z = zip64Field(localExtra) {
            // The local zip64 field holds both sizes, uncompressed first.
            if lu == 0xFFFF_FFFF, z.count >= 8 { lu = z.u64(0) }
            if lc == 0xFFFF_FFFF, z.count >= 16 { lc = z.u64(8) }
        }
        if lc != compressed { out.append("the compressed size (local \(lc), central \(compressed))") }
        if lu != uncompressed { out.append("the uncompressed size (local \(lu), central \(uncompressed))") }
        return out
    }

    static func zip64Field(_ extra: [UInt8]) -> [UInt8]? {
        var i = 0
        while i + 4 <= extra.count {
            let id = extra.u16(i), length = Int(extra.u16(i + 2))
            guard i + 4 + length <= extra.count else { return nil }
            if id == 0x0001 { return Array(extra[(i + 4)..<(i + 4 + length)]) }
            i += 4 + length
        }
        return nil
    }

    /// A 64 KiB read-ahead window over the central directory.
    private struct Window {
        let reader: ZipReader
        var start: Int64 = -1
        var data: [UInt8] = []

        init(reader: ZipReader) { self.reader = reader }

        mutating func get(_ pos: Int64, _ count: Int) throws -> [UInt8] {
            if start < 0 || pos < start || pos + Int64(count) > start + Int64(data.count) {
                start = pos
                data = try reader.bytes(at: pos, count: max(count, 64 * 1024))
            }
            let from = Int(pos - start)
            let to = min(from + count, data.count)
            return from < to ? Array(data[from..<to]) : []
        }
    }
}

/// One inflater reused across the entries of an archive.
final class InflaterBox {
    private var inflater: Inflater?
    func fresh() throws -> Inflater {
        if let i = inflater { i.reset(); return i }
        let i = try Inflater()
        inflater = i
        return i
    }
}

/// The bytes of one zip entry: stored or raw deflate, read with `pread`, checked against the
/// central directory's size and CRC-32 at the end.
final class ZipEntrySource: ByteSource {
    private let reader: ZipReader
    private let file: FileSource
    private let fileSize: Int64
    private let dataAt: Int64
    private let compressed: Int64
    private var uncompressed: Int64
    private var expectedCRC: UInt32
    /// False for an entry found by its local header with a data descriptor: the sizes and CRC come
    /// from the descriptor after the deflate stream.
    private let sizesKnown: Bool
    private let zip64Descriptor: Bool
    /// Where the entry (data and descriptor) ends in the file, once known.
    private(set) var endOffset: Int64?
    private let deflated: Bool
    private var inflater: Inflater?
    private var consumedIn: Int64 = 0 // compressed bytes handed to inflate (or stored bytes read)
    private var inPos = 0
    private var inLen = 0
    private var produced: Int64 = 0
    private var crc = CRC32()
    private var ended = false
    private var checked = false
    private var failure: ArchiveError?

    init(
        reader: ZipReader, file: FileSource, fileSize: Int64, dataAt: Int64, compressed: Int64, uncompressed: Int64, crc: UInt32,
        deflated: Bool,
        sizesKnown: Bool = true, zip64Descriptor: Bool = false
    ) {
        self.sizesKnown = sizesKnown
        self.zip64Descriptor = zip64Descriptor
        if sizesKnown { endOffset = dataAt + compressed }
        self.reader = reader
        self.file = file
        self.fileSize = fileSize
        self.dataAt = dataAt
        self.compressed = compressed
        self.uncompressed = uncompressed
        self.expectedCRC = crc
        self.deflated = deflated
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let f = failure { throw f }
        guard let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        do {
            if ended { try check(); return 0 }
            return deflated ? try inflateSome(out, buffer.count) : try storedSome(out, buffer.count)
        } catch let e as ArchiveError {
            failure = e
            throw e
        }
    }

    /// Whether the entry was read to its end (and checked).
    var finished: Bool { checked }

    private func check() throws {
        if checked { return }
        checked = true
        if !sizesKnown { try readDescriptor() }
        if produced != uncompressed {
            throw ArchiveError(.corrupt, "entry holds \(produced) bytes but the central directory says \(uncompressed)")
        }
        if crc.value != expectedCRC {
            throw ArchiveError(.crcMismatch, "crc-32 mismatch (stored \(hex(expectedCRC)), computed \(hex(crc.value)))")
        }
    }

    /// Reads the data descriptor after a deflate stream whose sizes the local header left out.
    /// Its sizes are 4 or 8 bytes wide; the width whose compressed size matches the bytes the
    /// deflate stream really used wins (writers disagree on when to use the wide form).
    private func readDescriptor() throws {
        let at = dataAt + consumedIn - Int64(inLen - inPos)
        let used = at - dataAt
        var d = try reader.bytes(at: at, count: 28)
        var length = 0
        if d.count >= 4, d.u32(0) == 0x0807_4B50 {
            d.removeFirst(4)
            length = 4
        }
        let narrowFits = d.count >= 12 && Int64(d.u32(4)) == used & 0xFFFF_FFFF
        let wideFits = d.count >= 20 && d.u64(4) == UInt64(used)
        let wide = zip64Descriptor ? (wideFits || !narrowFits) : (!narrowFits && wideFits)
        let body = wide ? 20 : 12
        guard d.count >= body else {
            throw ArchiveError(.truncated, "the archive ends inside the data descriptor at file offset \(at)")
        }
        expectedCRC = d.u32(0)
        endOffset = at + Int64(length + body)
        if wide {
            uncompressed = Int64(clamping: d.u64(12))
        } else {
            uncompressed = (produced & ~0xFFFF_FFFF) | Int64(d.u32(8)) // sizes are mod 2^32 there
        }
        guard wide ? wideFits : narrowFits else {
            throw ArchiveError(.corrupt, "the data descriptor at file offset \(at) does not match the \(used) compressed bytes")
        }
    }

    private func storedSome(_ out: UnsafeMutableRawPointer, _ count: Int) throws -> Int {
        let left = compressed - consumedIn
        if left == 0 { ended = true; try check(); return 0 }
        let n = try file.pread(into: out, count: Int(min(Int64(count), left)), at: dataAt + consumedIn)
        if n == 0 {
            throw ArchiveError(
                .truncated, "stored data ends at file offset \(dataAt + consumedIn), \(left) bytes short (the archive is cut short)")
        }
        consumedIn += Int64(n)
        produced += Int64(n)
        crc.update(UnsafeRawBufferPointer(start: out, count: n))
        return n
    }

    private func inflateSome(_ out: UnsafeMutableRawPointer, _ count: Int) throws -> Int {
        if inflater == nil { inflater = try reader.inflaterBox.fresh() }
        guard let inflater else { return 0 }
        let room = sizesKnown ? uncompressed - produced : Int64.max
        var scratch: UInt8 = 0
        let probing = room <= 0
        let cap = probing ? 1 : Int(min(Int64(count), room))
        while true {
            var fileEnded = false
            if inPos == inLen, consumedIn < compressed {
                let want = Int(min(Int64(ZipReader.inBufSize), compressed - consumedIn))
                let n = try file.pread(into: reader.inBuf, count: want, at: dataAt + consumedIn)
                inPos = 0
                inLen = n
                consumedIn += Int64(n)
                if n == 0 { fileEnded = true }
            }
            let step: Inflater.Step
            do {
                step = try withUnsafeMutableBytes(of: &scratch) { s throws(InflateDamage) in
                    try inflater.step(
                        input: inLen > inPos ? UnsafeRawPointer(reader.inBuf + inPos) : nil, inCount: inLen - inPos,
                        output: probing ? s.baseAddress! : out, outCount: cap)
                }
            } catch {
                let at = dataAt + consumedIn - Int64(inLen - inPos)
                let e = ArchiveError(.corrupt, "bad deflate data near file offset \(at) (\(error.message))")
                if !probing, error.produced > 0 {
                    produced += Int64(error.produced)
                    crc.update(UnsafeRawBufferPointer(start: out, count: error.produced))
                    failure = e
                    return error.produced
                }
                throw e
            }
            inPos += step.consumed
            if probing, step.produced > 0 {
                throw ArchiveError(.corrupt, "inflates past the \(uncompressed) bytes the central directory declares")
            }
            if step.produced > 0 {
                produced += Int64(step.produced)
                crc.update(UnsafeRawBufferPointer(start: out, count: step.produced))
            }
            if step.ended {
                ended = true
                if step.produced > 0 { return step.produced }
                try check()
                return 0
            }
            if step.produced > 0 { return step.produced }
            if step.consumed == 0, inPos < inLen {
                throw ArchiveError(.corrupt, "inflate made no progress at file offset \(dataAt + consumedIn - Int64(inLen - inPos))")
            }
            if step.consumed == 0, inPos == inLen {
                if fileEnded || dataAt + compressed >= fileSize {
                    throw ArchiveError(.truncated, "deflate data ends at file offset \(dataAt + consumedIn) (the archive is cut short)")
                }
                if consumedIn >= compressed {
                    throw ArchiveError(.corrupt, "deflate stream runs past the entry's \(compressed) compressed bytes")
                }
            }
        }
    }
}
