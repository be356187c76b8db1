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

    /// The same reading as `Body.init(location:json:)`.
    init(location: String, json: JSONValue) {
        self.location = location
        self.size = json["size"]?.int
        if let blob = json["blob"]?.string {
            content = .blob(hex: Body.blobHex(blob), reference: blob, storedSize: json["storedSize"]?.int,
                            truncated: json["truncated"]?.bool ?? false)
        } else if let enc = json["encoding"]?.string {
            if enc == "utf8", let n = json["text"]?.decodedUTF8Count {
                content = .text(n)
            } else if enc == "base64", let d = json["data"], d.isString {
                content = .base64(d.base64DecodedCount)
            } else {
                content = .invalid("encoding '\(enc)' without its text or data")
            }
        } else if json.isObject && (size ?? 0) == 0 {
            content = .none
        } else {
            content = .invalid("a body of \(size.map(String.init) ?? "unknown") bytes without text, data or blob")
        }
    }

    /// The bodies of a network record: `request.body`, `response.body`, when present.
    static func of(_ record: Record) -> [BodyShape] {
        var out: [BodyShape] = []
        if let b = record.json["request", "body"], b.isObject { out.append(BodyShape(location: "request.body", json: b)) }
        if let b = record.json["response", "body"], b.isObject { out.append(BodyShape(location: "response.body", json: b)) }
        return out
    }
}
