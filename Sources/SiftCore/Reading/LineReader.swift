import Foundation
import SiftArchive

/// Splits a byte stream into lines without holding more than one line (bounded) and one chunk.
public struct LineReader {
    public enum Event: Sendable {
        /// A complete line (without its `\n`; a trailing `\r` is kept for the JSON parser to skip).
        case line([UInt8], number: Int)
        /// The last line, with no `\n` after it.
        case unterminated([UInt8], number: Int)
        /// A line longer than the bound; its bytes were skipped.
        case tooLong(number: Int, bytes: Int)
        /// `count` blank lines (empty, or a lone `\r`) in a row, the first numbered `number`: a file
        /// of newlines is a few events per chunk, not one per line.
        case blank(number: Int, count: Int)
    }

    private let source: ByteSource
    private let maxLine: Int
    private var chunk: [UInt8]
    private var start = 0
    private var end = 0
    private var eof = false
    private var pending: [UInt8] = []
    private var skipping = false
    private var skippedBytes = 0
    private var lineNumber = 0
    /// Bytes consumed from the source.
    private(set) var bytesRead: Int64 = 0

    private let chunkSize: Int

    /// The chunk starts at 16 KiB and doubles, up to `chunkSize`, each time a read fills it: a small
    /// file never pays for the large buffer.
    public init(source: ByteSource, maxLine: Int, chunkSize: Int = 256 << 10) {
        self.source = source
        self.maxLine = maxLine
        self.chunkSize = max(1, chunkSize)
        self.chunk = [UInt8](repeating: 0, count: min(16 << 10, self.chunkSize))
    }

    /// `Array(chunk[s..<e])`, one allocation and one copy.
    @inline(__always)
    static func copy(_ chunk: [UInt8], _ s: Int, _ e: Int) -> [UInt8] {
        chunk.withUnsafeBufferPointer { b in
            [UInt8](unsafeUninitializedCapacity: e - s) { out, count in
                if e > s { out.baseAddress!.update(from: b.baseAddress! + s, count: e - s) }
                count = e - s
            }
        }
    }

    /// The next line, or nil at the end. Throws what the source throws (the lines before are good).
    public mutating func next() throws -> Event? {
        while true {
            if start < end {
                let found: Int? = chunk.withUnsafeBufferPointer { b -> Int? in
                    guard let p = memchr(b.baseAddress! + start, 0x0A, end - start) else { return nil }
                    return b.baseAddress!.distance(to: p.assumingMemoryBound(to: UInt8.self))
                }
                if let nl = found {
                    if pending.isEmpty && !skipping && (nl == start || (nl == start + 1 && chunk[start] == 0x0D)) {
                        let first = lineNumber + 1
                        var count = 1
                        var i = nl + 1
                        chunk.withUnsafeBufferPointer { b in
                            while i < end {
                                if b[i] == 0x0A {
                                    i += 1
                                } else if b[i] == 0x0D && i + 1 < end && b[i + 1] == 0x0A {
                                    i += 2
                                } else {
                                    break
                                }
                                count += 1
                            }
                        }
                        lineNumber += count
                        start = i
                        return .blank(number: first, count: count)
                    }
                    lineNumber += 1
                    let s = start
                    start = nl + 1
                    if skipping {
                        skipping = false
                        let n = skippedBytes + (nl - s)
                        skippedBytes = 0
                        return .tooLong(number: lineNumber, bytes: n)
                    }
                    if pending.isEmpty {
                        if nl - s > maxLine { return .tooLong(number: lineNumber, bytes: nl - s) }
                        return .line(LineReader.copy(chunk, s, nl), number: lineNumber)
                    }
                    if pending.count + (nl - s) > maxLine {
                        let n = pending.count + (nl - s)
                        pending = []
                        return .tooLong(number: lineNumber, bytes: n)
                    }
                    pending.append(contentsOf: chunk[s..<nl])
                    let line = pending
                    pending = []
                    return .line(line, number: lineNumber)
                }
                // No newline in the rest of the chunk: keep it (bounded) and read more.
                if skipping {
                    skippedBytes += end - start
                } else if pending.count + (end - start) > maxLine {
                    skipping = true
                    skippedBytes = pending.count + (end - start)
                    pending = []
                } else {
                    pending.append(contentsOf: chunk[start..<end])
                }
                start = end
            }
            if eof {
                if skipping {
                    skipping = false
                    lineNumber += 1
                    return .tooLong(number: lineNumber, bytes: skippedBytes)
                }
                if !pending.isEmpty {
                    lineNumber += 1
                    let line = pending
                    pending = []
                    return .unterminated(line, number: lineNumber)
                }
                return nil
            }
            if end == chunk.count && chunk.count < chunkSize {
                chunk = [UInt8](repeating: 0, count: min(chunk.count * 2, chunkSize))
            }
            let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { eof = true }
            bytesRead += Int64(n)
            start = 0
            end = n
        }
    }
}
