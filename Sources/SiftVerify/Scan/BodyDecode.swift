import Foundation
import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ContentScanner {
    /// The detectors over the percent-decoding of `b` (escapes that make text), when it holds one; a value already
    /// reported from `hits[since...]` (found in the text as it stands) is not reported again.
    func percentEncoded(_ b: UnsafeBufferPointer<UInt8>, since: Int, location: () -> String) {
        guard let base = b.baseAddress, memchr(base, 0x25, b.count) != nil else { return }
        let decoded = Percent.decodeText(b)
        guard decoded.count < b.count else { return }
        decoded.withUnsafeBufferPointer { decodedForm($0, since: since, location: location) }
    }

    /// The detectors over a decoded form `d` of a value, when it holds a detector's stem; a value
    /// already reported from `hits[since...]` (found in the text as it stands) is not reported again.
    func decodedForm(_ d: UnsafeBufferPointer<UInt8>, since: Int, location: () -> String) {
        guard hasStem(d) else { return }
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        let mark = hits.count
        shapes(d, hints: [], location: location)
        guard hits.count > mark else { return }
        let known = Set(hits[since..<mark].map(\.value))
        let fresh = hits[mark...].filter { $0.bound || !known.contains($0.value) }
        hits.removeSubrange(mark...)
        hits.append(contentsOf: fresh)
    }

    /// The detectors over each base64 run of `b` (20 characters or more of either alphabet), decoded,
    /// when it decodes to something holding a detector's stem: a credential written in base64 in a
    /// message or a field leaks just the same. A value already reported from `hits[since...]` is not
    /// reported again.
    func base64Encoded(_ b: UnsafeBufferPointer<UInt8>, since: Int, location: () -> String) {
        guard b.count >= ContentScanner.base64MinRun else { return }
        var i = 0
        while i < b.count {
            guard ContentScanner.base64Bytes.contains(b[i]) else { i += 1; continue }
            var e = i
            while e < b.count && ContentScanner.base64Bytes.contains(b[e]) { e += 1 }
            defer { i = e }
            let n = e - i
            guard n >= ContentScanner.base64MinRun else { continue }
            // A run whose length leaves one symbol over can't end a base64 text: that symbol goes.
            runBuffer.withDecoded(UnsafeBufferPointer(rebasing: b[i..<(e - (n % 4 == 1 ? 1 : 0))])) { decoded in
                if let decoded { decodedForm(decoded, since: since, location: location) }
            }
        }
    }

    static let base64Bytes = ByteSet("A-Za-z0-9+/_-")
    static let base64MinRun = 20

    /// Inflates gzip bytes, bounded; what was inflated before damage or the bound is kept. The
    /// header's texts (file name, comment, extra field) are checked at `location`, as text.
    func inflate(_ b: UnsafeBufferPointer<UInt8>, location: String) -> [UInt8] {
        let src = GzipSource(wrapping: MemorySource(Array(b)), limit: maxInflatedBytes)
        src.onHeaderText = { [unowned self] field, _, bytes, clipped in
            bytes.withUnsafeBufferPointer { shapes($0, hints: []) { "\(location) (\(field))" } }
            if clipped { bound("a \(field) longer than 1 MiB; the rest of it was not checked", location: location) }
        }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while Int64(out.count) < maxInflatedBytes {
            let n: Int
            do { n = try buf.withUnsafeMutableBytes { try src.read(into: $0) } } catch { break }
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    /// `application/x-www-form-urlencoded`.
    func form(_ b: UnsafeBufferPointer<UInt8>, location: String) {
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        var start = 0
        while start < b.count {
            var end = start
            while end < b.count && b[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                let pair = UnsafeBufferPointer(rebasing: b[start..<end])
                var eq = pair.count
                for k in 0..<pair.count where pair[k] == UInt8(ascii: "=") { eq = k; break }
                let name = Percent.decode(UnsafeBufferPointer(rebasing: pair[0..<eq]), plusIsSpace: true)
                let value = eq < pair.count ? Percent.decode(UnsafeBufferPointer(rebasing: pair[(eq + 1)...]), plusIsSpace: true) : []
                let nameText = clipName(String(decoding: name, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                let loc = "\(location) form:\(nameText)"
                let listed = name.withUnsafeBufferPointer { formNames.contains(raw: $0) }
                if !listed { scanName(String(decoding: name, as: UTF8.self)) { loc } }
                value.withUnsafeBufferPointer { v in
                    if listed {
                        if !v.isEmpty && !ContentScanner.isMask(v) {
                            breach(VerifyRule.formField.id, what: "form field '\(nameText)'", value: v, location: loc)
                        }
                    } else {
                        shapes(v, hints: name.withUnsafeBufferPointer { NameHints.of(raw: $0) }) { loc }
                    }
                }
            }
            start = end + 1
        }
    }

    /// `multipart/form-data` (or any multipart): part names from Content-Disposition, part bodies scanned.
    /// Returns false when no boundary could be found.
    func multipart(_ b: UnsafeBufferPointer<UInt8>, contentType: String, location: String, depth: Int) -> Bool {
        var boundary: [UInt8] = []
        if let r = contentType.range(of: "boundary=", options: .caseInsensitive) {
            var s = String(contentType[r.upperBound...])
            if let semi = s.firstIndex(of: ";") { s = String(s[..<semi]) }
            s = s.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            boundary = Array(s.utf8)
        }
        let t = ScanInput(b: b, hints: [])
        if boundary.isEmpty || t.find(Array("--".utf8) + boundary, 0, b.count) == nil {
            // Sniff: the first line is `--boundary`.
            guard Shape.hasPrefix(b, "--") else { return false }
            var e = 2
            while e < b.count && e < 202 && b[e] != 0x0D && b[e] != 0x0A { e += 1 }
            boundary = Array(b[2..<e])
            if boundary.isEmpty { return false }
        }
        let delim = Array("--".utf8) + boundary
        var pos = t.find(delim, 0, b.count)
        while let p = pos {
            var s = p + delim.count
            if s + 1 < b.count && b[s] == UInt8(ascii: "-") && b[s + 1] == UInt8(ascii: "-") { break } // closing delimiter
            if s < b.count && b[s] == 0x0D { s += 1 }
            if s < b.count && b[s] == 0x0A { s += 1 }
            let next = t.find(delim, s, b.count)
            var e = next ?? b.count
            if next != nil {
                if e > s && b[e - 1] == 0x0A { e -= 1 }
                if e > s && b[e - 1] == 0x0D { e -= 1 }
            }
            if e > s { part(UnsafeBufferPointer(rebasing: b[s..<e]), location: location, depth: depth) }
            pos = next
        }
        return true
    }

    /// One multipart part: headers, a blank line, the body.
    func part(_ b: UnsafeBufferPointer<UInt8>, location: String, depth: Int) {
        let t = ScanInput(b: b, hints: [])
        var headerEnd = b.count, bodyStart = b.count
        if let k = t.find(Array("\r\n\r\n".utf8), 0, b.count) {
            headerEnd = k; bodyStart = k + 4
        } else if let k = t.find(Array("\n\n".utf8), 0, b.count) {
            headerEnd = k; bodyStart = k + 2
        }
        let headerText = String(decoding: UnsafeBufferPointer(rebasing: b[0..<headerEnd]), as: UTF8.self)
        var name = "", partType: String? = nil, hasFile = false
        for line in ContentScanner.unfolded(headerText) {
            let lower = line.lowercased()
            if lower.hasPrefix("content-disposition:") {
                name = dispositionParam(line, "name") ?? ""
                hasFile = dispositionParam(line, "filename") != nil
            } else if lower.hasPrefix("content-type:") {
                partType = String(line.dropFirst("content-type:".count)).trimmingCharacters(in: .whitespaces)
            }
        }
        let body = UnsafeBufferPointer(rebasing: b[bodyStart..<b.count])
        let nameText = clipName(name)
        let loc = "\(location) multipart:\(nameText)"
        // The part headers (file name, content type) get the detectors like any text.
        if headerEnd > 0 { shapes(UnsafeBufferPointer(rebasing: b[0..<headerEnd]), hints: []) { loc } }
        if !name.isEmpty && formNames.contains(name) {
            if !body.isEmpty && !ContentScanner.isMask(body) {
                breach(VerifyRule.multipartField.id, what: "multipart field '\(nameText)'", value: body, location: loc)
            }
            return
        }
        if partType == nil && !hasFile {
            if !body.isEmpty
                && (body[0] == UInt8(ascii: "{") || body[0] == UInt8(ascii: "[") || (body.count >= 2 && body[0] == 0x1F && body[1] == 0x8B))
            {
                content(body, contentType: nil, location: loc, depth: depth + 1)
            } else {
                shapes(body, hints: NameHints.of(name: name)) { loc }
            }
        } else {
            content(body, contentType: partType, location: loc, depth: depth + 1)
        }
    }

    /// A parameter of a `Content-Disposition` line: `name="x"` or `name=x`, the RFC 2231 forms
    /// (`name*=UTF-8''x` percent-encoded, `name*0=…; name*1=…` continued, each part plain or `*`
    /// encoded), the extended form winning over the plain one. Matched by the whole parameter name, so
    /// asking for `name` never reads `filename`.
    func dispositionParam(_ line: String, _ param: String) -> String? {
        let want = param.lowercased()
        var plain: String?
        var extended: String?
        var pieces: [Int: (value: String, encoded: Bool)] = [:]
        for (rawName, value) in ContentScanner.parameters(line) {
            let name = rawName.lowercased()
            if name == want {
                plain = value
            } else if name == want + "*" {
                extended = ContentScanner.extendedValue(value, first: true)
            } else if name.hasPrefix(want + "*") {
                var rest = name.dropFirst(want.count + 1)
                let encoded = rest.hasSuffix("*")
                if encoded { rest = rest.dropLast() }
                if let k = Int(rest), k >= 0, k < 1000 { pieces[k] = (value, encoded) }
            }
        }
        if let extended { return extended }
        if !pieces.isEmpty {
            var out = ""
            var k = 0
            while let p = pieces[k] {
                out += p.encoded ? ContentScanner.extendedValue(p.value, first: k == 0) : p.value
                k += 1
            }
            return out
        }
        return plain
    }

    /// The `;`-separated parameters after a header's first value, as written (quoted strings
    /// unquoted, `\` escapes resolved).
    static func parameters(_ line: String) -> [(String, String)] {
        var out: [(String, String)] = []
        let c = Array(line.unicodeScalars)
        var i = 0
        // The disposition type (`form-data`), after the header name.
        while i < c.count && c[i] != ";" { i += 1 }
        while i < c.count {
            i += 1 // `;`
            while i < c.count && (c[i] == " " || c[i] == "\t") { i += 1 }
            var name = ""
            while i < c.count && c[i] != "=" && c[i] != ";" { name.unicodeScalars.append(c[i]); i += 1 }
            guard i < c.count, c[i] == "=" else { continue }
            i += 1
            while i < c.count && (c[i] == " " || c[i] == "\t") { i += 1 }
            var value = ""
            if i < c.count && c[i] == "\"" {
                i += 1
                while i < c.count && c[i] != "\"" {
                    if c[i] == "\\" && i + 1 < c.count { i += 1 }
                    value.unicodeScalars.append(c[i])
                    i += 1
                }
                while i < c.count && c[i] != ";" { i += 1 }
            } else {
                while i < c.count && c[i] != ";" { value.unicodeScalars.append(c[i]); i += 1 }
                value = value.trimmingCharacters(in: .whitespaces)
            }
            out.append((name.trimmingCharacters(in: .whitespaces), value))
        }
        return out
    }

    /// An RFC 2231 value: `charset'language'percent-encoded` (the first piece), or percent-encoded.
    static func extendedValue(_ v: String, first: Bool) -> String {
        var text = Substring(v)
        if first {
            let quotes = v.indices.filter { v[$0] == "'" }
            if quotes.count >= 2 { text = v[v.index(after: quotes[1])...] }
        }
        let bytes = Array(text.utf8)
        let decoded = bytes.withUnsafeBufferPointer { Percent.decode($0, plusIsSpace: false) }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Header lines of a part with folded lines joined (a line starting with a space or tab
    /// continues the one before it).
    static func unfolded(_ text: String) -> [String] {
        var lines: [String] = []
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if let f = line.first, f == " " || f == "\t", !lines.isEmpty {
                lines[lines.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                lines.append(String(line))
            }
        }
        return lines
    }

    /// Multipart bytes whatever the content type says: a first line `--boundary` and a part header
    /// (`Content-Disposition`) within the first KiB.
    func looksLikeMultipart(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Shape.hasPrefix(b, "--") else { return false }
        var e = 2
        while e < b.count && e < 202 && b[e] != 0x0D && b[e] != 0x0A {
            if b[e] == 0x20 { return false }
            e += 1
        }
        guard e > 2, e < b.count else { return false }
        let head = String(decoding: UnsafeBufferPointer(rebasing: b[e..<min(b.count, e + 1024)]), as: UTF8.self).lowercased()
        return head.contains("content-disposition")
    }
}
