/// The one JSON writer: every JSON document pbsift prints is written through it, as bytes, in
/// `JSONOut`'s layout (pretty: two-space indent, `": "`; compact: one line), keys as the caller
/// orders them (`value(_:)` sorts an object's keys). A document nested in another is written at
/// the writer's depth, never rendered apart and spliced in.
///
/// With a sink, the bytes go to it in pieces of about 64 KiB, between members, so a large
/// document is never held whole; without one, `text` is the document.
public struct JSONWriter {
    /// Bytes not yet handed to the sink.
    public var buf: [UInt8] = []
    public let pretty: Bool
    /// Indentation of the first value's own lines (its members are indented two more).
    private let base: Int
    /// Members written in each open container.
    private var counts: [Int] = []
    private let sink: OutputSink?

    public init(pretty: Bool = true, indent: Int = 0, sink: OutputSink? = nil) {
        self.pretty = pretty
        self.base = indent
        self.sink = sink
        counts.reserveCapacity(16)
        buf.reserveCapacity(sink == nil ? 256 : OutputSink.capacity + 4096)
    }

    /// The bytes written so far as text (when writing to memory).
    public var text: String { String(decoding: buf, as: UTF8.self) }

    /// Hands the buffered bytes to the sink.
    public mutating func flush() {
        guard let sink, !buf.isEmpty else { return }
        sink.write(buf)
        buf.removeAll(keepingCapacity: true)
    }

    // MARK: structure

    public mutating func beginObject() { open(0x7B) }
    public mutating func endObject() { close(0x7D) }
    public mutating func beginArray() { open(0x5B) }
    public mutating func endArray() { close(0x5D) }

    /// Starts the next member of the open object: `"key": `.
    public mutating func key(_ k: StaticString) {
        next()
        buf.append(0x22)
        lit(k)
        if pretty { lit("\": ") } else { lit("\":") }
    }

    /// Starts the next member of the open object, `k` escaped.
    public mutating func key(_ k: String) {
        next()
        string(k)
        if pretty { lit(": ") } else { buf.append(0x3A) }
    }

    /// Starts the next element of the open array.
    public mutating func element() { next() }

    /// The `indent` of a writer whose document is the next value here: what it writes can follow
    /// `element()` or `key(_:)` byte for byte (values rendered apart, side by side, then written in order).
    public var valueIndent: Int { base + 2 * counts.count }

    /// A newline (after a document, or between JSON Lines).
    public mutating func newline() {
        buf.append(0x0A)
        if sink != nil && buf.count >= OutputSink.capacity { flush() }
    }

    // MARK: elements made elsewhere

    /// What `element()` writes before each element of the open array after its first: `,`, and when
    /// pretty a new line and the elements' indentation. Elements rendered apart (side by side), each
    /// after this, then handed to `elements(_:count:)`, are the bytes `element()` and each value
    /// written one after the other make.
    public var elementSeparator: [UInt8] {
        guard pretty else { return [0x2C] }
        return [0x2C, 0x0A] + [UInt8](repeating: 0x20, count: max(0, base + 2 * counts.count))
    }

    /// `count` elements of the open array, each one in `bytes` after `elementSeparator` (an array's
    /// first element takes no `,`: it is left out here). A large piece goes to the sink as it is,
    /// not copied into `buf` first.
    public mutating func elements(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) {
        let depth = counts.count
        guard count > 0, depth > 0, !bytes.isEmpty else { return }
        let rest = counts[depth - 1] == 0 ? UnsafeBufferPointer(rebasing: bytes[1...]) : bytes
        counts[depth - 1] += count
        if let sink, buf.count + rest.count >= OutputSink.capacity {
            flush()
            sink.write(UnsafeRawBufferPointer(rest))
        } else {
            buf.append(contentsOf: rest)
        }
    }

    // MARK: values

    public mutating func null() { lit("null") }

    public mutating func bool(_ v: Bool?) {
        guard let v else { return null() }
        if v { lit("true") } else { lit("false") }
    }

    public mutating func int(_ v: Int?) {
        guard let v else { return null() }
        if v >= 0 && v < 10 {
            buf.append(48 + UInt8(v))
        } else {
            buf.append(contentsOf: String(v).utf8)
        }
    }

    /// Shortest round-tripping text (`JSONOut.format`); NaN and infinities are null.
    public mutating func double(_ v: Double?) {
        guard let v else { return null() }
        buf.append(contentsOf: JSONOut.format(v).utf8)
    }

    /// A string literal. Escapes `"`, `\`, controls, DEL, and U+2028/2029 for JavaScript consumers.
    public mutating func string(_ s: String?) {
        guard var s else { return null() }
        s.withUTF8 { u in
            buf.append(0x22)
            JSONWriter.escape(u) { buf.append(contentsOf: $0) }
            buf.append(0x22)
        }
    }

