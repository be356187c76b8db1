import SiftCore

/// A value given to a name in code, configuration or prose: `name = value`, `"name": "value"`,
/// `NAME: value`, `export NAME=value`, `name => "value"`, `name := value`, a comparison
/// (`name == "value"`, `"value" !== name`), a call (`getenv("name", "value")`) or a bare
/// `name "value"`. The anchor that found it lies inside the name.
struct Assignment {
    /// The value, without its quotes.
    var value: DetMatch
    /// Where the name starts and ends (the anchor is inside).
    var nameStart: Int
    var nameEnd: Int
    /// The name's hints.
    var hints: NameHints
    /// Whether the value is a quoted literal (`"…"`, `'…'`, `` `…` ``): a literal in code is written
    /// there by a person, so a credential name beside it says what it is.
    var quoted: Bool
    /// Whether a markup `key=` attribute named it (`<add key="ApiKey" value="…"/>`, .NET's and NuGet's
    /// config), not a `name=` (`<property name="password" value="…"/>`).
    var markup = false
    /// Whether the value is the next item of a list after the quoted name (`"name", "value"`), with no
    /// operator between: a call's arguments or a tuple, as often two names as a name and its value.
    var listed = false
}

enum Assign {
    static let nameBytes = ByteSet("A-Za-z0-9_.-")
    @inline(__always) private static func quote(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || c == UInt8(ascii: "`")
    }

    /// The assignment whose name holds the anchor at `p` (`len` bytes), if any form above fits.
    static func around(_ t: ScanInput, _ p: Int, _ len: Int) -> Assignment? {
        let nameStart = p - t.runBack(p, nameBytes, max: 64)
        var nameEnd = p + len + t.run(p + len, nameBytes, max: 64)
        // A trailing `.` or `-` ends a sentence, not a name.
        while nameEnd > p + len && (t[nameEnd - 1] == UInt8(ascii: ".") || t[nameEnd - 1] == UInt8(ascii: "-")) { nameEnd -= 1 }
        guard nameEnd > nameStart else { return nil }
        // A part of a colon path (`arn:aws:secretsmanager:…:secret:prod/db`) is not a name, nor the last
        // part of a type's path (`AWS::ApiGateway::ApiKey`); PowerShell's `$env:API_TOKEN` is one.
        if nameStart >= 2, t[nameStart - 1] == UInt8(ascii: ":"),
            nameBytes.contains(t[nameStart - 2]) || t[nameStart - 2] == UInt8(ascii: ":"),
            !(nameStart >= 5 && t.has(Array("$env".utf8), at: nameStart - 5))
        {
            return nil
        }
        let hints = NameHints.of(raw: UnsafeBufferPointer(rebasing: t.b[nameStart..<nameEnd]))
        if var a = namedPair(t, nameStart: nameStart, nameEnd: nameEnd) {
            a.hints = hints
            return a
        }
        if var a = forward(t, nameStart: nameStart, nameEnd: nameEnd) {
            a.hints = hints
            return a
        }
        if var a = backward(t, nameStart: nameStart) {
            a.nameEnd = nameEnd
            a.hints = hints
            return a
        }
        return nil
    }

    /// `name <op> value`, `"name": value`, `name "value"`, `("name", "value")`.
    private static func forward(_ t: ScanInput, nameStart: Int, nameEnd: Int) -> Assignment? {
        var i = nameEnd
        // A bracket suffix of the PHP and Rails array syntax: `token[]=`, `token[0]=`.
        let suffixLimit = Swift.min(t.count, i + 8)
        while i < suffixLimit && (t[i] == UInt8(ascii: "[") || t[i] == UInt8(ascii: "]") || ByteSet.digit.contains(t[i])) { i += 1 }
        // A suffix that does not close (`password[: -len(x)]`) is a subscript, not a name's.
        if i > nameEnd && t[i - 1] != UInt8(ascii: "]") { return nil }
        // The closing quote of a quoted or escaped name.
        var nameQuoted = false
        if i < t.count && t[i] == UInt8(ascii: "\\") { i += 1 }
        if i < t.count && quote(t[i]) { i += 1; nameQuoted = true }
        // A subscript's close: `os.environ["API_KEY"] = …`, `$_ENV['API_KEY'] = …`.
        if nameQuoted && i < t.count && t[i] == UInt8(ascii: "]") && nameStart >= 2 && t[nameStart - 2] == UInt8(ascii: "[") { i += 1 }
        let afterName = i
        // Markup that names a value in an attribute: `<add key="ApiKey" value="…"/>` (.NET
        // appSettings), `<string name="api_key">…</string>` (Android resources).
        if nameQuoted, nameStart >= 1, quote(t[nameStart - 1]), let markup = markupValue(t, nameStart: nameStart, afterName: afterName) {
            var a = value(t, markup, nameStart: nameStart, nameEnd: nameEnd)
            a?.markup = nameStart >= 5 && t.has(keyAttribute, at: nameStart - 5)
            return a
        }
        // An element named for the value: `<api_key>…</api_key>` (XML config, a SOAP body), the value
        // running to the next tag, which must close it (`<password>` in a URL's userinfo is a placeholder).
        if !nameQuoted, nameStart >= 1, t[nameStart - 1] == UInt8(ascii: "<"), afterName < t.count, t[afterName] == UInt8(ascii: ">"),
            afterName + 1 < t.count, t[afterName + 1] != UInt8(ascii: "<"),
            let a = value(t, afterName + 1, nameStart: nameStart, nameEnd: nameEnd, blockScalar: false)
        {
            let close = Array("</".utf8) + Array(t.b[nameStart..<nameEnd]) + [UInt8(ascii: ">")]
            return t.has(close, at: a.value.end) ? a : nil
        }
        // A command line's option and its value after one space: `--api-key <value>`, fish's
        // `set -x ACCESS_TOKEN <value>`.
        if !nameQuoted, afterName < t.count, t[afterName] == 0x20, afterName + 1 < t.count, !quote(t[afterName + 1]),
            t[afterName + 1] != 0x20, spacedOption(t, nameStart: nameStart)
        {
            return value(t, afterName + 1, nameStart: nameStart, nameEnd: nameEnd)
        }
        // A declaration with its type between the name and `=`: `let clientSecret: String = "…"`,
        // `const API_KEY: &str = "…"`, `apiKey: string = '…'`, Go's `var apiKey string = "…"`.
        if afterName == nameEnd, let v = typedValue(t, nameStart: nameStart, afterName: afterName) {
            return value(t, v, nameStart: nameStart, nameEnd: nameEnd, blockScalar: false)
        }
        i = skipSpace(t, i)
        guard i < t.count else { return nil }
        let opStart = i
        i = skipOperator(t, i)
        // A comparison (`a == b`, `aliceSecret === bobSecret`) gives a value only when it is a literal.
        if i > opStart + 1, t[i - 1] == UInt8(ascii: "="), t[i - 2] == UInt8(ascii: "=") || t[i - 2] == UInt8(ascii: "!") {
            let v = skipSpace(t, i)
            guard v < t.count, quote(t[v]) || t[v] == UInt8(ascii: "@") || t[v] == UInt8(ascii: "\\") else { return nil }
        }
        var listed = false
        if i == opStart {
            // The verb (`pass \`--flag\``, `Pass "x" to it`): `pass` alone names no value without an operator.
            if !nameQuoted, nameEnd - nameStart == 4, t.containsCI(passVerb, nameStart, nameEnd) { return nil }
            // No operator: `name "value"` (a keyword then a literal, as in `password "…";`) or, after a
            // quoted name, `"name", "value"` (a call's arguments or a list's pair).
            if nameQuoted && t[i] == UInt8(ascii: ",") {
                // `"kind": "Secret", "stringData": …`: a member's value, then the next member's name,
                // is no pair: the first string follows a `:`, the second is followed by one.
                var k = nameStart - 2
                if k >= 0 && t[k] == UInt8(ascii: "\\") { k -= 1 }
                while k >= 0 && (t[k] == 0x20 || t[k] == 0x09) { k -= 1 }
                if k >= 1 && t[k] == UInt8(ascii: ":") {
                    var q = k - 1
                    while q >= 0 && (t[q] == 0x20 || t[q] == 0x09) { q -= 1 }
                    // After a quoted member name (`"kind": "Secret"`), not after prose (`finished: "…"`).
                    if q >= 0 && quote(t[q]) { return nil }
                }
                i = skipSpace(t, i + 1)
                guard i < t.count, quote(t[i]) || t[i] == UInt8(ascii: "\\") else { return nil }
                let open = t[i] == UInt8(ascii: "\\") ? i + 1 : i
                if open < t.count, let close = t.find([t[open]], open + 1, Swift.min(t.count, open + 1025)) {
                    let after = skipSpace(t, close + 1)
                    if after < t.count && t[after] == UInt8(ascii: ":") { return nil }
                }
                listed = true
            } else {
                guard i > afterName, quote(t[i]) else { return nil }
            }
        }
        i = skipSpace(t, i)
        // An Objective-C or C# string literal: `@"…"`.
        if i + 1 < t.count && t[i] == UInt8(ascii: "@") && t[i + 1] == UInt8(ascii: "\"") { i += 1 }
        var a = value(t, i, nameStart: nameStart, nameEnd: nameEnd)
        a?.listed = listed
        return a
    }

