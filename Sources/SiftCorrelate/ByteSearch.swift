import Foundation

/// Byte searches on raw buffers (glibc's `memmem` and `memrchr` are not visible from Swift on Linux).
enum ByteSearch {
    /// The offset of the first `req_` in p[0..<n]: `memchr` for its rarest byte, `q`, then a check around it.
    @inline(__always)
    static func findReq(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        var i = 2
        while i < n - 1 {
            guard let h = memchr(p + i, 0x71, n - 1 - i) else { return nil }
            let k = p.distance(to: h.assumingMemoryBound(to: UInt8.self))
            if p[k - 2] == 0x72 && p[k - 1] == 0x65 && p[k + 1] == 0x5F { return k - 2 }
            i = k + 1
        }
        return nil
    }

    /// The offset of the first occurrence of `needle` in p[0..<n].
    static func find(_ p: UnsafePointer<UInt8>, _ n: Int, _ needle: UnsafeBufferPointer<UInt8>) -> Int? {
        let m = needle.count
        guard m > 0, n >= m, let np = needle.baseAddress else { return nil }
        var i = 0
        while i + m <= n {
            guard let h = memchr(p + i, Int32(np[0]), n - m + 1 - i) else { return nil }
            let k = p.distance(to: h.assumingMemoryBound(to: UInt8.self))
            if memcmp(p + k, np, m) == 0 { return k }
            i = k + 1
        }
        return nil
    }

    /// The offset of the last `byte` in p[0..<n].
    @inline(__always)
    static func lastIndex(of byte: UInt8, _ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        var i = n - 1
        while i >= 0 {
            if p[i] == byte { return i }
            i -= 1
        }
        return nil
    }

    /// The offset of the first `byte` in p[0..<n].
    @inline(__always)
    static func index(of byte: UInt8, _ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        guard n > 0, let h = memchr(p, Int32(byte), n) else { return nil }
        return p.distance(to: h.assumingMemoryBound(to: UInt8.self))
    }
}
