#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import SiftArchive
import SiftCore

/// The fingerprint of a finding's value: stable across runs, so baselines and code-scanning alerts
/// match, and never a way back to the value.
///
/// - A value with enough randomness (a provider token) gets `sha256:` and 16 hex digits of SHA-256
///   over it: nobody can enumerate 2^100 candidates to invert it.
/// - A value a brute force could enumerate (`SecretMask.isGuessable`: a one-time code, a PIN, a short
///   or one-class password: under 100 bits of search space, or fewer than 8 distinct characters) gets
///   `hmac:` and 16 hex digits of
///   HMAC-SHA-256 under the fingerprint key, a random 32-byte key kept in a file beside the baseline
///   (`FILE.key` for `--baseline FILE` or `--write-baseline FILE`). Without the key, a guess cannot be
///   checked.
/// - Without a key (no baseline given) such a value gets `loc:` and 16 hex digits of SHA-256 over the
///   rule, the session and the location: it says where, never what.
public enum Fingerprint {
    /// The rules whose values people choose (passwords): never lowered as placeholders.
    static func humanChosen(_ rule: RuleID) -> Bool {
        rule.family == .redaction || humanChosenDetectors.contains(rule)
    }
    private static let humanChosenDetectors = Set(
        detectorCatalogue.filter { ["password-assignment", "basic-auth", "curl-user", "sql-password"].contains($0.id) }.map(\.rule))

    /// The fingerprint of `value` reported under `rule` at `place` (session and location).
    /// A password is guessable whatever its length: people build it from words (`Tr0ub4dor&3`), so a
    /// dictionary inverts a plain hash of it. Its fingerprint is keyed, like a short code's.
    static func of(_ value: String, rule: RuleID, place: String, key: [UInt8]?) -> String {
        guard SecretMask.isGuessable(value) || isPassword(rule, place: place) else { return SecretMask.fingerprint(value) }
        if let key {
            return "hmac:" + SHA256.hex(Array(hmac(key: key, Array(value.utf8)).prefix(8)))
        }
        return "loc:" + String(SHA256.hexDigest(Array((rule.id + "\u{0}" + place).utf8)).prefix(16))
    }

    /// What a finding shows of its value: nothing of a password (its first letters narrow a dictionary),
    /// else `SecretMask.preview`. The one way verify writes a preview.
    static func preview(_ value: String, rule: RuleID, place: String) -> String {
        isPassword(rule, place: place) ? SecretMask.hidden : SecretMask.preview(value)
    }

    /// A password: found by a password rule, or a contract field whose name says password (`form:password`,
    /// `?passwd`, `DB_PWD`).
    static func isPassword(_ rule: RuleID, place: String) -> Bool {
        if humanChosenDetectors.contains(rule) { return true }
        guard rule.family == .redaction else { return false }
        let l = place.lowercased()
        return l.contains("pass") || l.contains("pwd")
    }

    /// This process's key for `Finding.valueKey`: random, never written anywhere.
    static let runKey: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }

    /// `Finding.valueKey` of `value`: the first 8 bytes of its HMAC under `runKey`.
    static func valueKey(_ value: String) -> UInt64 {
        hmac(key: runKey, Array(value.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// HMAC-SHA-256 (RFC 2104).
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var k = key
        if k.count > 64 { var h = SHA256(); h.update(k); k = h.finalize() }
        k += [UInt8](repeating: 0, count: 64 - k.count)
        var inner = SHA256()
        inner.update(k.map { $0 ^ 0x36 })
        inner.update(message)
        let ih = inner.finalize()
        var outer = SHA256()
        outer.update(k.map { $0 ^ 0x5C })
        outer.update(ih)
        return outer.finalize()
    }
}

/// The fingerprint key: 32 random bytes, hex, in a file beside the baseline (`FILE.key`), readable by
/// its owner only. Created by the first `--write-baseline`; read by `--baseline`.
public enum FingerprintKey {
    /// Where the key for a baseline file lives.
    public static func path(forBaseline baseline: String) -> String { baseline + ".key" }

    /// The key in `path`; nil when there is no such file. A key that exists but could be used against
    /// the gate is refused: one that group or others may read (a fingerprint of a guessable value,
    /// a six-digit code, is recovered from the key in seconds), one that is not hex or shorter than
    /// 16 bytes, and one that is not random (fewer than 8 distinct bytes: all zeros, a repeated byte).
    public static func load(path: String) throws(VerifyError) -> [UInt8]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        guard st.st_mode & 0o077 == 0 else {
            throw .invalidFile(path, "the fingerprint key is readable by group or others; make it private (chmod 600)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path) }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var out: [UInt8] = []
        var it = text.utf8.makeIterator()
        while let a = it.next() {
            guard let b = it.next(), let hi = Shape.hexNibble(a), let lo = Shape.hexNibble(b) else {
                throw .invalidFile(path, "the fingerprint key is not hex digits")
            }
            out.append(hi << 4 | lo)
        }
        guard out.count >= 16 else { throw .invalidFile(path, "the fingerprint key is shorter than 16 bytes") }
        guard Set(out).count >= 8 else {
            throw .invalidFile(
                path, "the fingerprint key is not random (\(Set(out).count) distinct bytes); delete it and let --write-baseline make one")
        }
        return out
    }

    /// A new random key written to `path` (mode 0600).
    public static func create(path: String) throws(VerifyError) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        var g = SystemRandomNumberGenerator()
        for i in 0..<key.count { key[i] = UInt8.random(in: 0...255, using: &g) }
        let text = Array((SHA256.hex(key) + "\n").utf8)
        // Created owner-only from the start (no moment readable by others), never over an existing file or a link.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritableFile(path) }
        defer { close(fd) }
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == text.count else { throw .unwritableFile(path) }
        return key
    }
}
