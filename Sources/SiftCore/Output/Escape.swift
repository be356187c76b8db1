import Foundation

/// Each output medium escapes untrusted text (from an export or a log) in its own way.
public enum Escape {
    /// RFC 4180 field: quoted when it holds `"`, `,`, CR or LF (quotes doubled); a field starting with
    /// `=`, `+`, `-`, `@`, TAB or CR is prefixed with `'` so spreadsheets don't run it as a formula.
    /// Control characters (ESC, CR, BEL, C1, DEL) and bidi overrides are shown as `\x1b`, `\u{202e}`
    /// (a CSV file is often `cat` to a terminal); LF and TAB stay.
    public static func csvField(_ s: String) -> String {
        var v = visible(s, keep: [0x0A, 0x09])
        if let f = v.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(f) {
            // A plain number (e.g. -12.5) is data, not a formula.
            if !(f == "-" && Double(v) != nil) { v = "'" + v }
        }
        if v.contains(where: { $0 == "\"" || $0 == "," || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) {
            return "\"" + v.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return v
    }

    /// One CSV row, CRLF-terminated (RFC 4180).
    public static func csvRow(_ fields: [String]) -> String {
        fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    /// One CSV row of redacted fields, ready for a sink.
    public static func csvRow(_ fields: Redacted<[String]>) -> SafeText { SafeText(verified: csvRow(fields.value)) }

    /// One CSV row of the user's own words (column names given on the command line), ready for a sink.
    public static func csvRow(arguments fields: [String]) -> SafeText { SafeText(verified: csvRow(fields)) }

    /// One redacted JSON object as a JSON Lines line (compact, newline-terminated), ready for a sink.
    public static func jsonLine(_ object: Redacted<[String: JSONOut]>) -> SafeText {
        var w = JSONWriter(pretty: false)
        w.value(.object(object.value))
        w.newline()
        return SafeText(verified: w.text)
    }

    /// Text inside a GitHub/Jira Markdown table cell or paragraph: HTML and Markdown punctuation
    /// neutralised, `|` escaped, newlines as `<br>`.
    public static func markdown(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in terminal(s, keepNewlines: true).unicodeScalars {
            switch ch {
            case "|": out += "\\|"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "`": out += "\\`"
            case "*", "_", "[", "]", "#", "~", "\\", "!": out += "\\" + String(ch)
            case "\n": out += "<br>"
            case "\r": break
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// Text inside a Markdown inline code span: backticks can't be escaped there, so they are replaced.
    public static func markdownCode(_ s: String) -> String {
        "`" + terminal(s).replacingOccurrences(of: "`", with: "'").replacingOccurrences(of: "|", with: "\\|") + "`"
    }

    /// Text for a terminal: C0/C1 controls, DEL and bidi overrides shown as `\x1b`, `\u{202e}`, so an
    /// export can never send an escape sequence to the user's terminal.
    public static func terminal(_ s: String, keepNewlines: Bool = false) -> String {
        var clean = true
        for u in s.unicodeScalars where isUnsafe(u, keepNewlines: keepNewlines) { clean = false; break }
        if clean { return s }
        var out = ""
        for u in s.unicodeScalars {
            if u.value >= 0x10FF00 {
                // A path byte that is not UTF-8 (see `PathBytes`).
                out += String(format: "\\x%02x", u.value - 0x10FF00)
            } else if isUnsafe(u, keepNewlines: keepNewlines) {
                out += u.value < 0x100 ? String(format: "\\x%02x", u.value) : String(format: "\\u{%x}", u.value)
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// `s` with every unsafe scalar (see `terminal`) but those in `keep` shown as an escape.
    static func visible(_ s: String, keep: Set<UInt32>) -> String {
        guard s.unicodeScalars.contains(where: { isUnsafe($0, keepNewlines: true) && !keep.contains($0.value) }) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if isUnsafe(u, keepNewlines: true) && !keep.contains(u.value) {
                out += u.value < 0x100 ? String(format: "\\x%02x", u.value) : String(format: "\\u{%x}", u.value)
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    static func isUnsafe(_ u: Unicode.Scalar, keepNewlines: Bool) -> Bool {
        let v = u.value
        if v == 0x0A { return !keepNewlines }
        if v < 0x20 || v == 0x7F || (v >= 0x80 && v < 0xA0) { return true }
        if v >= 0x10FF00 { return true }
        if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F { return true }
        return false
    }

    /// Text or attribute value for XML/HTML/SVG; characters not allowed in XML 1.0 become U+FFFD;
    /// DEL, C1 controls and bidi overrides are shown as `\x85`, `\u{202e}`.
    public static func xml(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            let v = u.value
            if v >= 0x7F && isUnsafe(u, keepNewlines: true) {
                out += v < 0x100 ? String(format: "\\x%02x", v) : String(format: "\\u{%x}", v)
                continue
            }
            switch u {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                let v = u.value
                if (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || v == 0xFFFE || v == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }
}
