import Foundation
import SiftArchive

/// The SDK's limits (SESSION-FORMAT.md §4).
public enum FormatLimits {
    public static let inlineBody = 32_768
    public static let storedBody = 5_242_880
    public static let storeBudget: Int64 = 134_217_728
}

/// Reads every input once and hands each session record and blob to every analysis, checking the
/// export's integrity on the way: every line is accounted for as a record, an unknown record, or
/// a damaged line with its number.
public final class ExportReader {
    public let limits: ReadLimits
    /// Asked between lines; when it answers true, reading stops (a closed pipe: `| head`).
    public var shouldStop: @Sendable () -> Bool = { false }
    /// Told, before each input is read, how many inputs wait after it (exports found in a folder
    /// join the queue as they are found): the progress line's "input 3 of 120".
    public var remaining: ((Int) -> Void)?
    /// The header whose value is a HAR entry's request id (`correlate --request-id-header`).
    public var requestIdHeader = "X-Request-Id"
    /// Which sessions (by id) the outcome lists and counts (`--session`); every one by default.
    public var keepsSession: @Sendable (String?) -> Bool = { _ in true }
    /// Which inputs are in this run's share (`--shard`), by key (`shareKey`); every one when nil. An
    /// input left out is still read when it is a folder (to find the exports in it), but nothing of
    /// it is reported.
    public var inShare: ((String) -> Bool)? = nil
    /// Sessions listed in full at most (`ReadOutcome.maxListedSessions`).
    public var maxListedSessions = ReadOutcome.maxListedSessions

    public init(limits: ReadLimits = .default) {
        self.limits = limits
    }

    /// Reads `inputs` in order (each a path or `-`), calling `analyses`, and returns the outcome with
    /// every finding (the reader's and the analyses') in report order.
    public func read(inputs: [String], analyses: [any Analysis]) -> ReadOutcome {
        var outcome = ReadOutcome()
        var findings: [Finding] = []
        var queue = inputs.map { (path: $0, root: $0) }[...]
        while let (path, root) = queue.popFirst(), !shouldStop() {
            remaining?(queue.count)
            let wanted = inShare?(ExportReader.shareKey(path, root: root)) ?? true
            if !wanted && !ExportReader.isFolder(path) { continue }
            let pass = self.pass(path, analyses: wanted ? analyses : [])
            if !wanted {
                // A folder outside the share: read for the exports in it only.
                _ = pass.run()
                queue.insert(contentsOf: pass.facts.nestedExports.map { ($0, root) }, at: queue.startIndex)
                continue
            }
            pass.ledger.room = max(0, maxListedSessions - outcome.sessions.count)
            pass.ledger.firstIds = outcome.firstSessionIds
            let (summary, sessions, blobs, found) = pass.run()
            outcome.inputs.append(summary)
            outcome.sessions += sessions
            outcome.sessionCount += pass.ledger.counted
            outcome.recordCount += pass.ledger.records
            outcome.firstSessionIds = pass.ledger.firstIds
            if pass.ledger.counted > sessions.count && outcome.sessionsNotListed == pass.ledger.counted - sessions.count {
                // The first input past the bound says so, once.
                findings.append(
                    Finding(
                        rule: ReaderRule.sessionsNotListed.id, severity: .info, input: path,
                        message:
                            "more than \(maxListedSessions) sessions: the first \(maxListedSessions) are listed, the rest only counted in the totals (every session was read and checked)"
                    ))
            }
            outcome.blobs[path] = blobs
            findings += found
            // Exports in a folder of exports are inputs of their own, read right after it.
            queue.insert(contentsOf: pass.facts.nestedExports.map { ($0, root) }, at: queue.startIndex)
        }
        // Each input's own findings are already bounded; the analyses' are bounded the same way here.
        var fromAnalyses = FindingTally()
        for a in analyses { fromAnalyses += a.finish() }
        findings += fromAnalyses.findings
        outcome.findings = findings.sorted(by: Finding.reportOrder)
        return outcome
    }
}

extension ExportReader {
    /// What `readEach` hands over of one input: the reader's part, and what `work` made of it.
    public struct EachInput<T> {
        public var inputs: [InputSummary]
        public var sessionCount: Int
        public var firstSessionIds: [String]
        public var value: T
    }

    /// Reads `inputs` input by input, as `read(inputs:analyses:)` does, but never holds more than a
    /// few inputs' results: each input is read on one of `lanes` worker threads with that lane's
    /// analyses (`analyses(lane)`, asked before each input; their `finish()` findings join the
    /// input's outcome), `work` turns the outcome into what the caller keeps of it (on the lane),
    /// and `emit` gets the inputs' results on the calling thread, in input order, as soon as each
    /// and those before it are done. Memory does not grow with the number of inputs. A folder is
    /// read on the calling thread (lane `lanes`), the exports found in it read right after it, in
    /// order; with `lanes` 0 every input is read there (lane 0; a folder, lane 1). An input outside
    /// the share (`inShare`) is never handed over; a folder outside it is still read, to find the
    /// exports in it.
    public func readEach<T>(
        inputs: [String], lanes requested: Int, analyses: @escaping @Sendable (Int) -> [any Analysis],
        work: @escaping @Sendable (ReadOutcome, Int) -> T, emit: (EachInput<T>) -> Void
    ) {
        let lanes = max(1, requested)
        let inline = requested <= 0
        let queues = (0..<lanes).map { DispatchQueue(label: "pbsift.input.\($0)") }
        let state = EachState<T>(lanes: lanes)
        let group = DispatchGroup()
        var queue = inputs.map { (path: $0, root: $0) }[...]
        var seq = 0
        /// Hands over every result that is next in order.
        func drain() {
            while let r = state.take() { emit(r) }
        }
        /// Waits, handing results over, until `ready` holds.
        func wait(until ready: () -> Bool) {
            while true {
                let seen = state.generation
                drain()
                if ready() { return }
                state.waitForChange(since: seen)
            }
        }
        while let (path, root) = queue.popFirst(), !shouldStop() {
            remaining?(queue.count)
            let wanted = inShare?(ExportReader.shareKey(path, root: root)) ?? true
            let folder = ExportReader.isFolder(path)
            if !wanted && !folder { continue }
            if folder || inline {
                // Read here: the exports found in a folder join the queue before anything after it.
                let lane = folder ? lanes : 0
                let (outcome, nested) = readOne(path, analyses: wanted ? analyses(lane) : [])
                queue.insert(contentsOf: nested.map { ($0, root) }, at: queue.startIndex)
                if wanted {
                    state.put(seq, EachInput(outcome, value: work(outcome, lane)))
                    seq += 1
                }
                drain()
                continue
            }
            // At most a few results wait for an earlier one: a slow input never lets the rest pile up.
            let mine = seq
            wait { state.hasFreeLane && mine - state.nextToEmit < 4 * lanes }
            let lane = state.takeLane()
            seq += 1
            // Read-only on the lanes: limits, the share and the session choice, the stop question.
            let reader = LaneShared(self)
            group.enter()
            queues[lane].async {
                let (outcome, _) = reader.value.readOne(path, analyses: analyses(lane))
                state.put(mine, EachInput(outcome, value: work(outcome, lane)))
                state.giveBack(lane)
                group.leave()
            }
        }
        wait { state.nextToEmit == seq }
        group.wait()
    }

