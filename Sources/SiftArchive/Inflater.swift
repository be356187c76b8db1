import CZlib

/// A raw-deflate (RFC 1951) decoder over zlib, or over ISA-L when `accelerated` and ISA-L is
/// loaded (see `Accelerators`). Results are zlib's byte for byte: ISA-L decodes valid data to the
/// same bytes, and when it meets damage or the input ends early, zlib decodes the stream again from
/// its start (ISA-L's input is kept for that, up to `replayLimit` bytes) and reports what zlib does:
/// the same bytes before the damage and the same message. Past `replayLimit` compressed bytes, a
/// damaged stream is reported by ISA-L.
final class Inflater {
    /// Compressed bytes of one stream kept for a zlib replay while ISA-L decodes it.
    static let replayLimit = 8 * 1024 * 1024

    /// One step's outcome: input bytes consumed, output bytes produced, whether the stream ended.
    /// With ISA-L, the step that ends a stream can give back bytes handed in by an earlier step:
    /// `consumed` is then negative (never below -8).
    struct Step {
        var consumed: Int
        var produced: Int
        var ended: Bool
    }

    private var zlib: ZlibStream?
    private let isal: ISALStream?
    private var useISAL: Bool
    // ISA-L's input so far (nil once past replayLimit), and its output count
    private var kept: [UInt8]? = []
    private var streamOut = 0
    // after a replay: zlib's output beyond what ISA-L handed out, and zlib's verdict after it
    private var pending: [UInt8] = []
    private var pendingAt = 0
    private var pendingEnd: Bool = false
    private var pendingDamage: InflateDamage?

    /// `accelerated`: use ISA-L when it is loaded.
    init(accelerated: Bool = false) throws {
        if accelerated, let lib = Accelerators.isal {
            isal = ISALStream(lib: lib)
            useISAL = true
        } else {
            isal = nil
            useISAL = false
            zlib = try ZlibStream()
        }
    }

    /// The engine decoding the current stream.
    var engine: String { useISAL ? "isa-l" : "zlib" }

    /// Starts a new deflate stream with the same settings.
    func reset() {
        zlib?.reset()
        if let isal {
            isal.reset()
            useISAL = true
            kept = []
            streamOut = 0
            pending = []
            pendingAt = 0
            pendingEnd = false
            pendingDamage = nil
        }
    }

    /// Inflates from `input` into `output`. Throws a description of the damage on bad data.
    func step(input: UnsafeRawPointer?, inCount: Int, output: UnsafeMutableRawPointer, outCount: Int) throws(InflateDamage) -> Step {
        if pendingAt < pending.count || pendingEnd || pendingDamage != nil {
            return try drain(output, outCount)
        }
        guard useISAL, let isal else {
            guard let zlib else { throw InflateDamage(message: "no inflater", produced: 0) }
            return try zlib.step(input: input, inCount: inCount, output: output, outCount: outCount)
        }
        let r = isal.run(input, inCount, output, outCount)
        let stalled = r.rc == 0 && !r.ended && r.consumed == 0 && r.produced == 0 && inCount == 0
        if r.rc != 0 || stalled {
            guard kept != nil else {
                if r.rc == 0 { return Step(consumed: 0, produced: 0, ended: false) }
                throw InflateDamage(message: ISALStream.describe(r.rc), produced: r.produced)
            }
            // damage or an early end: zlib decodes the stream again and has the last word
            replay()
            return try step(input: input, inCount: inCount, output: output, outCount: outCount)
        }
        if r.ended { return Step(consumed: r.consumed, produced: r.produced, ended: true) }
        if r.consumed > 0, let input {
            if var k = kept, k.count + r.consumed <= Inflater.replayLimit {
                kept = nil // no copy on append
                k.append(contentsOf: UnsafeRawBufferPointer(start: input, count: r.consumed))
                kept = k
            } else {
                kept = nil
            }
        }
        streamOut += r.produced
        return Step(consumed: r.consumed, produced: r.produced, ended: r.ended)
    }

