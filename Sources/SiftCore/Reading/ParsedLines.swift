import Foundation

/// A session file's lines, read on a second thread (past the first batch, which the caller's thread
/// reads: a small file needs no other thread) and parsed as JSON in batches on the worker
/// threads (`ReadWorkers.count`, one per core) while the reader's thread runs the checks and the
/// analyses on the lines before: reading, parsing and checking overlap, and every core is used even
/// for one file. The reader's thread parses a batch itself when it would otherwise wait. Lines come
/// back in order, with what the parser made of each, whatever thread parsed them; memory is
/// bounded: at most `maxBatches` batches of about 256 KiB of lines are in flight, and no more than
/// `maxQueuedBytes` of them beyond one batch (a file of 15 MiB lines has one line in flight, not four).
final class ParsedLines: @unchecked Sendable {
    typealias Item = (event: LineReader.Event, parsed: Result<JSONDocument, JSONParseError>?)

    /// What the reader makes of a line that parsed as an object, made on the thread that parsed it
    /// (the checks' thread takes it ready): its record and, for a network record, its bodies' shapes.
    struct Prepared: Sendable {
        let record: Record
        let bodies: [BodyShape]

        init(line: Int, root: JSONValue) {
            record = Record(line: line, json: root)
            if case .network = record.type { bodies = BodyShape.of(record) } else { bodies = [] }
        }
    }

    /// A batch's lines, parsed, each with what was prepared of it.
    struct Parsed: Sendable {
        var items: [Item] = []
        var prepared: [Prepared?] = []
    }

    /// A batch of lines in flight: read, then parsed (`items` set) by whichever thread claims it.
    private final class Batch: @unchecked Sendable { // `claimed` and `items` are touched under `cond` only
        let events: [LineReader.Event]
        let bytes: Int
        var claimed = false
        var items: Parsed?
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
    private var current = Parsed()
    private var at = 0
    /// What was prepared of the line `next()` returned last (nil when it is not an object).
    private(set) var prepared: Prepared?
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
    }

    /// Whether the first batch was read (`start()`), and whether a reading thread was started.
    private var started = false
    private var threadRunning = false
    /// The reading thread let go of the source (set under `cond`): it reads no byte more.
    private var released = false

    /// Starts reading on a thread of its own right away, the first batch too (`start()` reads it on
    /// the caller's thread): the next file of an export is read and parsed while the caller still
    /// checks the end of the one before (`InputPass`'s read-ahead).
    func startAhead() {
        guard !started else { return }
        started = true
        guard reader != nil else {
            producerDone = true
            return
        }
        threadRunning = true
        spawnReader(first: [], bytes: 0)
    }

    /// Whether the caller may stop taking lines here and leave the rest for later: a reading thread
    /// has read the source to its end and let go of it, the lines before were all taken, and lines
    /// are left (at most `maxBatches` batches). A file read by `start()` alone never stops here.
    var pausesHere: Bool {
        guard threadRunning && at >= current.items.count else { return false }
        cond.lock()
        defer { cond.unlock() }
        return released && head < batches.count
    }

    /// Reads the first batch on the caller's thread. A file that ends within it (most session files
    /// of an export of many) is parsed here too, with no thread and no hand-over: a thread per file
    /// made an export of 100,000 small files wait on some 6 context switches each. A longer file
    /// hands the batch on and goes on reading on its own thread, as before.
    private func start() {
        started = true
        guard var r = reader else {
            producerDone = true
            return
        }
        var events: [LineReader.Event] = []
        var bytes = 0
        var error: Error?
        var ended = false
        while true {
            let event: LineReader.Event?
            do {
                event = try r.next()
            } catch let e {
                error = e
                break
            }
            guard let event else {
                ended = true
                break
            }
            switch event {
            case .line(let b, _), .unterminated(let b, _): bytes += b.count
            case .tooLong, .blank: break
            }
            events.append(event)
            if events.count >= ParsedLines.batchLines || bytes >= ParsedLines.batchBytes { break }
        }
        if ended || error != nil {
            readerBytes = r.bytesRead
            reader = nil
            current = ParsedLines.parse(events, maxDepth: maxDepth, maxValues: maxValues)
            at = 0
            failure = error
            producerDone = true
            return
        }
        reader = r
        threadRunning = true
        spawnReader(first: events, bytes: bytes)
    }

