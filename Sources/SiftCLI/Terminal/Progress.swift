import Foundation
import SiftCore

/// A one-line progress report on standard error (inputs, bytes, records), drawn only when enabled
/// (standard error is a terminal and not `--quiet`), redrawn at most every `interval`, and cleared
/// when reading ends. It listens to the read as an `Analysis`, so every command gets it by passing
/// it to `ExportReader.read(inputs:analyses:)`.
public final class Progress: Analysis {
    public let enabled: Bool
    private let io: CommandIO
    private let interval: Double
    private let now: () -> Double
    private var lastDraw = -Double.infinity
    private var drawn = false
    private var sinceCheck = 0

    package private(set) var inputs = 0
    package private(set) var bytes: Int64 = 0
    package private(set) var records = 0
    private var currentSessionBytes: Int64 = 0
    /// Inputs known to wait after the current one (the reader says so before each input).
    public var waiting = 0
    /// When the first input began (the clock's scale).
    private var started: Double?

    /// `clock` is seconds on any monotonic scale (tests pass their own).
    public init(io: CommandIO, enabled: Bool, interval: Double = 0.1, clock: (() -> Double)? = nil) {
        self.io = io
        self.enabled = enabled
        self.interval = interval
        self.now = clock ?? { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    }

    /// Enabled per the resolved options: a terminal on standard error and not quiet.
    public convenience init(io: CommandIO, options: CommonOptions) {
        self.init(io: io, enabled: options.showProgress)
    }

    /// The line as drawn: `reading 1 input · 12.3 MiB · 45210 records`; with more than one input,
    /// `input 3 of 120 · 12.3 MiB · 45210 records · 4.1 MB/s · about 35 s left` (the time left from
    /// the inputs done so far).
    public var line: SafeText {
        let total = inputs + waiting
        guard total > 1 else { return "reading \(inputs) input\(inputs == 1 ? "" : "s") · \(bytes: bytes) · \(records) records" }
        var tail: SafeText = ""
        if let s = started {
            let elapsed = now() - s
            if elapsed > 0.5 {
                let rate = Double(bytes) / elapsed / 1e5
                let tenths = rate.isFinite && rate < 1e9 ? Int(rate) : 0
                tail = "\(tail) · \(tenths / 10).\(tenths % 10) MB/s"
                let done = inputs - 1
                if done > 0, waiting > 0 {
                    let left = elapsed / Double(done) * Double(waiting + 1)
                    if left.isFinite, left < 1e7 {
                        let secs = Int(left.rounded(.up))
                        tail = secs >= 120 ? "\(tail) · about \(secs / 60) min left" : "\(tail) · about \(secs) s left"
                    }
                }
            }
        }
        return "input \(inputs) of \(total) · \(bytes: bytes) · \(records) records\(tail)"
    }

    /// Redraws when enabled and the interval has passed (or `force`).
    public func tick(force: Bool = false) {
        guard enabled else { return }
        let t = now()
        guard force || t - lastDraw >= interval else { return }
        lastDraw = t
        drawn = true
        io.err("\r\u{1B}[K\(line)")
    }

    /// Erases the line, if one was drawn.
    public func clear() {
        guard enabled, drawn else { return }
        io.err("\r\u{1B}[K")
        drawn = false
    }

    public func beginInput(_ input: InputContext) {
        if started == nil { started = now() }
        inputs += 1
        tick(force: true)
    }

    /// An input read elsewhere (a batch's worker): counted when its result is handed over.
    public func inputRead(records: Int, bytes: Int64) {
        if started == nil { started = now() }
        inputs += 1
        self.records += records
        self.bytes += bytes
        tick()
    }

    public func beginSession(_ session: SessionContext) { currentSessionBytes = 0 }

    public func record(_ record: Record, session: SessionContext) {
        records += 1
        bytes += session.bytes - currentSessionBytes
        currentSessionBytes = session.bytes
        sinceCheck += 1
        if sinceCheck >= 1024 {
            sinceCheck = 0
            tick()
        }
    }

    public func endSession(_ session: SessionContext) {
        bytes += session.bytes - currentSessionBytes
        currentSessionBytes = 0
        tick()
    }

    public func blob(_ blob: BlobContent) {
        bytes += blob.size
        tick()
    }

    /// Only a blob's size is counted.
    public var needsBlobHash: Bool { false }

    public func finish() -> [Finding] {
        clear()
        return []
    }
}
