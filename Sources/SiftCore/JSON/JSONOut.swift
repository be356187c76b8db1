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

    /// Renders as compact (one line) or pretty (two-space indent) JSON text, through `JSONWriter`.
    public func render(pretty: Bool = true) -> String {
        var w = JSONWriter(pretty: pretty)
        w.value(self)
        return w.text
    }

    /// Appends the value to `out` as `JSONWriter` writes it at `indent`.
    public func write(into out: inout String, pretty: Bool, indent: Int) {
        var w = JSONWriter(pretty: pretty, indent: indent)
        w.value(self)
        out += w.text
    }

    /// Shortest round-tripping text; integral values keep a `.0`; NaN and infinities print as null.
    public static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        return d.description
    }

    /// Appends `s` as a JSON string literal, escaped as `JSONWriter` escapes it.
    public static func quote(_ s: String, into out: inout String) {
        var w = JSONWriter(pretty: false)
        w.string(s)
        out += w.text
    }
}
