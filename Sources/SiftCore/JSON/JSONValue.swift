import Foundation

/// A value inside a `JSONDocument`: cheap to copy, decoded on demand.
public struct JSONValue: @unchecked Sendable {
    public let doc: JSONDocument
    @usableFromInline let index: Int

    @inlinable init(doc: JSONDocument, index: Int) {
        self.doc = doc
        self.index = index
    }

    @inlinable var node: JSONNode { doc.nodes[index] }

    @inlinable public var kind: JSONKind { node.kind }
    @inlinable public var isNull: Bool { node.kind == .null }
    @inlinable public var isObject: Bool { node.kind == .object }
    @inlinable public var isArray: Bool { node.kind == .array }
    @inlinable public var isString: Bool { node.kind == .string }

    /// Number of members (object) or elements (array); 0 otherwise.
    public var count: Int {
        let n = node
        return n.kind == .object || n.kind == .array ? Int(n.count) : 0
    }

    /// The member named `key` (the first one, if the name repeats).
    public subscript(key: String) -> JSONValue? {
        let doc = self.doc
        let n = doc.nodes[index]
        guard n.kind == .object, n.count > 0 else { return nil }
        var key = key
        let found = key.withUTF8 { k in
            doc.nodes.withUnsafeBufferPointer { nodes in
                doc.bytes.withUnsafeBufferPointer { b in
                    JSONValue.member(k, of: index, count: Int(n.count), nodes, b, doc)
                }
            }
        }
        return found.map { JSONValue(doc: doc, index: $0) }
    }

    /// The tape index of the value of the first member named `key` of the object at `nodes[object]`.
    @inlinable
    static func member(
        _ key: UnsafeBufferPointer<UInt8>, of object: Int, count: Int, _ nodes: UnsafeBufferPointer<JSONNode>,
        _ b: UnsafeBufferPointer<UInt8>, _ doc: JSONDocument
    ) -> Int? {
        let length = key.count
        var i = object + 1
        for _ in 0..<count {
            let kn = nodes[i]
            let v = Int(kn.next)
            if kn.escaped {
                if JSONValue(doc: doc, index: i).stringBytes.elementsEqual(key) { return v }
            } else if Int(kn.end &- kn.start) == length {
                // Names are short and differ early: compared here, not through a call.
                let s = Int(kn.start)
                var k = 0
                while k < length && b[s &+ k] == key[k] { k &+= 1 }
                if k == length { return v }
            }
            i = Int(nodes[v].next)
        }
        return nil
    }

    /// Follows a path of member names.
    public subscript(path: String...) -> JSONValue? {
        var v: JSONValue? = self
        for p in path { v = v?[p] }
        return v
    }

    /// Array elements in order (empty for a non-array).
    public var elements: [JSONValue] {
        let n = node
        guard n.kind == .array else { return [] }
        var out: [JSONValue] = []
        out.reserveCapacity(Int(n.count))
        var i = index + 1
        for _ in 0..<n.count {
            out.append(JSONValue(doc: doc, index: i))
            i = Int(doc.nodes[i].next)
        }
        return out
    }

    /// Object members in order (empty for a non-object). Names may repeat.
    public var members: [(key: String, value: JSONValue)] {
        var out: [(key: String, value: JSONValue)] = []
        forEachMember { k, v in out.append((k, v)) }
        return out
    }

    /// Calls `body` for each member, in order, without building an array.
    public func forEachMember(_ body: (String, JSONValue) throws -> Void) rethrows {
        let n = node
        guard n.kind == .object else { return }
        var i = index + 1
        for _ in 0..<n.count {
            let keyRef = JSONValue(doc: doc, index: i)
            let v = Int(doc.nodes[i].next)
            try body(keyRef.string ?? "", JSONValue(doc: doc, index: v))
            i = Int(doc.nodes[v].next)
        }
    }

    /// Calls `body` for each element, in order.
    @inlinable public func forEachElement(_ body: (JSONValue) throws -> Void) rethrows {
        let n = node
        guard n.kind == .array else { return }
        var i = index + 1
        for _ in 0..<n.count {
            try body(JSONValue(doc: doc, index: i))
            i = Int(doc.nodes[i].next)
        }
    }

    /// The decoded string, or nil for a non-string.
    public var string: String? {
        let n = node
        guard n.kind == .string else { return nil }
        if !n.escaped {
            return doc.bytes.withUnsafeBufferPointer { b in
                String(decoding: UnsafeBufferPointer(rebasing: b[Int(n.start)..<Int(n.end)]), as: UTF8.self)
            }
        }
        return String(decoding: stringBytes, as: UTF8.self)
    }

    /// The decoded UTF-8 bytes of a string (escapes resolved); empty for a non-string.
    public var stringBytes: [UInt8] {
        let n = node
        guard n.kind == .string else { return [] }
        let s = Int(n.start), e = Int(n.end)
        if !n.escaped { return Array(doc.bytes[s..<e]) }
        return JSONValue.unescape(doc.bytes, s, e)
    }