    /// Where the value of a markup name starts, after `key="NAME"` or `name="NAME"`: the element's
    /// text (`<entry key="auth.token">…`, Android's `<string name="api_key">…`) or the next attribute
    /// `value="` (`<add key="ApiKey" value="…"/>`, a bean's `<property name="password" value="…"/>`).
    /// Nil for any other markup.
    private static func markupValue(_ t: ScanInput, nameStart: Int, afterName: Int) -> Int? {
        let open = nameStart - 1
        func attribute(_ word: String) -> Bool {
            let w = Array((word + "=").utf8)
            return open >= w.count && t.has(w, at: open - w.count)
        }
        guard attribute("key") || attribute("name") else { return nil }
        if afterName < t.count, t[afterName] == UInt8(ascii: ">") { return afterName + 1 }
        let i = skipSpace(t, afterName)
        guard t.has(valueAttribute, at: i), i + 6 < t.count, quote(t[i + 6]) else { return nil }
        return i + 6
    }

    /// Where the quoted value of a typed declaration starts: after the name, `:` and one type (`String`,
    /// `&'static str`, `Optional<String>`, `string`), or Go's `var NAME TYPE`, then `=` (not `==`) and a quote.
    private static func typedValue(_ t: ScanInput, nameStart: Int, afterName: Int) -> Int? {
        var i = skipSpace(t, afterName)
        let colon =
            i < t.count && t[i] == UInt8(ascii: ":")
            && !(i + 1 < t.count && (t[i + 1] == UInt8(ascii: ":") || t[i + 1] == UInt8(ascii: "=")))
        if colon {
            i = skipSpace(t, i + 1)
        } else {
            let goDecl = ["var ", "const "].contains { w in
                let u = Array(w.utf8)
                return nameStart >= u.count && t.has(u, at: nameStart - u.count)
            }
            guard goDecl, i > afterName else { return nil }
        }
        let typeStart = i
        while i < t.count && i - typeStart < 48 && typeBytes.contains(t[i]) { i += 1 }
        guard i > typeStart, letters.contains(t[typeStart]) || t[typeStart] == UInt8(ascii: "&") || t[typeStart] == UInt8(ascii: "[")
        else { return nil }
        i = skipSpace(t, i)
        guard i + 1 < t.count, t[i] == UInt8(ascii: "="), t[i + 1] != UInt8(ascii: "="), t[i + 1] != UInt8(ascii: ">") else { return nil }
        i = skipSpace(t, i + 1)
        return i < t.count && quote(t[i]) ? i : nil
    }
    private static let typeBytes = ByteSet("A-Za-z0-9_<>?&'[].")
    private static let passVerb = Array("pass".utf8)
    private static let letters = ByteSet("A-Za-z")

