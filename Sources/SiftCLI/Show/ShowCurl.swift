import Foundation
import SiftCore

/// `show --curl`: the request as a `curl` command (as DevTools' "Copy as cURL"), built from the
/// masked report. Every value that was masked — a header on the SDK's list, a listed query
/// parameter, a credential in the body — becomes a shell variable (`"$AUTHORIZATION"`,
/// `"$ACCESS_TOKEN"`, `"$SECRET_1"`), named in a comment above the command, so the command runs once
/// the variables are set and never carries a credential.
extension ShowReport {
    /// The variable a masked value of `name` is read from: letters and digits upper-cased, the rest `_`.
    static func variable(_ name: String) -> String {
        var v = String(name.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(40))
        if v.isEmpty || v.first!.isNumber { v = "V_" + v }
        return v
    }

    /// Whether a masked text holds a mask (`***`, a preview `EXAM…(24 chars)`, `…(value hidden)`,
    /// a withheld or unchecked text).
    static func holdsMask(_ s: String) -> Bool {
        s.contains("***") || s.contains("…(") || s.contains("[withheld") || s.contains("[hidden")
    }

    /// One word for the shell: single-quoted, each `'` written `'\''`.
    static func quoted(_ s: String) -> String {
        "'" + Escape.terminal(s, keepNewlines: true).replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A shell word in which each mask is replaced by a variable: the literal parts single-quoted,
    /// the variables double-quoted, side by side (`'Bearer '"$AUTHORIZATION"`).
    static func spliced(_ s: String, masks: [(range: Range<String.Index>, variable: String)]) -> String {
        var out = ""
        var at = s.startIndex
        for m in masks {
            if at < m.range.lowerBound { out += quoted(String(s[at..<m.range.lowerBound])) }
            out += "\"$\(m.variable)\""
            at = m.range.upperBound
        }
        if at < s.endIndex { out += quoted(String(s[at...])) }
        return out.isEmpty ? "''" : out
    }

    /// The masks in a masked text: `***`, previews and the withheld or unchecked texts.
    static func maskRanges(_ s: String) -> [Range<String.Index>] {
        var out: [Range<String.Index>] = []
        var i = s.startIndex
        while i < s.endIndex {
            let rest = s[i...]
            if rest.hasPrefix("***") {
                let end = s.index(i, offsetBy: 3)
                out.append(i..<end)
                i = end
                continue
            }
            for whole in [Redactor.withheldText, "[hidden: not checked in full, "] where rest.hasPrefix(whole) {
                let end =
                    whole.hasSuffix(", ")
                    ? (rest.firstIndex(of: "]").map { s.index(after: $0) } ?? s.endIndex) : s.index(i, offsetBy: whole.count)
                out.append(i..<end)
                i = end
            }
            guard i < s.endIndex else { break }
            if s[i] == "…", let close = s[i...].firstIndex(of: ")"), s[s.index(after: i)...].hasPrefix("("),
                s[i..<close].hasSuffix(" chars") || s[i..<close].hasSuffix("value hidden")
            {
                // The preview's head: up to four characters before `…`, back to a quote, `=` or space.
                var start = i
                var n = 0
                while start > s.startIndex, n < 4 {
                    let p = s.index(before: start)
                    if " \"'=:&,".contains(s[p]) { break }
                    start = p
                    n += 1
                }
                if let last = out.last, last.upperBound > start { start = last.upperBound }
                let end = s.index(after: close)
                out.append(start..<end)
                i = end
                continue
            }
            i = s.index(after: i)
        }
        return out
    }

    /// The command, and the variables it reads (a comment line naming them first).
    func curl() -> String {
        var variables: [String] = []
        var secretCount = 0
        func variablesFor(_ s: String, name: String?) -> [(range: Range<String.Index>, variable: String)] {
            ShowReport.maskRanges(s).map { r in
                var v: String
                if let name {
                    v = ShowReport.variable(name)
                    if variables.contains(v) {
                        secretCount += 1
                        v += "_\(secretCount)"
                    }
                } else {
                    secretCount += 1
                    v = "SECRET_\(secretCount)"
                }
                variables.append(v)
                return (r, v)
            }
        }
        var parts = ["curl"]
        if let m = method, m != "GET" { parts.append("-X " + ShowReport.quoted(m)) }
        // The URL: a masked query value is read from the variable named after its parameter.
        let u = url ?? ""
        var urlMasks: [(range: Range<String.Index>, variable: String)] = []
        for r in ShowReport.maskRanges(u) {
            let before = u[..<r.lowerBound]
            let name = before.lastIndex(where: { $0 == "?" || $0 == "&" || $0 == ";" }).map {
                String(before[before.index(after: $0)...].dropLast())
            }
            urlMasks += variablesFor(String(u[r]), name: name?.isEmpty == false ? name : "url").map { (r, $0.variable) }
        }
        parts.append(ShowReport.spliced(u, masks: urlMasks))
        for h in requestHeaders {
            let line = "\(h.name): \(h.value)"
            let masks = ShowReport.maskRanges(line).filter { $0.lowerBound >= line.index(line.startIndex, offsetBy: h.name.count + 2) }
            let named = masks.flatMap { r in variablesFor(String(line[r]), name: h.name).map { (r, $0.variable) } }
            parts.append("-H " + ShowReport.spliced(line, masks: named))
        }
        var comments: [String] = []
        if let b = requestBody {
            if var text = b.text {
                // A JSON body is sent compact, as an app sends it (show prints it pretty).
                if text.hasPrefix("{") || text.hasPrefix("["), let doc = try? JSONDocument(string: text, maxDepth: 64) {
                    text = doc.root.out.render(pretty: false)
                }
                let masks = ShowReport.maskRanges(text).flatMap { r in variablesFor(String(text[r]), name: nil).map { (r, $0.variable) } }
                parts.append("--data-raw " + ShowReport.spliced(text, masks: masks))
                if b.omittedBytes > 0 { comments.append("# the body is cut: show --curl --body full gives it whole") }
            } else if (b.size ?? 0) > 0 {
                comments.append("# the request body is not here (\(b.notShown ?? "not shown"))")
            }
        }
        if !variables.isEmpty {
            comments.insert("# set first (masked in the export): " + variables.map { "$" + $0 }.joined(separator: " "), at: 0)
        }
        return (comments + [parts.joined(separator: " \\\n  ")]).joined(separator: "\n") + "\n"
    }
}