    /// The inside of a string literal for the UTF-8 text `u`, handed to `emit` piece by piece (runs of
    /// `u` that need no escaping, and escapes): `"`, `\`, controls (C0 and C1), DEL, U+2028/2029 and the invisible and bidi characters
    /// (`isInvisibleE2`, U+061C, U+FEFF) escaped as `\uXXXX`, so no terminal or viewer acts on them. The one
    /// escaping of every JSON writer.
    @inlinable
    public static func escape(_ u: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        var plain = 0
        var i = 0
        let n = u.count
        while i < n {
            let c = u[i]
            var rep: StaticString?
            var hex: UInt32 = 0
            var skip = 1
            switch c {
            case 0x22: rep = "\\\""
            case 0x5C: rep = "\\\\"
            case 0x0A: rep = "\\n"
            case 0x0D: rep = "\\r"
            case 0x09: rep = "\\t"
            case 0x00..<0x20, 0x7F: hex = UInt32(c)
            case 0xC2 where i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] <= 0x9F:
                // C1 controls (U+0080–U+009F: NEL, CSI…), which terminals act on.
                hex = UInt32(u[i + 1])
                skip = 2
            case 0xD8 where i + 1 < n && u[i + 1] == 0x9C:
                hex = 0x061C // Arabic letter mark (bidi)
                skip = 2
            case 0xE2 where i + 2 < n && JSONWriter.isInvisibleE2(u[i + 1], u[i + 2]):
                hex = 0x2000 | UInt32(u[i + 1] & 0x3F) << 6 | UInt32(u[i + 2] & 0x3F)
                skip = 3
            case 0xEF where i + 2 < n && u[i + 1] == 0xBB && u[i + 2] == 0xBF:
                hex = 0xFEFF // zero-width no-break space
                skip = 3
            default:
                i += 1
                continue
            }
            if i > plain { emit(UnsafeBufferPointer(rebasing: u[plain..<i])) }
            if let rep {
                emit(UnsafeBufferPointer(start: rep.utf8Start, count: rep.utf8CodeUnitCount))
            } else {
                @inline(__always) func digit(_ shift: UInt32) -> UInt8 {
                    let d = UInt8((hex >> shift) & 0xF)
                    return d < 10 ? 48 + d : 87 + d
                }
                var esc: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x5C, 0x75, digit(12), digit(8), digit(4), digit(0))
                withUnsafeBytes(of: &esc) { emit($0.bindMemory(to: UInt8.self)) }
            }
            i += skip
            plain = i
        }
        if n > plain { emit(UnsafeBufferPointer(rebasing: u[plain..<n])) }
    }

    /// Whether U+2000 + the two continuation bytes `b1 b2` is a character that reorders or hides text:
    /// zero-width and direction marks (U+200B–U+200F), the line and paragraph separators (U+2028,
    /// U+2029), the bidi embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069).
    @inlinable
    public static func isInvisibleE2(_ b1: UInt8, _ b2: UInt8) -> Bool {
        (b1 == 0x80 && ((b2 >= 0x8B && b2 <= 0x8F) || (b2 >= 0xA8 && b2 <= 0xAE))) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9)
    }

    /// A whole value; an object's keys sorted.
    public mutating func value(_ v: JSONOut) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .array(let a):
            open(0x5B)
            for e in a {
                next()
                value(e)
            }
            close(0x5D)
        case .object(let o):
            open(0x7B)
            for k in o.keys.sorted() {
                key(k)
                value(o[k] ?? .null)
            }
            close(0x7D)
        }
    }

    /// Bytes written as they are (a number already formatted, a literal).
    public mutating func raw(_ s: StaticString) { lit(s) }

    /// Bytes written as they are.
    public mutating func raw<C: Sequence>(bytes: C) where C.Element == UInt8 { buf.append(contentsOf: bytes) }

    // MARK: layout

    static let spaces = [UInt8](repeating: 0x20, count: 256)
    /// `,`, a newline and 256 spaces: a member's start is one slice of it.
    static let commaIndent: [UInt8] = [0x2C, 0x0A] + [UInt8](repeating: 0x20, count: 256)

    private mutating func lit(_ s: StaticString) {
        s.withUTF8Buffer { buf.append(contentsOf: $0) }
    }

    private mutating func indentLine(_ depth: Int) {
        buf.append(0x0A)
        var n = base + 2 * depth
        while n > 0 {
            let k = min(n, 256)
            JSONWriter.spaces.withUnsafeBufferPointer { buf.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<k])) }
            n -= k
        }
    }

    private mutating func open(_ c: UInt8) {
        buf.append(c)
        counts.append(0)
    }

    private mutating func next() {
        if sink != nil && buf.count >= OutputSink.capacity { flush() }
        let depth = counts.count
        guard depth > 0 else { return }
        let comma = counts[depth - 1] > 0
        counts[depth - 1] += 1
        guard pretty else {
            if comma { buf.append(0x2C) }
            return
        }
        // `,` and the new line's indentation in one append (the common case).
        let n = max(0, base + 2 * depth)
        guard n <= 256 else {
            if comma { buf.append(0x2C) }
            return indentLine(depth)
        }
        JSONWriter.commaIndent.withUnsafeBufferPointer {
            buf.append(contentsOf: UnsafeBufferPointer(rebasing: $0[(comma ? 0 : 1)..<(2 + n)]))
        }
    }

    private mutating func close(_ c: UInt8) {
        let n = counts.popLast() ?? 0
        if n > 0 && pretty { indentLine(counts.count) }
        buf.append(c)
    }
}
