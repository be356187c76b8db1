import Foundation
import SiftCore
import SiftVerify
import Synchronization

/// Set by SIGINT or SIGTERM during `verify --follow`: the stream ends where it is.
let followStopped = Atomic<Bool>(false)

/// `verify --follow`: records checked as they arrive — on standard input (`palbase debug tail
/// --follow --json | pbsift verify --follow -`) or appended to a file, followed across rotation —
/// each finding printed (and flushed) as soon as its record is checked. Nothing is kept between
/// records but counts, so memory is the same at the millionth record as at the first. The end of
/// the stream, Ctrl-C or SIGTERM gives the exit status of what was seen.
struct FollowVerify {
    let path: String
    let config: VerifyConfig
    let common: CommonOptions
    let io: CommandIO
    let maxLineBytes: Int

    /// Counts of what was seen.
    struct Seen {
        var records = 0
        var findings = 0
        var bySeverity: [Severity: Int] = [:]
        var notChecked = 0
        var worst: [Finding] = []
    }

    func run() throws -> ExitStatus {
        let stream = try FollowStream(path: path, io: io, quiet: common.quiet, maxLineBytes: maxLineBytes)
        let sink = try common.openOutput(io)
        var seen = Seen()
        let verifier = RecordVerifier(config: config)
        let redactor = Redactor.verify(config: config)
        func report(_ findings: [Finding]) {
            seen.records += 1
            guard !findings.isEmpty else { return }
            for f in redactor.apply(findings).value {
                seen.findings += 1
                seen.bySeverity[f.severity, default: 0] += 1
                if !seen.worst.contains(where: { $0.severity == f.severity }) { seen.worst.append(f) }
                sink.write(SafeText(escaped: redactor.text(Self.line(f, json: common.format == "json").untrusted)))
            }
            sink.flush()
        }
        let notChecked = stream.runRecords(
            { record, session in report(verifier.check(record, session: session)) },
            text: { bytes, line, session in report(verifier.checkText(bytes, line: line, session: session)) })
        seen.notChecked = notChecked
        if let failed = common.close(sink, io: io) { return failed }
        if !common.quiet {
            let parts = Severity.allCases.reversed().compactMap { s in seen.bySeverity[s].map { "\($0) \(s.rawValue)" } }
            let found =
                seen.findings == 0
                ? "no findings" : "\(seen.findings) finding\(seen.findings == 1 ? "" : "s") (\(parts.joined(separator: ", ")))"
            let unread = seen.notChecked > 0 ? "; \(seen.notChecked) line\(seen.notChecked == 1 ? "" : "s") not checked" : ""
            io.err(SafeText(program: "pbsift verify --follow: \(found) in \(seen.records) records\(unread)\n"))
        }
        return common.exitStatus(findings: seen.worst, incomplete: seen.notChecked > 0)
    }

    /// One finding on one line: text (severity, rule, where, what, the masked value) or a JSON object.
    static func line(_ f: Finding, json: Bool) -> String {
        if json { return f.json.render(pretty: false) + "\n" }
        var where_: [String] = []
        if let l = f.line { where_.append("line \(l)") }
        if let s = f.seq { where_.append("seq \(s)") }
        if let r = f.recordId { where_.append(r) }
        var s = f.severity.rawValue.uppercased().padding(toLength: 9, withPad: " ", startingAt: 0) + " " + f.rule
        s += "  " + where_.joined(separator: " · ")
        if let loc = f.location { s += "  " + loc }
        s += "  " + f.message
        if let p = f.preview { s += "  value " + p }
        if let fp = f.fingerprint { s += "  " + fp }
        return Escape.terminal(s) + "\n"
    }
}

/// The lines of a stream that may not end: standard input, or a file read as it grows and followed
/// when it is rotated (another file at its path) or cut. Lines past `maxLineBytes` are not held:
/// each is named on standard error and counted. SIGINT and SIGTERM end the stream where it is.
struct FollowStream {
    let path: String
    let io: CommandIO
    let quiet: Bool
    let maxLineBytes: Int
    let fd: Int32

