/// Why an entry or an input could not be read in full. `rule` is the stable finding id.
public enum ArchiveProblem: String, Sendable, CaseIterable {
    /// A name with `..`, an absolute path, a backslash or a NUL: read under a cleaned name.
    case unsafePath = "archive.unsafe-path"
    /// A symbolic or hard link (or a device, FIFO, socket): skipped, never followed.
    case linkSkipped = "archive.link-skipped"
    /// The entry's bytes do not match the CRC-32 the archive recorded.
    case crcMismatch = "archive.crc-mismatch"
    /// The archive, a compressed stream or an entry ends before its data does.
    case truncated = "archive.truncated"
    /// Decompressed bytes (or entry count) passed `ReadLimits`; the rest was not read.
    case decompressionLimit = "archive.decompression-limit"
    /// The container's structure is damaged (bad header, corrupt deflate data, lying counts).
    case corrupt = "archive.corrupt"
    /// Two entries carry the same cleaned name; both are read.
    case duplicateEntry = "archive.duplicate-entry"
    /// An entry uses something this reader does not support (an unknown compression method, encryption).
    case unsupported = "archive.unsupported"
    /// The input could not be opened or read at the operating-system level, or is not a file, folder or
    /// pipe (a device, a socket), or holds no Palbe record.
    case unreadable = "archive.unreadable"
    /// A zip entry's local header disagrees with its central-directory record (name, method, CRC-32 or
    /// sizes): tools that trust one or the other see different contents. Read as the central directory says.
    case headerMismatch = "archive.header-mismatch"

    /// Whether meeting this problem means the input was not read in full (exit status 2).
    public var leavesInputPartial: Bool {
        switch self {
        case .unsafePath, .duplicateEntry: return false
        default: return true
        }
    }
}
