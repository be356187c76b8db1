// Member names read in place: a walk that only compares or classifies names need not make a String
// of each one.

extension JSONValue {
    /// Calls `body` for each member, in order, with its name as the string value it is on the tape
    /// (`name.string` is what `forEachMember` passes): no String is made.
    public func forEachMemberName(_ body: (_ name: JSONValue, _ value: JSONValue) throws -> Void) rethrows {
        let n = node
        guard n.kind == .object else { return }
        var i = index + 1
        for _ in 0..<n.count {
            let v = Int(doc.nodes[i].next)
            try body(JSONValue(doc: doc, index: i), JSONValue(doc: doc, index: v))
            i = Int(doc.nodes[v].next)
        }
    }

    /// Calls `body` with the UTF-8 bytes of `string` (empty for a non-string), without making a String
    /// when the text allows: the content in place when it has no escape and is all ASCII, or unescaped
    /// when it is all ASCII (its decoding is then valid UTF-8, as `string` holds it); otherwise through
    /// `string`, which repairs invalid UTF-8.
    @inline(__always)
    public func withStringUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let n = node
        guard n.kind == .string else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        if n.count >= 0 {
            if !n.escaped {
                return try doc.bytes.withUnsafeBufferPointer { b in
                    try body(UnsafeBufferPointer(rebasing: b[Int(n.start)..<Int(n.end)]))
                }
            }
            return try stringBytes.withUnsafeBufferPointer(body)
        }
        var s = string ?? ""
        return try s.withUTF8(body)
    }

    /// Where a string's content (between its quotes) stands in the document's text; for any other
    /// value, the value's own text.
    public var contentRange: Range<Int> {
        let n = node
        return Int(n.start)..<Int(n.end)
    }

    /// `self[key]` for a name known when the program is written (`h.member("name")`): the member named
    /// `key` (the first one, if the name repeats), found without making or reading a String.
    public func member(_ key: StaticString) -> JSONValue? {
        let doc = self.doc
        let n = doc.nodes[index]
        guard n.kind == .object, n.count > 0 else { return nil }
        let k = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        let found = doc.nodes.withUnsafeBufferPointer { nodes in
            doc.bytes.withUnsafeBufferPointer { b in
                JSONValue.member(k, of: index, count: Int(n.count), nodes, b, doc)
            }
        }
        return found.map { JSONValue(doc: doc, index: $0) }
    }
}