    /// Decodes the kept input again with zlib, drops the bytes ISA-L already handed out, keeps the
    /// rest (and zlib's verdict) to hand out, and leaves zlib to decode the rest of the stream.
    private func replay() {
        useISAL = false
        let input = kept ?? []
        kept = nil
        pending = []
        pendingAt = 0
        let z: ZlibStream
        do {
            if let existing = zlib { existing.reset(); z = existing } else { z = try ZlibStream(); zlib = z }
        } catch {
            pendingDamage = InflateDamage(message: "cannot start zlib's inflate", produced: 0)
            return
        }
        var skip = streamOut
        var at = 0
        let scratchSize = 64 * 1024
        var scratch = [UInt8](repeating: 0, count: scratchSize)
        input.withUnsafeBytes { inp in
            scratch.withUnsafeMutableBytes { s in
                while true {
                    let base = inp.baseAddress.map { UnsafeRawPointer($0 + at) }
                    let produced: Int
                    var damage: InflateDamage?
                    var ended = false
                    var consumed = 0
                    do throws(InflateDamage) {
                        let st = try z.step(
                            input: at < inp.count ? base : nil, inCount: inp.count - at,
                            output: s.baseAddress!, outCount: scratchSize)
                        produced = st.produced
                        consumed = st.consumed
                        ended = st.ended
                    } catch {
                        produced = error.produced
                        damage = error
                    }
                    at += consumed
                    let drop = min(skip, produced)
                    skip -= drop
                    if produced > drop {
                        pending.append(contentsOf: UnsafeRawBufferPointer(start: s.baseAddress! + drop, count: produced - drop))
                    }
                    if var d = damage {
                        d.produced = 0
                        pendingDamage = d
                        return
                    }
                    if ended {
                        pendingEnd = true
                        if at < inp.count {
                            pendingDamage = InflateDamage(message: "the deflate stream ends before data already read", produced: 0)
                        }
                        return
                    }
                    if consumed == 0 && produced == 0 { return } // the kept input is used up
                }
            }
        }
    }

    /// Hands out the replay's pending bytes, then its end or its damage.
    private func drain(_ output: UnsafeMutableRawPointer, _ outCount: Int) throws(InflateDamage) -> Step {
        let n = min(pending.count - pendingAt, outCount)
        if n > 0 {
            pending.withUnsafeBytes { p in output.copyMemory(from: p.baseAddress! + pendingAt, byteCount: n) }
            pendingAt += n
        }
        if pendingAt < pending.count { return Step(consumed: 0, produced: n, ended: false) }
        pending = []
        pendingAt = 0
        if var d = pendingDamage {
            pendingDamage = nil
            if n > 0 { d.produced = n }
            throw d
        }
        if pendingEnd {
            pendingEnd = false
            return Step(consumed: 0, produced: n, ended: true)
        }
        return Step(consumed: 0, produced: n, ended: false)
    }
}

/// zlib's raw inflate; the `z_stream` lives at a fixed address as zlib needs.
final class ZlibStream {
    private let strm: UnsafeMutablePointer<z_stream>
    private var live = false

    /// `windowBits` as zlib takes it: -15 raw deflate, 15 a zlib stream (RFC 1950).
    init(windowBits: Int32 = -15) throws {
        strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        guard pbsift_inflateInit2(strm, windowBits) == Z_OK else {
            strm.deinitialize(count: 1)
            strm.deallocate()
            throw ArchiveError(.unreadable, "cannot start zlib's inflate")
        }
        live = true
    }

    deinit {
        if live { inflateEnd(strm) }
        strm.deinitialize(count: 1)
        strm.deallocate()
    }

    func reset() {
        inflateReset(strm)
    }

    func step(input: UnsafeRawPointer?, inCount: Int, output: UnsafeMutableRawPointer, outCount: Int) throws(InflateDamage) -> Inflater.Step
    {
        let inAvail = UInt32(clamping: inCount)
        let outAvail = UInt32(clamping: outCount)
        strm.pointee.next_in = input.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        strm.pointee.avail_in = inAvail
        strm.pointee.next_out = output.assumingMemoryBound(to: Bytef.self)
        strm.pointee.avail_out = outAvail
        let rc = inflate(strm, Z_NO_FLUSH)
        let consumed = Int(inAvail - strm.pointee.avail_in)
        let produced = Int(outAvail - strm.pointee.avail_out)
        strm.pointee.next_in = nil
        strm.pointee.next_out = nil
        switch rc {
        case Z_OK, Z_BUF_ERROR:
            return Inflater.Step(consumed: consumed, produced: produced, ended: false)
        case Z_STREAM_END:
            return Inflater.Step(consumed: consumed, produced: produced, ended: true)
        default:
            var text = "inflate error \(rc)"
            if let m = strm.pointee.msg { text = String(cString: m).lowercased() }
            throw InflateDamage(message: text, produced: produced)
        }
    }
}

