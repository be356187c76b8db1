import Foundation
import SiftCore

/// What an option's value must be. The parser checks every value against its option's kind and
/// keeps the typed result (`ParsedOptions.int`, `.seconds`, `.bytes`, `.time`, `.regex`); a value
/// that does not fit is one usage error, whatever the option or command (`UsageError.invalid`):
/// `pbsift: --opt <v>: invalid value 'X'; expected <expectation>`, exit 64.
public enum ValueKind: Sendable {
    /// Any text.
    case text
    /// One of these words (listed in help, the man page and completions).
    case choice([String])
    /// A whole number in this range.
    case int(ClosedRange<Int>)
    /// A number of seconds in this range; a fraction is allowed.
    case seconds(ClosedRange<Double>)
    /// A number of milliseconds, 0 or more; a fraction is allowed.
    case milliseconds
    /// A byte count with binary suffixes: `1048576`, `64K`, `512M`, `2G`.
    case bytes
    /// An RFC 3339 time: `2026-11-29T10:15:02Z`.
    case time
    /// A regular expression (ICU syntax, as `NSRegularExpression` reads it).
    case regex
    /// A command's own check: nil when the text is fine, else what to provide instead
    /// (`a field name`), as the error's `expected …` says it.
    case rule(@Sendable (String) -> String?)

    /// The typed value of `text`, or nil when it does not fit.
    public func parse(_ text: String) -> OptionValue? {
        switch self {
        case .text: return .text(text)
        case .choice(let words): return words.contains(text) ? .text(text) : nil
        case .int(let range):
            guard let n = Int(text), range.contains(n) else { return nil }
            return .int(n)
        case .seconds(let range):
            guard let v = Self.decimal(text), range.contains(v) else { return nil }
            return .seconds(v)
        case .milliseconds:
            guard let v = Self.decimal(text), v >= 0 else { return nil }
            return .seconds(v / 1000)
        case .bytes: return ByteSize.parse(text).map(OptionValue.bytes)
        case .time: return Timestamp.parse(text).map(OptionValue.time)
        case .regex: return (try? NSRegularExpression(pattern: text)) == nil ? nil : .text(text)
        case .rule(let check): return check(text) == nil ? .text(text) : nil
        }
    }

    /// What a valid value looks like, as `expected …` ends: `a positive whole number`.
    public func expectation(for text: String) -> String {
        switch self {
        case .text: return "a value"
        case .choice(let words): return "one of " + CommonOptions.quotedList(words)
        case .int(let range):
            if range.upperBound == Int.max {
                return range.lowerBound == 1 ? "a positive whole number" : "a whole number of at least \(range.lowerBound)"
            }
            return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .seconds(let range):
            return "a number of seconds from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound))"
        case .milliseconds: return "a number of milliseconds, such as 500"
        case .bytes: return "a number of bytes, such as 512M or 2G"
        case .time: return "an RFC 3339 time such as 2026-11-29T10:15:02Z"
        case .regex: return "a regular expression"
        case .rule(let check): return check(text) ?? "a value"
        }
    }

    /// A finite decimal number (no `nan`, `inf` or hexadecimal forms).
    static func decimal(_ text: String) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let v = Double(text), v.isFinite
        else { return nil }
        return v
    }

    /// `60`, `0.5`: a bound as a person writes it.
    static func plain(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}

/// An option's value after the parser checked it against its `ValueKind`.
public enum OptionValue: Sendable, Equatable {
    case text(String)
    case int(Int)
    /// Durations in seconds (`.seconds` and `.milliseconds` kinds).
    case seconds(Double)
    case bytes(Int64)
    /// Seconds since 1970.
    case time(Double)
}

extension UsageError {
    /// The one message for a value that does not fit its option or argument:
    /// `pbsift: --format <format>: invalid value 'png'; expected one of 'text' or 'json'`.
    public static func invalid(_ value: String, for label: String, expected: String) -> UsageError {
        UsageError("invalid value '\(value)'; expected \(expected)", about: label)
    }

    /// The message for `value` given to `option`, from its kind.
    public static func invalid(_ value: String, for option: OptionSpec) -> UsageError {
        invalid(value, for: option.display, expected: option.kind.expectation(for: value))
    }
}

extension ParsedOptions {
    /// The last value of a `.int` option.
    public func int(_ name: String) -> Int? {
        if case .int(let n)? = typed[name]?.last { return n }
        return nil
    }

    /// The last value of a `.seconds` or `.milliseconds` option, in seconds.
    public func seconds(_ name: String) -> Double? {
        if case .seconds(let v)? = typed[name]?.last { return v }
        return nil
    }

    /// The last value of a `.bytes` option.
    public func bytes(_ name: String) -> Int64? {
        if case .bytes(let n)? = typed[name]?.last { return n }
        return nil
    }

    /// The last value of a `.time` option, in seconds since 1970.
    public func time(_ name: String) -> Double? {
        if case .time(let t)? = typed[name]?.last { return t }
        return nil
    }

    /// The last value of a `.regex` option, compiled.
    public func regex(_ name: String) -> NSRegularExpression? {
        guard case .text(let pattern)? = typed[name]?.last else { return nil }
        return try? NSRegularExpression(pattern: pattern)
    }
}
