import Foundation

/// A set of names (archive entries, paths) whose memory does not grow with the names' length: a
/// name of up to 64 bytes is held as it is, a longer one as its SHA-256 digest (32 bytes). Fifty
/// thousand entries of 4 KiB names are 1.6 MB of digests, not 200 MB of names held twice.
///
/// Two names are the same member when they are equal as Swift compares strings (canonically
/// equivalent: `é` written as one code point or as `e` and a combining accent), as a `Set<String>`
/// would say: a long name's digest is taken of its NFC form, and stands for exactly that (no two
/// texts are known to share a SHA-256 digest, and none can be made to).
public struct SeenNames: Sendable {
    /// Names longer than this are held as their digest.
    public static let heldWhole = 64

    private struct Digest: Hashable, Sendable {
        var a: UInt64, b: UInt64, c: UInt64, d: UInt64
    }

    private var short = Set<String>()
    private var long = Set<Digest>()

    public init() {}

    /// How many names the set holds.
    public var count: Int { short.count + long.count }

    /// Whether `name` is in the set.
    public func contains(_ name: String) -> Bool {
        let key = SeenNames.normal(name)
        return key.utf8.count <= SeenNames.heldWhole ? short.contains(key) : long.contains(SeenNames.digest(key))
    }

    /// Adds `name`; true when it was not there yet.
    @discardableResult
    public mutating func insert(_ name: String) -> Bool {
        let key = SeenNames.normal(name)
        if key.utf8.count <= SeenNames.heldWhole { return short.insert(key).inserted }
        return long.insert(SeenNames.digest(key)).inserted
    }

    /// `name` in NFC (ASCII as it is), so that equivalent forms of one name are held on the same
    /// side of `heldWhole` and digested alike.
    private static func normal(_ name: String) -> String {
        name.utf8.allSatisfy { $0 < 0x80 } ? name : name.precomposedStringWithCanonicalMapping
    }

    private static func digest(_ key: String) -> Digest {
        var h = SHA256()
        var s = key
        s.withUTF8 { h.update(raw: UnsafeRawBufferPointer($0)) }
        let d = h.finalize()
        func word(_ k: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<8 { v = v << 8 | UInt64(d[k * 8 + i]) }
            return v
        }
        return Digest(a: word(0), b: word(1), c: word(2), d: word(3))
    }
}