/// Bad deflate data, with zlib's description and how many bytes the failing step still produced.
struct InflateDamage: Error {
    var message: String
    var produced: Int
}

/// Deflate data that is not gzip: a zlib stream (RFC 1950, `78 9c`…) or raw deflate (RFC 1951),
/// inflated whole and bounded, for bodies and files written by code that compresses without gzip.
public enum Deflate {
    public enum Framing: Sendable { case zlib, raw }

    /// Whether `b` starts like a zlib stream: deflate with a window of at most 32 KiB, the header's
    /// check bits right, no preset dictionary.
    public static func isZlib(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 2 else { return false }
        let cmf = b[0], flg = b[1]
        return cmf & 0x0F == 8 && cmf >> 4 <= 7 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 && flg & 0x20 == 0
    }

    /// The inflated bytes (at most `limit`), and whether the stream ended within the input; nil when
    /// the data is not deflate at all (damage before any byte came out).
    public static func inflate(_ b: UnsafeBufferPointer<UInt8>, framing: Framing, limit: Int) -> (bytes: [UInt8], ended: Bool)? {
        guard let base = b.baseAddress, !b.isEmpty,
            let z = try? ZlibStream(windowBits: framing == .zlib ? 15 : -15)
        else { return nil }
        var out: [UInt8] = []
        // A small first buffer: bytes that are not deflate (most binary bodies) fail within it.
        var buf = [UInt8](repeating: 0, count: 4096)
        var at = 0
        while out.count < limit {
            if !out.isEmpty && buf.count < 65536 { buf = [UInt8](repeating: 0, count: 65536) }
            let step: Inflater.Step
            do {
                step = try buf.withUnsafeMutableBytes { o throws(InflateDamage) in
                    try z.step(input: base + at, inCount: b.count - at, output: o.baseAddress!, outCount: min(o.count, limit - out.count))
                }
            } catch let damage as InflateDamage {
                return out.isEmpty && damage.produced == 0 ? nil : (out + buf.prefix(damage.produced), false)
            } catch {
                return out.isEmpty ? nil : (out, false)
            }
            at += step.consumed
            out += buf.prefix(step.produced)
            if step.ended { return (out, true) }
            if step.consumed == 0 && step.produced == 0 { return out.isEmpty ? nil : (out, false) }
        }
        return (out, false)
    }
}

/// A zlib stream (RFC 1950) as a `ByteSource` of its inflated bytes, bounded by `limit`: a file of
/// an export compressed by code that writes zlib rather than gzip.
public final class ZlibSource: ByteSource {
    private let inner: ByteSource
    private let limit: Int64
    private let stream: ZlibStream
    private var input = [UInt8](repeating: 0, count: 65536)
    private var inAt = 0
    private var inEnd = 0
    private var produced: Int64 = 0
    private var ended = false

    /// `framing`: a zlib stream (the default), or raw deflate with no header at all.
    public init(wrapping inner: ByteSource, limit: Int64, framing: Deflate.Framing = .zlib) throws {
        self.inner = inner
        self.limit = limit
        stream = try ZlibStream(windowBits: framing == .zlib ? 15 : -15)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let out = buffer.baseAddress, buffer.count > 0, !ended else { return 0 }
        while true {
            if inAt == inEnd {
                inAt = 0
                inEnd = try input.withUnsafeMutableBytes { try inner.read(into: $0) }
                if inEnd == 0 { throw ArchiveError(.truncated, "zlib stream ends early after \(produced) inflated bytes") }
            }
            let room = Int(min(Int64(buffer.count), max(0, limit - produced)))
            guard room > 0 else {
                throw ArchiveError(.decompressionLimit, "zlib stream inflates past \(limit) bytes; the rest was not read")
            }
            let step: Inflater.Step
            do {
                step = try input.withUnsafeBytes { i throws(InflateDamage) in
                    try stream.step(input: i.baseAddress! + inAt, inCount: inEnd - inAt, output: out, outCount: room)
                }
            } catch let damage as InflateDamage {
                throw ArchiveError(.corrupt, "zlib stream is damaged (\(damage.message)) after \(produced) inflated bytes")
            }
            inAt += max(0, step.consumed)
            produced += Int64(step.produced)
            if step.ended { ended = true }
            if step.produced > 0 || ended { return step.produced }
        }
    }
}
