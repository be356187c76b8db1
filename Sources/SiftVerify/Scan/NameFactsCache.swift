import SiftArchive
import SiftCore

/// What the checks ask of a name, packed in a word (`ContentScanner.nameFacts` caches it by the
/// name's bytes): its hints, and whether the body list, the header list and the URL-valued and
/// `Link` header names hold it.
struct NameFacts {
    let rawValue: UInt32
    /// Bits 16–23 are the cache's (the name's length), never a fact.
    static let lengthBits: UInt32 = 0xFF << 16
    static let headerBit: UInt32 = 1 << 24
    static let urlHeaderBit: UInt32 = 1 << 25
    static let linkHeaderBit: UInt32 = 1 << 26
    /// A detector's stem lies in the name's bytes (`DetectorEngine.hasStem`).
    static let stemBit: UInt32 = 1 << 27
    static let bodyBit: UInt32 = 1 << 31

    var hints: NameHints { NameHints(rawValue: rawValue & 0xFFFF) }
    var bodyListed: Bool { rawValue & NameFacts.bodyBit != 0 }
    var headerListed: Bool { rawValue & NameFacts.headerBit != 0 }
    var urlHeader: Bool { rawValue & NameFacts.urlHeaderBit != 0 }
    var linkHeader: Bool { rawValue & NameFacts.linkHeaderBit != 0 }
    var hasStem: Bool { rawValue & NameFacts.stemBit != 0 }
}

extension ContentScanner {
    // MARK: - Key facts cache

    static let keyCacheSize = 8192
    /// Keys of fewer than this many bytes are cached; a longer one is looked up each time.
    static let keyCacheWidth = 32
    static let keyCacheEmpty: UInt32 = 0xFF << 16

    /// The key bytes `p[from..<min(from + 8, count)]` as a little-endian word, zero above them.
    /// `readable`: how many bytes from `p` may be read (at least `count`); a whole word is loaded when it fits.
    @inline(__always) static func keyWord(_ p: UnsafePointer<UInt8>, _ from: Int, _ count: Int, _ readable: Int) -> UInt64 {
        let m = count - from
        if m <= 0 { return 0 }
        if from + 8 <= readable {
            let w = UInt64(littleEndian: UnsafeRawPointer(p + from).loadUnaligned(as: UInt64.self))
            return m >= 8 ? w : w & ((1 << UInt64(m << 3)) &- 1)
        }
        var w: UInt64 = 0
        var k = 0
        while k < m && k < 8 {
            w |= UInt64(p[from + k]) << UInt64(k << 3)
            k += 1
        }
        return w
    }

    /// Whether a raw JSON key is on the body list, and its hints; cached by the key's bytes.
    /// `readable`: how many bytes from the key's start may be read (the rest of the text it stands
    /// in), so that its bytes are loaded a word at a time; nil when only the key itself may be.
    @inline(__always) func keyInfo(_ raw: UnsafeBufferPointer<UInt8>, readable: Int? = nil) -> (listed: Bool, hints: NameHints) {
        let f = nameFacts(raw, readable: readable)
        return (f.bodyListed, f.hints)
    }

    /// `keyInfo` with the key's hash given (tests force collisions through it).
    func keyInfo(_ raw: UnsafeBufferPointer<UInt8>, hash: UInt64) -> (listed: Bool, hints: NameHints) {
        let f = nameFacts(raw, hash: hash)
        return (f.bodyListed, f.hints)
    }

    /// Everything the checks ask of a name (`NameFacts`), cached by the name's bytes. `readable`: as
    /// for `keyInfo`.
    @inline(__always) func nameFacts(_ raw: UnsafeBufferPointer<UInt8>, readable: Int? = nil) -> NameFacts {
        let n = raw.count
        guard n < ContentScanner.keyCacheWidth, let p = raw.baseAddress else { return computeNameFacts(raw) }
        let r = max(readable ?? n, n)
        let w0 = ContentScanner.keyWord(p, 0, n, r)
        let w1 = n > 8 ? ContentScanner.keyWord(p, 8, n, r) : 0
        let w2 = n > 16 ? ContentScanner.keyWord(p, 16, n, r) : 0
        let w3 = n > 24 ? ContentScanner.keyWord(p, 24, n, r) : 0
        var h =
            (w0 &* 0x9E37_79B9_7F4A_7C15) ^ (w1 &* 0xC2B2_AE3D_27D4_EB4F) ^ (w2 &* 0x1656_67B1_9E37_79F9)
            ^ (w3 &* 0x85EB_CA77_C2B2_AE63) ^ UInt64(n)
        h ^= h >> 29
        return nameFacts(raw, words: (w0, w1, w2, w3), hash: h &* 0xBF58_476D_1CE4_E5B9)
    }

