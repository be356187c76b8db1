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

    /// The quotes of the sixteen bytes at `p`, and every byte among them that ends or interrupts
    /// plain ASCII text: a quote, a backslash, a control byte or a byte of 0x80 or more (a string's
    /// short plain case needs no more).
    @inline(__always)
    static func quotesAndSpecials(_ p: UnsafePointer<UInt8>) -> (quote: UInt32, special: UInt32) {
        #if arch(x86_64)
            let v = load(p)
            let q = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x22))
            // As signed bytes, 0x80 and more are negative: below 0x20 is then control or high.
            let stop = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x5C)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)))
            return (mask(q), mask(_mm_or_si128(q, stop)))
        #else
            return quotesAndSpecials(portable: p)
        #endif
    }

    /// The same, with the portable vector types.
    @inline(__always)
    static func quotesAndSpecials(portable p: UnsafePointer<UInt8>) -> (quote: UInt32, special: UInt32) {
        let b = StringBlock(portable: p)
        return (b.quote, b.quote | b.backslash | b.control | b.high)
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

    /// The bytes of the sixteen at `p` that are base64 symbols of either alphabet (`A`–`Z`, `a`–`z`,
    /// `0`–`9`, `+`, `/`, `-`, `_`).
    @inline(__always)
    static func base64Symbols(_ p: UnsafePointer<UInt8>) -> UInt32 {
        #if arch(x86_64)
            let v = load(p)
            // As signed bytes, 0x80 and more are negative: below every range, so never a symbol.
            @inline(__always) func within(_ x: __m128i, _ lo: Int8, _ hi: Int8) -> __m128i {
                _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(lo &- 1)), _mm_cmplt_epi8(x, _mm_set1_epi8(hi &+ 1)))
            }
            // `v | 0x20` is a lower-case letter exactly when `v` is a letter of either case.
            let letter = within(_mm_or_si128(v, _mm_set1_epi8(0x20)), 0x61, 0x7A)
            let digit = within(v, 0x30, 0x39)
            let marks = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x2B)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x2F))),
                _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x2D)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x5F))))
            return mask(_mm_or_si128(_mm_or_si128(letter, digit), marks))
        #else
            return base64Symbols(portable: p)
        #endif
    }

    /// The same, with the portable vector types.
    @inline(__always)
    static func base64Symbols(portable p: UnsafePointer<UInt8>) -> UInt32 {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
        let lower = v | SIMD16(repeating: 0x20)
        var m = (lower .>= SIMD16(repeating: UInt8(ascii: "a"))) .& (lower .<= SIMD16(repeating: UInt8(ascii: "z")))
        m = m .| ((v .>= SIMD16(repeating: UInt8(ascii: "0"))) .& (v .<= SIMD16(repeating: UInt8(ascii: "9"))))
        for c in [UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_")] {
            m = m .| (v .== SIMD16(repeating: c))
        }
        return mask(m)
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

/// Sixty-four bytes of a JSON string's text, classified for the tape parser's long-string loop: one
/// bit per byte (bit k: byte k) for the quotes, the backslashes, and the bytes that stop plain text
/// besides them (control bytes, and with `high` bytes of 0x80 or more). On x86-64 with SSE2 (a
/// signed compare finds control and high bytes together); elsewhere with the portable vector types
/// (`init(portable:high:)`, which the tests check against the other on every machine).
struct StringBlock64 {
    /// `"`
    let quote: UInt64
    /// `\`
    let backslash: UInt64
    /// Below 0x20 and, when asked for, 0x80 or more.
    let stop: UInt64

    /// The sixty-four bytes at `p` (all readable); `high`: bytes of 0x80 or more stop too.
    @inline(__always)
    init(_ p: UnsafePointer<UInt8>, high: Bool) {
        #if arch(x86_64)
            let a = StringBlock.load(p), b = StringBlock.load(p + 16), c = StringBlock.load(p + 32), d = StringBlock.load(p + 48)
            let q = _mm_set1_epi8(0x22), s = _mm_set1_epi8(0x5C)
            @inline(__always) func gather(_ w: __m128i, _ x: __m128i, _ y: __m128i, _ z: __m128i) -> UInt64 {
                UInt64(StringBlock.mask(w)) | UInt64(StringBlock.mask(x)) << 16
                    | UInt64(StringBlock.mask(y)) << 32 | UInt64(StringBlock.mask(z)) << 48
            }
            quote = gather(_mm_cmpeq_epi8(a, q), _mm_cmpeq_epi8(b, q), _mm_cmpeq_epi8(c, q), _mm_cmpeq_epi8(d, q))
            backslash = gather(_mm_cmpeq_epi8(a, s), _mm_cmpeq_epi8(b, s), _mm_cmpeq_epi8(c, s), _mm_cmpeq_epi8(d, s))
            if high {
                // As signed bytes, 0x80 and more are negative: below 0x20 is then control or high.
                let t = _mm_set1_epi8(0x20)
                stop = gather(_mm_cmplt_epi8(a, t), _mm_cmplt_epi8(b, t), _mm_cmplt_epi8(c, t), _mm_cmplt_epi8(d, t))
            } else {
                stop = gather(StringBlock.isControl(a), StringBlock.isControl(b), StringBlock.isControl(c), StringBlock.isControl(d))
            }
        #else
            self.init(portable: p, high: high)
        #endif
    }

    /// The same, with the portable vector types (four `StringBlock`s).
    @inline(__always)
    init(portable p: UnsafePointer<UInt8>, high: Bool) {
        var q: UInt64 = 0, s: UInt64 = 0, t: UInt64 = 0
        for k in 0..<4 {
            let b = StringBlock(portable: p + 16 * k)
            q |= UInt64(b.quote) << UInt64(16 * k)
            s |= UInt64(b.backslash) << UInt64(16 * k)
            t |= UInt64(b.control | (high ? b.high : 0)) << UInt64(16 * k)
        }
        quote = q
        backslash = s
        stop = t
    }

    /// Whether the sixty-four bytes at `p` hold no quote, no backslash and no byte that stops plain
    /// text (`stop`): one mask of the four sixteen-byte compares or'ed together, for the long runs of
    /// plain text (base64 bodies) that make most of a string's blocks.
    @inline(__always)
    static func isPlain(_ p: UnsafePointer<UInt8>, high: Bool) -> Bool {
        #if arch(x86_64)
            let q = _mm_set1_epi8(0x22), s = _mm_set1_epi8(0x5C), t = _mm_set1_epi8(0x20)
            @inline(__always) func special(_ v: __m128i) -> __m128i {
                // As signed bytes, 0x80 and more are negative: below 0x20 is then control or high.
                let stop = high ? _mm_cmplt_epi8(v, t) : StringBlock.isControl(v)
                return _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, s)), stop)
            }
            let a = special(StringBlock.load(p)), b = special(StringBlock.load(p + 16))
            let c = special(StringBlock.load(p + 32)), d = special(StringBlock.load(p + 48))
            return StringBlock.mask(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0
        #else
            return isPlain(portable: p, high: high)
        #endif
    }

    /// The same, with the portable vector types.
    @inline(__always)
    static func isPlain(portable p: UnsafePointer<UInt8>, high: Bool) -> Bool {
        let b = StringBlock64(portable: p, high: high)
        return b.quote | b.backslash | b.stop == 0
    }

    /// `StringBlock.escapeLetters` of the sixty-four bytes at `p`.
    @inline(__always)
    static func escapeLetters(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(StringBlock.escapeLetters(p)) | UInt64(StringBlock.escapeLetters(p + 16)) << 16
            | UInt64(StringBlock.escapeLetters(p + 32)) << 32 | UInt64(StringBlock.escapeLetters(p + 48)) << 48
    }
}
