import SiftArchive

/// The rules the reader raises while it reads an export: integrity, limits and policy. The archive
/// layer's rules are `ArchiveProblem`'s cases (below); `inspect`'s man page section and
/// `pbsift rules` list both.
public enum ReaderRule: String, RuleSet {
    case seqGap = "integrity.seq-gap"
    case seqDuplicate = "integrity.seq-duplicate"
    case tornLine = "integrity.torn-line"
    case malformedLine = "integrity.malformed-line"
    case missingHeader = "integrity.missing-header"
    case sessionIdMismatch = "integrity.session-id-mismatch"
    case blobMissing = "integrity.blob-missing"
    case blobHashMismatch = "integrity.blob-hash-mismatch"
    case blobOrphan = "integrity.blob-orphan"
    case bodySizeMismatch = "integrity.body-size-mismatch"
    case unknownRecordType = "integrity.unknown-record-type"
    case inlineBodyTooLarge = "limits.inline-body-too-large"
    case storedBodyTooLarge = "limits.stored-body-too-large"
    case storeOverBudget = "limits.store-over-budget"
    case sessionsNotListed = "limits.sessions-not-listed"
    /// `verify` reports it too, through its `FindingSelection`: declared here once.
    case frameInExport = "policy.frame-in-export"

    public var severity: Severity {
        switch self {
        case .seqGap, .seqDuplicate, .blobHashMismatch, .frameInExport: .high
        case .tornLine, .blobOrphan: .low
        case .unknownRecordType, .sessionsNotListed: .info
        default: .medium
        }
    }

    public var summary: String {
        switch self {
        case .seqGap: "A record's seq is missing, skips numbers, or goes backwards: records were lost or altered."
        case .seqDuplicate: "Two records carry the same seq."
        case .tornLine: "The last line is cut short (the app was killed mid-write)."
        case .malformedLine: "A line that is not a JSON object, is too long or too deep, or is blank."
        case .missingHeader: "The session file does not start with a session header."
        case .sessionIdMismatch: "The header's sessionId differs from the file name."
        case .blobMissing: "A body cites a blob the export does not hold."
        case .blobHashMismatch: "The SHA-256 of a blob's bytes differs from its name."
        case .blobOrphan: "A blob no record cites."
        case .bodySizeMismatch: "A body's size disagrees with its text, data or blob."
        case .unknownRecordType: "Records of a type this version does not know (kept and counted)."
        case .inlineBodyTooLarge: "An inline body over 32768 bytes."
        case .storedBodyTooLarge: "A stored body over 5242880 bytes."
        case .storeOverBudget: "Sessions and blobs over the 134217728-byte store budget."
        case .sessionsNotListed:
            "More than 10000 sessions: the first 10000 are listed, the rest only counted (all are read and checked)."
        case .frameInExport: "A realtime frame record, which must never leave the device."
        }
    }

    public var detail: String {
        switch self {
        case .frameInExport:
            "Frames live in a memory ring buffer and must never be written to disk or exported; their bodies carry access tokens."
        default: ""
        }
    }

    public var help: String {
        switch self {
        case .frameInExport: "Report the SDK defect; treat tokens of that session as exposed."
        default: ""
        }
    }
}

extension ArchiveProblem: RuleSet {
    public var severity: Severity { .high }

    public var summary: String {
        switch self {
        case .unsafePath: "An entry name with .., an absolute path, a backslash or a NUL (read under a cleaned name)."
        case .linkSkipped: "A link, device, FIFO or socket entry: skipped, never followed."
        case .crcMismatch: "An entry's bytes do not match its recorded CRC-32."
        case .truncated: "The archive, a compressed stream or an entry ends early."
        case .decompressionLimit: "Decompressed bytes or entries passed the bounds; the rest was not read."
        case .corrupt: "The container's structure is damaged."
        case .duplicateEntry: "Two entries with the same cleaned name (both are read)."
        case .unsupported: "An entry uses an unsupported compression method or encryption."
        case .unreadable:
            "The input could not be opened or read, is a device or socket, or holds no Palbe record (not a Palbe export)."
        case .headerMismatch:
            "A zip entry's local header disagrees with its central directory (name, method, CRC-32 or sizes); read as the central directory says."
        }
    }
}

/// The reader's rules and the archive layer's, as the registry lists them.
public enum ReaderRules {
    public static let all: [Rule] = ReaderRule.rules + ArchiveProblem.rules
}
