// Test-side writers: zip, tar and gzip built at run time (no binaries are committed).
import CZlib
import Foundation
@testable import SiftArchive

func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * UInt32($0)) & 0xFF) } }
func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(v >> (8 * UInt64($0)) & 0xFF) } }

/// Raw deflate (no zlib or gzip wrapper) of `data`.
func deflateRaw(_ data: [UInt8], level: Int32 = 6) -> [UInt8] {
    let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    strm.initialize(to: z_stream())
    defer { deflateEnd(strm); strm.deallocate() }
    precondition(pbsift_deflateInit2(strm, level, -15) == Z_OK)
    var out = [UInt8](repeating: 0, count: Int(deflateBound(strm, uLong(data.count))) + 64)
    var input = data
    let produced = input.withUnsafeMutableBytes { inp in
        out.withUnsafeMutableBytes { outp in
            strm.pointee.next_in = inp.baseAddress?.assumingMemoryBound(to: Bytef.self)
            strm.pointee.avail_in = uInt(inp.count)
            strm.pointee.next_out = outp.baseAddress!.assumingMemoryBound(to: Bytef.self)
            strm.pointee.avail_out = uInt(outp.count)
            precondition(CZlib.deflate(strm, Z_FINISH) == Z_STREAM_END)
            return outp.count - Int(strm.pointee.avail_out)
        }
    }
    return Array(out[..<produced])
}

/// Options for the gzip header.
struct GzipHeader {
    var name: String?
    var comment: String?
    var extra: [UInt8]?
    var headerCRC = false
}

/// One gzip member around `deflated` (raw deflate) with the given trailer values.
func gzipMember(deflated: [UInt8], crc: UInt32, size: UInt32, header: GzipHeader = GzipHeader()) -> [UInt8] {
    var flags: UInt8 = 0
    if header.headerCRC { flags |= 0x02 }
    if header.extra != nil { flags |= 0x04 }
    if header.name != nil { flags |= 0x08 }
    if header.comment != nil { flags |= 0x10 }
    var h: [UInt8] = [0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 3]
    if let e = header.extra { h += le16(e.count) + e }
    if let n = header.name { h += Array(n.utf8) + [0] }
    if let c = header.comment { h += Array(c.utf8) + [0] }
    if header.headerCRC { h += le16(Int(CRC32.checksum(h) & 0xFFFF)) }
    return h + deflated + le32(crc) + le32(size)
}

/// A gzip member holding `data`.
func gzip(_ data: [UInt8], header: GzipHeader = GzipHeader(), level: Int32 = 6) -> [UInt8] {
    gzipMember(
        deflated: deflateRaw(data, level: level), crc: CRC32.checksum(data), size: UInt32(truncatingIfNeeded: data.count), header: header)
}

/// A raw deflate stream of zeros, built by hand at deflate's best ratio (one literal, then
/// length-258 distance-1 matches, fixed Huffman codes): about 13 bytes per 2 KiB inflated.
/// Inflates to `1 + 258 * (16 + 8 * units)` bytes.
func deflateBomb(units: Int) -> (stream: [UInt8], inflatedSize: Int64) {
    var bits: [UInt8] = []
    var acc: UInt32 = 0
    var count: UInt32 = 0
    func put(_ value: UInt32, _ n: UInt32) { // LSB-first
        acc |= value << count
        count += n
        while count >= 8 { bits.append(UInt8(acc & 0xFF)); acc >>= 8; count -= 8 }
    }
    func putHuffman(_ code: UInt32, _ n: UInt32) { // Huffman codes go MSB-first
        for i in stride(from: Int(n) - 1, through: 0, by: -1) { put(code >> UInt32(i) & 1, 1) }
    }
    put(1, 1) // BFINAL
    put(1, 2) // fixed Huffman
    putHuffman(0x30, 8) // literal 0
    for _ in 0..<16 {
        putHuffman(0xC5, 8) // length code 285 (258)
        putHuffman(0, 5) // distance code 0 (1)
    }
    putHuffman(0, 7) // end of block
    if count > 0 { bits.append(UInt8(acc & 0xFF)) }
    let unit = Array(bits[2..<15])
    let total = bits.count + unit.count * units
    let out = [UInt8](unsafeUninitializedCapacity: total) { buf, initialized in
        let base = buf.baseAddress!
        bits.withUnsafeBufferPointer { b in
            base.update(from: b.baseAddress!, count: 2)
            unit.withUnsafeBufferPointer { u in
                var p = base + 2
                for _ in 0..<units { p.update(from: u.baseAddress!, count: 13); p += 13 }
                p.update(from: b.baseAddress! + 2, count: b.count - 2)
            }
        }
        initialized = total
    }
    return (out, 1 + 258 * (16 + 8 * Int64(units)))
}

