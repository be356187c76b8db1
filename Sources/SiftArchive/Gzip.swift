import CZlib
import Foundation

/// Inflates a gzip stream (RFC 1952), member after member, checking each member's CRC-32 and size.
///
/// Throws `ArchiveError(.truncated)` when the stream ends inside a member (every byte before the cut
/// has been handed out by then), `.corrupt` on a bad header, bad deflate data or non-gzip bytes after
/// a member (zero padding is tolerated), `.crcMismatch` on a bad trailer, and `.decompressionLimit`
/// once more than `limit` bytes would be produced. After a throw, every later `read` throws the same
/// error. Memory stays bounded: one 256 KiB input buffer and the inflater's state (zlib's 32 KiB
/// window, or ISA-L's 85 KiB state and up to `Inflater.replayLimit` bytes of a member kept).
public final class GzipSource: ByteSource {
    private let inner: ByteSource
    private let limit: Int64?
    private static let bufferSize = 256 * 1024
    /// Bytes of the previous buffer kept before the next one: an inflater can give back up to 8
    /// bytes it read past the end of a deflate stream (see Inflater.Step).
    private static let keep = 16
    private let inBuf: UnsafeMutableRawPointer
    private var inPos = 0
    private var inLen = 0
    private var inEOF = false
    /// Compressed offset of `inBuf[0]`.
    private var inBase: Int64 = 0
    private var inflater: Inflater?

    private enum State { case start, body, trailer, between, done }
    private var state = State.start
    private var failure: ArchiveError?
    private var member = 0
    /// Compressed offset of the current member's header.
    private var memberStart: Int64 = 0
    private var crc = CRC32()
    private var memberOut: UInt64 = 0
    private var headerCRC = CRC32()
    private var hashingHeader = false

    /// Bytes produced so far, over all members.
    package private(set) var totalOut: Int64 = 0

    /// Compressed bytes consumed so far.
    public var compressedOffset: Int64 { inBase + Int64(inPos) }

    /// Whether ISA-L may inflate (when loaded); false: zlib only.
    private let accelerated: Bool

    /// Inflates `inner`; `limit` bounds the total output (nil: unbounded).
    public convenience init(wrapping inner: ByteSource, limit: Int64? = nil) {
        self.init(wrapping: inner, limit: limit, accelerated: true)
    }

    /// `accelerated: false` keeps to zlib even when ISA-L is loaded (for comparisons).
    init(wrapping inner: ByteSource, limit: Int64?, accelerated: Bool) {
        self.inner = inner
        self.limit = limit
        self.accelerated = accelerated
        self.inBuf = UnsafeMutableRawPointer.allocate(byteCount: GzipSource.keep + GzipSource.bufferSize, alignment: 16)
    }

    deinit { inBuf.deallocate() }

    /// Called with each text a member's header carries (`FEXTRA`, `FNAME`, `FCOMMENT`): bytes no
    /// inflated stream holds, which a credential can stand in as well. At most `maxHeaderText` bytes
    /// of each; past that, `clipped` is true.
    public var onHeaderText: ((_ field: String, _ member: Int, _ bytes: [UInt8], _ clipped: Bool) -> Void)?
    /// The most bytes of one header field handed to `onHeaderText`.
    public static let maxHeaderText = 1 << 20

