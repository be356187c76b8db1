import Foundation

/// A JSON value to print. Object keys are printed sorted, so output is deterministic.
public indirect enum JSONOut: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONOut])
    case object([String: JSONOut])

    /// `.string` or `.null`.
    public static func opt(_ s: String?) -> JSONOut { s.map { .string($0) } ?? .null }
    /// `.int` or `.null`.
    public static func opt(_ i: Int?) -> JSONOut { i.map { .int($0) } ?? .null }
    /// `.double` or `.null`.
    public static func opt(_ d: Double?) -> JSONOut { d.map { .double($0) } ?? .null }
    /// `.bool` or `.null`.
    public static func opt(_ b: Bool?) -> JSONOut { b.map { .bool($0) } ?? .null }

    /// Renders as compact (one line) or pretty (two-space indent) JSON text.
    public func render(pretty: Bool = true) -> String {
        var out = ""
        out.reserveCapacity(256)
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    public func write(into out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONOut.format(d)
        case .string(let s): JSONOut.quote(s, into: &out)
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            out += "["
            for (k, v) in a.enumerated() {
                if k > 0 { out += "," }
                if pretty { out += "\n"; out += String(repeating: " ", count: indent + 2) }
                v.write(into: &out, pretty: pretty, indent: indent + 2)
            }
            if pretty { out += "\n"; out += String(repeating: " ", count: indent) }
            out += "]"
        case .object(let o):
            if o.isEmpty { out += "{}"; return }
            out += "{"
            for (k, key) in o.keys.sorted().enumerated() {
                if k > 0 { out += "," }
                if pretty { out += "\n"; out += String(repeating: " ", count: indent + 2) }
                JSONOut.quote(key, into: &out)
                out += pretty ? ": " : ":"
                o[key]!.write(into: &out, pretty: pretty, indent: indent + 2)
            }
            if pretty { out += "\n"; out += String(repeating: " ", count: indent) }
            out += "}"
        }
    }

    /// Shortest round-tripping text; integral values keep a `.0`; NaN and infinities print as null.
    public static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        return d.description
    }

    /// Appends `s` as a JSON string literal. Escapes controls, and U+2028/2029 for JavaScript consumers.
    public static func quote(_ s: String, into out: inout String) {
        out += "\""
        var plainStart = s.unicodeScalars.startIndex
        var idx = plainStart
        let scalars = s.unicodeScalars
        while idx != scalars.endIndex {
            let c = scalars[idx]
            var rep: String?
            switch c {
            case "\"": rep = "\\\""
            case "\\": rep = "\\\\"
            case "\n": rep = "\\n"
            case "\r": rep = "\\r"
            case "\t": rep = "\\t"
            default:
                if c.value < 0x20 || c.value == 0x7F || c.value == 0x2028 || c.value == 0x2029 {
                    rep = String(format: "\\u%04x", c.value)
                }
            }
            if let r = rep {
                out += Substring(scalars[plainStart..<idx])
                out += r
                plainStart = scalars.index(after: idx)
            }
            idx = scalars.index(after: idx)
        }
        out += Substring(scalars[plainStart..<scalars.endIndex])
        out += "\""
    }
}