/// One zip entry for `ZipWriter`.
struct ZipItem {
    var name: String
    var data: [UInt8]
    var deflate = true
    var dataDescriptor = false
    var zip64 = false
    var unixMode: UInt32? = nil
    var encrypted = false
    var method: UInt16? = nil
    var crc: UInt32? = nil
    var localOffsetOverride: UInt32? = nil
    var rawName: [UInt8]? = nil
    var compressedOverride: [UInt8]? = nil
    var declaredSize: Int? = nil
}

/// Builds a zip archive in memory.
func makeZip(_ items: [ZipItem], entryCount: Int? = nil, zip64End: Bool = false, prefix: [UInt8] = []) -> [UInt8] {
    var out = prefix
    var central: [UInt8] = []
    for item in items {
        let nameBytes = item.rawName ?? Array(item.name.utf8)
        let payload = item.compressedOverride ?? (item.deflate ? deflateRaw(item.data) : item.data)
        let method: UInt16 = item.method ?? (item.deflate ? 8 : 0)
        let crc = item.crc ?? CRC32.checksum(item.data)
        let usize = item.declaredSize ?? item.data.count
        var flags = 0
        if item.dataDescriptor { flags |= 0x08 }
        if item.encrypted { flags |= 0x01 }
        let offset = out.count - prefix.count // offsets count from the zip's start (a prepended stub shifts them)
        var zip64Extra: [UInt8] = []
        if item.zip64 { zip64Extra = le16(1) + le16(24) + le64(UInt64(usize)) + le64(UInt64(payload.count)) + le64(UInt64(offset)) }
        // local header
        out += [0x50, 0x4B, 3, 4] + le16(item.zip64 ? 45 : 20) + le16(flags) + le16(Int(method)) + le16(0) + le16(0x21)
        if item.dataDescriptor {
            out += le32(0) + le32(0) + le32(0)
        } else if item.zip64 {
            out += le32(crc) + le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF)
        } else {
            out += le32(crc) + le32(UInt32(payload.count)) + le32(UInt32(usize))
        }
        let localExtra =
            !item.zip64
            ? []
            : item.dataDescriptor
                ? le16(1) + le16(16) + le64(0) + le64(0)
                : le16(1) + le16(16) + le64(UInt64(usize)) + le64(UInt64(payload.count))
        out += le16(nameBytes.count) + le16(localExtra.count) + nameBytes + localExtra
        out += payload
        if item.dataDescriptor {
            out += [0x50, 0x4B, 7, 8] + le32(crc)
            out += item.zip64 ? le64(UInt64(payload.count)) + le64(UInt64(usize)) : le32(UInt32(payload.count)) + le32(UInt32(usize))
        }
        // central record
        let madeBy = item.unixMode != nil ? (3 << 8 | 20) : 20
        let external = (item.unixMode ?? 0) << 16
        let localField = item.localOffsetOverride ?? (item.zip64 ? 0xFFFF_FFFF : UInt32(offset))
        central += [0x50, 0x4B, 1, 2] + le16(madeBy) + le16(item.zip64 ? 45 : 20) + le16(flags) + le16(Int(method))
        central += le16(0) + le16(0x21) + le32(crc)
        central += item.zip64 ? le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) : le32(UInt32(payload.count)) + le32(UInt32(usize))
        central += le16(nameBytes.count) + le16(zip64Extra.count) + le16(0) + le16(0) + le16(0) + le32(external) + le32(localField)
        central += nameBytes + zip64Extra
    }
    let cdOffset = out.count - prefix.count
    out += central
    let count = entryCount ?? items.count
    if zip64End {
        let z64At = out.count - prefix.count
        out += [0x50, 0x4B, 6, 6] + le64(44) + le16(45) + le16(45) + le32(0) + le32(0)
        out += le64(UInt64(count)) + le64(UInt64(count)) + le64(UInt64(central.count)) + le64(UInt64(cdOffset))
        out += [0x50, 0x4B, 6, 7] + le32(0) + le64(UInt64(z64At)) + le32(1)
        out += [0x50, 0x4B, 5, 6] + le16(0) + le16(0) + le16(0xFFFF) + le16(0xFFFF) + le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) + le16(0)
    } else {
        out +=
            [0x50, 0x4B, 5, 6] + le16(0) + le16(0) + le16(count) + le16(count) + le32(UInt32(central.count)) + le32(UInt32(cdOffset))
            + le16(0)
    }
    return out
}

/// One tar entry for `makeTar`.
struct TarItem {
    var name: String
    var data: [UInt8] = []
    var type: UInt8 = UInt8(ascii: "0")
    var link = ""
    var pax: [String: String] = [:]
    var gnuLongName = false
    var breakChecksum = false
}

