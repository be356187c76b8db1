import Foundation

/// ANSI styling for terminal text: every function returns its argument unchanged unless `enabled`.
///
/// Style only text already passed through `Escape.terminal`: colour never makes untrusted text safe.
public struct Colors: Sendable, Equatable {
    /// Whether escape sequences are emitted at all.
    public var enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }

    /// No styling.
    public static let off = Colors(enabled: false)

    private func wrap(_ code: String, _ s: String) -> String {
        enabled && !s.isEmpty ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }

    public func bold(_ s: String) -> String { wrap("1", s) }
    public func dim(_ s: String) -> String { wrap("2", s) }
    public func red(_ s: String) -> String { wrap("31", s) }
    public func green(_ s: String) -> String { wrap("32", s) }
    public func yellow(_ s: String) -> String { wrap("33", s) }
    public func blue(_ s: String) -> String { wrap("34", s) }
    public func magenta(_ s: String) -> String { wrap("35", s) }
    public func cyan(_ s: String) -> String { wrap("36", s) }

    /// `s` in the colour of a severity: critical bold red, high red, medium yellow, low cyan, info dim.
    public func severity(_ severity: Severity, _ s: String) -> String {
        switch severity {
        case .critical: wrap("1;31", s)
        case .high: red(s)
        case .medium: yellow(s)
        case .low: cyan(s)
        case .info: dim(s)
        }
    }
}
