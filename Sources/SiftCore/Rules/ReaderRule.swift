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
        case .seqGap:
            "Ask the user for a fresh export of the same session; if the gap persists, the store was edited or lost records on the device (disk full, a crash): trust the timeline around the gap less."
        case .seqDuplicate:
            "Two copies of a record, or two writers: compare the records with pbsift records --seq N; report the SDK version if the export was not edited by hand."
        case .tornLine: "Expected when the app was killed while recording; the records before the cut are intact."
        case .malformedLine:
            "See the line with pbsift records or inspect; a blank or cut line is harmless, anything else means the file was edited or damaged in transit."
        case .missingHeader:
            "The app, device and user facts are unknown for this session; ask for the export again, or check that the file was not cut at its start."
        case .sessionIdMismatch: "A file renamed or two sessions mixed: check which session the ticket is about (pbsift inspect)."
        case .blobMissing:
            "Bodies stored as blobs were left out of the export (a partial copy): ask for the whole export, blobs/ included."
        case .blobHashMismatch: "The blob was altered after it was written: do not trust that body; ask for the export again."
        case .blobOrphan: "Harmless: left by a body whose record was rotated out of the store."
        case .bodySizeMismatch: "The body was cut or changed after it was recorded: read its size and content with pbsift show."
        case .unknownRecordType: "Written by a newer SDK: upgrade pbsift to read these records."
        case .inlineBodyTooLarge: "An SDK defect (inline bodies are at most 32 KiB): report the SDK version."
        case .storedBodyTooLarge: "An SDK defect (stored bodies are at most 5 MiB): report the SDK version."
        case .storeOverBudget: "The store grew past its budget: report the SDK version; older sessions may have been dropped."
        case .sessionsNotListed: "Every session is read and checked; name one with --session, or use --json to list them."
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

    public var help: String {
        switch self {
        case .unsafePath: "The archive was not made by the Palbe console: find who made it before trusting its content."
        case .linkSkipped: "Links are never followed: copy the file the link points to into the export instead."
        case .crcMismatch: "The archive was damaged in transit: ask for it again; what was read from that entry may be wrong."
        case .truncated: "The upload or download was cut: ask for the export again; only what precedes the cut was read."
        case .decompressionLimit:
            "A decompression bomb, or an export larger than the bounds: raise --max-input-bytes if the export is genuine; the rest was not read (exit status 2)."
        case .corrupt: "Ask for the export again; a partly read archive gives no verdict on what was not read."
        case .duplicateEntry: "Both copies are read and checked: find which one the app wrote (a re-zipped or merged export)."
        case .unsupported: "Repack the export with plain deflate and no encryption (zip -r), or send the folder."
        case .unreadable: "Check the path and that it is a Palbe export (a folder with sessions/, a .zip, .tar.gz or .jsonl)."
        case .headerMismatch: "The archive was altered after it was made: ask for the export again before trusting it."
        }
    }
}

/// The reader's rules and the archive layer's, as the registry lists them.
public enum ReaderRules {
    public static let all: [Rule] = ReaderRule.rules + ArchiveProblem.rules
}