    /// `nameFacts` with the name's hash given (tests force collisions through it).
    func nameFacts(_ raw: UnsafeBufferPointer<UInt8>, hash: UInt64) -> NameFacts {
        let n = raw.count
        guard n < ContentScanner.keyCacheWidth, let p = raw.baseAddress else { return computeNameFacts(raw) }
        let words = (
            ContentScanner.keyWord(p, 0, n, n), ContentScanner.keyWord(p, 8, n, n), ContentScanner.keyWord(p, 16, n, n),
            ContentScanner.keyWord(p, 24, n, n)
        )
        return nameFacts(raw, words: words, hash: hash)
    }

    /// The cache lookup of a name under 32 bytes, given its bytes as words (`keyWord`) and its hash.
    /// Two slots per hash: two names a run keeps using whose hashes meet (`method` and `function` do)
    /// both stay, rather than each pushing the other out.
    @inline(__always) func nameFacts(
        _ raw: UnsafeBufferPointer<UInt8>, words: (UInt64, UInt64, UInt64, UInt64),
        hash h: UInt64
    ) -> NameFacts {
        let first = Int(truncatingIfNeeded: (h >> 17) ^ h) & (ContentScanner.keyCacheSize - 2)
        let n = raw.count
        @inline(__always) func holds(_ slot: Int) -> Bool {
            let kept = keyCacheWords + slot * 4
            return Int((keyCacheInfo[slot] >> 16) & 0xFF) == n && kept[0] == words.0 && kept[1] == words.1 && kept[2] == words.2
                && kept[3] == words.3
        }
        if holds(first) { return NameFacts(rawValue: keyCacheInfo[first] & ~NameFacts.lengthBits) }
        if holds(first + 1) { return NameFacts(rawValue: keyCacheInfo[first + 1] & ~NameFacts.lengthBits) }
        let facts = computeNameFacts(raw)
        // The newest name in the first slot; the one it displaces moves to the second.
        keyCacheInfo[first + 1] = keyCacheInfo[first]
        (keyCacheWords + (first + 1) * 4).update(from: keyCacheWords + first * 4, count: 4)
        keyCacheInfo[first] = facts.rawValue | UInt32(n) << 16
        let kept = keyCacheWords + first * 4
        kept[0] = words.0
        kept[1] = words.1
        kept[2] = words.2
        kept[3] = words.3
        return facts
    }

    /// What `nameFacts` caches: the contract's lists and the hints of a raw name.
    func computeNameFacts(_ raw: UnsafeBufferPointer<UInt8>) -> NameFacts {
        var v = NameHints.of(raw: raw).rawValue
        if bodyNames.contains(raw: raw) { v |= NameFacts.bodyBit }
        if headerNames.contains(raw: raw) { v |= NameFacts.headerBit }
        if ContentScanner.urlHeaderNames.contains(raw: raw) { v |= NameFacts.urlHeaderBit }
        if ContentScanner.linkHeaderName.contains(raw: raw) { v |= NameFacts.linkHeaderBit }
        if engine.hasStem(raw) { v |= NameFacts.stemBit }
        return NameFacts(rawValue: v)
    }

    /// `keyInfo` for a key already decoded to a String.
    func keyInfo(_ key: String) -> (listed: Bool, hints: NameHints) {
        var k = key
        return k.withUTF8 { keyInfo($0) }
    }

    /// Hints of a member name standing on the tape (cached; no String made).
    func hints(_ name: JSONValue) -> NameHints { name.withStringUTF8 { nameFacts($0).hints } }

    /// Calls `body` with a member name's bytes as `withStringUTF8` gives them: read where they stand in
    /// the record line when it is written plainly.
    @inline(__always) func withNameBytes<R>(_ name: JSONValue, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let line = recordLine, name.doc === recordDoc, let r = name.plainContentRange, r.upperBound <= line.count {
            return body(UnsafeBufferPointer(rebasing: line[r]))
        }
        return name.withStringUTF8(body)
    }

    /// Facts of a member name standing on the tape (cached; no String made).
    @inline(__always) func nameFacts(_ name: JSONValue) -> NameFacts {
        if let line = recordLine, name.doc === recordDoc, let r = name.plainContentRange, r.upperBound <= line.count {
            // A name of the record line, read where it stands (its bytes are what `withStringUTF8` gives).
            return nameFacts(UnsafeBufferPointer(rebasing: line[r]), readable: line.count - r.lowerBound)
        }
        return name.withStringUTF8 { nameFacts($0) }
    }

    /// Hints of a name (cached).
    func hints(_ key: String) -> NameHints { keyInfo(key).hints }
}