    /// One input read with `analyses`: its outcome (the analyses' findings in it) and the exports found in it.
    func readOne(_ path: String, analyses: [any Analysis]) -> (ReadOutcome, [String]) {
        let pass = self.pass(path, analyses: analyses)
        pass.ledger.room = maxListedSessions
        let (summary, sessions, blobs, found) = pass.run()
        var findings = found
        var fromAnalyses = FindingTally()
        for a in analyses { fromAnalyses += a.finish() }
        findings += fromAnalyses.findings
        var outcome = ReadOutcome()
        outcome.inputs = [summary]
        outcome.sessions = sessions
        outcome.sessionCount = pass.ledger.counted
        outcome.recordCount = pass.ledger.records
        outcome.firstSessionIds = pass.ledger.firstIds
        outcome.blobs[path] = blobs
        outcome.findings = findings.sorted(by: Finding.reportOrder)
        return (outcome, pass.facts.nestedExports)
    }

    /// A pass over one input with this reader's limits, stop question, request-id header and choice of sessions.
    func pass(_ path: String, analyses: [any Analysis]) -> InputPass {
        let pass = InputPass(path: path, limits: limits, analyses: analyses)
        pass.shouldStop = shouldStop
        pass.requestIdHeader = requestIdHeader
        pass.ledger.keeps = keepsSession
        return pass
    }

    /// The key an input is shared out by (`inShare`): the last part of the argument it was found
    /// under (`root`), followed, for an export found in a folder, by its path inside that argument.
    /// `/data/exports` and `./exports` give the same keys, so machines that mount the same folder in
    /// different places share it out the same way.
    public static func shareKey(_ path: String, root: String) -> String {
        var trimmed = root
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let name = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
        guard path != root, path.hasPrefix(trimmed) else { return name }
        return name + path.dropFirst(trimmed.count)
    }

    /// Whether `path` names a folder, as the walk decides it (`PathBytes.isDirectory`: a link
    /// followed, the name's own bytes): a folder is read on the calling thread, so the exports found
    /// in it join the queue.
    static func isFolder(_ path: String) -> Bool { path != "-" && PathBytes.isDirectory(path) }
}

/// What one input turned out to hold, as its reading goes.
struct InputFacts {
    /// Session headers and records of a known type: none means the input is not a Palbe export.
    var palbeRecords = 0
    /// Entries (files) the walk handed over, and those read as session files.
    var entries = 0
    var sessionFiles = 0
    /// The first bytes of the first session file, to say what an input without records looks like.
    var head: [UInt8]?
    /// Archives found in a folder input, read next as inputs of their own.
    var nestedExports: [String] = []
    var isFolder = false
    /// A HAR document was read (the input's container is then `har` when it is a bare file).
    var sawHAR = false
    /// HAR entries met, and the network records made of them, over every HAR in the input.
    var harEntries = 0
    var harRecords = 0
}

/// The sessions of one input: those listed (at most `room`), and every one counted (`keeps` chooses).
struct SessionLedger {
    var listed: [SessionSummary] = []
    var room = Int.max
    var counted = 0
    var records = 0
    var firstIds: [String] = []
    var keeps: @Sendable (String?) -> Bool = { _ in true }
}

/// The blobs of one input and the references to them, resolved when its walk ends.
struct BlobLedger {
    var refs: [InputPass.BlobRef] = []
    /// References past `InputPass.maxBlobRefs`, counted, not kept.
    var refsDropped = 0
    var seen: [String: [String: InputPass.BlobSeen]] = [:] // root -> hex -> blob
    var roots: [String: InputPass.RootInfo] = [:]
    /// The blobs read so far, in read order, whose names are checked when the walk ends.
    var checks: [InputPass.BlobCheck] = []
}

/// The state of reading one input: the reader's findings and errors, and its three ledgers.
final class InputPass {
    struct BlobRef {
        var root: String
        var hex: String
        var session: SessionContext
        var line: Int
        var seq: Int?
        var recordId: String?
        var location: String
        var storedSize: Int?
    }
    struct BlobSeen {
        var file: String
        var size: Int64
    }
    struct RootInfo {
        var bytes: Int64 = 0
        var budget: Int64 = FormatLimits.storeBudget
    }

    let input: InputContext
    let limits: ReadLimits
    let analyses: [any Analysis]
    var findings = FindingTally()
    var errors = BoundedMessages()
    var partial = false
    /// What the input turned out to hold.
    var facts = InputFacts()
    /// The sessions met: listed, counted, chosen.
    var ledger = SessionLedger()
    /// The blobs met and the references to them, checked when the walk ends.
    var blobs = BlobLedger()
    /// Blob references kept for the checks at the end of the input; past this, the rest are counted.
    static let maxBlobRefs = 200_000
    var shouldStop: @Sendable () -> Bool = { false }
    var requestIdHeader = "X-Request-Id"
    /// Texts of entries' gzip headers (`headerTexts(of:)`), and their bytes.
    var containerTexts: [ContainerText] = []
    var containerTextBytes = 0
    static let maxContainerTextBytes = 16 << 20

