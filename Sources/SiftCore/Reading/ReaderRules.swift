import Foundation

/// The rules the reader raises while it reads an export: integrity, limits, policy, archive.
/// (`inspect`'s man page section and `pbsift rules` list them.)
public enum ReaderRules {
    /// The reader's rules by id.
    public static let catalogue = RuleCatalogue(all)

    /// `verify` reports it too: a repeated entry can hide content from its checks.
    public static let duplicateEntry = Rule("archive.duplicate-entry", .high, "Two entries with the same cleaned name (both are read).")

    public static let all: [Rule] = [
        Rule("integrity.seq-gap", .high, "A record's seq is missing, skips numbers, or goes backwards: records were lost or altered."),
        Rule("integrity.seq-duplicate", .high, "Two records carry the same seq."),
        Rule("integrity.torn-line", .low, "The last line is cut short (the app was killed mid-write)."),
        Rule("integrity.malformed-line", .medium, "A line that is not a JSON object, is too long or too deep, or is blank."),
        Rule("integrity.missing-header", .medium, "The session file does not start with a session header."),
        Rule("integrity.session-id-mismatch", .medium, "The header's sessionId differs from the file name."),
        Rule("integrity.blob-missing", .medium, "A body cites a blob the export does not hold."),
        Rule("integrity.blob-hash-mismatch", .high, "The SHA-256 of a blob's bytes differs from its name."),
        Rule("integrity.blob-orphan", .low, "A blob no record cites."),
        Rule("integrity.body-size-mismatch", .medium, "A body's size disagrees with its text, data or blob."),
        Rule("integrity.unknown-record-type", .info, "Records of a type this version does not know (kept and counted)."),
        Rule("limits.inline-body-too-large", .medium, "An inline body over 32768 bytes."),
        Rule("limits.stored-body-too-large", .medium, "A stored body over 5242880 bytes."),
        Rule("limits.store-over-budget", .medium, "Sessions and blobs over the 134217728-byte store budget."),
        Rule("limits.sessions-not-listed", .info, "More than 10000 sessions: the first 10000 are listed, the rest only counted (all are read and checked)."),
        Rule("policy.frame-in-export", .high, "A realtime frame record, which must never leave the device."),
        Rule("archive.unsafe-path", .high, "An entry name with .., an absolute path, a backslash or a NUL (read under a cleaned name)."),
        Rule("archive.link-skipped", .high, "A link, device, FIFO or socket entry: skipped, never followed."),
        Rule("archive.crc-mismatch", .high, "An entry's bytes do not match its recorded CRC-32."),
        Rule("archive.truncated", .high, "The archive, a compressed stream or an entry ends early."),
        Rule("archive.decompression-limit", .high, "Decompressed bytes or entries passed the bounds; the rest was not read."),
        Rule("archive.corrupt", .high, "The container's structure is damaged."),
        duplicateEntry,
        Rule("archive.unsupported", .high, "An entry uses an unsupported compression method or encryption."),
        Rule("archive.unreadable", .high, "The input could not be opened or read, is a device or socket, or holds no Palbe record (not a Palbe export)."),
        Rule("archive.header-mismatch", .high, "A zip entry's local header disagrees with its central directory (name, method, CRC-32 or sizes); read as the central directory says."),
    ]
}
