import Foundation
import SiftArchive
import SiftCore
import SiftVerify

/// The values to scrub and their placeholders, each looked for in every form it can take in an
/// export: as found, JSON-escaped, and percent-encoded (URLs and forms).
struct ScrubValues {
    struct Entry {
        var placeholder: String
        var forms: [[UInt8]]
        var rule: String
        var fingerprint: String
    }
    private(set) var entries: [Entry] = []

    init(hits: [SecretHit]) {
        var best: [String: SecretHit] = [:]
        func keep(_ value: String, _ h: SecretHit) {
            if let b = best[value], b.severity > h.severity || (b.severity == h.severity && b.rule.id <= h.rule.id) { return }
            best[value] = h
        }
        for h in hits {
            keep(h.value, h)
            // The token of a flagged `Authorization`, each cookie value…: replaced wherever else they
            // stand too, under the placeholder of the value they were found in.
            for part in Redactor.parts(of: h.value) { keep(part, h) }
        }
        // Longest first, so a value inside a longer one never leaves the longer one half replaced.
        for (value, h) in best.sorted(by: {
            $0.key.utf8.count != $1.key.utf8.count ? $0.key.utf8.count > $1.key.utf8.count : $0.key < $1.key
        }) {
            var forms: [[UInt8]] = [Array(value.utf8)]
            var quoted = ""
            JSONOut.quote(value, into: &quoted)
            let escaped = Array(quoted.utf8.dropFirst().dropLast())
            let percent = Array(ScrubValues.percentEncode(value).utf8)
            let every = value.utf8.map { b -> String in
                let h = String(b, radix: 16, uppercase: true); return "%" + (h.count == 1 ? "0" + h : h)
            }.joined()
            // A space stands as `+` in a query or a form (verify reports the value decoded).
            let plus =
                value.contains(" ")
                ? [
                    Array(value.replacingOccurrences(of: " ", with: "+").utf8),
                    Array(ScrubValues.percentEncode(value).replacingOccurrences(of: "%20", with: "+").utf8)
                ] : []
            // Most URL builders keep `/` as it is (a base64 value in a query: `/` kept, `+` and `=` encoded).
            let slash = Array(ScrubValues.percentEncode(value, keepSlash: true).utf8)
            for f in [
                escaped, percent, Array(ScrubValues.percentEncode(value, lower: true).utf8), Array(every.utf8),
                Array(every.lowercased().utf8), slash
            ] + plus where !forms.contains(f) { forms.append(f) }
            entries.append(
                Entry(
                    placeholder: ScrubPlaceholder.make(rule: h.rule.id, fingerprint: h.fingerprint), forms: forms,
                    rule: h.rule.id, fingerprint: h.fingerprint))
        }
    }

    var isEmpty: Bool { entries.isEmpty }

