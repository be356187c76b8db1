import Foundation

/// Work on the elements of an array side by side on `ReadWorkers.count` threads, each result at its
/// element's index: the outcome is the same as a loop's, whatever the timing.
public enum Parallel {
    /// `body(&xs[i])` for every `i`, several at a time.
    public static func forEach<T>(_ xs: inout [T], _ body: (inout T) -> Void) {
        guard ReadWorkers.count > 1 && xs.count > 1 else {
            for i in xs.indices { body(&xs[i]) }
            return
        }
        xs.withUnsafeMutableBufferPointer { buf in
            nonisolated(unsafe) let buf = buf
            withoutActuallyEscaping(body) { body in
                nonisolated(unsafe) let body = body
                let next = Counter()
                // One task per worker, each taking the next element: long and short sessions even out.
                DispatchQueue.concurrentPerform(iterations: min(ReadWorkers.count, buf.count)) { _ in
                    while let i = next.take(below: buf.count) { body(&buf[i]) }
                }
            }
        }
    }

    /// `xs.map(transform)`, several elements at a time.
    public static func map<T, U>(_ xs: [T], _ transform: (T) -> U) -> [U] {
        guard ReadWorkers.count > 1 && xs.count > 1 else { return xs.map(transform) }
        var out = [U?](repeating: nil, count: xs.count)
        var indices = Array(xs.indices)
        out.withUnsafeMutableBufferPointer { outBuf in
            nonisolated(unsafe) let outBuf = outBuf
            Parallel.forEach(&indices) { i in outBuf[i] = transform(xs[i]) }
        }
        return out.map { $0! }
    }

    /// Hands out 0, 1, 2, … to whichever thread asks.
    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func take(below limit: Int) -> Int? {
            lock.lock()
            defer { lock.unlock() }
            guard value < limit else { return nil }
            value += 1
            return value - 1
        }
    }
}

/// Bytes in flight between a reader and its workers; `acquire` waits while over the limit (one item
/// larger than the limit still passes when nothing else is in flight).
public final class ByteBudget: @unchecked Sendable {
    private let limit: Int
    private var used = 0
    private var most = 0
    private let cond = NSCondition()

    public init(limit: Int) { self.limit = limit }

    public func acquire(_ n: Int) {
        cond.lock()
        while used > 0 && used + n > limit { cond.wait() }
        used += n
        most = max(most, used)
        cond.unlock()
    }

    /// The most bytes in flight at once so far.
    public var highWater: Int {
        cond.lock()
        defer { cond.unlock() }
        return most
    }

    public func release(_ n: Int) {
        cond.lock()
        used -= n
        cond.broadcast()
        cond.unlock()
    }
}
