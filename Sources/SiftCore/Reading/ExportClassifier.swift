import Foundation
import SiftArchive

/// What an input's first bytes look like, to name it when it holds no Palbe record
/// ("not a Palbe export (looks like a HAR file)") or to route it to another reader.
public enum ExportClassifier {
    /// The shape of the first bytes of a file.
    public enum Kind: String, Sendable {
        /// A HAR file (HTTP Archive): a JSON object with a `log` member holding `entries`, `creator` or `pages`.
        case har
        /// One JSON value that is not a HAR file (pretty-printed or one line).
        case json
        /// Lines of JSON objects (none of them a Palbe record, when asked after reading).
        case jsonLines
        /// A NUL byte, or mostly bytes that are neither text nor UTF-8.
        case binary
        /// No bytes, or only white space.
        case empty
        /// Text that is not JSON.
        case text
    }

    /// How many leading bytes `kind(of:)` looks at.
    public static let headBytes = 4096

    /// The kind of a file from its first bytes (up to `headBytes`; fewer when the file is shorter).
    public static func kind(of head: [UInt8]) -> Kind {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return .empty }
        if bytes.contains(0) { return .binary }
        let odd = bytes.lazy.filter { $0 < 0x20 && !isSpace($0) || $0 == 0x7F }.count
        if odd * 10 > bytes.count || String(validating: Array(bytes.prefix(bytes.count - trailingPartial(bytes))), as: UTF8.self) == nil {
            return .binary
        }
        let c = bytes[first]
        guard c == UInt8(ascii: "{") || c == UInt8(ascii: "[") else { return .text }
        if c == UInt8(ascii: "{"), contains(bytes, "\"log\""),
            contains(bytes, "\"entries\"") || contains(bytes, "\"creator\"") || contains(bytes, "\"pages\"")
        {
            return .har
        }
        // JSON Lines: the first line is a whole JSON value on its own.
        if let nl = bytes[first...].firstIndex(of: 0x0A), (try? JSONDocument(bytes: Array(bytes[first..<nl]), maxDepth: 64)) != nil {
            return .jsonLines
        }
        return .json
    }

    /// The words after "looks like" in a message: `a HAR file (HTTP Archive)`, `plain JSON`, …
    public static func describe(_ kind: Kind) -> String {
        switch kind {
        case .har: return "looks like a HAR file, an HTTP Archive"
        case .json: return "looks like plain JSON"
        case .jsonLines: return "JSON Lines, but no line is a Palbe record"
        case .binary: return "looks like binary data"
        case .empty: return "empty"
        case .text: return "looks like text, not JSON Lines"
        }
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// Bytes at the end that may be a UTF-8 sequence cut by the head's bound (up to 3).
    static func trailingPartial(_ b: ArraySlice<UInt8>) -> Int {
        var n = 0
        var i = b.endIndex
        while i > b.startIndex, n < 3 {
            i -= 1
            let c = b[i]
            if c & 0xC0 == 0x80 { n += 1; continue }
            if c & 0xC0 == 0xC0 { return n + 1 }
            return 0
        }
        return 0
    }

    static func contains(_ b: ArraySlice<UInt8>, _ word: String) -> Bool {
        let w = Array(word.utf8)
        guard b.count >= w.count else { return false }
        var i = b.startIndex
        while i + w.count <= b.endIndex {
            if b[i] == w[0], b[i..<(i + w.count)].elementsEqual(w) { return true }
            i += 1
        }
        return false
    }
}
