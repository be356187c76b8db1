import Foundation
import SiftArchive

/// The kind of a session-file line, from its `type` field.
public enum RecordType: Sendable, Equatable, Hashable {
    case session, network, log, event, frame
    /// A newer record kind this version does not know: kept and counted, never a failure.
    case other(String)

    public init(_ name: String) {
        var name = name
        self = name.withUTF8 { RecordType(utf8: $0) }
    }

    /// The kind named by the UTF-8 bytes `name` (valid UTF-8).
    init(utf8 name: UnsafeBufferPointer<UInt8>) {
        @inline(__always) func named(_ s: StaticString) -> Bool {
            s.utf8CodeUnitCount == name.count && memcmp(s.utf8Start, name.baseAddress!, name.count) == 0
        }
        switch name.count {
        case 7 where named("session"): self = .session
        case 7 where named("network"): self = .network
        case 3 where named("log"): self = .log
        case 5 where named("event"): self = .event
        case 5 where named("frame"): self = .frame
        default: self = .other(String(decoding: name, as: UTF8.self))
        }
    }

    /// The key used in record counts: `network`, `log`, `event`, `frame`, `unknown`.
    public var countKey: String {
        switch self {
        case .session: "session"
        case .network: "network"
        case .log: "log"
        case .event: "event"
        case .frame: "frame"
        case .other: "unknown"
        }
    }
}

/// One parsed line of a session file.
public struct Record: Sendable {
    /// 1-based line number in the session file (for stdin: in the stream).
    public let line: Int
    /// The record's place among those that share its line (a HAR written on one line holds every
    /// entry on line 1): with `line`, the record's identity in its file. 0 for a line's only record.
    public var ordinal = 0
    public let type: RecordType
    /// The raw `type` string.
    public var typeName: String { json["type"]?.string ?? "" }
    public let seq: Int?
    /// `ts` in seconds since 1970, when it parses as RFC 3339.
    public let ts: Double?
    public var tsText: String? { json["ts"]?.string }
    /// The whole line as parsed JSON (an object).
    public let json: JSONValue

    /// Read on the tape: no string is made for `type` and `ts` (a record is made for every line of
    /// every session file, on the parsing threads).
    public init(line: Int, json: JSONValue) {
        self.line = line
        self.json = json
        let root = json.tapeIndex
        (type, seq, ts) = json.doc.withTape { t in
            let type = t.member(root, "type").map { i in t.withStringUTF8(i) { RecordType(utf8: $0) } } ?? .other("")
            let seq = t.member(root, "seq").flatMap(t.int)
            // A non-string `ts` reads as no bytes, which parse as no time.
            let ts = t.member(root, "ts").flatMap { i in t.withStringUTF8(i) { Timestamp.parse(bytes: $0) } }
            return (type, seq, ts)
        }
    }

    /// The record's `id` (network records).
    public var id: String? { json["id"]?.string }

    /// A record mapped from input that held a name twice in one object (a HAR entry): each such
    /// name with its place, and the record mapped once more per later copy, so every copy is
    /// checked (`verify.duplicate-key`). Empty for most records.
    public var duplicateNames: [DuplicateName] = []
    public var copies: [JSONValue] = []
}

extension Record {
    /// The string at `path` in this record, as analyses hold and show it: whole up to
    /// `SessionContext.heldNameBytes`, else cut in the middle (`SessionContext.heldName`). For the
    /// header's texts (session id, user id, environment, app, SDK and device facts) that a session
    /// or finding keeps for the whole run: ten thousand headers of 20 KB ids are then not held whole.
    /// The record itself stays whole for the checks that must see every byte (`verify`).
    public func heldText(_ path: String...) -> String? { Record.heldText(json, path) }

    /// `heldText` of any parsed value (a header held by its session).
    public static func heldText(_ json: JSONValue, _ path: String...) -> String? { heldText(json, path) }

    static func heldText(_ json: JSONValue, _ path: [String]) -> String? {
        var v: JSONValue? = json
        for p in path { v = v?[p] }
        return v?.string.map(SessionContext.heldName)
    }
}

/// A member name held more than once in one object of the input, where it stands.
public struct DuplicateName: Sendable, Hashable {
    /// The object's place (`log.entries[3].request.headers[0]`).
    public var place: String
    public var name: String
    public var count: Int
    /// How many of the copies were mapped and checked: all of them, or the first few when the
    /// entry's later copies reached `JSONDocument.laterCopyBudget`.
    public var checked: Int
    public init(place: String, name: String, count: Int, checked: Int? = nil) {
        self.place = place
        self.name = name
        self.count = count
        self.checked = checked ?? count
    }
}