    /// The placeholder standing in a file or folder name: `scrubbed-<rule>-<fingerprint hex>`, with
    /// none of the characters (`*`, `:`) a file system or an unzip tool may refuse.
    static func namePlaceholder(rule: String, fingerprint: String) -> String {
        let hex = fingerprint.hasPrefix("sha256:") ? String(fingerprint.dropFirst(7)) : fingerprint
        let safe = String(
            String.UnicodeScalarView(
                (rule + "-" + hex).unicodeScalars.map { c in
                    (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "." || c == "-" || c == "_" ? c : "-"
                }))
        return "scrubbed-" + safe
    }

    /// An entry's name with every value that stands in one of its parts (a folder's or the file's own
    /// name) replaced by its name placeholder, keeping the `/`s and the file's extension; nil when
    /// nothing changed. A blob's own name (its hash) is never changed. A session file that loses a value
    /// also loses a leading `ses_`: its name no longer says the session's id (its header does).
    func rename(_ name: String, used: inout Set<String>) -> String? {
        let parts = SecretHitFinder.nameParts(name)
        guard !parts.isEmpty else { return nil }
        let checked = Set(parts.map(\.path))
        var out: [String] = []
        var path = ""
        var changed = false
        let all = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for (i, p) in all.enumerated() {
            path += (path.isEmpty ? "" : "/") + p
            guard checked.contains(path) else { out.append(p); continue }
            var bytes = Array(p.utf8)
            var hit = false
            for e in entries {
                let with = Array(ScrubValues.namePlaceholder(rule: e.rule, fingerprint: e.fingerprint).utf8)
                for form in e.forms where !form.isEmpty && bytes.count >= form.count {
                    guard let r = ScrubValues.replaceAll(bytes, form, with) else { continue }
                    bytes = r
                    hit = true
                    used.insert(e.placeholder)
                }
            }
            guard hit else { out.append(p); continue }
            var new = String(decoding: bytes, as: UTF8.self)
            let isFile = i == all.count - 1
            if isFile {
                let ext = ScrubValues.fileExtension(p)
                if !ext.isEmpty && !new.hasSuffix(ext) { new += ext }
                let lower = p.lowercased()
                if lower.hasSuffix(".jsonl") || lower.hasSuffix(".jsonl.gz"), new.hasPrefix("ses_") { new = String(new.dropFirst(4)) }
            }
            out.append(new)
            changed = true
        }
        return changed ? out.joined(separator: "/") : nil
    }

    /// `.jsonl.gz`, `.har`, `.txt`: what a name ends with that says what the file is (the known
    /// double extensions, else the last `.` and up to 8 letters or digits after it).
    static func fileExtension(_ name: String) -> String {
        let lower = name.lowercased()
        for ext in [".jsonl.gz", ".har.gz", ".tar.gz", ".json.gz", ".log.gz"] where lower.hasSuffix(ext) {
            return String(name.suffix(ext.count))
        }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        let ext = name[name.index(after: dot)...]
        guard !ext.isEmpty, ext.count <= 8, ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "" }
        return String(name[dot...])
    }

    static func percentEncode(_ s: String, lower: Bool = false, keepSlash: Bool = false) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(b))
            case UInt8(ascii: "/") where keepSlash:
                out.unicodeScalars.append(UnicodeScalar(b))
            default:
                let h = String(b, radix: 16, uppercase: !lower)
                out += "%" + (h.count == 1 ? "0" + h : h)
            }
        }
        return out
    }

    /// `bytes` with each part between URL delimiters (`&`, `=`, `?`, `#`, `;`, `/`) that holds a
    /// value only once percent-decoded more than once (any mix of encoded bytes, as verify decodes a
    /// query value) replaced whole by that value's placeholder; nil when none does.
    func replaceEncodedParts(_ bytes: [UInt8], used: inout Set<String>) -> [UInt8]? {
        guard bytes.contains(UInt8(ascii: "%")) else { return nil }
        let stops: Set<UInt8> = [0x26, 0x3D, 0x3F, 0x23, 0x3B, 0x2F, 0x20, 0x22, 0x27]
        var out: [UInt8] = []
        var changed = false
        var i = 0
        while i < bytes.count {
            guard !stops.contains(bytes[i]) else { out.append(bytes[i]); i += 1; continue }
            var e = i
            while e < bytes.count && !stops.contains(bytes[e]) { e += 1 }
            let part = Array(bytes[i..<e])
            i = e
            var form = part
            var placeholder: String?
            for _ in 0..<3 where form.contains(UInt8(ascii: "%")) && placeholder == nil {
                form = Percent.decode(form, plusIsSpace: true)
                placeholder =
                    entries.first { e in e.forms.contains { f in !f.isEmpty && ScrubValues.replaceAll(form, f, []) != nil } }?.placeholder
            }
            if let placeholder {
                out += Array(placeholder.utf8)
                used.insert(placeholder)
                changed = true
            } else {
                out += part
            }
        }
        return changed ? out : nil
    }

    /// `bytes` with every form of every value replaced; nil when nothing was there. `used` collects
    /// the placeholders written.
    func replace(_ bytes: [UInt8], used: inout Set<String>) -> [UInt8]? {
        var current = bytes
        var changed = false
        for e in entries {
            for form in e.forms where !form.isEmpty && current.count >= form.count {
                guard let out = ScrubValues.replaceAll(current, form, Array(e.placeholder.utf8)) else { continue }
                current = out
                changed = true
                used.insert(e.placeholder)
            }
        }
        return changed ? current : nil
    }

    static func replaceAll(_ hay: [UInt8], _ needle: [UInt8], _ with: [UInt8]) -> [UInt8]? {
        let n = needle.count
        guard n > 0, hay.count >= n else { return nil }
        var out: [UInt8] = []
        var i = 0
        var last = 0
        var found = false
        let first = needle[0]
        hay.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { nd in
                while i + n <= h.count {
                    guard let p = memchr(h.baseAddress! + i, Int32(first), h.count - n - i + 1) else { break }
                    let at = h.baseAddress!.distance(to: p.assumingMemoryBound(to: UInt8.self))
                    if memcmp(h.baseAddress! + at, nd.baseAddress!, n) == 0 {
                        if !found { out.reserveCapacity(h.count) }
                        found = true
                        out.append(contentsOf: h[last..<at])
                        out.append(contentsOf: with)
                        i = at + n
                        last = i
                    } else {
                        i = at + 1
                    }
                }
            }
        }
        guard found else { return nil }
        out.append(contentsOf: hay[last...])
        return out
    }
}

