// SiftArchive: turn one input path into named byte sources — folders, zip, tar, tar.gz, gzip'd and
// plain JSON Lines, standard input. Everything is bounded; nothing is ever extracted to disk, no link
// is followed, and a name from an archive is data, never a path to open.
// May import: CZlib, Foundation.

import Foundation

/// Bounds that keep a hostile input from costing unbounded time or memory.
public struct ReadLimits: Sendable, Equatable {
    /// Total bytes produced by decompression (and read from stored entries) per input.
    public var maxInputBytes: Int64
    /// Entries (files, folders, links) per input.
    public var maxEntries: Int
    /// The longest line a line reader accepts; a longer one is skipped and reported.
    public var maxLineBytes: Int
    /// Nesting depth of one JSON value.
    public var maxJSONDepth: Int
    /// Values (objects, arrays, names, scalars) in one line or HAR entry: each costs 20 bytes parsed,
    /// so this bounds a parsed line at 20 MiB (a 16 MiB line of `[0,0,…]` would be 160 MiB).
    public var maxJSONValues: Int
    /// The largest blob the reader buffers for analysis (hashing still covers every byte).
    public var maxBlobBytes: Int
    /// The longest wait, in seconds, for a pipe (FIFO) named as an input to be written to: for its
    /// first byte (nothing is writing to it yet), and between bytes after. Then the input is unreadable.
    public var pipeWaitSeconds: Double

    /// Eight times the SDK's 128 MiB store budget, 16 MiB lines, depth 512, 1 Mi values a line, 16 MiB blobs.
    public static let `default` = ReadLimits(
        maxInputBytes: 8 * 134_217_728, maxEntries: 200_000, maxLineBytes: 16 << 20,
        maxJSONDepth: 512, maxBlobBytes: 16 << 20)

    public init(
        maxInputBytes: Int64, maxEntries: Int, maxLineBytes: Int, maxJSONDepth: Int, maxBlobBytes: Int,
        pipeWaitSeconds: Double = 10, maxJSONValues: Int = 1 << 20
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxEntries = maxEntries
        self.maxLineBytes = maxLineBytes
        self.maxJSONDepth = maxJSONDepth
        self.maxJSONValues = maxJSONValues
        self.maxBlobBytes = maxBlobBytes
        self.pipeWaitSeconds = pipeWaitSeconds
    }
}

/// What kind of container an input turned out to be (recognised by its bytes, not only its name).
public enum ContainerKind: String, Sendable, CaseIterable {
    case folder, zip, tar
    case tarGz = "tar.gz"
    case jsonl
    case jsonlGz = "jsonl.gz"
    case stdin
    /// A HAR 1.2 document (plain or gzip'd), read by the export reader.
    case har
    case unknown
}

/// A pull-based stream of bytes. `read` returns 0 at the end; it throws `ArchiveError` when the
/// data is damaged (the bytes handed out before the throw are good).
public protocol ByteSource: AnyObject {
    /// Fills up to `buffer.count` bytes; returns how many, 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A damaged or refused piece of an input, with where it happened.
public struct ArchiveIssue: Sendable, Equatable {
    public var problem: ArchiveProblem
    /// The entry's cleaned name inside the input, when the issue concerns one entry.
    public var entry: String?
    /// Byte offset in the container (or in the decompressed stream) where known.
    public var offset: Int64?
    /// Lowercase, human-readable, names the place.
    public var message: String

    public init(problem: ArchiveProblem, entry: String?, offset: Int64? = nil, message: String) {
        self.problem = problem
        self.entry = entry
        self.offset = offset
        self.message = message
    }
}

/// Thrown by a `ByteSource` when its data is damaged or a bound is reached.
public struct ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problem: ArchiveProblem
    public var message: String
    public init(_ problem: ArchiveProblem, _ message: String) {
        self.problem = problem
        self.message = message
    }
    public var description: String { message }
}

/// One regular file inside an input. `source` is valid only during the visit callback.
public struct ArchiveEntry {
    /// The cleaned, `/`-separated, relative name (for a bare file input: its file name).
    public let name: String
    /// The name exactly as the container stored it (for messages only; never opened).
    public let rawName: String
    /// The declared uncompressed size, when the container records one.
    public let declaredSize: Int64?
    /// The entry's bytes, decompressed and bounded.
    public let source: ByteSource
    /// True when the entry is the whole input (a bare file, a `.gz` of one, standard input), not a
    /// file inside a folder or an archive.
    public let isWholeInput: Bool
    /// True when the container stored the entry compressed (a zip member with deflate).
    public var isDeflated = false

    public init(name: String, rawName: String, declaredSize: Int64?, source: ByteSource, isWholeInput: Bool = false) {
        self.name = name
        self.rawName = rawName
        self.declaredSize = declaredSize
        self.source = source
        self.isWholeInput = isWholeInput
    }
}

/// A text a container carries beside an entry's bytes (a gzip header's file name or comment, a tar
/// pax record, a zip extra field): scanned like a file's text, never skipped.
public struct ContainerText: Sendable {
    /// The entry it belongs to; nil for the input's own container (the gzip of a `.tar.gz`).
    public let entry: String?
    /// What it is: `gzip header comment`, `tar pax record 'comment'`, `zip extra field`.
    public let label: String
    public let bytes: [UInt8]

    public init(entry: String?, label: String, bytes: [UInt8]) {
        self.entry = entry
        self.label = label
        self.bytes = bytes
    }
}

/// What walking one input found.
public struct WalkResult: Sendable {
    public var container: ContainerKind
    /// Every problem met, in order. Problems raised by an entry's `source.read` are recorded here too.
    public var issues: [ArchiveIssue]
    /// True when nothing at all could be read (missing file, permission, unrecognised bytes).
    public var unreadable: Bool
    /// Bytes delivered across all entries.
    public var bytesRead: Int64
    /// Texts the containers carry beside their entries' bytes (gzip header fields, tar pax records
    /// and owner names, zip extra fields), in the order met: a credential can stand there too.
    public var texts: [ContainerText] = []

    public init(container: ContainerKind, issues: [ArchiveIssue] = [], unreadable: Bool = false, bytesRead: Int64 = 0) {
        self.container = container
        self.issues = issues
        self.unreadable = unreadable
        self.bytesRead = bytesRead
    }

    /// Whether any problem means the input was not read in full.
    public var isPartial: Bool { unreadable || issues.contains { $0.problem.leavesInputPartial } }
}
