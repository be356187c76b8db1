import Foundation

/// Read-only access to a parsed document's tape, for readers that walk many records in a hot loop
/// (the waterfall reads every network record): values are tape indices, member names and string
/// contents are compared as bytes where they lie, and no `JSONValue`, `String` or retain is made
/// per member. Valid only inside `JSONDocument.withTape`; anything unusual (an escaped string) is
/// read through `value(_:)`, as `JSONValue` reads it.
public struct JSONTapeView {
    /// The document's text.
    public let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline let nodes: UnsafeBufferPointer<JSONNode>
    @usableFromInline let doc: JSONDocument

    @usableFromInline init(bytes: UnsafeBufferPointer<UInt8>, nodes: UnsafeBufferPointer<JSONNode>, doc: JSONDocument) {
        self.bytes = bytes
        self.nodes = nodes
        self.doc = doc
    }

    /// The kind of the value at tape index `i`.
    @inlinable public func kind(_ i: Int) -> JSONKind { nodes[i].kind }

    /// Members (object) or elements (array) of the value at `i`; 0 otherwise.
    @inlinable public func count(_ i: Int) -> Int {
        let n = nodes[i]
        return n.kind == .object || n.kind == .array ? Int(n.count) : 0
    }

    /// The tape index just past the value at `i` and everything inside it.
    @inlinable public func next(_ i: Int) -> Int { Int(nodes[i].next) }

    /// Whether the string at `i` holds a backslash escape (its bytes are not its text).
    @inlinable public func isEscaped(_ i: Int) -> Bool { nodes[i].escaped }

    /// The bytes of the value at `i` as written: a string's content between its quotes, any other
    /// value's whole text.
    @inlinable public func raw(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        let n = nodes[i]
        return UnsafeBufferPointer(rebasing: bytes[Int(n.start)..<Int(n.end)])
    }

    /// The value at `i` as a `JSONValue` (for what the tape view does not decode).
    @inlinable public func value(_ i: Int) -> JSONValue { JSONValue(doc: doc, index: i) }

    /// Calls `body(name, value)` for each member of the object at `i`, in order: `name` the index
    /// of the member name (a string), `value` the index of its value. Nothing for a non-object.
    @inlinable public func forEachMember(_ i: Int, _ body: (_ name: Int, _ value: Int) throws -> Void) rethrows {
        let n = nodes[i]
        guard n.kind == .object else { return }
        var k = i + 1
        for _ in 0..<n.count {
            let v = Int(nodes[k].next)
            try body(k, v)
            k = Int(nodes[v].next)
        }
    }

    /// Calls `body(element)` for each element of the array at `i`, in order.
    @inlinable public func forEachElement(_ i: Int, _ body: (_ element: Int) throws -> Void) rethrows {
        let n = nodes[i]
        guard n.kind == .array else { return }
        var k = i + 1
        for _ in 0..<n.count {
            try body(k)
            k = Int(nodes[k].next)
        }
    }

    /// Calls `body` with the UTF-8 bytes of the string at `i` (empty for a non-string), without making
    /// a String when the text allows: the content in place when it has no escape and is all ASCII, or
    /// unescaped when it is all ASCII (its decoding is then valid UTF-8, as `JSONValue.string` holds
    /// it); otherwise through `JSONValue.string`, which repairs invalid UTF-8.
    @inlinable
    public func withStringUTF8<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let n = nodes[i]
        guard n.kind == .string else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        if n.count >= 0 {
            if !n.escaped { return try body(raw(i)) }
            return try value(i).stringBytes.withUnsafeBufferPointer(body)
        }
        var s = value(i).string ?? ""
        return try s.withUTF8(body)
    }

    /// Whether the string at `i` is exactly `name` (an escaped string is decoded first).
    @inlinable public func equals(_ i: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = nodes[i]
        guard n.kind == .string else { return false }
        if n.escaped { return value(i).stringBytes.elementsEqual(name) }
        let len = Int(n.end &- n.start)
        guard len == name.count else { return false }
        let s = Int(n.start)
        var k = 0
        while k < len && bytes[s &+ k] == name[k] { k &+= 1 }
        return k == len
    }

    /// The value of the first member named `name` of the object at `i`, as `JSONValue`'s subscript finds it.
    @inlinable public func member(_ i: Int, _ name: StaticString) -> Int? {
        let n = nodes[i]
        guard n.kind == .object, n.count > 0 else { return nil }
        return JSONValue.member(
            UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), of: i,
            count: Int(n.count), nodes, bytes, doc)
    }

    /// The number at `i` as `JSONValue.int` reads it (nil for a non-number).
    @inlinable public func int(_ i: Int) -> Int? {
        let n = nodes[i]
        guard n.kind == .number else { return nil }
        var k = Int(n.start)
        let e = Int(n.end)
        var neg = false
        if bytes[k] == 0x2D { neg = true; k &+= 1 }
        guard e &- k <= 15 else { return value(i).int }
        var v = 0
        while k < e {
            let c = bytes[k]
            guard c >= 48 && c <= 57 else { return value(i).int }
            v = v &* 10 &+ Int(c &- 48)
            k &+= 1
        }
        return neg ? -v : v
    }

    /// The number at `i` as `JSONValue.double` reads it (nil for a non-number), without a copy of its text on the heap.
    @inlinable public func double(_ i: Int) -> Double? {
        let n = nodes[i]
        guard n.kind == .number else { return nil }
        let s = Int(n.start), e = Int(n.end)
        var k = s
        var neg = false
        if bytes[k] == 0x2D { neg = true; k &+= 1 }
        var v: Int64 = 0
        var plain = e &- k <= 15
        while plain && k < e {
            let c = bytes[k]
            if c >= 48 && c <= 57 { v = v &* 10 &+ Int64(c &- 48); k &+= 1 } else { plain = false }
        }
        if plain { return Double(neg ? -v : v) }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: e - s + 1) { tmp in
            for j in s..<e { tmp[j - s] = CChar(bitPattern: bytes[j]) }
            tmp[e - s] = 0
            return strtod(tmp.baseAddress!, nil)
        }
    }

    /// The value at `i` as `JSONValue.bool` reads it.
    @inlinable public func bool(_ i: Int) -> Bool? {
        switch nodes[i].kind {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }
}

extension JSONDocument {
    /// Runs `body` with the document's tape (see `JSONTapeView`); the root is index 0.
    @inlinable public func withTape<R>(_ body: (JSONTapeView) throws -> R) rethrows -> R {
        try nodes.withUnsafeBufferPointer { n in
            try bytes.withUnsafeBufferPointer { b in
                try body(JSONTapeView(bytes: b, nodes: n, doc: self))
            }
        }
    }
}

extension JSONValue {
    /// This value's index on its document's tape (`JSONDocument.withTape`).
    @inlinable public var tapeIndex: Int { index }
}
