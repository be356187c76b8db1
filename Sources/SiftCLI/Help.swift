import Foundation

/// Help text generated from the option tables, laid out like swift-argument-parser's.
public enum Help {
    /// Help descriptions start at this column.
    public static let column = 26
    /// Help is wrapped to this width (fixed, so help and its golden files do not depend on the terminal).
    public static let width = 80

    /// `pbsift <command> --help`.
    public static func command(_ spec: CommandSpec) -> String {
        var out = "OVERVIEW: " + spec.abstract + "\n\n"
        if !spec.discussion.isEmpty { out += paragraphs(spec.discussion) + "\n" }
        out += "USAGE: " + spec.usageLine + "\n\n"
        if !spec.arguments.isEmpty {
            out += "ARGUMENTS:\n"
            for a in spec.arguments { out += row("<\(a.name)>", describe(a.help, allowed: a.allowed, default: nil)) }
            out += "\n"
        }
        out += "OPTIONS:\n"
        for o in spec.allOptions { out += row(label(o), describe(o)) }
        if !spec.examples.isEmpty {
            out += "\nEXAMPLES:\n"
            for (command, what) in spec.examples {
                out += wrap(what, width: width - 2).map { "  " + $0 + "\n" }.joined()
                out += example(command)
            }
        }
        out += "\n" + exitStatusSection(spec.commonOptions ? ExitStatus.allCases : [.ok, .usage], plain: !spec.commonOptions)
        return out
    }

    /// `pbsift --help`.
    public static func topLevel(_ commands: [CommandSpec]) -> String {
        var out = "OVERVIEW: " + PBSift.abstract + "\n\n"
        out += paragraphs(PBSift.discussion) + "\n"
        out += "USAGE: pbsift <subcommand>\n\n"
        out += "OPTIONS:\n"
        out += row("--version", "Show the version.")
        out += row("-h, --help", "Show help information.")
        out += "\nSUBCOMMANDS:\n"
        for c in commands { out += row(c.name, c.abstract) }
        out += row("help", "Show subcommand help information.")
        out += "\n  See 'pbsift help <subcommand>' for detailed help.\n\n"
        out += exitStatusSection(ExitStatus.allCases)
        return out
    }

    /// `    $ pbsift …`, continued with ` \\` on the next line where it passes `width`, breaking only
    /// at spaces outside quotes (so it still pastes into a shell).
    static func example(_ command: String) -> String {
        var words: [String] = []
        var cur = ""
        var quote: Character?
        for ch in command {
            if ch == " " && quote == nil {
                if !cur.isEmpty { words.append(cur) }
                cur = ""
                continue
            }
            if ch == "'" || ch == "\"" { quote = quote == nil ? ch : (quote == ch ? nil : quote) }
            cur.append(ch)
        }
        if !cur.isEmpty { words.append(cur) }
        var out = ""
        var line = "    $"
        for w in words {
            if line.count + 1 + w.count + 2 > width && line.count > 8 {
                out += line + " \\\n"
                line = "       " + w
            } else {
                line += " " + w
            }
        }
        return out + line + "\n"
    }

    /// `plain`: a command without findings, whose 0 means just "done".
    static func exitStatusSection(_ cases: [ExitStatus], plain: Bool = false) -> String {
        var out = "EXIT STATUS:\n"
        for s in cases { out += row(String(s.rawValue), plain && s == .ok ? "Done." : s.meaning) }
        return out
    }

    /// `-f, --format <format>`, `--json`.
    public static func label(_ o: OptionSpec) -> String {
        var l = o.short.map { "-\($0), " } ?? ""
        l += "--" + o.name
        if let v = o.valueName { l += " <\(v)>" }
        return l
    }

    /// The help text with its allowed values and default: `Output format. (values: text, json; default: text)`.
    public static func describe(_ o: OptionSpec) -> String {
        var text = o.help
        // Said once, here: the tables' own help never says "repeatable".
        if o.repeatable { text += " Can be repeated." }
        return describe(text, allowed: o.allowed, default: o.defaultValue)
    }

    static func describe(_ help: String, allowed: [String]?, default def: String?) -> String {
        var extras: [String] = []
        if let allowed { extras.append("values: " + allowed.joined(separator: ", ")) }
        if let def { extras.append("default: " + def) }
        return extras.isEmpty ? help : help + " (" + extras.joined(separator: "; ") + ")"
    }

    /// Two-space indented label, description at `column`, wrapped to `width`.
    static func row(_ label: String, _ text: String) -> String {
        let lead = "  " + label
        let pad = String(repeating: " ", count: column)
        let lines = wrap(text, width: width - column)
        var out: String
        var rest = lines[...]
        if lead.count + 2 <= column {
            out = lead + String(repeating: " ", count: column - lead.count) + (rest.first ?? "") + "\n"
            rest = rest.dropFirst()
        } else {
            out = lead + "\n"
        }
        for l in rest { out += pad + l + "\n" }
        return out
    }

    /// Paragraphs separated by blank lines, each wrapped to `width`; a line starting with two spaces
    /// is kept as it is (an example command).
    static func paragraphs(_ text: String) -> String {
        var out = ""
        for para in text.components(separatedBy: "\n\n") {
            var plain: [String] = []
            func flush() {
                if !plain.isEmpty { out += wrap(plain.joined(separator: " "), width: width).joined(separator: "\n") + "\n" }
                plain = []
            }
            for line in para.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if line.hasPrefix("  ") {
                    flush()
                    out += line + "\n"
                } else {
                    plain.append(line)
                }
            }
            flush()
            out += "\n"
        }
        return out.isEmpty ? out : String(out.dropLast())
    }

    /// Greedy word wrap; a word longer than the width gets a line of its own.
    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var cur = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if cur.isEmpty {
                cur = String(word)
            } else if cur.count + 1 + word.count <= width {
                cur += " " + word
            } else {
                lines.append(cur)
                cur = String(word)
            }
        }
        if !cur.isEmpty || lines.isEmpty { lines.append(cur) }
        return lines
    }
}
