import Foundation

/// A session file's lines, read on a second thread and parsed as JSON in batches on the worker
/// threads (`ReadWorkers.count`, one per core) while the reader's thread runs the checks and the
/// analyses on the lines before: reading, parsing and checking overlap, and every core is used even
/// for one file. The reader's thread parses a batch itself when it would otherwise wait. Lines come
/// back in order, with what the parser made of each, whatever thread parsed them; memory is
/// bounded: at most `maxBatches` batches of about 256 KiB of lines are in flight, and no more than
/// `maxQueuedBytes` of them beyond one batch (a file of 15 MiB lines has one line in flight, not four).
final class ParsedLines: @unchecked Sendable {
    typealias Item = (event: LineReader.Event, parsed: Result<JSONDocument, JSONParseError>?)

    /// A batch of lines in flight: read, then parsed (`items` set) by whichever thread claims it.
    private final class Batch: @unchecked Sendable {   // `claimed` and `items` are touched under `cond` only
        let events: [LineReader.Event]
        let bytes: Int
        var claimed = false
        var items: [Item]?
        init(events: [LineReader.Event], bytes: Int) {
            self.events = events
            self.bytes = bytes
        }
    }

    /// Dropped by the reading thread when it ends, so nothing holds the source after `finish()`.
    private var reader: LineReader?
    private var readerBytes: Int64 = 0
    private let maxDepth: Int
    private let maxValues: Int
    private let workers: Int
    private let cond = NSCondition()
    /// Batches in read order, parsed or not, not yet taken by `next()`.
    private var batches: [Batch?] = []
    private var head = 0
    /// Line bytes in `batches`.
    private var queuedBytes = 0
    private var failure: Error?
    private var producerDone = false
    private var stopped = false
    private var current: [Item] = []
    private var at = 0
    private let done = DispatchSemaphore(value: 0)
    private var joined = false

    static let batchBytes = 256 << 10
    static let batchLines = 512
    static let maxBatches = 8
    static let maxQueuedBytes = 2 << 20

    init(reader: LineReader, maxDepth: Int, maxValues: Int = Int.max, workers: Int = ReadWorkers.count) {
        self.reader = reader
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        self.workers = max(1, workers)
        Thread.detachNewThread { [self] in
            produce()
            self.readerBytes = self.reader?.bytesRead ?? 0
            self.reader = nil
            done.signal()
        }
    }

    /// Line bytes read and waiting for `next()`, parsed or not (for tests).
    var waitingBytes: Int {
        cond.lock()
        defer { cond.unlock() }
        return queuedBytes
    }

    /// Bytes the reader consumed from the source (after `finish()`).
    var bytesRead: Int64 { readerBytes }

    private var inFlight: Int { batches.count - head }

    private func produce() {
        var events: [LineReader.Event] = []
        var bytes = 0
        func hand(_ e: [LineReader.Event], bytes: Int) -> Bool {
            let batch = Batch(events: e, bytes: bytes)
            cond.lock()
            while !stopped && (inFlight >= ParsedLines.maxBatches
                               || (inFlight > 0 && queuedBytes + bytes > ParsedLines.maxQueuedBytes)) {
                cond.wait()
            }
            let keepGoing = !stopped
            if keepGoing {
                if head >= 64 || (head > 0 && head == batches.count) {
                    batches.removeFirst(head)
                    head = 0
                }
                batches.append(batch)
                queuedBytes += bytes
            }
            cond.broadcast()
            cond.unlock()
            guard keepGoing else { return false }
            if workers > 1 {
                DispatchQueue.global().async { self.parse(batch) }
            } else {
                // One worker: this thread parses, as the only one besides the checks.
                parse(batch)
            }
            return true
        }
        while true {
            let event: LineReader.Event?
            do {
                event = try reader?.next()
            } catch {
                if !events.isEmpty && !hand(events, bytes: bytes) { break }
                events = []
                cond.lock()
                failure = error
                cond.unlock()
                break
            }
            guard let event else { break }
            switch event {
            case .line(let b, _), .unterminated(let b, _): bytes += b.count
            case .tooLong, .blank: break
            }
            events.append(event)
            if events.count >= ParsedLines.batchLines || bytes >= ParsedLines.batchBytes {
                guard hand(events, bytes: bytes) else { break }
                events = []
                bytes = 0
            }
        }
        if !events.isEmpty { _ = hand(events, bytes: bytes) }
        cond.lock()
        producerDone = true
        cond.broadcast()
        cond.unlock()
    }

    /// Parses `batch` unless another thread claimed it (or reading stopped).
    private func parse(_ batch: Batch) {
        cond.lock()
        let mine = !batch.claimed && !stopped
        batch.claimed = true
        cond.unlock()
        guard mine else { return }
        let items = ParsedLines.parse(batch.events, maxDepth: maxDepth, maxValues: maxValues)
        cond.lock()
        batch.items = items
        cond.broadcast()
        cond.unlock()
    }

    /// Each line with its parse (nil for a line that is no record from its first byte on, a blank
    /// run or a line over the bound).
    static func parse(_ events: [LineReader.Event], maxDepth: Int, maxValues: Int = Int.max) -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(events.count)
        for event in events {
            var parsed: Result<JSONDocument, JSONParseError>? = nil
            switch event {
            case .line(let b, _), .unterminated(let b, _):
                // A line that is no JSON object or array from its first byte on is damaged whatever
                // follows: not parsed here (a file of `x` lines spent most of its time making parse errors).
                if ParsedLines.cannotBeObject(b) { break }
                do throws(JSONParseError) {
                    parsed = .success(try JSONDocument(bytes: b, maxDepth: maxDepth, maxValues: maxValues))
                } catch {
                    parsed = .failure(error)
                }
            case .tooLong, .blank:
                break
            }
            items.append((event, parsed))
        }
        return items
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
        // The batch before is released before the next is taken, and freed (its lines and their
        // tapes, where nothing else holds them) on a worker: the checks' thread goes straight on.
        if workers > 1 && !current.isEmpty {
            let done = current
            current = []
            DispatchQueue.global().async { withExtendedLifetime(done) {} }
        }
        current = []
        cond.lock()
        while true {
            if head < batches.count, let batch = batches[head], let items = batch.items {
                queuedBytes -= batch.bytes
                batches[head] = nil   // its lines are not held past here
                head += 1
                cond.broadcast()
                cond.unlock()
                current = items
                at = 1
                return current[0]
            }
            if head < batches.count {
                // Rather than wait, parse the first batch no thread has claimed yet.
                if let batch = batches[head...].first(where: { $0?.claimed == false }) ?? nil {
                    cond.unlock()
                    parse(batch)
                    cond.lock()
                    continue
                }
            } else if producerDone {
                let f = failure
                failure = nil
                cond.unlock()
                if let f { throw f }
                return nil
            }
            cond.wait()
        }
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