/// One input being read (a command-line argument).
public final class InputContext: @unchecked Sendable {
    /// The path as given on the command line (`-` for standard input).
    public let path: String
    package internal(set) var container: ContainerKind = .unknown
    public init(path: String) { self.path = path }
}

/// One session file being read. Fields fill in as the header and records arrive.
public final class SessionContext: @unchecked Sendable {
    public let input: InputContext
    /// The session file's name inside the input (`sessions/ses_….jsonl`), or `-` for stdin, as it is
    /// shown and held: a name longer than `SessionContext.heldNameBytes` is cut in the middle
    /// (`SessionContext.heldName`), since every finding and session an analysis keeps holds it.
    public let file: String
    /// The entry's name in full, for the checks that must see every byte of it (a credential in a
    /// file or folder name); not held past the file's reading.
    public let entryName: String
    /// The session root inside the input (the folder holding `sessions/`), `""` at the top.
    public let root: String
    /// Whether blob references can be resolved (false for a bare session file or stdin).
    public let blobsAvailable: Bool
    /// From the header, else from the file name; nil for stdin without a header. Held as
    /// `SessionContext.heldName` holds it: an id past `heldNameBytes` is cut in the middle, since every
    /// session, request and finding an analysis keeps holds it.
    package internal(set) var sessionId: String? {
        get { heldSessionId }
        set { heldSessionId = newValue.map(SessionContext.heldName) }
    }
    private var heldSessionId: String?
    /// The header record (line 1, `"type": "session"`), when present.
    package internal(set) var header: JSONValue?
    package internal(set) var launchedAt: Double?
    /// Earliest and latest record `ts`.
    package internal(set) var firstTs: Double?
    package internal(set) var lastTs: Double?
    /// Records after the header, by `RecordType.countKey`.
    package internal(set) var counts: [String: Int] = [:]
    /// Every record after the header, of any type.
    package internal(set) var recordCount = 0
    /// Lines that were not records (damaged, torn, too long, blank).
    package internal(set) var damagedLines = 0
    /// Mapped from a HAR file: its header is pbsift's, and names no user.
    package internal(set) var fromHAR = false
    package internal(set) var bytes: Int64 = 0

    package init(input: InputContext, file: String, root: String, blobsAvailable: Bool, sessionId: String? = nil) {
        self.input = input
        heldSessionId = sessionId.map(SessionContext.heldName)
        self.file = SessionContext.heldName(file)
        self.entryName = file
        self.root = root
        self.blobsAvailable = blobsAvailable
    }

    /// Names up to this many UTF-8 bytes are held whole.
    public static let heldNameBytes = 512

    /// `name` as analyses hold and show it: itself up to `heldNameBytes`, else its first and last
    /// 255 bytes or less (whole characters) around `…`. Fifty thousand entries of 4 KiB names are
    /// then not held whole by every session an analysis keeps; the leaf, where the session id is,
    /// stays readable.
    public static func heldName(_ name: String) -> String {
        guard name.utf8.count > heldNameBytes else { return name }
        let side = (heldNameBytes - 2) / 2
        var head = "", tail: [Unicode.Scalar] = []
        var n = 0
        for c in name.unicodeScalars {
            n += c.utf8.count
            if n > side { break }
            head.unicodeScalars.append(c)
        }
        n = 0
        for c in name.unicodeScalars.reversed() {
            n += c.utf8.count
            if n > side { break }
            tail.append(c)
        }
        var out = head + "…"
        out.unicodeScalars.append(contentsOf: tail.reversed())
        return out
    }

    /// The header's `userId` and `environmentRef`, as held (`Record.heldText`).
    public var userId: String? { header.flatMap { Record.heldText($0, "userId") } }
    public var environmentRef: String? { header.flatMap { Record.heldText($0, "environmentRef") } }

    /// A finding located in this session.
    public func finding(
        _ rule: RuleID, _ severity: Severity, line: Int? = nil, seq: Int? = nil, recordId: String? = nil,
        location: String? = nil, message: String, preview: String? = nil, fingerprint: String? = nil
    ) -> Finding {
        Finding(
            rule: rule, severity: severity, input: input.path, file: file, sessionId: sessionId, seq: seq, line: line,
            recordId: recordId, location: location, message: message, preview: preview, fingerprint: fingerprint)
    }