    /// Fills up to `buffer.count` inflated bytes; 0 once the last member and its trailer are read.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let f = failure { throw f }
        guard let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        do {
            while true {
                switch state {
                case .start:
                    guard try fill() else { throw ArchiveError(.truncated, "empty gzip stream") }
                    try readHeader()
                    state = .body
                case .body:
                    let n = try inflateSome(out, buffer.count)
                    if n > 0 { return n }
                case .trailer:
                    try readTrailer()
                    state = .between
                case .between:
                    guard try fill() else { state = .done; continue }
                    let b = inBuf.load(fromByteOffset: inPos, as: UInt8.self)
                    if b == 0 {
                        try skipPadding()
                        state = .done
                    } else {
                        try readHeader()
                        state = .body
                    }
                case .done:
                    return 0
                }
            }
        } catch let e as ArchiveError {
            failure = e
            throw e
        } catch {
            let e = ArchiveError(.unreadable, "read failed: \(error)")
            failure = e
            throw e
        }
    }

    // MARK: input

    private func fill() throws -> Bool {
        if inPos < inLen { return true }
        if inEOF { return false }
        let k = min(GzipSource.keep, inLen)
        if k > 0 { memmove(inBuf, inBuf + (inLen - k), k) }
        inBase += Int64(inLen - k)
        inPos = k
        inLen = k
        let n = try inner.read(into: UnsafeMutableRawBufferPointer(start: inBuf + k, count: GzipSource.bufferSize))
        if n == 0 { inEOF = true; return false }
        inLen = k + n
        return true
    }

    private func nextByte(_ what: @autoclosure () -> String) throws -> UInt8 {
        guard try fill() else {
            throw ArchiveError(
                .truncated, "gzip stream ends inside the \(what()) of member \(member) at compressed offset \(compressedOffset)")
        }
        let b = inBuf.load(fromByteOffset: inPos, as: UInt8.self)
        inPos += 1
        if hashingHeader {
            var v = b
            withUnsafeBytes(of: &v) { headerCRC.update($0) }
        }
        return b
    }

    // MARK: header and trailer

    private func readHeader() throws {
        member += 1
        let start = compressedOffset
        memberStart = start
        headerCRC = CRC32()
        hashingHeader = true
        defer { hashingHeader = false }
        let id1 = try nextByte("header")
        let id2 = try nextByte("header")
        guard id1 == 0x1f, id2 == 0x8b else {
            if member == 1 { throw ArchiveError(.corrupt, "not a gzip stream (no 1f 8b magic at offset \(start))") }
            throw ArchiveError(.corrupt, "unexpected bytes after gzip member \(member - 1) at compressed offset \(start)")
        }
        let cm = try nextByte("header")
        guard cm == 8 else {
            throw ArchiveError(.unsupported, "gzip member \(member) at offset \(start) uses compression method \(cm), not deflate")
        }
        let flags = try nextByte("header")
        guard flags & 0xE0 == 0 else {
            throw ArchiveError(.corrupt, "gzip member \(member) at offset \(start) sets reserved header flags")
        }
        for _ in 0..<6 { _ = try nextByte("header") } // MTIME, XFL, OS
        if flags & 0x04 != 0 { // FEXTRA
            let lo = Int(try nextByte("extra field"))
            let hi = Int(try nextByte("extra field"))
            var kept: [UInt8] = []
            try skip(lo | hi << 8, "extra field", keep: onHeaderText != nil, into: &kept)
            onHeaderText?("gzip header extra field", member, kept, false)
        }
        if flags & 0x08 != 0 { try headerText("file name", field: "gzip header file name") }
        if flags & 0x10 != 0 { try headerText("comment", field: "gzip header comment") }
        if flags & 0x02 != 0 { // FHCRC
            let expected = UInt16(headerCRC.value & 0xFFFF)
            hashingHeader = false
            let lo = UInt16(try nextByte("header crc"))
            let hi = UInt16(try nextByte("header crc"))
            guard lo | hi << 8 == expected else {
                throw ArchiveError(.crcMismatch, "gzip member \(member) at offset \(start): header crc-16 mismatch")
            }
        }
        if inflater == nil { inflater = try Inflater(accelerated: accelerated) } else { inflater?.reset() }
        crc = CRC32()
        memberOut = 0
    }

    /// A zero-terminated header field, handed to `onHeaderText` (up to `maxHeaderText` bytes) or skipped.
    private func headerText(_ what: String, field: String) throws {
        guard let onHeaderText else { return try skipZeroTerminated(what) }
        var kept: [UInt8] = []
        var clipped = false
        while true {
            let b = try nextByte(what)
            if b == 0 { break }
            if kept.count < GzipSource.maxHeaderText { kept.append(b) } else { clipped = true }
        }
        onHeaderText(field, member, kept, clipped)
    }

    private func skip(_ count: Int, _ what: String) throws {
        var none: [UInt8] = []
        try skip(count, what, keep: false, into: &none)
    }

    /// Skips `count` header bytes; with `keep`, appends them to `kept` (an extra field is at most 64 KiB).
    private func skip(_ count: Int, _ what: String, keep: Bool, into kept: inout [UInt8]) throws {
        var left = count
        while left > 0 {
            guard try fill() else {
                throw ArchiveError(
                    .truncated, "gzip stream ends inside the \(what) of member \(member) at compressed offset \(compressedOffset)")
            }
            let n = min(left, inLen - inPos)
            if hashingHeader { headerCRC.update(UnsafeRawBufferPointer(start: inBuf + inPos, count: n)) }
            if keep { kept.append(contentsOf: UnsafeRawBufferPointer(start: inBuf + inPos, count: n)) }
            inPos += n
            left -= n
        }
    }

    private func skipZeroTerminated(_ what: String) throws {
        while true {
            guard try fill() else {
                throw ArchiveError(
                    .truncated, "gzip stream ends inside the \(what) of member \(member) at compressed offset \(compressedOffset)")
            }
            let span = inLen - inPos
            if let hit = memchr(inBuf + inPos, 0, span) {
                let n = (hit - (inBuf + inPos)) + 1
                if hashingHeader { headerCRC.update(UnsafeRawBufferPointer(start: inBuf + inPos, count: n)) }
                inPos += n
                return
            }
            if hashingHeader { headerCRC.update(UnsafeRawBufferPointer(start: inBuf + inPos, count: span)) }
            inPos = inLen
        }
    }

    private func readTrailer() throws {
        let at = compressedOffset
        var v: [UInt32] = [0, 0]
        for i in 0..<2 {
            for shift in stride(from: 0, to: 32, by: 8) {
                v[i] |= UInt32(try nextByte("trailer")) << UInt32(shift)
            }
        }
        if v[0] != crc.value {
            throw ArchiveError(
                .crcMismatch,
                "gzip member \(member): crc-32 mismatch at compressed offset \(at) (stored \(hex(v[0])), computed \(hex(crc.value)))")
        }
        let size = UInt32(truncatingIfNeeded: memberOut)
        if v[1] != size {
            throw ArchiveError(
                .crcMismatch, "gzip member \(member): size mismatch at compressed offset \(at) (stored \(v[1]), inflated \(size) mod 2^32)")
        }
    }

    private func skipPadding() throws {
        while try fill() {
            let span = inLen - inPos
            let p = inBuf + inPos
            var i = 0
            // Word-at-a-time check for the common all-zero case.
            while i + 8 <= span, p.loadUnaligned(fromByteOffset: i, as: UInt64.self) == 0 { i += 8 }
            while i < span, p.load(fromByteOffset: i, as: UInt8.self) == 0 { i += 1 }
            if i < span {
                inPos += i
                throw ArchiveError(
                    .corrupt, "unexpected non-zero byte after gzip member \(member) at compressed offset \(compressedOffset)")
            }
            inPos = inLen
        }
    }

    // MARK: body

    private func inflateSome(_ out: UnsafeMutableRawPointer, _ count: Int) throws -> Int {
        guard let inflater else { throw ArchiveError(.corrupt, "gzip member \(member) has no header") }
        var cap = count
        if let limit {
            let room = limit - totalOut
            cap = room <= 0 ? 0 : Int(min(Int64(count), room))
        }
        // At the limit: inflate into one scratch byte to tell "the member ends here" from "more comes".
        var scratch: UInt8 = 0
        let probing = cap == 0
        while true {
            let haveInput = try fill()
            let step: Inflater.Step
            do {
                step = try withUnsafeMutableBytes(of: &scratch) { s throws(InflateDamage) in
                    try inflater.step(
                        input: haveInput ? UnsafeRawPointer(inBuf + inPos) : nil,
                        inCount: inLen - inPos,
                        output: probing ? s.baseAddress! : out,
                        outCount: probing ? 1 : cap)
                }
            } catch {
                // located by the member and the bytes inflated before the damage: the same whichever
                // inflater ran (see Inflater)
                if !probing && error.produced > 0 {
                    account(out, error.produced)
                    failure = ArchiveError(
                        .corrupt,
                        "gzip member \(member) at compressed offset \(memberStart): bad deflate data after \(memberOut) inflated bytes (\(error.message))"
                    )
                    return error.produced
                }
                throw ArchiveError(
                    .corrupt,
                    "gzip member \(member) at compressed offset \(memberStart): bad deflate data after \(memberOut) inflated bytes (\(error.message))"
                )
            }
            inPos += step.consumed
            if probing && step.produced > 0 {
                throw ArchiveError(
                    .decompressionLimit,
                    "gzip stream inflates past the limit of \(limit ?? 0) bytes (member \(member) at compressed offset \(memberStart)); --max-input-bytes raises it"
                )
            }
            if step.produced > 0 { account(out, step.produced) }
            if step.ended {
                state = .trailer
                return step.produced
            }
            if step.produced > 0 { return step.produced }
            if step.consumed == 0 {
                if !haveInput {
                    throw ArchiveError(
                        .truncated,
                        "gzip stream ends inside member \(member) at compressed offset \(compressedOffset) after \(totalOut) inflated bytes"
                    )
                }
                throw ArchiveError(.corrupt, "gzip member \(member): inflate made no progress at compressed offset \(compressedOffset)")
            }
        }
    }

    private func account(_ out: UnsafeMutableRawPointer, _ n: Int) {
        crc.update(UnsafeRawBufferPointer(start: out, count: n))
        memberOut &+= UInt64(n)
        totalOut += Int64(n)
    }
}

func hex(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
}