/// Rewrites the bytes of an export: JSON documents by editing only the strings (and the sizes and
/// blob names that depend on them), blobs as bytes (gzip'd ones inflated and compressed again).
struct Scrubber {
    let values: ScrubValues
    let limits: ReadLimits
    /// Old blob hex → new blob hex and size.
    var renames: [String: (hex: String, size: Int)] = [:]
    /// Placeholders written.
    var used = Set<String>()
    /// Frame records replaced by a `scrubbed` record.
    var framesReplaced = 0
    /// Later copies of a name held twice in one object, renamed since the last look (`line` counts from 1).
    var keyRenames = KeyRenames()
    /// HAR cookies (`name \0 value`) whose `Cookie` or `Set-Cookie` header verify reported, and the
    /// placeholder of that report.
    var cookies: [String: String] = [:]

    /// A path whose folder takes scratch files (gzip inside a gzip'd entry is held there while read twice).
    var scratchNear = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pbsift-scrub").path
    /// Gzip layers inflated inside one another, as deep as verify reads them.
    static let maxGzipDepth = Sniff.maxGzipLayers

    init(values: ScrubValues, limits: ReadLimits) {
        self.values = values
        self.limits = limits
    }

    /// Bytes with the values replaced: inflated first when gzip'd (then compressed again).
    /// Gzip in gzip is inflated as deep as verify reads it (five layers).
    /// The inflated bytes are streamed (a small gzip can inflate to the input bound): what they
    /// become is compressed as it comes, and only the compressed copy is held.
    mutating func content(_ bytes: [UInt8], depth: Int = 0) throws -> [UInt8]? {
        if depth < Scrubber.maxGzipDepth, bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B {
            final class Gathered { var bytes: [UInt8] = [] }
            let out = Gathered()
            let gz = try DeflateStream(gzip: true)
            let sink = EntrySink(
                put: { raw in gz.write(raw) { piece in out.bytes += piece } },
                end: { out.bytes += gz.finish() })
            let changed = try otherText(GzipSource(wrapping: MemorySource(bytes), limit: limits.maxInputBytes), to: sink, depth: depth + 1)
            guard changed else { return nil }
            try sink.finish()
            return out.bytes
        }
        return try innerDocument(bytes) ?? values.replace(bytes, used: &used)
    }