    /// A name given as the value of a pair's name, its value beside it: `{"name": "API_TOKEN", "value":
    /// "…"}` (an ECS task's or a Kubernetes container's environment), the YAML form (`- name: API_TOKEN`
    /// then `value: …` on the next line), and a plist's `<key>API_TOKEN</key><string>…</string>`.
    private static func namedPair(_ t: ScanInput, nameStart: Int, nameEnd: Int) -> Assignment? {
        // The plist form.
        if nameStart >= 5, t.has(Array("<key>".utf8), at: nameStart - 5), t.has(Array("</key>".utf8), at: nameEnd) {
            var i = nameEnd + 6
            while i < t.count && i - nameEnd < 64 && ByteSet.space.contains(t[i]) { i += 1 }
            let open = Array("<string>".utf8)
            guard t.has(open, at: i), let a = value(t, i + open.count, nameStart: nameStart, nameEnd: nameEnd, blockScalar: false),
                t.has(Array("</string>".utf8), at: a.value.end)
            else { return nil }
            return a
        }
        // The JSON and YAML forms: `name` (or `Name`, `key`) then `:` before the name.
        var k = nameStart
        let quoted = k >= 1 && quote(t[k - 1])
        if quoted { k -= 1 }
        while k > 0 && (t[k - 1] == 0x20 || t[k - 1] == 0x09) { k -= 1 }
        guard k >= 1, t[k - 1] == UInt8(ascii: ":") else { return nil }
        k -= 1
        if quoted, k >= 1, quote(t[k - 1]) { k -= 1 }
        guard let label = pairLabels.first(where: { k >= $0.count && t.has($0, at: k - $0.count) }) else { return nil }
        let before = k - label.count
        guard before == 0 || !ByteSet.alnum.contains(t[before - 1]) else { return nil }
        // The value's member, within the same object or the next two lines.
        var i = nameEnd + (quoted ? 1 : 0)
        let limit = Swift.min(t.count, i + 160)
        var lines = 0
        while i < limit {
            let c = t[i]
            if c == UInt8(ascii: "}") || c == UInt8(ascii: "{") { return nil }
            if c == 0x0A {
                lines += 1
                if lines > 2 { return nil }
            }
            for v in pairValueLabels where t.has(v, at: i) && (i == 0 || !ByteSet.alnum.contains(t[i - 1])) {
                var j = i + v.count
                if j < t.count && quote(t[j]) { j += 1 }
                j = skipSpace(t, j)
                guard j < t.count, t[j] == UInt8(ascii: ":") else { continue }
                j = skipSpace(t, j + 1)
                return value(t, j, nameStart: nameStart, nameEnd: nameEnd, blockScalar: false)
            }
            i += 1
        }
        return nil
    }
    private static let pairLabels = ["name", "Name", "key", "Key", "type", "Type", "ParameterKey", "OptionName"].map { Array($0.utf8) }
    private static let pairValueLabels = ["value", "Value", "ParameterValue"].map { Array($0.utf8) }

    /// A YAML or TOML block named for a provider, its key a child: `cohere:` then, indented on one of
    /// the next four lines, `key:`, `token:`, `secret:`, `api_key:` or the like and the value.
    static func child(_ t: ScanInput, nameStart: Int, nameEnd: Int) -> Assignment? {
        var i = nameEnd
        if i < t.count && quote(t[i]) { i += 1 }
        guard i < t.count, t[i] == UInt8(ascii: ":") else { return nil }
        i = skipSpace(t, i + 1)
        if i < t.count && t[i] == 0x0D { i += 1 }
        guard i < t.count, t[i] == 0x0A else { return nil }
        // The parent's indentation: the spaces before its name on its line.
        var lineStart = nameStart
        while lineStart > 0 && t[lineStart - 1] != 0x0A { lineStart -= 1 }
        let parentIndent = skipSpace(t, lineStart) - lineStart
        for _ in 0..<4 {
            guard i < t.count, t[i] == 0x0A else { return nil }
            let line = i + 1
            let nameAt = skipSpace(t, line)
            guard nameAt - line > parentIndent else { return nil }
            let len = t.run(nameAt, nameBytes, max: 32)
            var after = nameAt + len
            if after < t.count && quote(t[after]) { after += 1 }
            let normalised = String(decoding: t.b[nameAt..<(nameAt + len)], as: UTF8.self).lowercased()
                .replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
            if len > 0, childNames.contains(normalised), after < t.count, t[after] == UInt8(ascii: ":") {
                return value(t, skipSpace(t, after + 1), nameStart: nameStart, nameEnd: nameEnd, blockScalar: false)
            }
            i = line
            while i < t.count && t[i] != 0x0A { i += 1 }
        }
        return nil
    }
    private static let childNames: Set<String> = [
        "key", "apikey", "token", "apitoken", "secret", "secretkey", "accesstoken", "authtoken", "accesskey", "clientsecret", "pat"
    ]

    /// Whether the name is a command line's option (`--api-key`) or the variable of fish's `set -x`.
    private static func spacedOption(_ t: ScanInput, nameStart: Int) -> Bool {
        if nameStart + 2 < t.count, t[nameStart] == UInt8(ascii: "-"), t[nameStart + 1] == UInt8(ascii: "-") { return true }
        // `set -x NAME`, `set -gx NAME`, `set -Ux NAME`: `set`, one option word holding `x`, the name.
        var i = nameStart
        guard i >= 1, t[i - 1] == 0x20 else { return false }
        i -= 1
        var k = i
        while k > 0 && ByteSet.alnum.contains(t[k - 1]) { k -= 1 }
        guard k >= 1, t[k - 1] == UInt8(ascii: "-"), i - k >= 1, t.b[k..<i].contains(UInt8(ascii: "x")) else { return false }
        let set = Array("set ".utf8)
        return k - 1 >= set.count && t.has(set, at: k - 1 - set.count)
            && (k - 1 - set.count == 0 || !ByteSet.alnum.contains(t[k - 2 - set.count]))
    }

    /// `"value" <cmp> name`: a literal compared with the name (`if ("…" == password)`).
    private static func backward(_ t: ScanInput, nameStart: Int) -> Assignment? {
        if let a = headerFieldValue(t, nameStart: nameStart) { return a }
        var i = nameStart
        while i > 0 && (t[i - 1] == 0x20 || t[i - 1] == 0x09) { i -= 1 }
        var ops = 0
        while i > 0 && ops < 3 && (t[i - 1] == UInt8(ascii: "=") || t[i - 1] == UInt8(ascii: "!")) { i -= 1; ops += 1 }
        guard ops >= 2 else { return nil }
        while i > 0 && (t[i - 1] == 0x20 || t[i - 1] == 0x09) { i -= 1 }
        return literal(t, before: i, nameStart: nameStart)
    }

