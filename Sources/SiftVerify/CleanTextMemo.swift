#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Texts a check found clean, kept byte for byte: sessions repeat the same bodies (a polled
/// endpoint's answer, a catalogue page), and a check whose outcome depends on a text's bytes alone
/// need not run twice over the same bytes. A text counts as seen only when its bytes are equal to
/// the kept ones (compared in full), so no input can pass for another; the sampled hash only picks
/// the slot. One slot per hash (the newer text replaces the older), so a lookup costs at most one
/// comparison. Bounded: texts of `maxLength` bytes at most, `arenaCapacity` bytes kept in all
/// (when full, everything is forgotten and the memo starts again). A `tag` tells apart what a text was
/// checked as (the same bytes under another tag are another entry).
final class CleanTextMemo {
    private static let slots = 1024
    /// Bytes kept in all; allocated on the first insertion.
    static let arenaCapacity = 2 << 20
    /// Longer texts are not kept.
    static let maxLength = 256 << 10
    /// Shorter texts are not kept (checking them costs about what looking them up does).
    static let minLength = 64
    private let hashes: UnsafeMutablePointer<UInt64>
    private let offsets: UnsafeMutablePointer<Int>
    private let lengths: UnsafeMutablePointer<Int>
    private let tags: UnsafeMutablePointer<UInt8>
    private var arena: UnsafeMutablePointer<UInt8>? = nil
    private var arenaUsed = 0

    init() {
        hashes = .allocate(capacity: CleanTextMemo.slots)
        hashes.initialize(repeating: 0, count: CleanTextMemo.slots)
        offsets = .allocate(capacity: CleanTextMemo.slots)
        offsets.initialize(repeating: 0, count: CleanTextMemo.slots)
        lengths = .allocate(capacity: CleanTextMemo.slots)
        lengths.initialize(repeating: 0, count: CleanTextMemo.slots)
        tags = .allocate(capacity: CleanTextMemo.slots)
        tags.initialize(repeating: 0, count: CleanTextMemo.slots)
    }

    deinit {
        hashes.deallocate()
        offsets.deallocate()
        lengths.deallocate()
        tags.deallocate()
        arena?.deallocate()
    }

    /// A hash of the length and a few words spread over the text (never 0): equal texts hash equal;
    /// unequal ones are told apart by the comparison.
    @inline(__always) private static func hash(_ p: UnsafePointer<UInt8>, _ n: Int, _ tag: UInt8) -> UInt64 {
        let raw = UnsafeRawPointer(p)
        @inline(__always) func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        var h = (UInt64(truncatingIfNeeded: n) << 8 | UInt64(tag)) &* 0x9E37_79B9_7F4A_7C15
        @inline(__always) func mix(_ at: Int) {
            h = (h ^ word(at)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
        }
        // `n >= minLength` (64): every word lies inside the text.
        mix(0); mix(8); mix(16); mix(n / 4); mix(n / 2 - 8); mix(n / 2); mix((3 * n) / 4); mix(n - 24); mix(n - 16); mix(n - 8)
        return h | 1
    }

    private func slot(_ h: UInt64) -> Int { Int(truncatingIfNeeded: h >> 33) & (CleanTextMemo.slots - 1) }

    /// Whether `b` was inserted under `tag` (and not forgotten since).
    func contains(_ b: UnsafeBufferPointer<UInt8>, tag: UInt8 = 0) -> Bool {
        let n = b.count
        guard n >= CleanTextMemo.minLength, n <= CleanTextMemo.maxLength, let p = b.baseAddress, let arena else { return false }
        let h = CleanTextMemo.hash(p, n, tag)
        let s = slot(h)
        return hashes[s] == h && lengths[s] == n && tags[s] == tag && memcmp(arena + offsets[s], p, n) == 0
    }

    /// Keeps `b` (found clean when checked as `tag` says).
    func insert(_ b: UnsafeBufferPointer<UInt8>, tag: UInt8 = 0) {
        let n = b.count
        guard n >= CleanTextMemo.minLength, n <= CleanTextMemo.maxLength, let p = b.baseAddress else { return }
        if arena == nil { arena = .allocate(capacity: CleanTextMemo.arenaCapacity) }
        if arenaUsed + n > CleanTextMemo.arenaCapacity {
            // Full: forget everything (a long run's texts change; the recent ones are worth keeping).
            hashes.update(repeating: 0, count: CleanTextMemo.slots)
            arenaUsed = 0
        }
        guard let arena else { return }
        let h = CleanTextMemo.hash(p, n, tag)
        let s = slot(h)
        (arena + arenaUsed).update(from: p, count: n)
        hashes[s] = h
        offsets[s] = arenaUsed
        lengths[s] = n
        tags[s] = tag
        arenaUsed += n
    }
}
