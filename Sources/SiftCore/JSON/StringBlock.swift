#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// Sixteen bytes of a JSON string's text, classified for the tape parser's string scanner: one bit
/// per byte (bit k: byte k) for each kind of byte that ends or interrupts plain text. On x86-64 with
/// SSE2 compares and byte masks; elsewhere with the portable vector types (`init(portable:)`, which
/// the tests check against the other on every machine).
struct StringBlock {
    /// `"`
    let quote: UInt32
    /// `\`
    let backslash: UInt32
    /// Below 0x20.
    let control: UInt32
    /// 0x80 or more.
    let high: UInt32

    /// The sixteen bytes at `p` (all readable).
    @inline(__always)
    init(_ p: UnsafePointer<UInt8>) {
        #if arch(x86_64)
        let v = StringBlock.load(p)
        quote = StringBlock.mask(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x22)))
        backslash = StringBlock.mask(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x5C)))
        control = StringBlock.mask(StringBlock.isControl(v))
        high = StringBlock.mask(v)
        #else
        self.init(portable: p)
        #endif
    }

    /// The same, with the portable vector types.
    @inline(__always)
    init(portable p: UnsafePointer<UInt8>) {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
        quote = StringBlock.mask(v .== SIMD16(repeating: 0x22))
        backslash = StringBlock.mask(v .== SIMD16(repeating: 0x5C))
        control = StringBlock.mask(v .< SIMD16(repeating: 0x20))
        high = StringBlock.mask(v .>= SIMD16(repeating: 0x80))
    }

    /// The bytes of the sixteen at `p` that follow a backslash in a two-byte escape, besides `"` and
    /// `\`: `/`, `b`, `f`, `n`, `r`, `t`.
    @inline(__always)
    static func escapeLetters(_ p: UnsafePointer<UInt8>) -> UInt32 {
        #if arch(x86_64)
        let v = load(p)
        let slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x2F))
        let b = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x62)), f = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x66))
        let n = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x6E)), r = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x72))
        let t = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x74))
        return mask(_mm_or_si128(_mm_or_si128(_mm_or_si128(slash, b), _mm_or_si128(f, n)), _mm_or_si128(r, t)))
        #else
        return escapeLetters(portable: p)
        #endif
    }

    @inline(__always)
    static func escapeLetters(portable p: UnsafePointer<UInt8>) -> UInt32 {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
        var m = v .== SIMD16(repeating: UInt8(ascii: "/"))
        for c in [UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t")] {
            m = m .| (v .== SIMD16(repeating: c))
        }
        return mask(m)
    }

    /// Whether the 64 bytes at `p` hold no quote, backslash or control byte and, when `high`, no byte
    /// of 0x80 or more: plain text, skipped whole.
    @inline(__always)
    static func plain64(_ p: UnsafePointer<UInt8>, high: Bool) -> Bool {
        #if arch(x86_64)
        let a = load(p), b = load(p + 16), c = load(p + 32), d = load(p + 48)
        let q = _mm_set1_epi8(0x22), s = _mm_set1_epi8(0x5C)
        @inline(__always) func special(_ v: __m128i) -> __m128i {
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, s)), isControl(v))
        }
        var any = _mm_or_si128(_mm_or_si128(special(a), special(b)), _mm_or_si128(special(c), special(d)))
        if high { any = _mm_or_si128(any, _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) }
        return _mm_movemask_epi8(any) == 0
        #else
        return plain64(portable: p, high: high)
        #endif
    }

    static func plain64(portable p: UnsafePointer<UInt8>, high: Bool) -> Bool {
        for k in stride(from: 0, to: 64, by: 16) {
            let b = StringBlock(portable: p + k)
            if b.quote | b.backslash | b.control | (high ? b.high : 0) != 0 { return false }
        }
        return true
    }

    #if arch(x86_64)
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> __m128i {
        _mm_loadu_si128(UnsafeRawPointer(p).assumingMemoryBound(to: __m128i.self))
    }

    /// 0xFF where the byte is below 0x20: `min(v, 0x1F) == v`.
    @inline(__always)
    static func isControl(_ v: __m128i) -> __m128i {
        _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v)
    }

    /// The top bit of each byte of `v`, gathered.
    @inline(__always)
    static func mask(_ v: __m128i) -> UInt32 {
        UInt32(truncatingIfNeeded: _mm_movemask_epi8(v))
    }
    #endif

    /// One bit per lane of `m`, gathered.
    @inline(__always)
    static func mask(_ m: SIMDMask<SIMD16<Int8>>) -> UInt32 {
        let top = unsafeBitCast(SIMD16<UInt8>(repeating: 0).replacing(with: 0x80, where: m), to: SIMD2<UInt64>.self)
        return JSONTapeParser.bits(top.x) | JSONTapeParser.bits(top.y) << 8
    }
}
