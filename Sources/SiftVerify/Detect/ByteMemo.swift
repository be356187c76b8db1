#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bounded memo of byte strings a check found clean (names, bodies): records repeat the same names
/// and sessions the same bodies, and a check whose outcome depends on the bytes alone need not run
/// twice over them. A string counts as seen only when its bytes are equal to the kept ones (compared
/// in full, no Unicode equivalence), so no input can pass for another; the hash only picks the slot.
/// A `tag` tells apart what a string was checked as (the same bytes under another tag are another
/// entry). Slots come in sets of `ways`: a string may stand in any slot of the set its hash picks, and
/// a full set drops its oldest string for a new one (strings whose hashes meet both stay). The `Policy`
/// sets the bounds, the hash and what happens when the arena is full.
final class ByteMemo {
    struct Policy {
        /// Slots (a power of two).
        let slots: Int
        /// Slots per set (a power of two, at most `slots`).
        let ways: Int
        /// Bytes kept in all; allocated on the first insertion.
        let arenaCapacity: Int
        /// Strings shorter than this are not kept (checking them costs about what looking them up does).
        let minLength: Int
        /// Longer strings are not kept.
        let maxLength: Int
        /// Hash a few words spread over the string (`minLength` ≥ 64) rather than every byte.
        let sampledHash: Bool
        /// When full, forget everything and start again (a long run's texts change); otherwise stop growing.
        let startAgainWhenFull: Bool

        /// Inline and base64 body texts found clean: large, and a run's recent ones are worth keeping.
        static let cleanTexts = Policy(
            slots: 1024, ways: 4, arenaCapacity: 2 << 20, minLength: 64, maxLength: 256 << 10,
            sampledHash: true, startAgainWhenFull: true)
        /// URLs found clean: a run's endpoints repeat, and its ids and queries change (start again when full).
        static let urls = Policy(
            slots: 4096, ways: 4, arenaCapacity: 1 << 20, minLength: 1, maxLength: 4096,
            sampledHash: false, startAgainWhenFull: true)
        /// Names found clean: short, few, and the same ones all run long.
        static let names = Policy(
            slots: 4096, ways: 8, arenaCapacity: 1 << 18, minLength: 1, maxLength: 256,
            sampledHash: false, startAgainWhenFull: false)
    }

    let policy: Policy
    private let hashes: UnsafeMutablePointer<UInt64>
    private let offsets: UnsafeMutablePointer<Int>
    private let lengths: UnsafeMutablePointer<Int>
    private let tags: UnsafeMutablePointer<UInt8>
    private var arena: UnsafeMutablePointer<UInt8>? = nil
    private var arenaUsed = 0

    init(_ policy: Policy) {
        precondition(policy.slots > 0 && policy.slots & (policy.slots - 1) == 0)
        precondition(policy.ways > 0 && policy.ways & (policy.ways - 1) == 0 && policy.ways <= policy.slots)
        precondition(!policy.sampledHash || policy.minLength >= 64, "the sampled hash reads 24 bytes from each end")
        self.policy = policy
        hashes = .allocate(capacity: policy.slots)
        hashes.initialize(repeating: 0, count: policy.slots)
        offsets = .allocate(capacity: policy.slots)
        offsets.initialize(repeating: 0, count: policy.slots)
        lengths = .allocate(capacity: policy.slots)
        lengths.initialize(repeating: 0, count: policy.slots)
        tags = .allocate(capacity: policy.slots)
        tags.initialize(repeating: 0, count: policy.slots)
    }

    deinit {
        hashes.deallocate()
        offsets.deallocate()
        lengths.deallocate()
        tags.deallocate()
        arena?.deallocate()
    }

    /// A hash of the string and its tag (never 0): equal strings hash equal; unequal ones are told
    /// apart by the comparison.
    @inline(__always) private func hash(_ p: UnsafePointer<UInt8>, _ n: Int, _ tag: UInt8) -> UInt64 {
        if policy.sampledHash {
            let raw = UnsafeRawPointer(p)
            @inline(__always) func word(_ at: Int) -> UInt64 {
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            }
            var h = (UInt64(truncatingIfNeeded: n) << 8 | UInt64(tag)) &* 0x9E37_79B9_7F4A_7C15
            @inline(__always) func mix(_ at: Int) {
                h = (h ^ word(at)) &* 0xBF58_476D_1CE4_E5B9
                h ^= h >> 31
            }
            // `n >= minLength` (64): every word lies inside the string.
            mix(0); mix(8); mix(16); mix(n / 4); mix(n / 2 - 8); mix(n / 2); mix((3 * n) / 4); mix(n - 24); mix(n - 16); mix(n - 8)
            return h | 1
        }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(tag)
        for k in 0..<n { h = (h ^ UInt64(p[k])) &* 0x100_0000_01b3 }
        return h | 1
    }

    /// The first slot of the set `h` picks.
    @inline(__always) private func set(_ h: UInt64) -> Int { Int(truncatingIfNeeded: h >> 33) & (policy.slots - policy.ways) }

    @inline(__always) private func holds(
        _ s: Int, _ h: UInt64, _ p: UnsafePointer<UInt8>, _ n: Int, _ tag: UInt8,
        _ arena: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        hashes[s] == h && lengths[s] == n && tags[s] == tag && memcmp(arena + offsets[s], p, n) == 0
    }

    /// Whether `b` was inserted under `tag` (and not forgotten since).
    func contains(_ b: UnsafeBufferPointer<UInt8>, tag: UInt8 = 0) -> Bool {
        let n = b.count
        guard n >= policy.minLength, n <= policy.maxLength, let p = b.baseAddress, let arena else { return false }
        let h = hash(p, n, tag)
        let first = set(h)
        for s in first..<(first + policy.ways) {
            if hashes[s] == 0 { return false }
            if holds(s, h, p, n, tag, arena) { return true }
        }
        return false
    }

    /// Keeps `b` (found clean when checked as `tag` says), unless the policy's bounds leave it out.
    func insert(_ b: UnsafeBufferPointer<UInt8>, tag: UInt8 = 0) {
        let n = b.count
        guard n >= policy.minLength, n <= policy.maxLength, let p = b.baseAddress else { return }
        if arena == nil { arena = .allocate(capacity: policy.arenaCapacity) }
        if arenaUsed + n > policy.arenaCapacity {
            guard policy.startAgainWhenFull else { return }
            hashes.update(repeating: 0, count: policy.slots)
            arenaUsed = 0
        }
        guard let arena else { return }
        let h = hash(p, n, tag)
        let first = set(h)
        var s = first
        while s < first + policy.ways {
            if hashes[s] == 0 { break }
            if holds(s, h, p, n, tag, arena) { return }
            s += 1
        }
        if s == first + policy.ways {
            // A full set (oldest first): the oldest drops out, the others move one slot down, the new one goes last.
            s = first + policy.ways - 1
            var k = first
            while k < s {
                hashes[k] = hashes[k + 1]
                offsets[k] = offsets[k + 1]
                lengths[k] = lengths[k + 1]
                tags[k] = tags[k + 1]
                k += 1
            }
        }
        (arena + arenaUsed).update(from: p, count: n)
        hashes[s] = h
        offsets[s] = arenaUsed
        lengths[s] = n
        tags[s] = tag
        arenaUsed += n
    }
}