/// Builds a ustar archive (pax `x` headers for long names or when asked, GNU `L` when asked).
func makeTar(_ items: [TarItem], end: Bool = true, globalPax: [String: String]? = nil) -> [UInt8] {
    var out: [UInt8] = []
    func header(name: String, size: Int, type: UInt8, link: String = "", breakChecksum: Bool = false) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 512)
        func put(_ s: [UInt8], _ at: Int, _ width: Int) { for (i, b) in s.prefix(width).enumerated() { h[at + i] = b } }
        func octal(_ v: Int, _ at: Int, _ width: Int) {
            let s = String(v, radix: 8)
            put(Array((String(repeating: "0", count: max(0, width - 1 - s.count)) + s).utf8), at, width - 1)
        }
        put(Array(name.utf8), 0, 100)
        octal(0o644, 100, 8); octal(0, 108, 8); octal(0, 116, 8)
        octal(size, 124, 12); octal(0, 136, 12)
        h[156] = type
        put(Array(link.utf8), 157, 100)
        put(Array("ustar\u{0}00".utf8), 257, 8)
        put(Array(repeating: UInt8(ascii: " "), count: 8), 148, 8)
        var sum = h.reduce(0) { $0 + Int($1) }
        if breakChecksum { sum += 1 }
        octal(sum, 148, 7)
        h[155] = UInt8(ascii: " ")
        return h
    }
    func pad(_ n: Int) -> [UInt8] { [UInt8](repeating: 0, count: (512 - n % 512) % 512) }
    func paxData(_ kv: [String: String]) -> [UInt8] {
        var d: [UInt8] = []
        for (k, v) in kv.sorted(by: { $0.key < $1.key }) {
            let body = " \(k)=\(v)\n"
            var len = body.utf8.count + 1
            while String(len).count + body.utf8.count != len { len += 1 }
            d += Array("\(len)\(body)".utf8)
        }
        return d
    }
    if let g = globalPax {
        let d = paxData(g)
        out += header(name: "pax_global_header", size: d.count, type: UInt8(ascii: "g")) + d + pad(d.count)
    }
    for item in items {
        var pax = item.pax
        var shortName = item.name
        if item.name.utf8.count > 100 {
            if item.gnuLongName {
                let d = Array(item.name.utf8) + [0]
                out += header(name: "././@LongLink", size: d.count, type: UInt8(ascii: "L")) + d + pad(d.count)
            } else {
                pax["path"] = item.name
            }
            shortName = String(item.name.suffix(90))
        }
        if !pax.isEmpty {
            let d = paxData(pax)
            out += header(name: "PaxHeader/x", size: d.count, type: UInt8(ascii: "x")) + d + pad(d.count)
        }
        out += header(name: shortName, size: item.data.count, type: item.type, link: item.link, breakChecksum: item.breakChecksum)
        out += item.data + pad(item.data.count)
    }
    if end { out += [UInt8](repeating: 0, count: 1024) }
    return out
}

/// A fresh temporary folder, removed by `cleanup`.
final class TempDir {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("siftarchive-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let u = url.appendingPathComponent(name)
        try? FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: u.path, contents: Data(bytes))
        return u.path
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// What a walk delivered: each entry's bytes (as far as they could be read) and its read error.
struct Visited {
    var name: String
    var raw: String
    var bytes: [UInt8]
    var error: ArchiveError?
    var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Reads a whole source; returns the bytes and the error that stopped it, if any.
func drain(_ source: ByteSource, chunk: Int = 64 * 1024, max: Int = 1 << 30) -> ([UInt8], ArchiveError?) {
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: chunk)
    while out.count < max {
        do {
            let n = try buf.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { return (out, nil) }
            out += buf[..<n]
        } catch let e as ArchiveError {
            return (out, e)
        } catch {
            return (out, ArchiveError(.unreadable, "\(error)"))
        }
    }
    return (out, nil)
}

/// Walks `path`, reading every entry in full (or up to `readAtMost` bytes).
func walkAll(_ path: String, limits: ReadLimits = .default, readAtMost: Int? = nil) -> (WalkResult, [Visited]) {
    var seen: [Visited] = []
    let result = InputWalker.walk(path: path, limits: limits) { entry in
        if let cap = readAtMost {
            var buf = [UInt8](repeating: 0, count: cap)
            let n = (try? buf.withUnsafeMutableBytes { try entry.source.read(into: $0) }) ?? 0
            seen.append(Visited(name: entry.name, raw: entry.rawName, bytes: Array(buf[..<n]), error: nil))
        } else {
            let (bytes, error) = drain(entry.source)
            seen.append(Visited(name: entry.name, raw: entry.rawName, bytes: bytes, error: error))
        }
    }
    return (result, seen)
}

extension WalkResult {
    var problems: [ArchiveProblem] { issues.map(\.problem) }
}