    /// One of the reader's own findings (`ReaderRule`), located in this session.
    func finding(
        _ rule: ReaderRule, _ severity: Severity, line: Int? = nil, seq: Int? = nil, recordId: String? = nil,
        location: String? = nil, message: String, preview: String? = nil, fingerprint: String? = nil
    ) -> Finding {
        finding(
            rule.id, severity, line: line, seq: seq, recordId: recordId, location: location,
            message: message, preview: preview, fingerprint: fingerprint)
    }

    /// One of the reader's own findings (`ReaderRule`), located at a record of this session.
    func finding(
        _ rule: ReaderRule, _ severity: Severity, record: Record, location: String? = nil, message: String,
        preview: String? = nil, fingerprint: String? = nil
    ) -> Finding {
        finding(
            rule.id, severity, record: record, location: location, message: message,
            preview: preview, fingerprint: fingerprint)
    }

    /// A finding located at a record of this session.
    public func finding(
        _ rule: RuleID, _ severity: Severity, record: Record, location: String? = nil, message: String,
        preview: String? = nil, fingerprint: String? = nil
    ) -> Finding {
        finding(
            rule, severity, line: record.line, seq: record.seq, recordId: record.id, location: location,
            message: message, preview: preview, fingerprint: fingerprint)
    }
}

/// One blob file (`blobs/<hh>/<hex>`) as read from an input, handed to analyses once.
public struct BlobContent: Sendable {
    public let input: String
    /// The session root the blob belongs to.
    public let root: String
    /// The entry name inside the input.
    public let file: String
    /// The blob's name: 64 hex digits when well-formed.
    public let name: String
    /// The bytes, up to `ReadLimits.maxBlobBytes`.
    public let bytes: [UInt8]
    /// Every byte that could be read (hashed in full, even past the buffer).
    public let size: Int64
    /// False when reading stopped early (damage, a bound) or the buffer could not hold it all.
    public let complete: Bool
    /// SHA-256 hex of every byte read; empty when no analysis of the read needs it
    /// (`Analysis.needsBlobHash`: the reader then checks the name against it on a worker).
    public let sha256: String
}

/// A listener on the one pass over an export. The reader calls these in order:
/// for each input `beginInput`; then, in archive order, `beginSession` / `record`… / `endSession`
/// for each session file and `blob` for each blob; then `endInput`. `finish` once at the end.
public protocol Analysis: AnyObject {
    func beginInput(_ input: InputContext)
    func beginSession(_ session: SessionContext)
    /// Every line that parsed as a JSON object, header included (`type == .session`).
    func record(_ record: Record, session: SessionContext)
    /// A line that is not a record (not JSON, not an object, cut short, nested too deep): its raw bytes.
    func damagedLine(_ bytes: [UInt8], line: Int, session: SessionContext)
    func endSession(_ session: SessionContext)
    func blob(_ blob: BlobContent)
    /// A piece of a file that is neither a session file nor a blob (notes, `export.json`, `store.json`,
    /// a `.bak`): its raw bytes, one line or at most 64 KiB at a time; `file.file` names it. Such
    /// files are read only when some analysis says `readsOtherFiles`.
    func otherText(_ bytes: [UInt8], line: Int, file: SessionContext)
    /// True when `otherText` wants the files that are neither session files nor blobs (default false).
    /// Such an analysis is also handed every entry's name (`entryName`).
    var readsOtherFiles: Bool { get }
    /// The name of an entry inside the input (`file.entryName`, in full: a session file, a blob, any other file), once
    /// per entry, before its content; only for analyses that say `readsOtherFiles`, and never for a bare
    /// file whose one entry is the input itself (its name is the user's own path).
    func entryName(_ file: SessionContext)
    /// True when `blob` needs `BlobContent.sha256` (default true). When no analysis of a read does, the
    /// reader hashes blobs on a worker, beside the session files, and checks their names when the
    /// input's walk ends.
    var needsBlobHash: Bool { get }
    func endInput(_ input: InputContext)
    /// The findings this analysis made, in any order.
    func finish() -> [Finding]
}

extension Analysis {
    public func beginInput(_ input: InputContext) {}
    public func beginSession(_ session: SessionContext) {}
    public func record(_ record: Record, session: SessionContext) {}
    public func damagedLine(_ bytes: [UInt8], line: Int, session: SessionContext) {}
    public func endSession(_ session: SessionContext) {}
    public func blob(_ blob: BlobContent) {}
    public func otherText(_ bytes: [UInt8], line: Int, file: SessionContext) {}
    public var readsOtherFiles: Bool { false }
    public func entryName(_ file: SessionContext) {}
    public var needsBlobHash: Bool { true }
    public func endInput(_ input: InputContext) {}
    public func finish() -> [Finding] { [] }
}
