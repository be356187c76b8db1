import Foundation

/// ANSI styling for terminal text: every function returns its argument unchanged unless `enabled`.
///
/// Style only text already passed through `Escape.terminal`: colour never makes untrusted text safe.
package struct Colors: Sendable, Equatable {
    /// Whether escape sequences are emitted at all.
    package var enabled: Bool

    package init(enabled: Bool) { self.enabled = enabled }

    /// No styling.
    package static let off = Colors(enabled: false)

    private func wrap(_ code: String, _ s: String) -> String {
        enabled && !s.isEmpty ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }

    package func bold(_ s: String) -> String { wrap("1", s) }
    package func dim(_ s: String) -> String { wrap("2", s) }
    package func red(_ s: String) -> String { wrap("31", s) }
    package func green(_ s: String) -> String { wrap("32", s) }
    package func yellow(_ s: String) -> String { wrap("33", s) }
    package func blue(_ s: String) -> String { wrap("34", s) }
    package func magenta(_ s: String) -> String { wrap("35", s) }
    package func cyan(_ s: String) -> String { wrap("36", s) }

    /// `s` in the colour of a severity: critical bold red, high red, medium yellow, low cyan, info dim.
    package func severity(_ severity: Severity, _ s: String) -> String {
        switch severity {
        case .critical: wrap("1;31", s)
        case .high: red(s)
        case .medium: yellow(s)
        case .low: cyan(s)
        case .info: dim(s)
        }
    }
}
