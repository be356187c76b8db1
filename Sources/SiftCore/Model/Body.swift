import Foundation

/// A request or response body as §2.3 of the format describes it.
public struct Body: Sendable {
    public enum Content: Sendable {
        /// `{"size": 0}` or no body object.
        case none
        /// `encoding: utf8`, the text as stored.
        case text(String)
        /// `encoding: base64`; nil when the base64 is invalid.
        case base64(bytes: [UInt8]?, raw: String)
        /// Stored in `blobs/`; `hex` is the name without `sha256:` (nil when the reference is malformed).
        case blob(hex: String?, reference: String, storedSize: Int?, truncated: Bool)
        /// The body object has none of the known shapes.
        case invalid(String)
    }

    /// `request.body` or `response.body`.
    public let location: String
    public let size: Int?
    public let contentType: String?
    public let content: Content
    public let json: JSONValue

    /// Reads one body object.
    /// The lowercase hex of a well-formed `sha256:<64 hex>` blob reference; nil for any other text.
    static func blobHex(_ reference: String) -> String? {
        guard reference.hasPrefix("sha256:") else { return nil }
        let h = String(reference.dropFirst(7))
        guard h.utf8.count == 64, h.utf8.allSatisfy({ hexValue($0) >= 0 }) else { return nil }
        return h.lowercased()
    }

    public init(location: String, json: JSONValue) {
        self.location = location
        self.json = json
        self.size = json["size"]?.int
        self.contentType = json["contentType"]?.string
        if let blob = json["blob"]?.string {
            content = .blob(
                hex: Body.blobHex(blob), reference: blob, storedSize: json["storedSize"]?.int,
                truncated: json["truncated"]?.bool ?? false)
        } else if let enc = json["encoding"]?.string {
            if enc == "utf8", let t = json["text"]?.string {
                content = .text(t)
            } else if enc == "base64", let d = json["data"]?.string {
                content = .base64(bytes: Base64.decode(d), raw: d)
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
    public static func of(_ record: Record) -> [Body] {
        var out: [Body] = []
        if let b = record.json["request", "body"], b.isObject { out.append(Body(location: "request.body", json: b)) }
        if let b = record.json["response", "body"], b.isObject { out.append(Body(location: "response.body", json: b)) }
        return out
    }
}

/// Standard and URL-safe base64, tolerant of missing padding and white space.
public enum Base64 {
    /// Each byte's 6-bit value in either alphabet (`+/` and `-_`), -1 for any other byte.
    public static let table: [Int8] = {
        var t = [Int8](repeating: -1, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { t[Int(c)] = Int8(i) }
        t[Int(UInt8(ascii: "-"))] = 62
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()

    /// Decodes; nil on a character outside both alphabets or an impossible length.
    public static func decode(_ s: String) -> [UInt8]? {
        var s = s
        return s.withUTF8 { decode(bytes: $0) }
    }

    public static func decode(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        var padding = false
        for c in bytes {
            if c == UInt8(ascii: "=") { padding = true; continue }
            if c == 0x0A || c == 0x0D || c == 0x20 || c == 0x09 { continue }
            if padding { return nil }
            let v = table[Int(c)]
            if v < 0 { return nil }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        if bits >= 6 { return nil }
        return out
    }

    /// The length `decode(bytes:)` returns, or nil where it returns nil, without decoding.
    public static func decodedCount(bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var symbols = 0
        var padding = false
        let ok = table.withUnsafeBufferPointer { t -> Bool in
            for c in bytes {
                if c == UInt8(ascii: "=") { padding = true; continue }
                if c == 0x0A || c == 0x0D || c == 0x20 || c == 0x09 { continue }
                if padding || t[Int(c)] < 0 { return false }
                symbols += 1
            }
            return true
        }
        guard ok else { return nil }
        // Six bits a symbol; a byte out for every eight, and a last symbol alone is no byte.
        if symbols % 4 == 1 { return nil }
        return symbols * 6 / 8
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)], alphabet[Int(v & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let v = UInt32(bytes[i]) << 16
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
