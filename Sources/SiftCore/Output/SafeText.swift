import Foundation

/// Text an output may carry: the only text `OutputSink.write` and `CommandIO` take from outside the
/// output layer. There is no initializer from a `String`; one is made from
///
/// - pbsift's own literal words (`"pbsift: "`, a string literal: a `StaticString`, never a variable),
/// - an interpolation of those with integers, other `SafeText`, a `Redacted<String>` (what the
///   `Redactor` gave for an export's or a log's text) or `argument:` (text the user typed on the
///   command line), the last two escaped for a terminal,
/// - an escaping function over redacted text (`Escape.csvRow(_: Redacted<[String]>)`), or redacted
///   text its builder escaped already (`SafeText(escaped:)`),
/// - `SafeText(program:)`: text pbsift builds from its own tables (help, the man page,
///   completions, rule listings), never from an export.
///
/// So a `String` read from an export can reach an output only through the `Redactor`.
public struct SafeText: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The text (reading it is safe; only making one is restricted).
    public let string: String

    /// The output layer's own constructor (its reporters and writers vouch for what they pass).
    init(verified string: String) { self.string = string }

    /// Text pbsift builds from its own tables (help, man page, completions, version, rule
    /// listings). Never text read from an export or a log: that goes through the `Redactor`.
    public init(program string: String) { self.string = string }

    /// Redacted text that its builder already escaped for its medium (a query for a log platform,
    /// written as is).
    public init(escaped text: Redacted<String>) { string = text.value }

    public init(stringLiteral value: StaticString) { string = value.description }

    public init(stringInterpolation: Interpolation) { string = stringInterpolation.out }

    public var description: String { string }
    public var isEmpty: Bool { string.isEmpty }

    public static func + (a: SafeText, b: SafeText) -> SafeText { SafeText(verified: a.string + b.string) }
    public static func += (a: inout SafeText, b: SafeText) { a = a + b }

    /// The interpolations `SafeText` accepts: see the type's documentation.
    public struct Interpolation: StringInterpolationProtocol {
        var out = ""

        public init(literalCapacity: Int, interpolationCount: Int) { out.reserveCapacity(literalCapacity + 16 * interpolationCount) }

        public mutating func appendLiteral(_ literal: StaticString) { out += literal.description }

        public mutating func appendInterpolation(_ text: SafeText) { out += text.string }

        public mutating func appendInterpolation<N: BinaryInteger>(_ n: N) { out += String(n) }

        /// Redacted export or log text, escaped for a terminal.
        public mutating func appendInterpolation(_ text: Redacted<String>) { out += Escape.terminal(text.value) }

        /// Text the user typed on the command line (a path, an option's value), escaped for a terminal.
        public mutating func appendInterpolation(argument text: String) { out += Escape.terminal(text) }

        /// A byte count in pbsift's one human style (`Human.bytes`).
        public mutating func appendInterpolation<N: BinaryInteger>(bytes n: N) { out += Human.bytes(n) }
    }
}

extension Array where Element == SafeText {
    public func joined(separator: SafeText = "") -> SafeText {
        SafeText(verified: map(\.string).joined(separator: separator.string))
    }
}
