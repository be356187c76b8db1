import Foundation
import SiftArchive
import SiftCore

/// One server log line that carries a wanted request id.
package struct ServerLine: Sendable, Equatable {
    /// The log file as found (`logs/api.log.1.gz`, `-` for standard input).
    package var file: String
    /// 1-based line number in the (decompressed) file.
    package var line: Int
    /// The wanted ids the line carries (usually one).
    package var ids: [RequestID]
    /// What the line says.
    package var parsed: ParsedLine

    package init(file: String, line: Int, ids: [RequestID], parsed: ParsedLine) {
        self.file = file
        self.line = line
        self.ids = ids
        self.parsed = parsed
    }
}

/// A request id seen in a line inside some session's window that is not one of the wanted ids.
package struct SeenID: Sendable, Equatable {
    /// The id seen.
    package var id: RequestID
    /// The line's timestamp on the server's clock.
    package var ts: Double
    /// Bit `k` set: the line carries user id `k` of `ScanRequest.userIds` (the first 64).
    package var userMask: UInt64
}

/// What to look for in the logs.
package struct ScanRequest: Sendable {
    /// The ids whose lines are parsed and returned.
    package var ids: RequestIDSet
    /// Server-clock intervals: a line in one of them has its other ids recorded as `SeenID`s.
    /// Empty: nothing is recorded.
    package var windows: [(lo: Double, hi: Double)]
    /// Users whose presence in a window line is recorded (`SeenID.userMask`); at most 64 are used.
    package var userIds: [String]

    package init(ids: RequestIDSet, windows: [(lo: Double, hi: Double)] = [], userIds: [String] = []) {
        self.ids = ids
        self.windows = windows
        self.userIds = userIds
    }
}

/// Bounds and knobs of a scan.
package struct ScanOptions: Sendable {
    /// Bytes read per call (and the scanning granularity).
    package var chunkBytes: Int = 1 << 20
    /// A longer line is skipped and counted (`LogFileSummary.longLines`).
    package var maxLineBytes: Int = 1 << 20
    /// Files (and segments of large plain files) scanned at once.
    package var workers: Int = ReadWorkers.count
    /// A plain file at least twice this size is split into segments scanned in parallel.
    package var segmentBytes: Int64 = 64 << 20
    /// Matching lines kept in all (the rest are counted in `LogScanResult.droppedLines`).
    package var maxServerLines: Int = 50_000
    /// Window ids kept in all (the rest are counted in `LogScanResult.droppedSeen`).
    package var maxSeen: Int = 200_000
    /// Bytes one gzip file may inflate to.
    package var maxInflatedBytes: Int64 = 1 << 40
    /// Files scanned in all.
    package var maxFiles: Int = 100_000
    /// Names a folder walk looks at (files, folders, links), as for an export's folder.
    package var maxEntries: Int = ReadLimits.default.maxEntries
    /// How lines are read: a forced format, the zone of naive times, the year of syslog times.
    package var read = LogReadOptions()
    /// Called from the scanning threads with the bytes of each chunk read (for a progress line).
    package var progress: (@Sendable (Int64) -> Void)?

    package init() {}
}

/// What scanning one log file found.
package struct LogFileSummary: Sendable, Equatable {
    /// The log file as found (`-` for standard input).
    package var file: String
    /// `plain`, `gzip`, or `stream` (standard input or a pipe; gzip or not).
    package var encoding: String
    /// The format detected on the first matching line (or forced by `--log-format`), when there is one.
    package var format: LogFormat?
    /// The earliest and latest server time among the lines whose time was read (those with a request id
    /// that were parsed or checked against a session window): the span the file covers.
    package var firstTs: Double?
    package var lastTs: Double?
    /// Bytes scanned (after decompression).
    package var bytes: Int64 = 0
    /// Lines scanned (an overlong one counts).
    package var lines = 0
    /// Lines carrying a wanted id.
    package var matchedLines = 0
    /// Lines over `ScanOptions.maxLineBytes`, skipped.
    package var longLines = 0
    /// Lowercase, names the file: why it was not read in full.
    package var error: String?
}

/// Everything a scan found, in file order.
package struct LogScanResult: Sendable {
    /// Every file scanned, in order.
    package var files: [LogFileSummary] = []
    /// Problems that are not one file's (a path that does not exist, a link skipped), naming the path.
    package var errors: [String] = []
    /// Matching lines in file order, then line order.
    package var lines: [ServerLine] = []
    /// Window ids in file order.
    package var seen: [SeenID] = []
    /// Matching lines past `ScanOptions.maxServerLines`, not kept.
    package var droppedLines = 0
    /// Window ids past `ScanOptions.maxSeen`, not kept.
    package var droppedSeen = 0

    /// Bytes scanned over all files.
    package var bytes: Int64 { files.reduce(0) { $0 + $1.bytes } }
    /// Lines scanned over all files.
    package var lineCount: Int { files.reduce(0) { $0 + $1.lines } }
    /// Every error, per file and not.
    package var allErrors: [String] { errors + files.compactMap(\.error) }
}