    /// The quoted literal whose closing quote is just before `i` (512 bytes at most), as the value of
    /// the name at `nameStart`.
    private static func literal(_ t: ScanInput, before i: Int, nameStart: Int) -> Assignment? {
        guard i > 1, quote(t[i - 1]) else { return nil }
        let q = t[i - 1]
        let end = i - 1
        var s = end
        let limit = Swift.max(0, end - 512)
        while s > limit && t[s - 1] != q { s -= 1 }
        guard s > limit, s < end else { return nil }
        return Assignment(value: DetMatch(start: s, end: end), nameStart: nameStart, nameEnd: nameStart, hints: [], quoted: true)
    }

    /// Swift's `request.setValue("…", forHTTPHeaderField: "X-API-Key")` (and `addValue`): the header's
    /// value is the literal before its name.
    private static func headerFieldValue(_ t: ScanInput, nameStart: Int) -> Assignment? {
        guard nameStart >= 1, quote(t[nameStart - 1]) else { return nil }
        var i = nameStart - 1
        while i > 0 && t[i - 1] == 0x20 { i -= 1 }
        guard i >= headerFieldLabel.count, t.has(headerFieldLabel, at: i - headerFieldLabel.count) else { return nil }
        i -= headerFieldLabel.count
        while i > 0 && t[i - 1] == 0x20 { i -= 1 }
        guard i > 0, t[i - 1] == UInt8(ascii: ",") else { return nil }
        i -= 1
        while i > 0 && t[i - 1] == 0x20 { i -= 1 }
        return literal(t, before: i, nameStart: nameStart)
    }
    private static let headerFieldLabel = Array("forHTTPHeaderField:".utf8)
    private static let keyAttribute = Array("key=".utf8)
    private static let valueAttribute = Array("value=".utf8)

    /// The value starting at `i`: a quoted literal to its closing quote, or a bare word to a stop byte.
    private static func value(_ t: ScanInput, _ start: Int, nameStart: Int, nameEnd: Int, blockScalar: Bool = true) -> Assignment? {
        var i = start
        var escapedQuote = false
        if i < t.count && t[i] == UInt8(ascii: "\\") && i + 1 < t.count && quote(t[i + 1]) { i += 1; escapedQuote = true }
        let limit = Swift.min(t.count, i + 1024)
        if i < t.count && quote(t[i]) {
            let q = t[i]
            let s = i + 1
            var e = s
            while e < limit {
                if t[e] == q {
                    // Inside escaped JSON text the closing quote is `\"`; a lone `"` there is not it.
                    if escapedQuote { if e > s && t[e - 1] == UInt8(ascii: "\\") { break } } else { break }
                }
                if t[e] == 0x0A || t[e] == 0x0D { break }
                e += 1
            }
            guard e < limit, t[e] == q else { return nil }
            let end = escapedQuote ? e - 1 : e
            guard end > s else { return nil }
            return Assignment(value: DetMatch(start: s, end: end), nameStart: nameStart, nameEnd: nameEnd, hints: [], quoted: true)
        }
        var e = i
        while e < limit && !Sets.assignmentStop.contains(t[e]) { e += 1 }
        guard e > i else { return nil }
        // A YAML block scalar (`token: >-` or `|`, the value on the next, indented line).
        if blockScalar, e - i <= 2, t[i] == UInt8(ascii: ">") || t[i] == UInt8(ascii: "|"), e == i + 1 || "-+".utf8.contains(t[i + 1]) {
            var n = e
            while n < t.count && (t[n] == 0x20 || t[n] == 0x09 || t[n] == 0x0D) { n += 1 }
            guard n < t.count, t[n] == 0x0A else { return nil }
            n += 1
            let indent = skipSpace(t, n)
            guard indent > n, indent < t.count else { return nil }
            // One line down only: the next line is read as a value, never as another block scalar.
            return value(t, indent, nameStart: nameStart, nameEnd: nameEnd, blockScalar: false)
        }
        return Assignment(value: DetMatch(start: i, end: e), nameStart: nameStart, nameEnd: nameEnd, hints: [], quoted: false)
    }

    @inline(__always) private static func skipSpace(_ t: ScanInput, _ from: Int) -> Int {
        var i = from
        while i < t.count && (t[i] == 0x20 || t[i] == 0x09) { i += 1 }
        return i
    }

    /// Past one assignment or comparison operator at `i` (`=`, `:`, `:=`, `::`, `=>`, `==`, `===`,
    /// `!=`, `!==`, `?=`, `<-`, `||:`), or `i` itself when none stands there.
    private static func skipOperator(_ t: ScanInput, _ i: Int) -> Int {
        let ops = ["!==", "===", "||:", ":=", "::", "=>", "==", "!=", "?=", "<-", "=", ":"]
        for op in ops {
            let u = Array(op.utf8)
            if t.has(u, at: i) {
                // `::` followed by a letter is a path (`Foo::Bar`), not an assignment.
                if op == "::" && i + 2 < t.count && ByteSet.alnum.contains(t[i + 2]) { return i }
                // `://` is a URL's scheme, not an assignment.
                if op == ":" && t.has(Array("://".utf8), at: i) { return i }
                return i + u.count
            }
        }
        return i
    }
}

