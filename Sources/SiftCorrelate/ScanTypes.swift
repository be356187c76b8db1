import Foundation
import SiftArchive
import SiftCore

/// One server log line that carries a wanted request id.
public struct ServerLine: Sendable, Equatable {
    /// The log file as found (`logs/api.log.1.gz`, `-` for standard input).
    public var file: String
    /// 1-based line number in the (decompressed) file.
    public var line: Int
    /// The wanted ids the line carries (usually one).
    public var ids: [RequestID]
    /// What the line says.
    public var parsed: ParsedLine
    /// How the line was tied to its request: by an id it carries, or (a log with no ids) by method,
    /// path and time.
    public var joinedBy: JoinBasis = .requestId

    public init(file: String, line: Int, ids: [RequestID], parsed: ParsedLine) {
        self.file = file
        self.line = line
        self.ids = ids
        self.parsed = parsed
    }
}

/// How a server line was tied to a request.
public enum JoinBasis: String, Sendable, Equatable {
    /// The line carries the request's id.
    case requestId = "request id"
    /// The file carries no id: the line's method and path are the request's, and its time fits the
    /// offset the file's other such lines agree on.
    case requestLine = "method, path and time"
}

/// A request id seen in a line inside some session's window that is not one of the wanted ids.
public struct SeenID: Sendable, Equatable {
    /// The id seen.
    public var id: RequestID
    /// The line's timestamp on the server's clock.
    public var ts: Double
    /// Bit `k` set: the line carries user id `k` of `ScanRequest.userIds` (the first 64).
    public var userMask: UInt64
}

/// What to look for in the logs.
public struct ScanRequest: Sendable {
    /// The ids whose lines are parsed and returned.
    public var ids: RequestIDSet
    /// Server-clock intervals: a line in one of them has its other ids recorded as `SeenID`s.
    /// Empty: nothing is recorded.
    public var windows: [(lo: Double, hi: Double)]
    /// Users whose presence in a window line is recorded (`SeenID.userMask`); at most 64 are used.
    public var userIds: [String]

    public init(ids: RequestIDSet, windows: [(lo: Double, hi: Double)] = [], userIds: [String] = []) {
        self.ids = ids
        self.windows = windows
        self.userIds = userIds
    }
}

/// Bounds and knobs of a scan.
public struct ScanOptions: Sendable {
    /// Bytes read per call (and the scanning granularity).
    public var chunkBytes: Int = 1 << 20
    /// A longer line is skipped and counted (`LogFileSummary.longLines`).
    public var maxLineBytes: Int = 1 << 20
    /// Files (and segments of large plain files) scanned at once.
    public var workers: Int = ReadWorkers.count
    /// A plain file at least twice this size is split into segments scanned in parallel.
    public var segmentBytes: Int64 = 64 << 20
    /// Matching lines kept in all (the rest are counted in `LogScanResult.droppedLines`).
    public var maxServerLines: Int = 50_000
    /// Window ids kept in all (the rest are counted in `LogScanResult.droppedSeen`).
    public var maxSeen: Int = 200_000
    /// Bytes one gzip file may inflate to.
    public var maxInflatedBytes: Int64 = 1 << 40
    /// Seconds a named pipe given as a log may wait for a writer before it is reported unread.
    public var pipeWriterWait: Double = 30
    /// Files scanned in all.
    public var maxFiles: Int = 100_000
    /// Names a folder walk looks at (files, folders, links), as for an export's folder.
    public var maxEntries: Int = ReadLimits.default.maxEntries
    /// How lines are read: a forced format, the zone of naive times, the year of syslog times.
    public var read = LogReadOptions()
    /// Called from the scanning threads with the bytes of each chunk read (for a progress line).
    public var progress: (@Sendable (Int64) -> Void)?

    public init() {}
}

