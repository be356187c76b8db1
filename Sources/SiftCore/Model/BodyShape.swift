import Foundation

/// What the reader's integrity checks need of a body: its shape and the length of its content, read
/// the way `Body` reads it but measured in place: an inline text is not unescaped and base64 is not
/// decoded only to be counted.
struct BodyShape {
    enum Content {
        case none
        /// `encoding: utf8`: the text's length in UTF-8 bytes.
        case text(Int)
        /// `encoding: base64`: the decoded length; nil when the base64 is invalid.
        case base64(Int?)
        case blob(hex: String?, reference: String, storedSize: Int?, truncated: Bool)
        case invalid(String)
    }

    let location: String
    let size: Int?
    let content: Content

    /// The same reading as `Body.init(location:json:)`, of the body object at tape index `b`: its
    /// members looked up on the tape (the first of a repeated name, as `JSONValue`'s subscript), no
    /// `JSONValue` or `String` made but for the texts a shape keeps.
    init(location: String, _ t: JSONTapeView, _ b: Int) {
        self.location = location
        self.size = t.member(b, "size").flatMap(t.int)
        @inline(__always) func equals(_ i: Int, _ s: StaticString) -> Bool {
            t.equals(i, UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }
        if let v = t.member(b, "blob"), t.kind(v) == .string, let blob = t.value(v).string {
            content = .blob(
                hex: Body.blobHex(blob), reference: blob, storedSize: t.member(b, "storedSize").flatMap(t.int),
                truncated: t.member(b, "truncated").flatMap(t.bool) ?? false)
        } else if let e = t.member(b, "encoding"), t.kind(e) == .string {
            if equals(e, "utf8"), let x = t.member(b, "text"), let n = t.value(x).decodedUTF8Count {
                content = .text(n)
            } else if equals(e, "base64"), let d = t.member(b, "data"), t.kind(d) == .string {
                content = .base64(t.value(d).base64DecodedCount)
            } else {
                content = .invalid("encoding '\(t.value(e).string ?? "")' without its text or data")
            }
        } else if t.kind(b) == .object && (size ?? 0) == 0 {
            content = .none
        } else {
            content = .invalid("a body of \(size.map(String.init) ?? "unknown") bytes without text, data or blob")
        }
    }

    /// The bodies of a network record: `request.body`, `response.body`, when present.
    static func of(_ record: Record) -> [BodyShape] {
        let root = record.json.tapeIndex
        return record.json.doc.withTape { t in
            var out: [BodyShape] = []
            if let r = t.member(root, "request"), let b = t.member(r, "body"), t.kind(b) == .object {
                out.append(BodyShape(location: "request.body", t, b))
            }
            if let r = t.member(root, "response"), let b = t.member(r, "body"), t.kind(b) == .object {
                out.append(BodyShape(location: "response.body", t, b))
            }
            return out
        }
    }
}
