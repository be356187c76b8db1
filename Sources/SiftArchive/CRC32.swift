import CZlib

/// The CRC-32 of zip and gzip (polynomial 0xEDB88320), computed by zlib's `crc32`, or by ISA-L's
/// when `Accelerators` loaded it (checked against zlib's at load time).
public struct CRC32: Sendable, Equatable {
    /// The checksum of every byte fed so far.
    package private(set) var value: UInt32 = 0

    /// Starts an empty checksum (value 0).
    public init() {}

    /// Feeds bytes into the checksum.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if let fast = Accelerators.isal?.crc32 {
            value = fast(value, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
            return
        }
        var crc = UInt(value)
        var p = base.assumingMemoryBound(to: UInt8.self)
        var left = bytes.count
        // zlib's length argument is a 32-bit uInt: feed large spans in pieces.
        while left > 0 {
            let n = min(left, 1 << 30)
            crc = CZlib.crc32(crc, p, uInt(n))
            p += n
            left -= n
        }
        value = UInt32(truncatingIfNeeded: crc)
    }

    /// Feeds the bytes of an array into the checksum.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The CRC-32 of a byte array.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c = CRC32()
        c.update(bytes)
        return c.value
    }
}
