import CZlib

/// A raw-deflate (RFC 1951) decoder over zlib; the `z_stream` lives at a fixed address as zlib needs.
final class Inflater {
    private let strm: UnsafeMutablePointer<z_stream>
    private var live = false

    /// One step's outcome: input bytes consumed, output bytes produced, whether the stream ended.
    struct Step {
        var consumed: Int
        var produced: Int
        var ended: Bool
    }

    init() throws {
        strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        strm.initialize(to: z_stream())
        guard pbsift_inflateInit2(strm, -15) == Z_OK else {
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

    /// Starts a new deflate stream with the same settings.
    func reset() {
        inflateReset(strm)
    }

    /// Inflates from `input` into `output`. Throws a description of the damage on bad data.
    func step(input: UnsafeRawPointer?, inCount: Int, output: UnsafeMutableRawPointer, outCount: Int) throws(InflateDamage) -> Step {
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
            return Step(consumed: consumed, produced: produced, ended: false)
        case Z_STREAM_END:
            return Step(consumed: consumed, produced: produced, ended: true)
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