    /// `.zip`, `.tar`, `.tar.gz`, `.tgz`: an export packed inside the input.
    static func isArchiveName(_ name: String) -> Bool {
        let n = name.lowercased()
        return n.hasSuffix(".zip") || n.hasSuffix(".tar") || n.hasSuffix(".tar.gz") || n.hasSuffix(".tgz")
    }

    /// A blob whose name is checked against its hash when the walk ends (`checkBlobNames`), the hash
    /// made on a worker meanwhile.
    final class BlobCheck: @unchecked Sendable { // `sha` is written by one worker, read after `blobHashing.wait()`
        let file: String
        let name: String
        let wellFormed: Bool
        let complete: Bool
        var sha: String?
        init(file: String, name: String, wellFormed: Bool, complete: Bool) {
            self.file = file
            self.name = name
            self.wellFormed = wellFormed
            self.complete = complete
        }
    }
    /// No analysis needs a blob's hash (`Analysis.needsBlobHash`), and there is a core to spare: blobs
    /// are hashed on workers, beside the session files, not in turn on the reader's thread.
    let hashesBlobsAside: Bool
    let blobHashing = DispatchGroup()
    /// Bytes of blobs waiting for a worker to hash them.
    let blobHashBudget = ByteBudget(limit: 64 << 20)

    init(path: String, limits: ReadLimits, analyses: [any Analysis]) {
        self.input = InputContext(path: path)
        self.limits = limits
        self.analyses = analyses
        hashesBlobsAside = ReadWorkers.count > 1 && !analyses.contains { $0.needsBlobHash }
    }

    func finding(_ rule: some RuleSet, _ severity: Severity, file: String?, message: String) {
        findings.append(Finding(rule: rule.id, severity: severity, input: input.path, file: file, message: message))
    }

    func run() -> (InputSummary, [SessionSummary], BlobSummary, [Finding]) {
        for a in analyses { a.beginInput(input) }
        facts.isFolder = input.path != "-" && PathBytes.isDirectory(input.path)
        let result = InputWalker.walk(path: input.path, limits: limits) { entry in self.visit(entry) }
        finishPendingSession()
        checkContainerTexts(result.texts + containerTexts)
        checkBlobNames()
        input.container = facts.sawHAR && [.jsonl, .jsonlGz, .stdin].contains(result.container) ? .har : result.container
        for issue in result.issues {
            let sev: Severity
            switch issue.problem {
            case .duplicateEntry, .unsupported, .linkSkipped: sev = .medium
            default: sev = .high
            }
            var msg = issue.message
            if let off = issue.offset, !msg.contains("byte"), !msg.contains("offset") { msg += " (at byte \(off))" }
            finding(issue.problem, sev, file: issue.entry, message: msg)
            // A bare file's one entry is the input itself: its messages need no entry name.
            let wholeInput = [.jsonl, .jsonlGz, .stdin].contains(result.container)
            if issue.problem.leavesInputPartial {
                if let entry = issue.entry, !msg.hasPrefix(entry), !wholeInput {
                    errors.append(entry + ": " + msg)
                } else {
                    errors.append(msg)
                }
            }
        }
        resolveBlobs(walkComplete: !result.isPartial, allLinesRead: !result.isPartial && !partial && blobs.refsDropped == 0)
        if blobs.refsDropped > 0 {
            errors.append("more than \(InputPass.maxBlobRefs) blob references; \(blobs.refsDropped) were not checked")
            partial = true
        }
        for a in analyses { a.endInput(input) }

        var status: InputStatus = result.unreadable ? .unreadable : (result.isPartial || partial ? .partial : .ok)
        if status == .ok, facts.palbeRecords == 0, facts.harRecords == 0, facts.nestedExports.isEmpty {
            // Nothing in it is a Palbe record or a HAR request: a verdict on it would be a verdict on nothing.
            let why =
                facts.sawHAR ? "no request to check (\(emptyHARReason()))" : "not a Palbe export (\(notAnExportReason(result.container)))"
            finding(ArchiveProblem.unreadable, .high, file: nil, message: why)
            errors.append(why)
            status = .unreadable
        }
        let summary = InputSummary(path: input.path, container: input.container, status: status, errors: errors.all)
        var blobSummary = BlobSummary()
        for (_, blobs) in blobs.seen {
            blobSummary.count += blobs.count
            for (_, b) in blobs { blobSummary.bytes += b.size }
        }
        var distinct = Set<String>()
        var distinctBytes: Int64 = 0
        for r in blobs.refs {
            guard let b = blobs.seen[r.root]?[r.hex] else { continue }
            blobSummary.references += 1
            blobSummary.referencedBytes += b.size
            if distinct.insert(r.root + "/" + r.hex).inserted { distinctBytes += b.size }
        }
        blobSummary.savedBytes = blobSummary.referencedBytes - distinctBytes
        return (summary, SessionSummary.inLaunchOrder(ledger.listed), blobSummary, findings.findings)
    }

    /// What an input holding no Palbe record looks like: `an empty folder`, `looks like a HAR file …`.
    /// Texts the containers carry (gzip header fields, tar pax records, zip extra fields), kept by
    /// the walker and by the gzip layers of entries, handed to the analyses that read other files as
    /// text of their own (`sessions/x.jsonl (gzip header comment)`), so none is left unchecked.
    func checkContainerTexts(_ texts: [ContainerText]) {
        guard analyses.contains(where: \.readsOtherFiles) else { return }
        for t in texts {
            let file = (t.entry ?? InputWalker.baseName(input.path)) + " (\(t.label))"
            let context = SessionContext(input: input, file: file, root: "", blobsAvailable: false)
            for a in analyses where a.readsOtherFiles { a.otherText(t.bytes, line: 1, file: context) }
        }
    }