    /// The reading thread: hands `first` on, reads the rest, then lets go of the source.
    private func spawnReader(first events: [LineReader.Event], bytes: Int) {
        Thread.detachNewThread { [self, events, bytes] in
            produce(first: events, bytes: bytes)
            self.readerBytes = self.reader?.bytesRead ?? 0
            self.reader = nil
            cond.lock()
            released = true
            cond.unlock()
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

    /// Hands `first` (the batch `start()` read) on, then reads the rest of the file in batches.
    private func produce(first: [LineReader.Event], bytes firstBytes: Int) {
        var events: [LineReader.Event] = []
        var bytes = 0
        func hand(_ e: [LineReader.Event], bytes: Int) -> Bool {
            let batch = Batch(events: e, bytes: bytes)
            cond.lock()
            while !stopped
                && (inFlight >= ParsedLines.maxBatches
                    || (inFlight > 0 && queuedBytes + bytes > ParsedLines.maxQueuedBytes))
            {
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
        // `startAhead()` hands no first batch: this thread reads it too.
        var going = first.isEmpty ? true : hand(first, bytes: firstBytes)
        while going {
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
                going = hand(events, bytes: bytes)
                events = []
                bytes = 0
            }
        }
        if going && !events.isEmpty { _ = hand(events, bytes: bytes) }
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
    /// run or a line over the bound), and what is prepared of each object (`Prepared`).
    static func parse(_ events: [LineReader.Event], maxDepth: Int, maxValues: Int = Int.max) -> Parsed {
        var out = Parsed()
        out.items.reserveCapacity(events.count)
        out.prepared.reserveCapacity(events.count)
        // One room for the tapes of the batch's lines, each copied out at its size.
        let scratch = TapeStorage(capacity: JSONTapeParser.maxReserve / 8)
        for event in events {
            var parsed: Result<JSONDocument, JSONParseError>? = nil
            var prepared: Prepared? = nil
            switch event {
            case .line(let b, let number), .unterminated(let b, let number):
                // A line that is no JSON object or array from its first byte on is damaged whatever
                // follows: not parsed here (a file of `x` lines spent most of its time making parse errors).
                if ParsedLines.cannotBeObject(b) { break }
                do throws(JSONParseError) {
                    let doc = try JSONDocument(bytes: b, maxDepth: maxDepth, maxValues: maxValues, scratch: scratch)
                    parsed = .success(doc)
                    if doc.root.isObject { prepared = Prepared(line: number, root: doc.root) }
                } catch {
                    parsed = .failure(error)
                }
            case .tooLong, .blank:
                break
            }
            out.items.append((event, parsed))
            out.prepared.append(prepared)
        }
        return out
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
        return false // white space only: the parser says "empty"
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
        if !started { start() }
        if at < current.items.count {
            defer { at += 1 }
            prepared = current.prepared[at]
            return current.items[at]
        }
        prepared = nil
        // The batch before is released before the next is taken, and freed (its lines and their
        // tapes, where nothing else holds them) on a worker: the checks' thread goes straight on.
        if workers > 1 && !current.items.isEmpty {
            let done = current
            current = Parsed()
            DispatchQueue.global().async { withExtendedLifetime(done) {} }
        }
        current = Parsed()
        cond.lock()
        while true {
            if head < batches.count, let batch = batches[head], let items = batch.items {
                queuedBytes -= batch.bytes
                batches[head] = nil // its lines are not held past here
                head += 1
                cond.broadcast()
                cond.unlock()
                current = items
                at = 1
                prepared = current.prepared[0]
                return current.items[0]
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
        guard threadRunning else {
            if let r = reader { readerBytes = r.bytesRead }
            reader = nil
            return
        }
        cond.lock()
        stopped = true
        cond.broadcast()
        cond.unlock()
        done.wait()
    }

    deinit { finish() }
}
