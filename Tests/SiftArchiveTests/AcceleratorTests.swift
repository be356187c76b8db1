import Foundation
import CZlib
import Testing
@testable import SiftArchive

/// The optional accelerators (ISA-L's inflate, libcrypto's SHA-256) against the portable path on
/// the same inputs, byte for byte. Where a library is not installed, the accelerated half is
/// skipped (the trait's comment says which library); the portable half runs in the other suites.
@Suite struct AcceleratorTests {
    /// Text of `n` bytes that compresses like log lines.
    static func text(_ n: Int, seed: UInt64 = 1) -> [UInt8] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var out = [UInt8]()
        out.reserveCapacity(n)
        let words = ["request", "completed", "req_", "status", "200", "info", "\"ts\":", "{", "}", "duration_ms"].map { Array($0.utf8) }
        while out.count < n {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            out += words[Int(x % UInt64(words.count))]
            out.append(x % 11 == 0 ? 10 : 32)
            if x % 5 == 0 { out += Array(String(x % 100_000).utf8) }
        }
        return Array(out.prefix(n))
    }

    /// Every case the two inflaters must agree on: valid, multi-member, truncated, corrupt, bombs.
    static func gzipCases() -> [(name: String, bytes: [UInt8], limit: Int64?)] {
        let a = text(120_000, seed: 1), b = text(30_000, seed: 2)
        let one = gzip(a, level: 6)
        var cases: [(String, [UInt8], Int64?)] = [
            ("one member", one, nil),
            ("stored blocks", gzip(b, level: 0), nil),
            ("three members", gzip(a, level: 1) + gzip([]) + gzip(b, level: 9), nil),
            ("small members", gzip(text(3000, seed: 3)) + gzip([]) + gzip(text(2000, seed: 4), level: 1) + gzip(text(9, seed: 5)), nil),
            ("member, zero padding", one + [UInt8](repeating: 0, count: 100), nil),
            ("member, junk", one + Array("junk".utf8), nil),
            ("empty stream", [], nil),
            ("limit inside", one, 123_457),
            ("limit exact", one, Int64(a.count))
        ]
        // truncated: inside the header, the deflate data and the trailer
        for cut in [5, 40, 1000, one.count / 3, one.count / 2 + 17, one.count - 9, one.count - 3] {
            cases.append(("truncated at \(cut)", Array(one.prefix(cut)), nil))
        }
        let two = gzip(b, level: 6) + one
        cases.append(("second member truncated", Array(two.prefix(two.count - 5000)), nil))
        // corrupt: reserved block type, flipped bytes at several places, a bad trailer
        cases.append(("reserved block type", gzipMember(deflated: [0x07, 0xFF, 0xFF, 0xFF], crc: 0, size: 0), nil))
        for (k, at) in [12, 200, one.count / 4, one.count / 2, one.count - 40].enumerated() {
            var c = one
            for i in at..<min(at + 1 + k * 7, c.count - 8) { c[i] ^= 0x5A }
            cases.append(("corrupt at \(at)", c, nil))
            cases.append(("corrupt at \(at), truncated after", Array(c.prefix(at + 300)), nil))
        }
        var badCRC = one
        badCRC[badCRC.count - 6] ^= 1
        cases.append(("bad crc", badCRC, nil))
        // bombs: stopped by the limit, and one that fits under it
        let bomb = deflateBomb(units: 5_000)
        let bombGz = gzipMember(deflated: bomb.stream, crc: 0, size: 0)
        cases.append(("bomb past the limit", bombGz, 3 << 20))
        cases.append(("bomb under the limit (crc mismatch)", bombGz, 1 << 30))
        return cases
    }

    /// Hands out at most `step` bytes per read, so streams end anywhere in the inflater's input.
    final class Trickle: ByteSource {
        let bytes: [UInt8]
        let step: Int
        var at = 0
        init(_ bytes: [UInt8], step: Int) { self.bytes = bytes; self.step = step }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let n = min(step, buffer.count, bytes.count - at)
            if n > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }[at..<at + n])) }
            at += n
            return n
        }
    }

    static func drainBoth(_ bytes: [UInt8], limit: Int64?, chunk: Int, trickle: Int? = nil, accelerated: Bool) -> ([UInt8], ArchiveError?) {
        let inner: ByteSource = trickle.map { Trickle(bytes, step: $0) } ?? MemorySource(bytes)
        return drain(GzipSource(wrapping: inner, limit: limit, accelerated: accelerated), chunk: chunk)
    }

    @Test(
        .enabled(
            if: Accelerators.acceleratedInflate,
            "ISA-L (libisal.so.2) is not installed or PBSIFT_PORTABLE is set: only zlib inflates here"))
    func isalInflatesLikeZlib() {
        for c in Self.gzipCases() {
            for chunk in [1 << 20, 4099, 7] where chunk > 7 || c.bytes.count < 8000 {
                let z = Self.drainBoth(c.bytes, limit: c.limit, chunk: chunk, accelerated: false)
                let i = Self.drainBoth(c.bytes, limit: c.limit, chunk: chunk, accelerated: true)
                #expect(i.0 == z.0, "\(c.name), chunk \(chunk): \(i.0.count) bytes against zlib's \(z.0.count)")
                #expect(i.1 == z.1, "\(c.name), chunk \(chunk): \(String(describing: i.1)) against zlib's \(String(describing: z.1))")
            }
            // input in small pieces: members end at every place in the inflater's input
            for trickle in [1, 5, 4097] where trickle > 5 || c.bytes.count < 8000 {
                let z = Self.drainBoth(c.bytes, limit: c.limit, chunk: 65_536, trickle: trickle, accelerated: false)
                let i = Self.drainBoth(c.bytes, limit: c.limit, chunk: 65_536, trickle: trickle, accelerated: true)
                #expect(
                    i.0 == z.0 && i.1 == z.1,
                    "\(c.name), \(trickle)-byte reads: \(i.0.count) bytes, \(String(describing: i.1)); zlib: \(z.0.count), \(String(describing: z.1))"
                )
            }
        }
    }

    @Test(
        .enabled(
            if: Accelerators.acceleratedInflate,
            "ISA-L (libisal.so.2) is not installed or PBSIFT_PORTABLE is set: only zlib inflates here"))
    func isalDecodesValidStreamsItself() throws {
        // A valid stream stays with ISA-L to its end (no replay through zlib).
        let data = Self.text(500_000)
        let deflated = deflateRaw(data)
        let inflater = try Inflater(accelerated: true)
        var out = [UInt8](repeating: 0, count: data.count + 10)
        let step = try deflated.withUnsafeBytes { i in
            try out.withUnsafeMutableBytes { o in
                try inflater.step(input: i.baseAddress, inCount: i.count, output: o.baseAddress!, outCount: o.count)
            }
        }
        #expect(step.ended && step.consumed == deflated.count && step.produced == data.count)
        #expect(Array(out.prefix(data.count)) == data)
        #expect(inflater.engine == "isa-l")
    }

    @Test(
        .enabled(
            if: Accelerators.acceleratedSHA256,
            "libcrypto (libcrypto.so.3) is not installed or PBSIFT_PORTABLE is set: only the Swift SHA-256 runs here"))
    func libcryptoHashesLikeTheSwiftSHA256() {
        var inputs: [[UInt8]] = [[], Array("abc".utf8)]
        for n in [1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 4095, 70_001] { inputs.append(Self.text(n, seed: UInt64(n))) }
        for data in inputs {
            var fast = SHA256(portable: false)
            var slow = SHA256(portable: true)
            #expect(fast.accelerated && !slow.accelerated)
            // uneven pieces, and a copy taken half-way that must not share state
            var at = 0, k = 1
            var copyFast: SHA256?, copySlow: SHA256?
            while at < data.count {
                let n = min(k * 13 % 97 + 1, data.count - at)
                fast.update(data[at..<at + n])
                slow.update(data[at..<at + n])
                at += n
                k += 1
                if copyFast == nil && at > data.count / 2 { copyFast = fast; copySlow = slow }
            }
            let extra: [UInt8] = [1, 2, 3]
            copyFast?.update(extra)
            copySlow?.update(extra)
            #expect(fast.finalizeHex() == slow.finalizeHex(), "\(data.count) bytes")
            #expect(copyFast?.finalizeHex() == copySlow?.finalizeHex(), "\(data.count) bytes, copy")
            var oneShot = SHA256(portable: true)
            oneShot.update(data)
            #expect(SHA256.hexDigest(data) == oneShot.finalizeHex())
        }
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test(
        .enabled(
            if: Accelerators.isal?.crc32 != nil,
            "ISA-L (libisal.so.2) is not installed or PBSIFT_PORTABLE is set: only zlib computes CRC-32 here"))
    func isalCRC32MatchesZlib() {
        let data = Self.text(200_003, seed: 9)
        data.withUnsafeBytes { d in
            for n in [0, 1, 15, 16, 17, 63, 64, 65, 1000, 65_536, 200_003] {
                var c = CRC32()
                var at = 0, k = 0
                while at < n {
                    let take = min([1, 7, 64, 4095, 33_333][k % 5], n - at)
                    c.update(UnsafeRawBufferPointer(rebasing: d[at..<at + take]))
                    at += take
                    k += 1
                }
                let zlib = UInt32(truncatingIfNeeded: crc32(0, d.baseAddress?.assumingMemoryBound(to: UInt8.self), uInt(n)))
                #expect(c.value == zlib, "\(n) bytes")
            }
        }
    }

    @Test func versionNamesTheEngines() {
        let lines = Accelerators.engineLines
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("inflate: ") && lines[0].contains("zlib \(Accelerators.zlibVersion)"))
        #expect(lines[0].contains("isa-l") == Accelerators.acceleratedInflate)
        #expect(lines[1].hasPrefix("sha256: "))
        #expect(lines[1].contains("libcrypto") == Accelerators.acceleratedSHA256)
    }
}