    /// Where a gzip layer of `entry` hands its header's texts: kept for `checkContainerTexts`, at
    /// most `WalkState.maxTextBytes` of them; one longer than its bound makes the input partial.
    func headerTexts(of entry: ArchiveEntry) -> (String, Int, [UInt8], Bool) -> Void {
        { [unowned self] field, member, bytes, clipped in
            let label = member > 1 ? "\(field) of member \(member)" : field
            if clipped || self.containerTextBytes + bytes.count > InputPass.maxContainerTextBytes {
                let msg = "the \(label) is longer than the bound; the rest of it was not checked"
                self.finding(ArchiveProblem.unsupported, .high, file: entry.name, message: msg)
                self.errors.append("\(entry.name): \(msg)")
                self.partial = true
                if clipped == false { return }
            }
            self.containerTextBytes += bytes.count
            self.containerTexts.append(ContainerText(entry: entry.name, label: label, bytes: bytes))
        }
    }

    func notAnExportReason(_ container: ContainerKind) -> String {
        let kind: String
        switch container {
        case .folder: kind = "folder"
        case .zip: kind = "zip archive"
        case .tar, .tarGz: kind = "tar archive"
        default: kind = ""
        }
        if !kind.isEmpty {
            if facts.entries == 0 { return "an empty \(kind)" }
            if facts.sessionFiles == 0 { return "a \(kind) with no session file (sessions/*.jsonl)" }
            let first = facts.head.map { ExportClassifier.describe(ExportClassifier.kind(of: $0)) } ?? "empty"
            return "a \(kind) whose session files hold no Palbe record; the first one: \(first)"
        }
        return ExportClassifier.describe(ExportClassifier.kind(of: facts.head ?? []))
    }

    // MARK: entries

    enum EntryRole {
        case session(root: String, underSessions: Bool)
        case blob(root: String, hex: String)
        case store(root: String)
        case other
    }

    static func role(of name: String) -> EntryRole {
        let parts = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let last = parts.last else { return .other }
        if last.hasSuffix(".jsonl") || last.hasSuffix(".jsonl.gz") || name == "-" {
            if parts.count >= 2, parts[parts.count - 2] == "sessions" {
                return .session(root: parts.dropLast(2).joined(separator: "/"), underSessions: true)
            }
            return .session(root: parts.dropLast().joined(separator: "/"), underSessions: false)
        }
        if parts.count >= 3, parts[parts.count - 3] == "blobs" {
            return .blob(root: parts.dropLast(3).joined(separator: "/"), hex: last)
        }
        if last == "store.json" {
            return .store(root: parts.dropLast().joined(separator: "/"))
        }
        return .other
    }

    func visit(_ entry: ArchiveEntry) {
        facts.entries += 1
        // Names inside an input are data and can hold a credential: analyses that read every file get them.
        func announce() {
            if !entry.isWholeInput, analyses.contains(where: \.readsOtherFiles) {
                let file = SessionContext(input: input, file: entry.name, root: "", blobsAvailable: false)
                for a in analyses where a.readsOtherFiles { a.entryName(file) }
            }
        }
        // A bare file or standard input is one session file, whatever its name.
        let role: EntryRole =
            entry.isWholeInput
            ? .session(root: "", underSessions: false) : InputPass.role(of: entry.name)
        // A session file after one still being checked is read ahead (`readSession`); anything else
        // waits until the one before is ended.
        var ahead = false
        if case .session = role { ahead = pendingSession != nil }
        if !ahead {
            finishPendingSession()
            announce()
        }
        switch role {
        case .session(let root, let underSessions):
            // Sniff the bytes, not the name: a gzip'd session inside a folder or an archive (gzip in gzip too).
            let marker = ThrowMarker(entry.source)
            let source = Sniff.inflatingGzipLayers(marker, limit: limits.maxInputBytes, headerText: headerTexts(of: entry)).source
            facts.sessionFiles += 1
            let onError = readFailed(entry, marker)
            let sniffed = sniffHAR(entry: entry, source: source)
            if sniffed.isHAR {
                if ahead {
                    finishPendingSession()
                    announce()
                }
                readHAR(entry: entry, source: sniffed.source, onError: onError)
            } else {
                var source = sniffed.source
                if facts.head == nil {
                    // The first bytes, to say what the input looks like should no line be a Palbe record.
                    let first = PrefixedSource.peek(source, count: ExportClassifier.headBytes)
                    facts.head = first.peeked
                    source = first
                }
                readSession(
                    entry: entry, source: source, root: root, blobsAvailable: underSessions, onError: onError,
                    announce: ahead ? announce : {})
            }
        case .blob(let root, let hex):
            readBlob(entry: entry, root: root, hex: hex)
        case .store(let root):
            readStore(entry: entry, root: root)
        case .other where InputPass.isHARName(entry.name):
            // A HAR beside or inside an export: read when its bytes say HAR.
            let marker = ThrowMarker(entry.source)
            let source = Sniff.inflatingGzipLayers(marker, limit: limits.maxInputBytes, headerText: headerTexts(of: entry)).source
            let sniffed = sniffHAR(entry: entry, source: source)
            guard sniffed.isHAR else {
                guard analyses.contains(where: \.readsOtherFiles) else { break }
                readAsText(entry: entry, source: sniffed.source, root: "", onError: readFailed(entry, marker))
                break
            }
            readHAR(entry: entry, source: sniffed.source, onError: readFailed(entry, marker))
        case .other:
            guard InputPass.isArchiveName(entry.name), !entry.isWholeInput else {
                // Only an analysis that scans them needs their bytes (the walker skips or drains the rest).
                guard analyses.contains(where: \.readsOtherFiles) else { break }
                // A gzip'd file (`notes.txt.gz`) is read inflated: its compressed bytes hide its text.
                // Bytes compressed some other way (an archive under another name, zstd, xz…) can't
                // be read as text: said so, never passed as checked.
                let marker = ThrowMarker(entry.source)
                let peek = PrefixedSource.peek(marker, count: 4096)
                if !Sniff.isGzip(peek.peeked), let kind = Sniff.unsupportedCompression(peek.peeked) {
                    let msg = "holds \(kind) data, which is not read; extract it and pass it as an input"
                    finding(ArchiveProblem.unsupported, .medium, file: entry.name, message: msg)
                    errors.append("\(entry.name): \(msg)")
                    partial = true
                    break
                }
                var source = Sniff.inflatingGzipLayers(peek, limit: limits.maxInputBytes, headerText: headerTexts(of: entry)).source
                // A zlib stream (what zlib itself writes: `78 01`, `78 5e`, `78 9c`, `78 da`) is inflated too.
                let head = peek.peeked
                if head.count >= 2, head[0] == 0x78, [0x01, 0x5E, 0x9C, 0xDA].contains(head[1]),
                    let z = try? ZlibSource(wrapping: source, limit: limits.maxInputBytes)
                {
                    source = z
                } else if !Sniff.isGzip(head), InputPass.isBinary(head), InputPass.rawDeflateText(head),
                    let z = try? ZlibSource(wrapping: source, limit: limits.maxInputBytes, framing: .raw)
                {
                    // Raw deflate has no magic: binary bytes whose start inflates to text are that text.
                    source = z
                }
                readAsText(entry: entry, source: source, root: "", onError: readFailed(entry, marker))
                break
            }
            if facts.isFolder {
                // A folder's file: a path on disk (folder walks never follow links), read as its own input.
                facts.nestedExports.append((input.path.hasSuffix("/") ? input.path : input.path + "/") + entry.name)
            } else {
                let msg = "an archive inside an archive is not read; extract it and pass it as an input"
                finding(ArchiveProblem.unsupported, .medium, file: entry.name, message: msg)
                errors.append("\(entry.name): \(msg)")
                partial = true
            }
        }
    }