/// What a value beside a credential name is: a credential, or plainly not one (and why).
enum ValueJudgement {
    private static let alpha = ByteSet("A-Za-z")
    /// A value that is a reference, a template, a mask or a placeholder: never a credential.
    static func isReference(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = b.first else { return true }
        // Environment and template references: `${VAR}`, `$(cmd)`, `$VAR`, `%VAR%`, `{{ x }}`, `{x}`,
        // `<password>`, `[PASSWORD]`.
        if first == UInt8(ascii: "{"), bracedRandom(b) { return false }
        if first == UInt8(ascii: "$") || first == UInt8(ascii: "<") || first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            return true
        }
        // Python's `%(TOKEN)s` slot.
        if Shape.hasPrefix(b, "%("), let close = b.firstIndex(of: UInt8(ascii: ")")), close + 1 < b.count,
            ByteSet.lower.contains(b[close + 1])
        {
            return true
        }
        // Ciphertext of SOPS and Ansible Vault (`ENC[AES256_GCM,…]`, `$ANSIBLE_VAULT;…`), and a value cut
        // short in documentation (`ops_eyJzaWdu…`, `…...`).
        if Shape.hasPrefix(b, "ENC[") || contains(b, "\u{2026}")
            || (b.count > 3 && b[b.count - 1] == 0x2E && b[b.count - 2] == 0x2E && b[b.count - 3] == 0x2E)
        {
            return true
        }
        if first == UInt8(ascii: "%") && b.count > 2 && b.last == UInt8(ascii: "%") { return true }
        for w in [
            "process.env", "os.environ", "getenv(", "Getenv(", "ENV[", "System.getenv", "secrets.", "var.", "environment[",
            "GetEnvironmentVariable("
        ]
        where contains(b, w) {
            return true
        }
        // A YAML tag that fetches the value (Home Assistant's `!secret db_password`, Ansible's `!vault`,
        // CloudFormation's `!Ref`, `!Sub`, `!GetAtt`): the tag, not a password.
        if first == UInt8(ascii: "!"), yamlTags.contains(String(decoding: b, as: UTF8.self)) { return true }
        // An ARN names where a secret is kept (`arn:aws:secretsmanager:…:secret:prod/db`), not the secret.
        if Shape.hasPrefix(b, "arn:aws:") || Shape.hasPrefix(b, "arn:aws-") { return true }
        // No letter and no digit: punctuation, not a credential.
        if !b.contains(where: { ByteSet.alnum.contains($0) }) { return true }
        // A percent-encoded value is judged as it decodes (`%2A%2A%2A` is a mask).
        if b.contains(UInt8(ascii: "%")) {
            let decoded = Shape.percentDecoded(b)
            if decoded.count < b.count { return decoded.withUnsafeBufferPointer { isReference($0) } }
        }
        // Masks: `***`, `••••`, `xxxx`, `####`, `…`.
        var stars = 0, hashes = 0
        for c in b {
            if c == UInt8(ascii: "*") { stars += 1 }
            if c == UInt8(ascii: "#") { hashes += 1 }
        }
        if stars >= 3 || hashes >= 4 || contains(b, "\u{2022}") || isMask(b) { return true }
        // A code reference: `var.db_password`, `config.secret`, `self.token`, `X25519.key_length`
        // (dotted identifiers of letters and `_`, no digits mixed into a random run).
        if isDottedIdentifier(b) { return true }
        return false
    }

    /// `{Xq7LmR2pT9vWk4}`: a random value in braces (a GUID-style wrapping), not a template's
    /// `{password}`, `{0}` or `{{ .Values.key }}`: upper and lower case and digits inside, 8 or more.
    private static func bracedRandom(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 10, b.last == UInt8(ascii: "}"), b[1] != UInt8(ascii: "{") else { return false }
        let inner = UnsafeBufferPointer(rebasing: b[1..<(b.count - 1)])
        return Shape.all(inner, bracedBody) && mixedAll(ScanInput(b: inner, hints: []), 0, inner.count)
    }
    private static let bracedBody = ByteSet("A-Za-z0-9_-")

    /// A mask: one character written over most of the value (`xxxxxxxx`, `AKCxxxxxxxxxx`, `00000000`,
    /// `ghp_XXXXXXXX…`). Other placeholders (`…EXAMPLE`, a run such as `12345`) are still values: a key
    /// is then reported low as a placeholder, and a password, which people choose so, as itself.
    static func isMask(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 4 else { return false }
        var counts = [Int](repeating: 0, count: 256)
        var top = 0
        for c in b {
            let k = Int((c >= 0x41 && c <= 0x5A) ? c | 0x20 : c)
            counts[k] += 1
            top = Swift.max(top, counts[k])
        }
        return top >= 4 && top * 5 >= b.count * 3
    }

    /// Words that make a password a placeholder in documentation (`example`, `changeme`, `your_password`):
    /// such a value is reported low, with this reason, never passed over in silence.
    static func passwordPlaceholder(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        if let why = templated(b) { return why }
        let lower = String(decoding: b, as: UTF8.self).lowercased()
        if isWordAndNumber(lower) { return "looks like a placeholder (a credential's name and a number)" }
        guard let w = placeholderPasswordWords.first(where: { lower.contains($0) }) else { return nil }
        return "looks like a placeholder (holds \"\(w)\")"
    }

    /// `password123`, `token1`, `newpassword99`, `secret!`: a credential's own name, a number of at
    /// most four digits or a `!` after it (lower case).
    static func isWordAndNumber(_ lower: String) -> Bool {
        var s = Substring(lower)
        for p in ["my", "new", "old", "test", "your", "the"] where s.hasPrefix(p) {
            s = s.dropFirst(p.count)
            break
        }
        if s.first == "_" || s.first == "-" { s = s.dropFirst() }
        guard let w = credentialNameWords.first(where: { s.hasPrefix($0) }) else { return false }
        var rest = s.dropFirst(w.count)
        if rest.first == "_" || rest.first == "-" { rest = rest.dropFirst() }
        if rest.last == "!" { rest = rest.dropLast() }
        return rest.count <= 4 && rest.allSatisfy(\.isNumber) && rest.count + (s.last == "!" ? 1 : 0) > 0
    }
    private static let credentialNameWords = ["password", "passwd", "pass", "secret", "token", "apikey", "key"]

    /// A value that holds a template's reference anywhere in it (`${DB_PASSWORD}`, `{{ .Values.token }}`,
    /// `{% secret %}`): the value is made where the template is filled, and this is not it. The
    /// reference names something: letters, digits and `_ . : - | '"` and spaces between its marks
    /// (`${e]nob(ody…}` is a password's symbols, not a reference).
    static func templated(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        let t = ScanInput(b: b, hints: [])
        for (open, close) in templateMarks {
            var i = 0
            while let o = t.find(open, i, b.count) {
                var k = o + open.count
                while k < b.count && referenceBody.contains(b[k]) { k += 1 }
                if k > o + open.count, k + close.count <= b.count, b[k..<(k + close.count)].elementsEqual(close) {
                    let marks = String(decoding: open, as: UTF8.self) + "…" + String(decoding: close, as: UTF8.self)
                    return "holds a template's reference (\(marks)), not a literal value"
                }
                i = o + 1
            }
        }
        return nil
    }
    private static let referenceBody = ByteSet("A-Za-z0-9_.:| '\"-")
    private static let templateMarks: [([UInt8], [UInt8])] = [("${", "}"), ("{{", "}}"), ("{%", "%}")].map {
        (Array($0.0.utf8), Array($0.1.utf8))
    }
    private static let placeholderPasswordWords = [
        "example", "sample", "dummy", "placeholder", "your_", "your-", "yourpass", "changeme", "change_me", "redacted", "fake",
        "insert_", "replace_me", "replaceme", "_here", "xxxx",
        // A password that spells the word is an example's (`SomeKindOfPassword123!`, `generatedpassword2`).
        "password", "passwd"
    ]

    /// `a.b`, `a.b.c`: identifier parts of letters, digits and `_`, each starting with a letter, and no
    /// part that looks random.
    static func isDottedIdentifier(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var parts = 0, partStart = 0
        for i in 0...b.count {
            if i == b.count || b[i] == UInt8(ascii: ".") {
                guard i > partStart, alpha.contains(b[partStart]) else { return false }
                for k in partStart..<i where !(ByteSet.alnum.contains(b[k]) || b[k] == UInt8(ascii: "_")) { return false }
                if randomBody(ScanInput(b: b, hints: []), partStart, i) { return false }
                parts += 1
                partStart = i + 1
            }
        }
        return parts >= 2
    }

    /// Code that fetches a value, standing bare where a literal would: a call or a subscript
    /// (`getpass()`, `input("Password: ")`, `os.Getenv("API_KEY")`, `request.form['password']`,
    /// `params[:password]`, `ProcessInfo.processInfo.environment["API_KEY"]`).
    static func isCall(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let open = b.firstIndex(where: { $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: "[") }), open > b.startIndex else {
            return false
        }
        let head = b[b.startIndex]
        return alpha.contains(head) || head == UInt8(ascii: "_")
            ? Shape.all(UnsafeBufferPointer(rebasing: b[b.startIndex..<open]), Sets.codeName) : false
    }

    private static let yamlTags: Set<String> = [
        "!secret", "!vault", "!env_var", "!env", "!include", "!reference", "!Ref", "!Sub", "!GetAtt", "!ImportValue", "!FindInMap",
        "!Join", "!Select", "!Base64", "!If"
    ]

    /// Whether `b` holds a bullet (`••••`, a mask).
    static func hasBullet(_ b: UnsafeBufferPointer<UInt8>) -> Bool { contains(b, "\u{2022}") }

    @inline(__always) private static func contains(_ b: UnsafeBufferPointer<UInt8>, _ w: String) -> Bool {
        ScanInput(b: b, hints: []).find(Array(w.utf8), 0, b.count) != nil
    }

    /// Whether `b`, standing beside a token, key or secret name, has a credential's shape: long enough,
    /// not a word or a reference, varied enough (a UUID or a long number counts: under such a name it is one).
    static func fitsToken(_ b: UnsafeBufferPointer<UInt8>, quoted: Bool = false) -> Bool {
        let n = b.count
        guard n >= 8, n <= 1024, !isReference(b), !isJoinedWords(b), !isCamelWords(b), !isResourceName(b), !isCodeWords(b),
            quoted || !(isInterpolated(b) || isCall(b))
        else {
            return false
        }
        var digits = 0, lower = 0, upper = 0, other = 0
        for c in b {
            if c <= 0x20 || c == 0x7F || c == UInt8(ascii: "\"") { return false }
            if ByteSet.digit.contains(c) {
                digits += 1
            } else if ByteSet.lower.contains(c) {
                lower += 1
            } else if ByteSet.upper.contains(c) {
                upper += 1
            } else {
                other += 1
            }
        }
        if lower == n || upper == n { return false } // a word, a constant
        // A URL, a path or an e-mail address is where a key is used or who holds it, not the key.
        if contains(b, "://") || b[0] == UInt8(ascii: "/") || isEmail(b) { return false }
        if n == 36 && Shape.isUUID(b) { return true }
        if digits == n { return n >= 16 && Shape.entropy(b) >= 2.8 } // a long number
        if Shape.all(b, .hex) { return n >= 16 && Shape.entropy(b) >= 2.8 }
        // A quoted literal's punctuation counts as a class of its own (`m{{h}o)p$…`).
        let classes = (digits > 0 ? 1 : 0) + (lower > 0 ? 1 : 0) + (upper > 0 ? 1 : 0) + (quoted && other > 0 ? 1 : 0)
        guard classes >= 2 else { return false }
        let h = Shape.entropy(b)
        return h >= (n >= 24 ? 3.4 : n >= 16 ? 3.0 : 2.7)
    }

    /// Whether `b`, under a name that ends in `key` but says no more (`abyssale_key`), is plainly a
    /// random key: 24 to 256 characters of a token's alphabet, upper and lower case and digits all
    /// present, changing class often, with a random string's entropy. Hex digests, UUIDs, words, paths
    /// and numbers (cache, sort and idempotency keys) are not, nor are the shorter random ids apps
    /// key their data with (a 21-character nanoid, a Firebase push id `-N…` of 20).
    static func isRandomKey(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        guard n >= 24, n <= 256, b[0] != UInt8(ascii: "-"), !isReference(b), !isCamelWords(b) else { return false }
        var digits = 0, lower = 0, upper = 0, changes = 0, last = 0
        for c in b {
            let cls: Int
            if ByteSet.digit.contains(c) {
                digits += 1; cls = 1
            } else if ByteSet.lower.contains(c) {
                lower += 1; cls = 2
            } else if ByteSet.upper.contains(c) {
                upper += 1; cls = 3
            } else if randomKeyPunctuation.contains(c) {
                cls = 4
            } else {
                return false
            }
            if last != 0 && cls != last { changes += 1 }
            last = cls
        }
        guard digits > 0, lower > 0, upper > 0, changes * 4 >= n else { return false }
        // A `/` is base64's only beside its other marks (`+`, `=` padding); else it is a path's.
        if b.contains(UInt8(ascii: "/")) && !b.contains(UInt8(ascii: "+")) && b[n - 1] != UInt8(ascii: "=") { return false }
        return Shape.entropy(b) >= 3.8
    }
    private static let randomKeyPunctuation = ByteSet("_+/=.-")

    /// Whether `b`, beside a password-like name, is a password: people choose those, so a quoted
    /// literal needs only not to be a reference, a placeholder or one plain word; a phrase counts
    /// when quoted. A bare value must also look chosen (`looksLikePasswordValue`).
    static func fitsPassword(_ b: UnsafeBufferPointer<UInt8>, quoted: Bool) -> Bool {
        guard b.count >= 4, b.count <= 256, !isReference(b), !isJoinedWords(b), quoted || !isInterpolated(b), !isFilePath(b) else {
            return false
        }
        guard quoted else { return looksLikePasswordValue(b) }
        // A date or a time (`"PasswordLastUsed": "2016-09-08T21:47:36Z"`).
        if b.count >= 10, Shape.all(UnsafeBufferPointer(rebasing: b[0..<4]), .digit), b[4] == UInt8(ascii: "-"),
            ByteSet.digit.contains(b[5]), ByteSet.digit.contains(b[6]), b[7] == UInt8(ascii: "-")
        {
            return false
        }
        var lower = 0, space = 0
        for c in b {
            if c < 0x20 || c == 0x7F { return false }
            if ByteSet.lower.contains(c) { lower += 1 } else if c == 0x20 { space += 1 }
        }
        if lower == b.count { return false } // one plain word (`rootpasswd`)
        // A constant's name (`"ADMIN_USER_PASSWORD_AUTH"`, `"PASSWORD"`): an enum's value, not a password.
        if lower == 0, Shape.all(b, constantBytes) {
            let word = String(decoding: b, as: UTF8.self).lowercased()
            if b.contains(UInt8(ascii: "_")) || word == "password" || isWordAndNumber(word) { return false }
        }
        // A passphrase; not a sentence about the password (`'Password used to generate key'`).
        if space > 0 { return space <= 8 && b.count >= 12 && !(space >= 2 && containsWordCI(b, passwordWord)) }
        return b.count >= 6
    }

    /// An absolute or relative file path (`/home/runner/work`, `~/.config/app`, `C:\\Users\\me`): two
    /// separators or more and nothing but a path's characters. `PWD` and `OLDPWD` hold a directory.
    static func isFilePath(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = b.first else { return false }
        let rooted =
            first == UInt8(ascii: "/") || Shape.hasPrefix(b, "~/") || Shape.hasPrefix(b, "./") || Shape.hasPrefix(b, "../")
            || (b.count > 3 && ByteSet.upper.contains(first) && b[1] == UInt8(ascii: ":") && b[2] == UInt8(ascii: "\\"))
        guard rooted, Shape.all(b, pathBytes) else { return false }
        // `~/.pgpass`: a home-relative path needs no second separator.
        if Shape.hasPrefix(b, "~/") { return true }
        return b.reduce(0) { $0 + ($1 == UInt8(ascii: "/") || $1 == UInt8(ascii: "\\") ? 1 : 0) } >= 2
    }
    private static let pathBytes = ByteSet("A-Za-z0-9._~/\\:@+-")
    private static let passwordWord = Array("password".utf8)
    private static let constantBytes = ByteSet("A-Z0-9_")

    /// Whether `w` (lower case) stands in `b` as a word of its own, in any case.
    static func containsWordCI(_ b: UnsafeBufferPointer<UInt8>, _ w: [UInt8]) -> Bool {
        guard b.count >= w.count else { return false }
        for i in 0...(b.count - w.count) where i == 0 || !ByteSet.alnum.contains(b[i - 1]) {
            var k = 0
            while k < w.count && (b[i + k] | 0x20) == w[k] { k += 1 }
            if k == w.count && (i + k == b.count || !ByteSet.alnum.contains(b[i + k])) { return true }
        }
        return false
    }

    /// `name@host.tld`: an address.
    static func isEmail(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let at = b.firstIndex(of: UInt8(ascii: "@")), at > 0, at + 1 < b.count else { return false }
        // The domain: labels of letters, digits and `-`, a `.` between them, a top-level label of letters.
        let domain = UnsafeBufferPointer(rebasing: b[(at + 1)...])
        guard Shape.all(domain, emailDomain), let dot = domain.lastIndex(of: UInt8(ascii: ".")), dot > domain.startIndex,
            dot + 2 < domain.endIndex, Shape.all(UnsafeBufferPointer(rebasing: domain[(dot + 1)...]), alpha)
        else { return false }
        return Shape.all(UnsafeBufferPointer(rebasing: b[..<at]), emailLocal)
    }
    private static let emailDomain = ByteSet("A-Za-z0-9.-")
    private static let emailLocal = ByteSet("A-Za-z0-9._%+-")

    /// Words in CamelCase (`AgencyIdentificationCodeContentType`): three or more capitalised words of at
    /// least three lowercase letters, covering most of the value, name a thing; a random token almost
    /// never holds such a run.
    static func isCamelWords(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var covered = 0, humps = 0, i = 0
        while i < b.count {
            if ByteSet.upper.contains(b[i]) {
                var k = i + 1
                while k < b.count && ByteSet.lower.contains(b[k]) { k += 1 }
                if k - i >= 4 && readsAsWord(b, i + 1, k) {
                    humps += 1
                    covered += k - i
                    i = k
                    continue
                }
            }
            i += 1
        }
        return humps >= 3 && covered * 3 >= b.count * 2
    }

    /// Whether `b` is words as code writes them, not a token: a type or a constant (`Punctuation`,
    /// `ParseResults`, `ACCESS_TOKEN`), a member path (`self._state.tokenStartLine`, `cls._CLIENT_SECRET`,
    /// `Token::conjure(`) or a word ending a sentence (`Required.`). Letters only, in pieces split at
    /// `.`, `_`, `-`, `::` and case changes, each a readable word of three letters or more, a short word of
    /// code (`id`, `of`, `to`), capitals alone (`XML`, `TOKEN`) or capitals before a word (`XMLParser`);
    /// a random token of letters breaks into pieces of no such kind.
    static func isCodeWords(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = b.count
        // A trailing call's `(` or `()`, a sentence's `.`, a code span's `` ` ``.
        while end > 0 && codeWordsTrail.contains(b[end - 1]) { end -= 1 }
        var i = 0, pieces = 0, letters = 0, vowel = 0, abbreviations = 0
        // A call's or a tuple's `(` before it, a colour's or an anchor's `#` (`#ansibrightgreen`), a code span's `` ` ``.
        while i < end && codeWordsLead.contains(b[i]) { i += 1 }
        guard end - i >= 4 else { return false }
        while i < end {
            let c = b[i]
            if c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c == UInt8(ascii: "-") {
                i += 1
                continue
            }
            let ups = b.indices[i..<end].prefix { ByteSet.upper.contains(b[$0]) }.count
            let lowStart = i + ups
            let lows = b.indices[lowStart..<end].prefix { ByteSet.lower.contains(b[$0]) }.count
            guard ups + lows > 0 else { return false } // a digit or any other byte
            pieces += 1
            if lows == 0 {
                // An acronym or a constant's word (`XML`, `ACCESS`, `AUTHORIZATION`).
                guard ups <= 16 else { return false }
            } else {
                // `XMLParser`: the capitals but the last are an acronym, the last starts the word.
                guard ups <= 6 else { return false }
                let word = lowStart - (ups > 0 ? 1 : 0)
                let len = lowStart + lows - word
                if len < 3 {
                    guard shortCodeWords.contains(String(decoding: b[word..<(lowStart + lows)], as: UTF8.self).lowercased()) else {
                        return false
                    }
                } else if len == 3 && ups > 0 {
                    // A capitalised abbreviation (`Str`, `Mgr`, `Ctx`): its letters are not counted as a word's.
                    abbreviations += 1
                    guard abbreviations * 2 <= pieces else { return false }
                    i = lowStart + lows
                    continue
                } else if ups == 0 && codeAbbreviations.contains(String(decoding: b[lowStart..<(lowStart + lows)], as: UTF8.self)) {
                    // Code's own short words (`cls`, `ctx`, `cfg`): no vowel needed.
                } else if !readsAsWord(b, lowStart, lowStart + lows) {
                    return false
                }
            }
            // A word's letters, its capital with them (`Abstract`, `Auth`); an acronym's are not counted.
            if lows > 0 {
                let first = ups > 0 ? lowStart - 1 : lowStart
                for k in first..<(lowStart + lows) where vowels.contains(b[k] | 0x20) { vowel += 1 }
                letters += lowStart + lows - first
            }
            i = lowStart + lows
            // A version after a word (`oauth2`, `BASE64`).
            if ups + lows >= 3 {
                let d = b.indices[i..<end].prefix { ByteSet.digit.contains(b[$0]) }.count
                guard d <= 2 else { return false }
                i += d
            }
        }
        // Words are three tenths vowels or more; random letters, under a quarter.
        return pieces >= 1 && (letters < 6 || vowel * 10 >= letters * 3)
    }
    private static let codeAbbreviations: Set<String> = [
        "cls", "ctx", "msg", "req", "res", "src", "dst", "cfg", "str", "fmt", "tmp", "ptr", "len", "buf", "std", "lib", "pkg",
        "cmd", "args", "kwargs", "mgr", "hdr", "http", "sql", "xml", "html"
    ]
    private static let codeWordsTrail = ByteSet("().`")
    private static let codeWordsLead = ByteSet("(#`")

    /// Whether a value of letters is a word of its own name (`INCORRECT_PASSWD = "Incorrect"`): an
    /// enum's label, not a credential.
    static func isWordOfName(_ v: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard v.count >= 4, v.count < name.count, Shape.all(v, alpha) else { return false }
        let word = Array(v.map { $0 | 0x20 })
        return ScanInput(b: name, hints: []).containsCI(word, 0, name.count)
    }

    private static let shortCodeWords: Set<String> = [
        "id", "of", "to", "by", "in", "on", "at", "is", "db", "io", "ui", "os", "ok", "no", "my", "up", "or", "as", "an", "do", "if"
    ]

    /// Whether the lowercase letters `s..<e` could be (the rest of) a word: a vowel among them and no
    /// run of five consonants (`gqvn`, `nlwgjjxwl` of a random token are not; `ength` is).
    private static func readsAsWord(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        var vowel = false, run = 0
        for k in s..<e {
            if vowels.contains(b[k]) {
                vowel = true
                run = 0
            } else {
                run += 1
                if run >= 5 { return false }
            }
        }
        return vowel
    }
    private static let vowels = ByteSet("aeiouy")

    /// A bare (unquoted) value holding an interpolation (`${…}`, `{{…}}`, `$(…)`) is an expression of
    /// the language around it, not a literal.
    static func isInterpolated(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        contains(b, "${") || contains(b, "{{") || contains(b, "$(")
    }

    /// Words that stand for a credential in documentation (`user:pass`, `username:token`, `xxx:yyy`).
    static func isPlaceholderWord(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let s = String(decoding: b, as: UTF8.self).lowercased()
        if placeholderWords.contains(s) { return true }
        // One letter repeated (`yyy`, `zzzz`).
        return b.count <= 8 && Set(b).count == 1
    }
    private static let placeholderWords: Set<String> = [
        "pass", "password", "passwd", "pwd", "secret", "token", "apikey", "api_key", "key", "test", "testing", "changeme",
        "example", "sample", "dummy", "foo", "bar", "baz", "admin", "root", "user", "username", "login", "none", "null"
    ]

    /// A resource's name with its number (`app3-stg-4417392810`, `prod-db-eu-20240611`): two or more
    /// lowercase words (each with at most two digits after it) and one run of digits, joined by `-` or
    /// `_`. A vault, bucket or build is named so; a random token has upper case or letters and digits
    /// mixed throughout.
    static func isResourceName(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var words = 0, numbers = 0, start = 0
        for i in 0...b.count where i == b.count || b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "_") {
            let part = UnsafeBufferPointer(rebasing: b[start..<i])
            start = i + 1
            let letters = part.prefix { ByteSet.lower.contains($0) }.count
            let rest = part.count - letters
            guard !part.isEmpty, part.dropFirst(letters).allSatisfy({ ByteSet.digit.contains($0) }) else { return false }
            if letters == 0 {
                numbers += 1
            } else if (2...12).contains(letters) && rest <= 2 {
                words += 1
            } else {
                return false
            }
        }
        return words >= 2 && numbers == 1
    }

    /// Words joined by `_`, `-` or `.` (`a-fake-tooshort-key`, `real_key`, `not_set`): prose, not a secret.
    private static func isJoinedWords(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        // Also a name with a version (`jjwt-jackson-0.11.2`): parts of lowercase letters, or of at most four digits.
        // A word may carry a version of one or two digits (`oauth2`, `v4auth`, `ec2`).
        var seps = 0, letters = 0, digits = 0
        func mixedPart() -> Bool { letters > 0 && digits > 0 && !(letters >= 3 && digits <= 2) }
        for c in b {
            if c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
                || c == UInt8(ascii: "/")
            {
                if mixedPart() { return false }
                seps += 1; letters = 0; digits = 0
                continue
            }
            if ByteSet.lower.contains(c) {
                letters += 1
            } else if ByteSet.digit.contains(c) {
                digits += 1; if digits > 4 { return false }
            } else {
                return false
            }
        }
        return seps > 0 && !mixedPart()
    }
}