/// What scanning one log file found.
public struct LogFileSummary: Sendable, Equatable {
    /// The log file as found (`-` for standard input).
    public var file: String
    /// `plain`, `gzip`, or `stream` (standard input or a pipe; gzip or not).
    public var encoding: String
    /// The format detected on the first matching line (or forced by `--log-format`), when there is one.
    public var format: LogFormat?
    /// The earliest and latest server time among the lines whose time was read (those with a request id
    /// that were parsed or checked against a session window): the span the file covers.
    public var firstTs: Double?
    public var lastTs: Double?
    /// Bytes scanned (after decompression).
    public var bytes: Int64 = 0
    /// Lines scanned (an overlong one counts).
    public var lines = 0
    /// Lines carrying a wanted id.
    public var matchedLines = 0
    /// Lines over `ScanOptions.maxLineBytes`, skipped.
    public var longLines = 0
    /// Lowercase, names the file: why it was not read in full.
    public var error: String?
    /// Whether a line among the file's first (64 lines, 64 KiB) reads as a server log line (a known
    /// format places a time in it); nil when the file was not looked at first (a stream, read once).
    public var readsAsLog: Bool?
    /// Which of time, status and duration the lines with a wanted id gave (the others were never read
    /// from this file).
    public var fieldsRead: [LogField] = []
    /// The units the durations and times of those lines were read in.
    public var readUnits = ReadUnits()
    /// Set when the file's durations were read in another unit than its format's default, and why.
    public var durationUnitNote: String?
    /// What was joined without an id, in a file that holds none (`RequestLineJoin`).
    public var joinNote: String?
    /// The zone `correlate` took for those times when it read them in the zone the clocks' whole-hour
    /// gap says (no `--log-timezone` given), in seconds east of UTC.
    public var inferredOffset: Int?
}

/// The units a file's lines were read in: a misread unit (milliseconds taken for seconds) or a time
/// to the second shows before any verdict rests on it.
public struct ReadUnits: Sendable, Equatable {
    /// The units durations were read in (`s`, `ms`, `µs`, `ns`, `min`, `from two times`), in the order met.
    public var duration: [String] = []
    /// Lines whose time was a whole second, and lines whose time had a fraction.
    public var wholeSecondTimes = 0
    public var finerTimes = 0

    public init() {}

    /// Counts what one line gave.
    public mutating func add(_ p: ParsedLine) {
        if let u = p.durationUnit, !duration.contains(u), duration.count < 8 { duration.append(u) }
        if let t = p.ts { if t == t.rounded(.down) { wholeSecondTimes += 1 } else { finerTimes += 1 } }
    }

    public mutating func merge(_ o: ReadUnits) {
        for u in o.duration where !duration.contains(u) && duration.count < 8 { duration.append(u) }
        wholeSecondTimes += o.wholeSecondTimes
        finerTimes += o.finerTimes
    }

    /// Every time read was a whole second (the skew it gives is no finer than the spread of the
    /// requests in their seconds); nil when no time was read.
    public var timesToTheSecond: Bool? { wholeSecondTimes + finerTimes == 0 ? nil : finerTimes == 0 }

    /// `time (to the second)`, `duration (ms)`: how a field read is said, with its unit.
    public func describe(_ f: LogField) -> String {
        switch f {
        case .time: return timesToTheSecond == true ? "time (to the second)" : "time"
        case .status: return "status"
        case .duration: return duration.isEmpty ? "duration" : "duration (\(duration.joined(separator: ", ")))"
        }
    }
}

/// A field a server line's format may give.
public enum LogField: String, Sendable, Comparable, CaseIterable {
    case time, status, duration

    public static func < (a: LogField, b: LogField) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }
}

/// Everything a scan found, in file order.
public struct LogScanResult: Sendable {
    /// Every file scanned, in order.
    public var files: [LogFileSummary] = []
    /// Problems that are not one file's (a path that does not exist, a link skipped), naming the path.
    public var errors: [String] = []
    /// Matching lines in file order, then line order.
    public var lines: [ServerLine] = []
    /// Window ids in file order.
    public var seen: [SeenID] = []
    /// Matching lines past `ScanOptions.maxServerLines`, not kept.
    public var droppedLines = 0
    /// Window ids past `ScanOptions.maxSeen`, not kept.
    public var droppedSeen = 0

    /// Bytes scanned over all files.
    public var bytes: Int64 { files.reduce(0) { $0 + $1.bytes } }
    /// Lines scanned over all files.
    public var lineCount: Int { files.reduce(0) { $0 + $1.lines } }
    /// Every error, per file and not.
    public var allErrors: [String] { errors + files.compactMap(\.error) }
    /// Whether any server log line was read: a file whose first lines read as a log, or any line
    /// carrying a wanted id. Without one, the server's side was not checked.
    public var serverSideRead: Bool { files.contains { ($0.readsAsLog ?? ($0.lines > 0)) || $0.matchedLines > 0 } }
}