    /// Whether `head` looks binary: control bytes other than white space (more than 3 % of it), or
    /// bytes that are not UTF-8 (the last few may be a character cut by the peek).
    static func isBinary(_ head: [UInt8]) -> Bool {
        guard !head.isEmpty else { return false }
        let control = head.reduce(0) { $0 + (($1 < 0x09 || ($1 > 0x0D && $1 < 0x20)) ? 1 : 0) }
        return control * 100 > head.count * 3 || String(validating: head.dropLast(min(3, head.count)), as: UTF8.self) == nil
    }

    /// Whether `head` starts a raw deflate stream that inflates to text (16 bytes or more, at least 85 %
    /// printable).
    static func rawDeflateText(_ head: [UInt8]) -> Bool {
        guard let d = head.withUnsafeBufferPointer({ Deflate.inflate($0, framing: .raw, limit: 4096) }), d.bytes.count >= 16 else {
            return false
        }
        let printable = d.bytes.reduce(0) {
            $0 + (($1 >= 0x20 && $1 < 0x7F) || $1 == 0x09 || $1 == 0x0A || $1 == 0x0D || $1 >= 0x80 ? 1 : 0)
        }
        return printable * 100 >= d.bytes.count * 85
    }

    func readStore(entry: ArchiveEntry, root: String) {
        let marker = ThrowMarker(entry.source)
        guard let bytes = readAsText(entry: entry, source: marker, root: root, keep: 1 << 20, onError: readFailed(entry, marker)),
            let doc = try? JSONDocument(bytes: bytes, maxDepth: 16),
            let budget = doc.root["budgetBytes"]?.int, budget > 0
        else { return }
        blobs.roots[root, default: RootInfo()].budget = Int64(budget)
    }

