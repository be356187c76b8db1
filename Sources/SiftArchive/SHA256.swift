/// SHA-256 (FIPS 180-4), streaming. Used to check blob names and to fingerprint findings.
/// Runs in libcrypto when `Accelerators` loaded it (hardware SHA where the CPU has it), else in Swift.
public struct SHA256: Sendable {
    /// libcrypto's context when accelerated; copied before a shared copy is updated.
    private var evp: EVPContext?
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var buffer = [UInt8](repeating: 0, count: 64)
    private var buffered = 0
    private var length: UInt64 = 0

    public init() {
        if let lib = Accelerators.crypto { evp = EVPContext(lib: lib) }
    }

    /// `portable`: the Swift implementation even when libcrypto is loaded (for comparisons).
    init(portable: Bool) {
        if !portable, let lib = Accelerators.crypto { evp = EVPContext(lib: lib) }
    }

    /// Whether this hasher runs in libcrypto.
    var accelerated: Bool { evp != nil }

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
    ]

    public mutating func update<C: Collection>(_ data: C) where C.Element == UInt8 {
        if let done: Void = data.withContiguousStorageIfAvailable({ update(raw: UnsafeRawBufferPointer($0)) }) {
            return done
        }
        update(raw: Array(data))
    }

    public mutating func update(raw data: [UInt8]) {
        data.withUnsafeBytes { update(raw: $0) }
    }

    public mutating func update(raw data: UnsafeRawBufferPointer) {
        guard data.count > 0 else { return }
        if let e = evp {
            if !isKnownUniquelyReferenced(&evp), let copy = EVPContext(copying: e) { evp = copy }
            if let e = evp, e.lib.update(e.ctx, data.baseAddress, data.count) == 1 { return }
            preconditionFailure("libcrypto's SHA-256 update failed")
        }
        length &+= UInt64(data.count)
        var p = 0
        if buffered > 0 {
            let take = min(64 - buffered, data.count)
            for i in 0..<take { buffer[buffered + i] = data[i] }
            buffered += take
            p = take
            if buffered == 64 {
                let b = buffer
                b.withUnsafeBytes { compress($0.baseAddress!) }
                buffered = 0
            }
        }
        while data.count - p >= 64 {
            compress(data.baseAddress! + p)
            p += 64
        }
        while p < data.count {
            buffer[buffered] = data[p]
            buffered += 1
            p += 1
        }
    }

    private mutating func compress(_ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                let b = block + i * 4
                w[i] =
                    UInt32(b.load(fromByteOffset: 0, as: UInt8.self)) << 24
                    | UInt32(b.load(fromByteOffset: 1, as: UInt8.self)) << 16
                    | UInt32(b.load(fromByteOffset: 2, as: UInt8.self)) << 8
                    | UInt32(b.load(fromByteOffset: 3, as: UInt8.self))
            }
            for i in 16..<64 {
                let s0 = w[i - 15].rotr(7) ^ w[i - 15].rotr(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotr(17) ^ w[i - 2].rotr(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = h
            SHA256.k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = e.rotr(6) ^ e.rotr(11) ^ e.rotr(25)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                    let s0 = a.rotr(2) ^ a.rotr(13) ^ a.rotr(22)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ maj
                    hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
                }
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
        }
    }

    /// The 32-byte digest. The hasher should not be updated afterwards.
    public mutating func finalize() -> [UInt8] {
        if let e = evp {
            var out = [UInt8](repeating: 0, count: 32)
            var n: UInt32 = 0
            let ok = out.withUnsafeMutableBufferPointer { e.lib.final(e.ctx, $0.baseAddress, &n) }
            evp = nil
            if ok == 1 && n == 32 { return out }
            preconditionFailure("libcrypto's SHA-256 final failed")
        }
        let bitLength = length &* 8
        var pad: [UInt8] = [0x80]
        let rem = (buffered + 1) % 64
        pad += [UInt8](repeating: 0, count: rem <= 56 ? 56 - rem : 120 - rem)
        for i in (0..<8).reversed() { pad.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        let saved = length
        update(raw: pad)
        length = saved
        let words = [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7]
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for v in words { out += [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        return out
    }

    /// Lowercase hex of the digest.
    public mutating func finalizeHex() -> String { SHA256.hex(finalize()) }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var s = [UInt8]()
        s.reserveCapacity(bytes.count * 2)
        for b in bytes { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 15)]) }
        return String(decoding: s, as: UTF8.self)
    }

    /// One-shot hex digest.
    public static func hexDigest<C: Collection>(_ data: C) -> String where C.Element == UInt8 {
        if let lib = Accelerators.crypto {
            var out = [UInt8](repeating: 0, count: 32)
            let done: Bool? = data.withContiguousStorageIfAvailable { d in
                out.withUnsafeMutableBufferPointer { lib.oneShot(d.baseAddress, d.count, $0.baseAddress) != nil }
            }
            if done == true { return hex(out) }
        }
        var h = SHA256()
        h.update(data)
        return h.finalizeHex()
    }
}

extension UInt32 {
    @inline(__always) func rotr(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
