import Foundation
import SiftArchive

/// Replays the first bytes it peeked at, then reads on.
final class PeekSource: ByteSource {
    let inner: ByteSource
    var head: [UInt8] = []
    var headAt = 0
    var peeked = false

    init(_ inner: ByteSource) { self.inner = inner }

    func startsWithGzipMagic() -> Bool {
        peeked = true
        var buf = [UInt8](repeating: 0, count: 2)
        var got = 0
        while got < 2 {
            let n = (try? buf.withUnsafeMutableBytes { try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[got...])) }) ?? 0
            if n <= 0 { break }
            got += n
        }
        head = Array(buf[0..<got])
        return got == 2 && head[0] == 0x1F && head[1] == 0x8B
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if headAt < head.count {
            let n = min(buffer.count, head.count - headAt)
            head.withUnsafeBytes { src in
                if let base = src.baseAddress { out.copyMemory(from: base + headAt, byteCount: n) }
            }
            headAt += n
            return n
        }
        return try inner.read(into: buffer)
    }
}
