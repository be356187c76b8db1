import Foundation

/// Session ids as `--session` selects them: the whole id, or a prefix of it with or without `ses_`.
public enum SessionSelector {
    public static func matches(_ wanted: String?, _ sessionId: String?) -> Bool {
        guard let wanted, !wanted.isEmpty else { return true }
        guard let id = sessionId else { return false }
        let bare = id.hasPrefix("ses_") ? String(id.dropFirst(4)) : id
        return id.hasPrefix(wanted) || bare.hasPrefix(wanted)
    }

    /// `ses_4fd58165…`: the id shortened for messages.
    public static func short(_ id: String?) -> String {
        guard let id else { return "(unknown session)" }
        return id.count > 16 ? String(id.prefix(12)) + "…" : id
    }
}