    /// Hands a file that is neither a session file nor a blob to the analyses as text, a line at a time
    /// (a line over 64 KiB in pieces cut after a space where there is one), never holding more than
    /// one piece and one chunk. Returns the file's bytes when `keep` is above 0 and the file is no longer
    /// (nil when reading failed). A read error ends the file: what was read is handed over, and the
    /// error goes to `onError`.
    @discardableResult
    func readAsText(
        entry: ArchiveEntry, source: ByteSource, root: String, keep: Int = 0,
        onError: (Error) -> Void
    ) -> [UInt8]? {
        let file = SessionContext(input: input, file: entry.name, root: root, blobsAvailable: false)
        let piece = 64 << 10
        let overlap = 4 << 10
        var kept: [UInt8] = []
        var keeping = keep > 0
        var pending: [UInt8] = []
        var line = 1
        var buf = [UInt8](repeating: 0, count: 64 << 10)
        func emit(_ bytes: ArraySlice<UInt8>) {
            guard !bytes.isEmpty else { return }
            let copy = Array(bytes)
            for a in analyses { a.otherText(copy, line: line, file: file) }
        }
        while !shouldStop() {
            let n: Int
            do {
                n = try buf.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch {
                onError(error)
                keeping = false
                break
            }
            if n == 0 { break }
            if keeping {
                if kept.count + n <= keep { kept += buf[0..<n] } else { keeping = false; kept = [] }
            }
            pending += buf[0..<n]
            var start = 0
            while start < pending.count {
                if let nl = pending[start...].firstIndex(of: 0x0A) {
                    emit(pending[start..<nl])
                    line += 1
                    start = nl + 1
                } else if pending.count - start >= piece {
                    let window = pending[start..<(start + piece)]
                    if let space = window.lastIndex(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                        emit(pending[start...space])
                        start = space + 1
                    } else {
                        // No white space to cut at: the next piece starts `overlap` bytes back, so a
                        // credential across the cut is whole in one of them (one in the overlap may
                        // be reported twice, never missed).
                        emit(pending[start..<(start + piece)])
                        start += piece - overlap
                    }
                } else {
                    break
                }
            }
            pending.removeFirst(start)
        }
        emit(pending[...])
        return keeping ? kept : nil
    }

    /// What a read error of `entry` does: a finding, and the input is partial (exit 2, `pbsift: PATH:
    /// reason`). What the entry's own source threw, the walker has recorded already (`marker`); what
    /// the readers stacked on it throw (an inflater, a HAR stream) is reported here.
    /// It holds the entry's name and the marker's flag, not the entry's source: a session file's
    /// last lines may be checked after the walk has moved on (`pendingSession`).
    func readFailed(_ entry: ArchiveEntry, _ marker: ThrowMarker) -> (Error) -> Void {
        let name = entry.name, wholeInput = entry.isWholeInput, flag = marker.flag
        return { error in
            guard !flag.threw else { return }
            let problem = (error as? ArchiveError)?.problem ?? .corrupt
            self.finding(problem, .high, file: name, message: "\(error)")
            if problem.leavesInputPartial {
                self.errors.append(wholeInput ? "\(error)" : "\(name): \(error)")
                self.partial = true
            }
        }
    }

    // MARK: sessions

    /// One session file being read: its context, the lines in flight and what the checks keep
    /// between lines. Held by the pass while the file's last lines wait (`pendingSession`).
    struct SessionRead {
        /// The entry's name (not the entry: its source may hold the walk, which goes on meanwhile).
        let name: String
        let s: SessionContext
        let root: String
        let blobsAvailable: Bool
        let idFromName: String?
        let lines: ParsedLines
        let onError: (Error) -> Void
        var checker = SequenceChecker()
        var began = false
        var unknownTypes: [String: (count: Int, first: Record)] = [:]
        var repeated: RepeatedFindings
    }

    /// The session file whose source is read to its end, but whose last lines (at most
    /// `ParsedLines.maxBatches` batches) are not checked yet: they are, and the file is ended, when the
    /// walk hands over the next entry, after the next session file has started reading (so its lines
    /// are read and parsed meanwhile), or when the walk ends. The analyses see the same calls in the
    /// same order either way.
    var pendingSession: SessionRead?

    /// Checks the last lines of the pending session file, if any, and ends it.
    func finishPendingSession() {
        guard var r = pendingSession else { return }
        pendingSession = nil
        _ = checkLines(&r, pauseWhenRead: false)
        endSession(&r)
    }

    func readSession(
        entry: ArchiveEntry, source: ByteSource, root: String, blobsAvailable: Bool,
        onError: @escaping (Error) -> Void, announce: () -> Void = {}
    ) {
        let s = SessionContext(input: input, file: entry.name, root: root, blobsAvailable: blobsAvailable)
        let fileName = entry.name.split(separator: "/").last.map(String.init) ?? entry.name
        let idFromName = fileName.hasPrefix("ses_") ? String(fileName.prefix { $0 != "." }) : nil
        s.sessionId = idFromName
        let lines = ParsedLines(
            reader: LineReader(source: source, maxLine: limits.maxLineBytes), maxDepth: limits.maxJSONDepth,
            maxValues: limits.maxJSONValues)
        // A session file still being checked: this one starts reading now, on a thread of its own,
        // and the one before is checked to its end while this one's first lines are parsed.
        let ahead = pendingSession != nil
        if ahead { lines.startAhead() }
        finishPendingSession()
        announce()
        var r = SessionRead(
            name: entry.name, s: s, root: root, blobsAvailable: blobsAvailable, idFromName: idFromName,
            lines: lines, onError: onError, repeated: RepeatedFindings(keep: findings.keep))
        if checkLines(&r, pauseWhenRead: true) {
            endSession(&r)
        } else {
            pendingSession = r
        }
    }

    /// Takes the lines of `r` and runs the checks and the analyses on each. With `pauseWhenRead`, stops
    /// where the source is read to its end and lines are left (`ParsedLines.pausesHere`), and returns
    /// false; true when every line was taken (or reading stopped).
    func checkLines(_ r: inout SessionRead, pauseWhenRead: Bool) -> Bool {
        let s = r.s, lines = r.lines, name = r.name, idFromName = r.idFromName, blobsAvailable = r.blobsAvailable
        /// A finding a line can repeat: built in full for the first of its rule, counted after.
        func note(
            _ rule: ReaderRule, _ severity: Severity, line: Int, record: Record? = nil, count: Int = 1,
            message: @autoclosure () -> String
        ) {
            r.repeated.note(rule, severity, line: line, seq: record?.seq, count: count, into: &findings) { n in
                if let record { return s.finding(rule, severity, record: record, message: message()) }
                return s.finding(rule, severity, line: n, message: message())
            }
        }
        func begin() {
            if !r.began {
                r.began = true
                for a in analyses { a.beginSession(s) }
            }
        }
        loop: while !shouldStop() {
            if pauseWhenRead && lines.pausesHere { return false }
            let item: ParsedLines.Item?
            do {
                item = try lines.next()
            } catch {
                // The lines before the damage were delivered; the rest of this file is lost.
                r.onError(error)
                break loop
            }
            guard let (event, parsed) = item else { break }
            switch event {
            case .blank(let number, let count):
                // Nothing to scan in them: the analyses never see blank lines.
                begin()
                s.damagedLines += count
                r.checker.damaged(count)
                note(ReaderRule.malformedLine, .low, line: number, count: count, message: "blank line")
            case .tooLong(let number, let bytes):
                begin()
                s.damagedLines += 1
                r.checker.damaged()
                partial = true
                errors.append("\(name): line \(number) is \(bytes) bytes, over the \(limits.maxLineBytes)-byte line limit; skipped")
                note(
                    ReaderRule.malformedLine, .medium, line: number,
                    message: "line of \(bytes) bytes is over the \(limits.maxLineBytes)-byte line limit; not read")
            case .line(let bytes, let number), .unterminated(let bytes, let number):
                var isLast = false
                if case .unterminated = event { isLast = true }
                let doc: JSONDocument
                var failure: JSONParseError?
                switch parsed {
                case .success(let d)?:
                    doc = d
                case .failure(let error)?:
                    failure = error
                    fallthrough
                case nil:
                    // nil: not JSON from its first byte on (`ParsedLines.cannotBeObject`); the parser's
                    // own message is only worked out for the findings built in full.
                    begin()
                    s.damagedLines += 1
                    r.checker.damaged()
                    let maxDepth = limits.maxJSONDepth
                    func error() -> JSONParseError { failure ?? ParsedLines.parseError(bytes, maxDepth: maxDepth) }
                    let reason = failure?.reason ?? .syntax
                    if isLast && reason != .tooMany {
                        findings.append(
                            s.finding(
                                ReaderRule.tornLine, .low, line: number,
                                message: "the last line is cut short (\(bytes.count) bytes, no newline): \(error().message)"))
                    } else if reason == .empty {
                        note(ReaderRule.malformedLine, .low, line: number, message: "blank line")
                    } else {
                        if reason == .tooDeep {
                            partial = true
                            errors.append("\(name): line \(number) nests deeper than \(limits.maxJSONDepth); skipped")
                        } else if reason == .tooMany {
                            partial = true
                            errors.append("\(name): line \(number) holds more than \(limits.maxJSONValues) JSON values; skipped")
                        }
                        note(
                            ReaderRule.malformedLine, .medium, line: number,
                            message: reason == .tooMany
                                ? "line holds more than \(limits.maxJSONValues) JSON values, over the limit; not read as a record"
                                : "line is not valid JSON: \(error().description)")
                    }
                    // White space only: nothing in it to scan.
                    if reason != .empty {
                        for a in analyses { a.damagedLine(bytes, line: number, session: s) }
                    }
                    continue loop
                }
                guard doc.root.isObject else {
                    begin()
                    s.damagedLines += 1
                    r.checker.damaged()
                    note(ReaderRule.malformedLine, .medium, line: number, message: "line is JSON but not an object")
                    for a in analyses { a.damagedLine(bytes, line: number, session: s) }
                    continue loop
                }
                s.bytes += Int64(bytes.count + 1)
                // Made on the thread that parsed the line (`ParsedLines.Prepared`).
                let prepared = lines.prepared
                let record = prepared?.record ?? Record(line: number, json: doc.root)
                if record.type == .session {
                    if s.header == nil && s.recordCount == 0 {
                        s.header = doc.root
                        facts.palbeRecords += 1
                        if let id = doc.root["sessionId"]?.string {
                            if let fromName = idFromName, fromName != id {
                                let id = SessionContext.heldName(id), fromName = SessionContext.heldName(fromName)
                                findings.append(
                                    s.finding(
                                        ReaderRule.sessionIdMismatch, .medium, line: number,
                                        message: "header says \(id) but the file is named \(fromName)"))
                            }
                            s.sessionId = id
                        }
                        s.launchedAt = doc.root["launchedAt"]?.string.flatMap(Timestamp.parse)
                        begin()
                        if let seq = record.seq, seq != 0 {
                            findings.append(
                                s.finding(
                                    ReaderRule.seqGap, .high, record: record,
                                    message: "session header has seq \(seq), not 0"))
                        }
                        r.checker.start(at: record.seq ?? 0)
                        for a in analyses { a.record(record, session: s) }
                        continue loop
                    }
                    // A second header is a record of a kind nothing else expects.
                }
                begin()
                // A session file must start with its header; a `debug tail --json` capture (stdin, or a
                // file not named like a session) has none by design.
                if s.header == nil && s.recordCount == 0 && number == 1 && (idFromName != nil || blobsAvailable) {
                    findings.append(
                        s.finding(
                            ReaderRule.missingHeader, .medium, line: number,
                            message: "the first line is not a session header (\"type\": \"session\")"))
                }
                s.recordCount += 1
                s.counts[record.type.countKey, default: 0] += 1
                if let t = record.ts {
                    s.firstTs = min(s.firstTs ?? t, t)
                    s.lastTs = max(s.lastTs ?? t, t)
                }
                if case .other = record.type {} else { facts.palbeRecords += 1 }
                if let problem = r.checker.check(record.seq) {
                    note(problem.rule, .high, line: number, record: record, message: problem.message)
                }
                switch record.type {
                case .frame:
                    note(
                        ReaderRule.frameInExport, .high, line: number, record: record,
                        message:
                            "a realtime frame record is in the export; frames must never leave the device (their bodies carry access tokens)"
                    )
                case .other(let name):
                    // A bounded number of names: each keeps its first record.
                    countUnknown(&r.unknownTypes, name, record)
                case .network:
                    checkBodies(record, s, bodies: prepared?.bodies)
                case .session:
                    countUnknown(&r.unknownTypes, "session", record)
                default:
                    break
                }
                for a in analyses { a.record(record, session: s) }
            }
        }
        return true
    }

    /// Ends the session file of `r`: its counted findings, its unknown record types, the analyses'
    /// `endSession`, and its place in the list.
    func endSession(_ r: inout SessionRead) {
        let s = r.s
        if !r.began {
            r.began = true
            for a in analyses { a.beginSession(s) }
        }
        r.lines.finish()
        r.repeated.flush(into: &findings)
        blobs.roots[r.root, default: RootInfo()].bytes += r.lines.bytesRead
        for (name, u) in r.unknownTypes.sorted(by: { $0.key < $1.key }) {
            let what =
                name.isEmpty
                ? "without a type"
                : (name == "session"
                    ? "of type 'session' after the header"
                    : name == "\u{0}more" ? "of 100 or more other unknown types" : "of unknown type '\(name)'")
            findings.append(
                s.finding(
                    ReaderRule.unknownRecordType, .info, record: u.first,
                    message: "\(u.count) record\(u.count == 1 ? "" : "s") \(what), kept and counted"))
        }
        for a in analyses { a.endSession(s) }
        list(s)
    }

    /// Counts a record of an unknown type under its name (past 100 names, under one for the rest),
    /// the first of each name kept: one lookup, and the count changed in place, never copying the
    /// record kept (a file of millions of `{}` lines spent most of its time there).
    private func countUnknown(_ types: inout [String: (count: Int, first: Record)], _ name: String, _ record: Record) {
        var i = types.index(forKey: name)
        var key = name
        if i == nil && types.count >= 100 {
            key = "\u{0}more"
            i = types.index(forKey: key)
        }
        if let i { types.values[i].count += 1 } else { types[key] = (1, record) }
    }

    /// `bodies`: `BodyShape.of(record)`, when already made.
    func checkBodies(_ record: Record, _ s: SessionContext, bodies: [BodyShape]? = nil) {
        for body in bodies ?? BodyShape.of(record) {
            switch body.content {
            case .none:
                break
            case .text(let n):
                if n > FormatLimits.inlineBody {
                    findings.append(
                        s.finding(
                            ReaderRule.inlineBodyTooLarge, .medium, record: record, location: body.location,
                            message: "inline body of \(n) bytes is over the SDK's \(FormatLimits.inlineBody)-byte limit"))
                }
                if let size = body.size, size != n {
                    findings.append(
                        s.finding(
                            ReaderRule.bodySizeMismatch, .medium, record: record, location: body.location,
                            message: "size says \(size) bytes but the inline text holds \(n)"))
                }
            case .base64(let count):
                guard let count else {
                    findings.append(
                        s.finding(
                            ReaderRule.bodySizeMismatch, .medium, record: record, location: body.location,
                            message: "base64 body data is not valid base64"))
                    continue
                }
                if count > FormatLimits.inlineBody {
                    findings.append(
                        s.finding(
                            ReaderRule.inlineBodyTooLarge, .medium, record: record, location: body.location,
                            message: "inline body of \(count) bytes is over the SDK's \(FormatLimits.inlineBody)-byte limit"))
                }
                if let size = body.size, size != count {
                    findings.append(
                        s.finding(
                            ReaderRule.bodySizeMismatch, .medium, record: record, location: body.location,
                            message: "size says \(size) bytes but the base64 data decodes to \(count)"))
                }
            case .blob(let hex, let reference, let storedSize, let truncated):
                guard let hex else {
                    findings.append(
                        s.finding(
                            ReaderRule.blobMissing, .medium, record: record, location: body.location,
                            message: "blob reference '\(Escape.terminal(String(reference.prefix(80))))' is not sha256:<64 hex digits>"))
                    continue
                }
                if let stored = storedSize, stored > FormatLimits.storedBody {
                    findings.append(
                        s.finding(
                            ReaderRule.storedBodyTooLarge, .medium, record: record, location: body.location,
                            message: "stored body of \(stored) bytes is over the SDK's \(FormatLimits.storedBody)-byte limit"))
                }
                if let size = body.size, let stored = storedSize {
                    if !truncated && size != stored {
                        findings.append(
                            s.finding(
                                ReaderRule.bodySizeMismatch, .medium, record: record, location: body.location,
                                message: "size \(size) and storedSize \(stored) differ on a body that is not truncated"))
                    } else if truncated && size < stored {
                        findings.append(
                            s.finding(
                                ReaderRule.bodySizeMismatch, .medium, record: record, location: body.location,
                                message: "a truncated body's true size \(size) is below its stored size \(stored)"))
                    }
                }
                guard blobs.refs.count < InputPass.maxBlobRefs else { blobs.refsDropped += 1; continue }
                blobs.refs.append(
                    BlobRef(
                        root: s.root, hex: hex, session: s, line: record.line, seq: record.seq,
                        recordId: record.id, location: body.location, storedSize: storedSize))
            case .invalid(let why):
                findings.append(
                    s.finding(
                        ReaderRule.bodySizeMismatch, .medium, record: record, location: body.location,
                        message: "body object is not one of the format's shapes: \(why)"))
            }
        }
    }

    /// Counts a finished session, and lists it while there is room (`sessionRoom`).
    func list(_ s: SessionContext) {
        if let id = s.sessionId, ledger.firstIds.count < 5 { ledger.firstIds.append(id) }
        guard ledger.keeps(s.sessionId) else { return }
        ledger.counted += 1
        ledger.records += s.recordCount
        if ledger.listed.count < ledger.room { ledger.listed.append(summary(of: s)) }
    }

    func summary(of s: SessionContext) -> SessionSummary {
        let h = s.header
        func text(_ path: String...) -> String? { h.flatMap { Record.heldText($0, path) } }
        return SessionSummary(
            sessionId: s.sessionId, input: input.path, file: s.file,
            app: (text("app", "bundleId"), text("app", "version"), text("app", "build")),
            sdk: (text("sdk", "name"), text("sdk", "version")),
            device: (
                text("device", "model"), text("device", "system"), text("device", "locale"),
                text("device", "timeZone")
            ),
            environmentRef: s.environmentRef, userId: s.userId, launchedAt: s.launchedAt,
            firstTs: s.firstTs, lastTs: s.lastTs, recordCount: s.recordCount, records: s.counts,
            damagedLines: s.damagedLines, hasHeader: h != nil, fromHAR: s.fromHAR)
    }
}

extension ExportReader.EachInput {
    init(_ outcome: ReadOutcome, value: T) {
        inputs = outcome.inputs
        sessionCount = outcome.sessionCount
        firstSessionIds = outcome.firstSessionIds
        self.value = value
    }
}

/// The lanes of `readEach` and the results waiting for their turn, under one lock.
private final class EachState<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var freeLanes: [Int]
    private var done: [Int: ExportReader.EachInput<T>] = [:]
    /// Read and changed on the calling thread only.
    private(set) var nextToEmit = 0
    /// Counts the lanes given back and results put: a change since a count was read wakes the caller.
    private var changes = 0