    /// Text that is itself a JSON document with escapes in it (a body's text, a JSON string holding
    /// JSON): edited by the same walk, so a value stored as `\u0070…` is found decoded, as verify
    /// reads it; nil when it is no such document or nothing changed.
    mutating func innerDocument(_ bytes: [UInt8]) throws -> [UInt8]? {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            bytes.contains(0x5C), let doc = try? JSONDocument(bytes: bytes, maxDepth: limits.maxJSONDepth)
        else { return nil }
        return try document(doc)
    }

    static func inflate(_ bytes: [UInt8], limit: Int64) throws -> [UInt8] {
        let g = GzipSource(wrapping: MemorySource(bytes), limit: limit)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = try buf.withUnsafeMutableBytes { try g.read(into: $0) }
            if n == 0 { return out }
            out += buf[..<n]
        }
    }

    /// A record (or a HAR document) whose object holds a name more than once (`verify.duplicate-key`: readers disagree on
    /// which copy counts): `edited` (or the record as it stands) with every later copy renamed
    /// `<name>~2`, `<name>~3`…, a name held nowhere else in the record, so the first copy keeps its
    /// name (the one pbsift reads) and no copy's value is lost; the other values were already
    /// replaced, every copy having been checked. `edited` when no name is held twice.
    /// `prefix` goes before each new name: `_` in a HAR, where a name of one's own starts with `_`.
    mutating func resolved(_ doc: JSONDocument, edited: [UInt8]?, line: Int, prefix: String = "") throws -> [UInt8]? {
        guard doc.hasDuplicateKeys else { return edited }
        let bytes = edited ?? doc.bytes
        guard let current = try? JSONDocument(bytes: bytes, maxDepth: limits.maxJSONDepth) else { return edited }
        let duplicates = current.duplicateKeys()
        guard !duplicates.isEmpty else { return edited }
        var taken = Set<String>()
        Scrubber.names(current.root, into: &taken)
        var edits: [(Range<Int>, [UInt8], from: String, to: String)] = []
        for d in duplicates {
            // Numbered on from the last copy's number (a name held 500 000 times is not searched from 2 each time).
            var k = 2
            for r in d.ranges.dropFirst() {
                while taken.contains(prefix + d.name + "~\(k)") { k += 1 }
                let name = prefix + d.name + "~\(k)"
                taken.insert(name)
                edits.append((r, Array(Scrubber.quoted(name).dropFirst().dropLast()), d.name, name))
            }
        }
        edits.sort { $0.0.lowerBound < $1.0.lowerBound }
        // A document of several lines (a HAR): the line each copy stands on, counted in one pass.
        var newlines = 0, counted = 0
        for e in edits {
            for i in counted..<e.0.lowerBound where bytes[i] == 0x0A { newlines += 1 }
            counted = max(counted, e.0.lowerBound)
            keyRenames.append((line: line + newlines, from: e.from, to: e.to))
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8 * edits.count)
        var at = 0
        for (r, b, _, _) in edits where r.lowerBound >= at {
            out += bytes[at..<r.lowerBound]
            out += b
            at = r.upperBound
        }
        out += bytes[at...]
        return out
    }

    /// Every member name in `v`, at any depth.
    static func names(_ v: JSONValue, into names: inout Set<String>) {
        switch v.kind {
        case .object:
            v.forEachMember { k, x in
                names.insert(k)
                Scrubber.names(x, into: &names)
            }
        case .array:
            v.forEachElement { Scrubber.names($0, into: &names) }
        default:
            break
        }
    }

    /// A frame record never leaves the device (SESSION-FORMAT.md §2.7): its line is replaced by a
    /// record of type `scrubbed` that keeps only its `seq` and `ts`, so the session's numbering has no
    /// gap and the timeline keeps its place, and says what stood there.
    mutating func frameStandIn(_ frame: JSONValue) -> [UInt8] {
        var out = Array(#"{"type":"scrubbed""#.utf8)
        for key in ["seq", "ts"] {
            guard let v = frame[key], v.kind == .number || v.kind == .string else { continue }
            out += Array(",\"\(key)\":".utf8) + Array(v.rawBytes)
        }
        out += Array(#","record":"frame","rule":""#.utf8) + Array(ReaderRule.frameInExport.rawValue.utf8) + Array(#""}"#.utf8)
        return values.replace(out, used: &used) ?? out
    }

    /// One JSON document with its strings edited; nil when nothing changed.
    mutating func document(_ doc: JSONDocument) throws -> [UInt8]? {
        var edits: [(Range<Int>, [UInt8])] = []
        try walk(doc.root, &edits)
        guard !edits.isEmpty else {
            // Member names (and any form the walk does not decode) are replaced in the text itself.
            return values.replace(doc.bytes, used: &used)
        }
        edits.sort { $0.0.lowerBound < $1.0.lowerBound }
        var out: [UInt8] = []
        out.reserveCapacity(doc.bytes.count)
        var at = 0
        for (r, b) in edits where r.lowerBound >= at {
            out += doc.bytes[at..<r.lowerBound]
            out += b
            at = r.upperBound
        }
        out += doc.bytes[at...]
        return values.replace(out, used: &used) ?? out
    }

    static func range(_ v: JSONValue) -> Range<Int> {
        let r = v.rawBytes
        return r.startIndex..<r.endIndex
    }

    static func quoted(_ s: String) -> [UInt8] {
        var q = ""
        JSONOut.quote(s, into: &q)
        return Array(q.utf8)
    }

    private mutating func walk(_ v: JSONValue, _ edits: inout [(Range<Int>, [UInt8])]) throws {
        switch v.kind {
        case .string:
            let bytes = v.stringBytes
            var out = try innerDocument(bytes) ?? values.replace(bytes, used: &used)
            if let decoded = try base64Runs(out ?? bytes) { out = decoded }
            if let decoded = values.replaceEncodedParts(out ?? bytes, used: &used) { out = decoded }
            if let out {
                edits.append((Scrubber.range(v), Scrubber.quoted(String(decoding: out, as: UTF8.self))))
            }
        case .array:
            try v.forEachElement { try walk($0, &edits) }
        case .object:
            var handled = Set<String>()
            try body(v, &edits, handled: &handled)
            try v.forEachMember { k, x in
                guard !handled.contains(k) else { return }
                if k == "cookies", x.isArray, !cookies.isEmpty {
                    try x.forEachElement { try cookie($0, &edits) }
                } else {
                    try walk(x, &edits)
                }
            }
        default:
            break
        }
    }

    /// One member of a HAR `cookies` list: its value is replaced when verify reported the header it
    /// stands for (a `Cookie` or `Set-Cookie` that carries a value is a finding however short the
    /// value: such values are not replaced wherever they stand, only here).
    private mutating func cookie(_ c: JSONValue, _ edits: inout [(Range<Int>, [UInt8])]) throws {
        guard c.isObject, let name = c["name"]?.string, let value = c["value"], let v = value.string,
            let placeholder = cookies[name + "\u{0}" + v]
        else { try walk(c, &edits); return }
        used.insert(placeholder)
        edits.append((Scrubber.range(value), Scrubber.quoted(placeholder)))
        try c.forEachMember { k, x in if k != "value" { try walk(x, &edits) } }
    }

    /// `s` with each base64 run (20 symbols or more, as verify decodes them in a string) that holds
    /// a value once decoded encoded again with the value replaced; nil when none does.
    mutating func base64Runs(_ s: [UInt8]) throws -> [UInt8]? {
        func isSymbol(_ c: UInt8) -> Bool {
            switch c {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2B, 0x2F, 0x2D, 0x5F: true
            default: false
            }
        }
        var out: [UInt8] = []
        var changed = false
        var i = 0
        while i < s.count {
            guard isSymbol(s[i]) else { out.append(s[i]); i += 1; continue }
            var e = i
            while e < s.count && isSymbol(s[e]) { e += 1 }
            let run = s[i..<e]
            i = e
            let spare = run.count % 4 == 1 ? 1 : 0
            guard run.count >= 20, let decoded = Base64.decode(String(decoding: run.dropLast(spare), as: UTF8.self)),
                let edited = try content(decoded)
            else {
                out += run
                continue
            }
            // The run's own padding goes: the new text carries its own, in the run's alphabet
            // (base64url, unpadded when the run was, for a JWT part or a URL-safe token).
            var pad = 0
            while spare == 0, i < s.count, s[i] == 0x3D, pad < 2 { i += 1; pad += 1 }
            var encoded = Array(Base64.encode(edited).utf8)
            if run.contains(0x2D) || run.contains(0x5F) {
                encoded = encoded.map { $0 == 0x2B ? 0x2D : $0 == 0x2F ? 0x5F : $0 }
                if pad == 0 { while encoded.last == 0x3D { encoded.removeLast() } }
            }
            out += encoded + run.suffix(spare)
            changed = true
        }
        return changed ? out : nil
    }

    /// A body object of the export format (or a HAR `content`/`postData`): its text or base64 data,
    /// its size, and its blob reference.
    private mutating func body(_ v: JSONValue, _ edits: inout [(Range<Int>, [UInt8])], handled: inout Set<String>) throws {
        let size = v["size"]
        let base64 = v["encoding"]?.string == "base64" || v["_encoding"]?.string == "base64"
        let utf8 = v["encoding"]?.string == "utf8"
        for key in ["text", "data"] {
            guard let t = v[key], t.isString else { continue }
            if base64, let bytes = Base64.decode(t.string ?? "") {
                handled.insert(key)
                guard let out = try content(bytes) else { continue }
                edits.append((Scrubber.range(t), Scrubber.quoted(Base64.encode(out))))
                if let size, size.int == bytes.count {
                    edits.append((Scrubber.range(size), Array(String(out.count).utf8))); handled.insert("size")
                }
            } else if utf8 && key == "text" {
                handled.insert(key)
                let old = t.stringBytes
                guard let out = try innerDocument(old) ?? values.replace(old, used: &used) else { continue }
                edits.append((Scrubber.range(t), Scrubber.quoted(String(decoding: out, as: UTF8.self))))
                if let size, size.int == old.count {
                    edits.append((Scrubber.range(size), Array(String(out.count).utf8))); handled.insert("size")
                }
            }
        }
        if let blob = v["blob"], let ref = blob.string, ref.hasPrefix("sha256:"),
            let renamed = renames[String(ref.dropFirst(7)).lowercased()]
        {
            handled.insert("blob")
            edits.append((Scrubber.range(blob), Scrubber.quoted("sha256:" + renamed.hex)))
            let stored = v["storedSize"]
            if let stored, stored.kind == .number {
                handled.insert("storedSize")
                edits.append((Scrubber.range(stored), Array(String(renamed.size).utf8)))
            }
            if v["truncated"]?.bool != true, let size, let old = stored?.int, size.int == old, !handled.contains("size") {
                handled.insert("size")
                edits.append((Scrubber.range(size), Array(String(renamed.size).utf8)))
            }
        }
    }
}

/// Later copies of a name renamed in one file: the first `listed` in full, then a count and the last
/// one, so a file that repeats a name millions of times costs a few lines, not one per copy.
struct KeyRenames {
    typealias Rename = (line: Int, from: String, to: String)
    static let listed = 20
    private(set) var first: [Rename] = []
    private(set) var last: Rename?
    private(set) var count = 0

    mutating func append(_ r: Rename) {
        count += 1
        if first.count < KeyRenames.listed { first.append(r) } else { last = r }
    }

    mutating func removeAll() { self = KeyRenames() }
}
