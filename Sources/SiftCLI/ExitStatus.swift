/// pbsift's exit statuses. Each is documented in `--help` and in the man page's EXIT STATUS.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Done, and no finding at or above the `--fail-on` threshold.
    case ok = 0
    /// A finding at or above `--fail-on` (default `high`).
    case findings = 1
    /// An input could not be read in full. Wins over 1: a verdict on a partly read input can't be trusted.
    case incomplete = 2
    /// Usage error: an unknown option, a bad value, a missing argument.
    case usage = 64
}

extension ExitStatus {
    /// What the status means, as `--help` and the man page's EXIT STATUS print it.
    public var meaning: String {
        switch self {
        case .ok: "Done, and no finding at or above the --fail-on threshold."
        case .findings: "A finding at or above the --fail-on threshold (default: high)."
        case .incomplete:
            "An input could not be read in full, or the report could not be written. Wins over 1: a verdict on a partly read input can't be trusted; the report still lists every finding."
        case .usage: "Usage error: an unknown option, a bad value, a missing argument."
        }
    }
}
