import Foundation
import SiftArchive

/// Reads another source on its own thread, a few buffers ahead, so that decompressing (gzip) and
/// scanning run on two cores at once. Memory: `depth` buffers of `bufferBytes`.
final class ReadAheadSource: ByteSource, @unchecked Sendable {
    private let inner: ByteSource
    private let bufferBytes: Int
    private var buffers: [UnsafeMutableRawPointer]
    private let cond = NSCondition()
    // Guarded by `cond`:
    private var filled: [(index: Int, count: Int)] = []
    private var free: [Int]
    private var failure: Error?
    private var producerDone = false
    private var cancelled = false
    // Consumer side only:
    private var current: (index: Int, count: Int, at: Int)?
    private var finished = false

    init(_ inner: ByteSource, bufferBytes: Int = 1 << 20, depth: Int = 3) {
        self.inner = inner
        self.bufferBytes = bufferBytes
        self.buffers = (0..<depth).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bufferBytes, alignment: 64) }
        self.free = Array(0..<depth)
        let t = Thread { [self] in self.produce() }
        t.stackSize = 1 << 20
        t.start()
    }

    /// Stops the reading thread at its next buffer (the consumer is done, maybe early).
    func close() {
        cond.lock()
        cancelled = true
        cond.broadcast()
        cond.unlock()
    }

    deinit {
        cond.lock()
        cancelled = true
        cond.broadcast()
        while !producerDone { cond.wait() }
        cond.unlock()
        for b in buffers { b.deallocate() }
    }

    private func produce() {
        while true {
            cond.lock()
            while free.isEmpty && !cancelled { cond.wait() }
            if cancelled {
                producerDone = true
                cond.broadcast()
                cond.unlock()
                return
            }
            let k = free.removeFirst()
            cond.unlock()
            // Fill the buffer (several reads: a gzip source hands out what one inflate call gives).
            var n = 0
            var error: Error?
            while n < bufferBytes {
                do {
                    let got = try inner.read(into: UnsafeMutableRawBufferPointer(start: buffers[k] + n, count: bufferBytes - n))
                    if got == 0 { break }
                    n += got
                } catch let e {
                    error = e
                    break
                }
            }
            cond.lock()
            if n > 0 { filled.append((k, n)) } else { free.append(k) }
            if error != nil || n < bufferBytes {
                failure = error
                producerDone = true
                cond.broadcast()
                cond.unlock()
                return
            }
            cond.broadcast()
            cond.unlock()
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            if let c = current {
                if c.at < c.count {
                    let n = min(buffer.count, c.count - c.at)
                    out.copyMemory(from: buffers[c.index] + c.at, byteCount: n)
                    current = (c.index, c.count, c.at + n)
                    return n
                }
                cond.lock()
                free.append(c.index)
                cond.broadcast()
                cond.unlock()
                current = nil
            }
            if finished { return 0 }
            cond.lock()
            while filled.isEmpty && !producerDone { cond.wait() }
            if !filled.isEmpty {
                let f = filled.removeFirst()
                cond.unlock()
                current = (f.index, f.count, 0)
                continue
            }
            let e = failure
            cond.unlock()
            finished = true
            if let e { throw e }
            return 0
        }
    }
}