    init(path: String, io: CommandIO, quiet: Bool, maxLineBytes: Int) throws {
        self.path = path
        self.io = io
        self.quiet = quiet
        self.maxLineBytes = maxLineBytes
        if path == "-" {
            fd = 0
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw UsageError("cannot read: \(String(cString: strerror(errno)))", about: path) }
        }
    }

    /// Hands each complete line (without its newline) and its number to `line`, until the end of
    /// standard input or a pipe, or a stop signal; returns how many lines were too long to hold.
    func run(_ line: (ArraySlice<UInt8>, Int) -> Void) -> Int {
        // A parent may start us with these blocked (a signal mask is inherited): they end the stream.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        followStopped.store(false, ordering: .relaxed)
        signal(SIGINT) { _ in followStopped.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in followStopped.store(true, ordering: .relaxed) }
        defer {
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        var current = fd
        var pending: [UInt8] = []
        var lineNumber = 0
        var skipping = false
        var tooLong = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let isFile = path != "-" && Self.isRegular(fd)
        var offset: Int64 = 0
        while !followStopped.load(ordering: .relaxed) {
            var p = pollfd(fd: current, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 200)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 && !isFile { continue }
            let n = buffer.withUnsafeMutableBytes { read(current, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            if n == 0 {
                guard isFile else { break } // the end of standard input or a pipe
                // A file: wait for more, and follow it when it is rotated (a new file at the path) or cut.
                if Self.rotated(path, fd: current, offset: offset) {
                    close(current)
                    current = open(path, O_RDONLY | O_CLOEXEC)
                    if current < 0 { break }
                    offset = 0
                    pending = []
                    skipping = false
                    if !quiet { io.err("note: \(argument: path) was rotated or cut: following the new file\n") }
                }
                usleep(200_000)
                continue
            }
            offset += Int64(n)
            var start = 0
            let chunk = buffer[0..<n]
            while let nl = chunk[start...].firstIndex(of: 0x0A) {
                if skipping {
                    skipping = false
                } else if pending.isEmpty {
                    lineNumber += 1
                    line(chunk[start..<nl], lineNumber)
                } else {
                    pending += chunk[start..<nl]
                    lineNumber += 1
                    line(pending[...], lineNumber)
                    pending = []
                }
                start = nl + 1
            }
            if !skipping {
                pending += chunk[start...]
                if pending.count > maxLineBytes {
                    // A line past the bound is not held: it is named, not read, and counted.
                    lineNumber += 1
                    tooLong += 1
                    io.err("pbsift: \(argument: path): line \(lineNumber) is longer than \(maxLineBytes) bytes: not checked\n")
                    pending = []
                    skipping = true
                }
            }
        }
        if !pending.isEmpty && !skipping {
            lineNumber += 1
            line(pending[...], lineNumber)
        }
        if path != "-" && current >= 0 { close(current) }
        return tooLong
    }

    /// `run`, each line read as a record of its session (a header line begins a new one), or handed
    /// to `text` when it is not a JSON object (blank lines are skipped).
    func runRecords(_ record: (Record, SessionContext) -> Void, text: ([UInt8], Int, SessionContext) -> Void = { _, _, _ in }) -> Int {
        var session = SessionContext(input: InputContext(path: path), file: path, root: "", blobsAvailable: false)
        return run { line, number in
            var bytes = Array(line)
            if bytes.last == 0x0D { bytes.removeLast() }
            guard !bytes.isEmpty else { return }
            guard let doc = try? JSONDocument(bytes: bytes, maxDepth: 128), doc.root.isObject else {
                text(bytes, number, session)
                return
            }
            let r = Record(line: number, json: doc.root)
            if r.type == .session {
                session = SessionContext(
                    input: InputContext(path: path), file: path, root: "", blobsAvailable: false, sessionId: doc.root["sessionId"]?.string)
            }
            record(r, session)
        }
    }

    static func isRegular(_ fd: Int32) -> Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether the file at `path` is no longer the one open (another inode: rotated) or is shorter
    /// than what was read (cut).
    static func rotated(_ path: String, fd: Int32, offset: Int64) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(path, &a) == 0, fstat(fd, &b) == 0 else { return false }
        return a.st_ino != b.st_ino || a.st_dev != b.st_dev || Int64(a.st_size) < offset
    }
}
