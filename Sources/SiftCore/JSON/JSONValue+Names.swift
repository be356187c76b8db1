// Member names read in place: a walk that only compares or classifies names need not make a String
// of each one. Each is `JSONTapeView`'s reading, the one way names are read off the tape.

extension JSONValue {
    /// Calls `body` for each member, in order, with its name as the string value it is on the tape
    /// (`name.string` is what `forEachMember` passes): no String is made.
    @inlinable public func forEachMemberName(_ body: (_ name: JSONValue, _ value: JSONValue) throws -> Void) rethrows {
        let doc = self.doc
        try doc.withTape { t in
            try t.forEachMember(index) { k, v in try body(JSONValue(doc: doc, index: k), JSONValue(doc: doc, index: v)) }
        }
    }

    /// Calls `body` with the UTF-8 bytes of `string` (empty for a non-string), without making a String
    /// when the text allows: the content in place when it has no escape and is all ASCII, or unescaped
    /// when it is all ASCII (its decoding is then valid UTF-8, as `string` holds it); otherwise through
    /// `string`, which repairs invalid UTF-8.
    @inlinable
    public func withStringUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try doc.withTape { try $0.withStringUTF8(index, body) }
    }

    /// Where a string's content (between its quotes) stands in the document's text; for any other
    /// value, the value's own text.
    @inlinable public var contentRange: Range<Int> {
        let n = node
        return Int(n.start)..<Int(n.end)
    }

    /// Where a string's content stands in the document's text when it reads as it is written (no
    /// escape, all ASCII: the bytes `withStringUTF8` hands over in place); nil otherwise.
    @inlinable public var plainContentRange: Range<Int>? {
        let n = node
        guard n.kind == .string, !n.escaped, n.count >= 0 else { return nil }
        return Int(n.start)..<Int(n.end)
    }

    /// `self[key]` for a name known when the program is written (`h.member("name")`): the member named
    /// `key` (the first one, if the name repeats), found without making or reading a String.
    @inlinable public func member(_ key: StaticString) -> JSONValue? {
        let doc = self.doc
        return doc.withTape { $0.member(index, key) }.map { JSONValue(doc: doc, index: $0) }
    }
}
