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

    /// The command, and the variables it reads (a comment line naming them first).
    func curl() -> String {
        var variables: [String] = []
        var secretCount = 0
        func variablesFor(_ s: String, name: String?) -> [(range: Range<String.Index>, variable: String)] {
            Redactor.maskRanges(in: s).map { r in
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
        for r in Redactor.maskRanges(in: u) {
            let before = u[..<r.lowerBound]
            let name = before.lastIndex(where: { $0 == "?" || $0 == "&" || $0 == ";" }).map {
                String(before[before.index(after: $0)...].dropLast())
            }
            urlMasks += variablesFor(String(u[r]), name: name?.isEmpty == false ? name : "url").map { (r, $0.variable) }
        }
        parts.append(ShowReport.spliced(u, masks: urlMasks))
        for h in requestHeaders {
            let line = "\(h.name): \(h.value)"
            let masks = Redactor.maskRanges(in: line).filter { $0.lowerBound >= line.index(line.startIndex, offsetBy: h.name.count + 2) }
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
                let masks = Redactor.maskRanges(in: text).flatMap { r in variablesFor(String(text[r]), name: nil).map { (r, $0.variable) } }
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