    /// Whether a string is exactly `text` (no allocation when unescaped).
    @inlinable public func stringEquals(_ text: StaticString) -> Bool {
        let n = node
        guard n.kind == .string else { return false }
        if n.escaped { return stringBytes.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        let len = Int(n.end - n.start)
        guard len == text.utf8CodeUnitCount else { return false }
        return doc.bytes.withUnsafeBufferPointer { b in
            memcmp(b.baseAddress! + Int(n.start), text.utf8Start, len) == 0
        }
    }

    /// Resolves the escapes of a string's content `s..<e` (already validated by the parser). The output
    /// is never longer than the input, so it is written in place into one allocation.
    static func unescape(_ bytes: [UInt8], _ s: Int, _ e: Int) -> [UInt8] {
        bytes.withUnsafeBufferPointer { src -> [UInt8] in
            [UInt8](unsafeUninitializedCapacity: max(0, e - s)) { out, count in
                var i = s, o = 0
                func hex4(_ at: Int) -> UInt32 {
                    var v: UInt32 = 0
                    for k in 0..<4 { v = v << 4 | UInt32(max(0, hexValue(at + k < e ? src[at + k] : 0))) }
                    return v
                }
                func put(_ v: UInt32) {
                    let cp = (v >= 0xD800 && v < 0xE000) || v > 0x10FFFF ? 0xFFFD : v // a lone surrogate becomes U+FFFD
                    if cp < 0x80 {
                        out[o] = UInt8(cp); o += 1
                    } else if cp < 0x800 {
                        out[o] = UInt8(0xC0 | cp >> 6); out[o + 1] = UInt8(0x80 | cp & 0x3F); o += 2
                    } else if cp < 0x10000 {
                        out[o] = UInt8(0xE0 | cp >> 12); out[o + 1] = UInt8(0x80 | cp >> 6 & 0x3F)
                        out[o + 2] = UInt8(0x80 | cp & 0x3F); o += 3
                    } else {
                        out[o] = UInt8(0xF0 | cp >> 18); out[o + 1] = UInt8(0x80 | cp >> 12 & 0x3F)
                        out[o + 2] = UInt8(0x80 | cp >> 6 & 0x3F); out[o + 3] = UInt8(0x80 | cp & 0x3F); o += 4
                    }
                }
                while i < e {
                    let c = src[i]
                    if c != 0x5C { out[o] = c; o += 1; i += 1; continue }
                    guard i + 1 < e else { i += 1; continue }
                    let x = src[i + 1]
                    switch x {
                    case UInt8(ascii: "b"): out[o] = 0x08; o += 1; i += 2
                    case UInt8(ascii: "f"): out[o] = 0x0C; o += 1; i += 2
                    case UInt8(ascii: "n"): out[o] = 0x0A; o += 1; i += 2
                    case UInt8(ascii: "r"): out[o] = 0x0D; o += 1; i += 2
                    case UInt8(ascii: "t"): out[o] = 0x09; o += 1; i += 2
                    case UInt8(ascii: "u"):
                        let hi = hex4(i + 2)
                        i += 6
                        if hi >= 0xD800 && hi < 0xDC00, i + 6 <= e, src[i] == 0x5C, src[i + 1] == UInt8(ascii: "u") {
                            let lo = hex4(i + 2)
                            if lo >= 0xDC00 && lo < 0xE000 {
                                put(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                i += 6
                                continue
                            }
                        }
                        put(hi)
                    default: out[o] = x; o += 1; i += 2
                    }
                }
                count = o
            }
        }
    }

    /// The number as a Double, or nil for a non-number.
    public var double: Double? {
        let n = node
        guard n.kind == .number else { return nil }
        return doc.bytes.withUnsafeBufferPointer { b -> Double? in
            let s = Int(n.start), e = Int(n.end)
            // Fast path: a plain integer of at most 15 digits.
            var v: Int64 = 0
            var i = s
            var neg = false
            if b[i] == UInt8(ascii: "-") { neg = true; i += 1 }
            var plain = e - i <= 15
            while plain && i < e {
                let c = b[i]
                if c >= 48 && c <= 57 { v = v * 10 + Int64(c - 48); i += 1 } else { plain = false }
            }
            if plain { return Double(neg ? -v : v) }
            var tmp = [CChar](repeating: 0, count: e - s + 1)
            for k in s..<e { tmp[k - s] = CChar(bitPattern: b[k]) }
            return strtod(tmp, nil)
        }
    }

    /// The number as an Int when it is integral and in range.
    public var int: Int? {
        guard let d = double, d.isFinite, d == d.rounded(), abs(d) < 9.0e15 else { return nil }
        return Int(d)
    }

    public var bool: Bool? {
        switch node.kind {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }

    /// The value's exact JSON text as written in the input.
    @inlinable public var rawBytes: ArraySlice<UInt8> {
        let n = node
        if n.kind == .string { return doc.bytes[Int(n.start) - 1..<Int(n.end) + 1] }
        return doc.bytes[Int(n.start)..<Int(n.end)]
    }

    public var rawText: String { String(decoding: rawBytes, as: UTF8.self) }

    /// Every string in this value's subtree (member names excluded) with its JSONPath-like location.
    /// `path` is the location of this value (e.g. `$`).
    public func walkStrings(path: String = "$", _ body: (String, JSONValue) throws -> Void) rethrows {
        switch node.kind {
        case .string: try body(path, self)
        case .array:
            var k = 0
            try forEachElement { v in
                try v.walkStrings(path: "\(path)[\(k)]", body)
                k += 1
            }
        case .object:
            try forEachMember { key, v in
                try v.walkStrings(path: JSONValue.memberPath(path, key), body)
            }
        default: break
        }
    }

    /// `$.a.b`, or `$["odd key"]` when the name is not a plain identifier.
    public static func memberPath(_ base: String, _ key: String) -> String {
        let plain =
            !key.isEmpty
            && key.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
            }
        if plain { return base + "." + key }
        var esc = ""
        for ch in key.unicodeScalars {
            switch ch {
            case "\"": esc += "\\\""
            case "\\": esc += "\\\\"
            default:
                if ch.value < 0x20 { esc += String(format: "\\u%04x", ch.value) } else { esc.unicodeScalars.append(ch) }
            }
        }
        return base + "[\"" + esc + "\"]"
    }
}