    init(lanes: Int) { freeLanes = Array((0..<lanes).reversed()) }

    var hasFreeLane: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !freeLanes.isEmpty
    }

    func takeLane() -> Int {
        condition.lock()
        defer { condition.unlock() }
        return freeLanes.removeLast()
    }

    func giveBack(_ lane: Int) {
        condition.lock()
        freeLanes.append(lane)
        changes += 1
        condition.broadcast()
        condition.unlock()
    }

    func put(_ seq: Int, _ r: ExportReader.EachInput<T>) {
        condition.lock()
        done[seq] = r
        changes += 1
        condition.broadcast()
        condition.unlock()
    }

    /// The next result in order, when it is done.
    func take() -> ExportReader.EachInput<T>? {
        condition.lock()
        defer { condition.unlock() }
        guard let r = done.removeValue(forKey: nextToEmit) else { return nil }
        nextToEmit += 1
        return r
    }

    var generation: Int {
        condition.lock()
        defer { condition.unlock() }
        return changes
    }

    /// Sleeps until a lane is given back or a result is put after `generation` read `seen`.
    func waitForChange(since seen: Int) {
        condition.lock()
        while changes == seen { condition.wait() }
        condition.unlock()
    }
}

/// What the calling thread hands a lane and never changes while the lanes run.
private struct LaneShared<V>: @unchecked Sendable {
    let value: V
    init(_ value: V) { self.value = value }
}
