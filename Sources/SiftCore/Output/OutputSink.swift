import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one place a report's bytes leave pbsift: standard output, the `-o` file, or (in tests)
/// memory. Buffered (64 KiB); every reporter and the JSON writer write here.
///
/// When the reader of standard output goes away (`| head`, EPIPE) the sink is `closed`: further
/// output is dropped and a long-running command stops producing it. Any other write error is kept
/// as `failure` (`pbsift: PATH: reason`, exit status 2) and later output is dropped too.
public final class OutputSink: @unchecked Sendable {
    /// Bytes held before they are written.
    public static let capacity = 1 << 16

    private enum Target {
        case fd(Int32)
        case file(OutputFile)
        case memory((String) -> Void)
    }

    private let target: Target
    /// What error messages call the destination: the `-o` path, or `standard output`.
    public let label: String
    private let buffered: Bool
    private var buffer: [UInt8] = []
    /// The first write error (EPIPE included); nil while every byte was written.
    private var errorCode: Int32?
    private var committed = false
    private var reported = false

    private init(target: Target, label: String, buffered: Bool) {
        self.target = target
        self.label = label
        self.buffered = buffered
        if buffered { buffer.reserveCapacity(OutputSink.capacity + 4096) }
    }

    /// A file descriptor (standard output, buffered; standard error, not).
    public static func descriptor(_ fd: Int32, label: String, buffered: Bool = true) -> OutputSink {
        OutputSink(target: .fd(fd), label: label, buffered: buffered)
    }

    /// Memory: every write is handed on at once (tests, and reports built as text).
    public static func memory(_ write: @escaping (String) -> Void) -> OutputSink {
        OutputSink(target: .memory(write), label: "memory", buffered: false)
    }

    /// Held in memory, to be written later to another sink (`replay(into:)`): a batch's worker renders
    /// an input's report here while the calling thread writes the inputs before it.
    public static func held() -> OutputSink {
        let box = HeldBytes()
        let sink = OutputSink(target: .memory { box.bytes += Array($0.utf8) }, label: "memory", buffered: false)
        sink.held = box
        return sink
    }

    /// Writes what a `held()` sink holds to `other`, and empties it.
    public func replay(into other: OutputSink) {
        guard let held, !held.bytes.isEmpty else { return }
        other.write(held.bytes)
        held.bytes = []
    }

    /// The bytes of a `held()` sink.
    private final class HeldBytes: @unchecked Sendable { var bytes: [UInt8] = [] }
    private var held: HeldBytes?

    /// The `-o` file (see `OutputFile`): a regular file is replaced whole by `finish()`.
    public static func file(path: String) throws(OutputFailure) -> OutputSink {
        OutputSink(target: .file(try OutputFile(path: path)), label: path, buffered: true)
    }

    /// True once the reader of standard output went away (EPIPE): output is dropped from then on.
    public var closed: Bool { errorCode == EPIPE && !isFile }

    private var isFile: Bool {
        if case .file = target { return true }
        return false
    }

    /// The write error (other than the reader of standard output going away), as `pbsift: PATH: reason` reports it.
    public var failure: OutputFailure? {
        guard let e = errorCode, e != EPIPE || isFile else { return nil }
        return OutputFailure(path: label, errno: e)
    }

    /// Writes text an output may carry (see `SafeText`): the one way in from outside the output layer.
    public func write(_ text: SafeText) { write(text.string) }

    /// The output layer's own writers (reporters, the JSON writer, the HAR writer) write rendered
    /// text here; nothing outside this module can hand the sink a `String`.
    func write(_ s: String) {
        guard errorCode == nil else { return }
        if case .memory(let f) = target { f(s); return }
        var s = s
        s.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    func write(_ bytes: [UInt8]) {
        guard errorCode == nil else { return }
        bytes.withUnsafeBytes { append($0) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard errorCode == nil else { return }
        append(bytes)
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
        if case .memory(let f) = target {
            f(String(decoding: bytes, as: UTF8.self))
            return
        }
        if buffered && buffer.count + bytes.count < OutputSink.capacity {
            buffer.append(contentsOf: bytes)
            return
        }
        flush()
        if buffered && bytes.count < OutputSink.capacity {
            buffer.append(contentsOf: bytes)
        } else {
            send(bytes)
        }
    }

    /// Writes what is buffered.
    public func flush() {
        guard !buffer.isEmpty else { return }
        if errorCode == nil { buffer.withUnsafeBytes { send($0) } }
        buffer.removeAll(keepingCapacity: true)
    }

    private func send(_ bytes: UnsafeRawBufferPointer) {
        guard errorCode == nil, let base = bytes.baseAddress, bytes.count > 0 else { return }
        let fd: Int32
        switch target {
        case .fd(let d): fd = d
        case .file(let f): fd = f.fd
        case .memory(let f): f(String(decoding: bytes, as: UTF8.self)); return
        }
        let e = writeAll(fd, base, bytes.count)
        if e != 0 { errorCode = e }
    }

    /// Flushes and, for the `-o` file, closes it (renaming it over PATH). Returns the failure to
    /// report (`pbsift: PATH: reason`, exit status 2) the first time it is asked; nil when every
    /// byte was written or the reader went away.
    @discardableResult
    public func finish() -> OutputFailure? {
        flush()
        if case .file(let f) = target, !committed {
            committed = true
            if errorCode == nil {
                do { try f.commit() } catch {
                    reported = true
                    return error
                }
            }
        }
        guard !reported, let failure else { return nil }
        reported = true
        return failure
    }
}
