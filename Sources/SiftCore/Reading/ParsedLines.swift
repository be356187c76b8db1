import Foundation

/// A session file's lines, read and parsed as JSON on a second thread while the reader's thread runs
/// the checks and the analyses on the lines before: the two halves of the work overlap, and both
/// cores are used even for one file. Lines come back in order, with what the parser made of each;
/// memory is bounded: a few batches of about 768 KiB wait at most, and no more than `maxQueuedBytes`
/// of them beyond one batch (a file of 15 MiB lines has one line waiting, not four). Bytes are
/// counted as held: a line's text and its parse (`JSONDocument.heldBytes`), which for a line of many
/// small values is ten times the line.
final class ParsedLines: @unchecked Sendable {
    typealias Item = (event: LineReader.Event, parsed: Result<JSONDocument, JSONParseError>?)

    /// Dropped by the reading thread when it ends, so nothing holds the source after `finish()`.
    private var reader: LineReader?
    private var readerBytes: Int64 = 0
    private let maxDepth: Int
    private let maxValues: Int
    private let cond = NSCondition()
    private var batches: [[Item]] = []
    /// Bytes held by `batches`, each batch's size beside it.
    private var queuedBytes = 0
    private var batchSizes: [Int] = []
    private var failure: Error?
    private var producerDone = false
    private var stopped = false
    private var current: [Item] = []
    private var at = 0
    private let done = DispatchSemaphore(value: 0)
    private var joined = false

    static let batchBytes = 768 << 10
    static let batchLines = 512
    static let maxBatches = 4
    static let maxQueuedBytes = 3 << 20

    init(reader: LineReader, maxDepth: Int, maxValues: Int = Int.max) {
        self.reader = reader
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        Thread.detachNewThread { [self] in
            produce()
            self.readerBytes = self.reader?.bytesRead ?? 0
            self.reader = nil
            done.signal()
        }
    }

    /// Bytes parsed and waiting for `next()`, text and parse (for tests).
    var waitingBytes: Int {
        cond.lock()
        defer { cond.unlock() }
        return queuedBytes
    }

    /// Bytes the reader consumed from the source (after `finish()`).
    var bytesRead: Int64 { readerBytes }

    private func produce() {
        var batch: [Item] = []
        var bytes = 0
        func hand(_ b: [Item], bytes: Int) -> Bool {
            cond.lock()
            while !stopped && (batches.count >= ParsedLines.maxBatches
                               || (!batches.isEmpty && queuedBytes + bytes > ParsedLines.maxQueuedBytes)) {
                cond.wait()
            }
            let keepGoing = !stopped
            if keepGoing {
                batches.append(b)
                batchSizes.append(bytes)
                queuedBytes += bytes
            }
            cond.signal()
            cond.unlock()
            return keepGoing
        }
        while true {
            let event: LineReader.Event?
            do {
                event = try reader?.next()
            } catch {
                if !batch.isEmpty && !hand(batch, bytes: bytes) { break }
                batch = []
                cond.lock()
                failure = error
                cond.unlock()
                break
            }
            guard let event else { break }
            var parsed: Result<JSONDocument, JSONParseError>? = nil
            switch event {
            case .line(let b, _), .unterminated(let b, _):
                bytes += b.count
                // A line that is no JSON object or array from its first byte on is damaged whatever
                // follows: not parsed here (a file of `x` lines spent most of its time making parse errors).
                if ParsedLines.cannotBeObject(b) { break }
                do throws(JSONParseError) {
                    let doc = try JSONDocument(bytes: b, maxDepth: maxDepth, maxValues: maxValues)
                    bytes += doc.heldBytes - b.count   // and its tape
                    parsed = .success(doc)
                } catch {
                    parsed = .failure(error)
                }
            case .tooLong, .blank:
                break
            }
            batch.append((event, parsed))
            if batch.count >= ParsedLines.batchLines || bytes >= ParsedLines.batchBytes {
                guard hand(batch, bytes: bytes) else { break }
                batch = []
                bytes = 0
            }
        }
        if !batch.isEmpty { _ = hand(batch, bytes: bytes) }
        cond.lock()
        producerDone = true
        cond.signal()
        cond.unlock()
    }

    /// Whether `line` starts, after JSON white space, with a byte that opens neither an object nor an
    /// array: then it is not a record, and its parse (left nil) is only an error message.
    static func cannotBeObject(_ line: [UInt8]) -> Bool {
        for c in line {
            switch c {
            case 0x20, 0x09, 0x0D, 0x0A: continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): return false
            default: return true
            }
        }
        return false   // white space only: the parser says "empty"
    }

    /// What the parser says of a line `cannotBeObject` let through unparsed.
    static func parseError(_ line: [UInt8], maxDepth: Int) -> JSONParseError {
        do throws(JSONParseError) {
            _ = try JSONDocument(bytes: line, maxDepth: maxDepth)
        } catch {
            return error
        }
        return JSONParseError(reason: .syntax, offset: 0, message: "not a JSON object")
    }

    /// The next line and its parse, nil at the end; throws what the source threw (after the lines
    /// before it).
    func next() throws -> Item? {
        if at < current.count {
            defer { at += 1 }
            return current[at]
        }
        cond.lock()
        while batches.isEmpty && !producerDone { cond.wait() }
        if batches.isEmpty {
            let f = failure
            failure = nil
            cond.unlock()
            if let f { throw f }
            return nil
        }
        current = []   // the batch before is released before the next is taken
        current = batches.removeFirst()
        queuedBytes -= batchSizes.removeFirst()
        cond.signal()
        cond.unlock()
        at = 1
        return current[0]
    }

    /// Stops the reading thread (when the caller stops early) and waits for it: the source is not
    /// touched after this returns.
    func finish() {
        guard !joined else { return }
        joined = true
        cond.lock()
        stopped = true
        cond.broadcast()
        cond.unlock()
        done.wait()
    }

    deinit { finish() }
}
