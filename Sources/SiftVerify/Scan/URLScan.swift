import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ContentScanner {
    func url(_ b: UnsafeBufferPointer<UInt8>, location: String, queryRule: RuleID, header: String? = nil) {
        // What the checks find in a URL depends on its bytes alone (the rule, the header and the location
        // only name what they find; the line's stem offsets only let clean parts be skipped), except that
        // its parameter names are checked as values only in a line holding some stem (`scanName`): the
        // memo keeps the two cases apart. Not inside a nested value (its bounds depend on the nesting).
        let memo = nesting == 0 && encodedDepth == 0 && jsonInString == 0
        let tag: UInt8 = lineHasStem(holding: b) ? 2 : 1
        if memo && cleanURLs.contains(b, tag: tag) { return }
        let mark = hits.count
        defer { if memo && hits.count == mark { cleanURLs.insert(b, tag: tag) } }
        urlChecks(b, location: location, queryRule: queryRule, header: header)
    }

    /// `url`'s checks.
    func urlChecks(_ b: UnsafeBufferPointer<UInt8>, location: String, queryRule: RuleID, header: String?) {
        let n = b.count
        // When `b` is the value as it stands in the line (no escape: the raw range is the text and its two
        // quotes), each part is prefiltered by its own raw range rather than the whole URL's.
        let rawStart: Int? =
            b.baseAddress != nil && b.baseAddress == rawDirect ? rawRange.flatMap { $0.count == n + 2 ? $0.lowerBound + 1 : nil } : nil
        func raw(_ lo: Int, _ hi: Int) -> Range<Int>? { rawStart.map { ($0 + lo)..<($0 + hi) } }
        var q = n, f = n
        for i in 0..<n {
            if b[i] == UInt8(ascii: "?") && q == n { q = i }
            if b[i] == UInt8(ascii: "#") { f = i; break }
        }
        if q > f { q = f }
        // Userinfo: scheme://user:password@host
        var pw: DetMatch? = nil
        let t = ScanInput(b: UnsafeBufferPointer(rebasing: b[0..<q]), hints: [])
        var authorityEnd = q
        if let sep = t.find(Array("://".utf8), 0, q) {
            pw = urlPassword(t, sep + 3, limit: q)
            var e = sep + 3
            while e < q && !Sets.authorityStop.contains(b[e]) { e += 1 }
            authorityEnd = e
        }
        if let pw, !ContentScanner.isMask(UnsafeBufferPointer(rebasing: b[pw.start..<pw.end])) {
            let value = UnsafeBufferPointer(rebasing: b[pw.start..<pw.end])
            let shape = engine.shapeOf(value)
            // A user name alone (no password) that looks random: a token used as the user.
            let userOnly = pw.severity == .medium
            let what = userOnly ? "a random-looking user name (a token)" : "a password"
            var message =
                header.map { "a URL in header '\(clipName($0))' carries \(what) in its userinfo" }
                ?? "the URL carries \(what) in its userinfo"
            if let shape { message += "; it looks like \(article(shape.title))" }
            // `user:password@localhost`: a placeholder to a local host (the detector says why).
            let placeholder = shape == nil && pw.severity == .low
            if placeholder, let reason = pw.reason { message += "; rated low below the rule's high: \(reason)" }
            let severity: Severity = shape != nil ? .critical : placeholder ? .low : userOnly ? .medium : .high
            hits.append(
                RawHit(
                    rule: VerifyRule.urlUserinfo.id, severity: severity, location: location,
                    value: String(decoding: value, as: UTF8.self), message: message))
        }
        // Detectors over scheme, authority and path (the password was reported above).
        let before = hits.count
        shapes(UnsafeBufferPointer(rebasing: b[0..<authorityEnd]), hints: [], skipURL: true, raw: raw(0, authorityEnd)) { location }
        if let pw, hits.count > before {
            // Scan around the password (reported above) so a token used as the user name is still seen.
            hits.removeSubrange(before...)
            shapes(UnsafeBufferPointer(rebasing: b[0..<pw.start]), hints: [], skipURL: true, raw: raw(0, pw.start)) { location }
            shapes(UnsafeBufferPointer(rebasing: b[pw.end..<authorityEnd]), hints: [], skipURL: true, raw: raw(pw.end, authorityEnd)) {
                location
            }
        }
        // The path may carry a URL of its own (a redirect target with userinfo): every detector runs there.
        if authorityEnd < q {
            shapes(UnsafeBufferPointer(rebasing: b[authorityEnd..<q]), hints: [], raw: raw(authorityEnd, q)) { location }
            // Matrix parameters (`/v1/items;access_token=…/x`): each `;` segment is checked like a query.
            var i = authorityEnd
            while i < q {
                if b[i] == UInt8(ascii: ";") {
                    var e = i + 1
                    while e < q && b[e] != UInt8(ascii: "/") && b[e] != UInt8(ascii: ";") { e += 1 }
                    if e > i + 1 {
                        params(
                            UnsafeBufferPointer(rebasing: b[(i + 1)..<e]), sigil: ";", location: location, rule: queryRule, header: header,
                            rawStart: rawStart.map { $0 + i + 1 })
                    }
                    i = e
                } else {
                    i += 1
                }
            }
        }
        if q < f {
            params(
                UnsafeBufferPointer(rebasing: b[(q + 1)..<f]), sigil: "?", location: location, rule: queryRule, header: header,
                rawStart: rawStart.map { $0 + q + 1 })
        }
        if f + 1 < n {
            params(
                UnsafeBufferPointer(rebasing: b[(f + 1)..<n]), sigil: "#", location: location, rule: queryRule, header: header,
                rawStart: rawStart.map { $0 + f + 1 })
        }
    }

    /// A query value that is a URL or a query of its own (a redirect target, `return_to=`), or that
    /// is percent-encoded once more: its listed parameters and its shapes are checked too, three
    /// levels deep.
    func nestedValue(_ v: UnsafeBufferPointer<UInt8>, location: String) {
        guard nesting < 3 else { return }
        nesting += 1
        defer { nesting -= 1 }
        if v.contains(UInt8(ascii: "?")) || v.contains(UInt8(ascii: "#")) { listedQuery(v, location: location) }
        if v.contains(UInt8(ascii: "%")) {
            let again = Percent.decode(v, plusIsSpace: true)
            guard again.count < v.count else { return }
            again.withUnsafeBufferPointer { d in
                shapes(d, hints: []) { location }
                nestedValue(d, location: location)
            }
        }
    }

    /// A URL standing in any other field (the detectors ran over it whole): its query and fragment
    /// parameters under the contract's query names must be `***` too.
    func listedQuery(_ b: UnsafeBufferPointer<UInt8>, location: String) {
        let n = b.count
        var q = n, f = n
        for i in 0..<n {
            if b[i] == UInt8(ascii: "?") && q == n { q = i }
            if b[i] == UInt8(ascii: "#") { f = i; break }
        }
        if q > f { q = f }
        if q < f {
            params(
                UnsafeBufferPointer(rebasing: b[(q + 1)..<f]), sigil: "?", location: location, rule: VerifyRule.query.id,
                header: nil, onlyListed: true)
        }
        if f + 1 < n {
            params(
                UnsafeBufferPointer(rebasing: b[(f + 1)..<n]), sigil: "#", location: location, rule: VerifyRule.query.id,
                header: nil, onlyListed: true)
        }
    }

    /// `a=1&b=2` of a query or fragment (`onlyListed`: only the listed names are checked).
    /// `rawStart`: where `b` starts in the line when it stands there as is; a value that needs no decoding
    /// is then prefiltered by its own raw range.
    func params(
        _ b: UnsafeBufferPointer<UInt8>, sigil: String, location: String, rule: RuleID, header: String?,
        onlyListed: Bool = false, rawStart: Int? = nil
    ) {
        // Values are percent-decoded: the raw-line prefilter does not apply to them.
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        var start = 0
        while start <= b.count {
            var end = start
            while end < b.count && b[end] != UInt8(ascii: "&") && b[end] != UInt8(ascii: ";") { end += 1 }
            if end > start {
                let pair = UnsafeBufferPointer(rebasing: b[start..<end])
                var eq = pair.count
                for k in 0..<pair.count where pair[k] == UInt8(ascii: "=") { eq = k; break }
                let rawName = UnsafeBufferPointer(rebasing: pair[0..<eq])
                let rawValue =
                    eq < pair.count ? UnsafeBufferPointer(rebasing: pair[(eq + 1)...]) : UnsafeBufferPointer(rebasing: pair[pair.count...])
                // Percent-decode only when there is something to decode.
                let name = ContentScanner.needsDecoding(rawName) ? Percent.decode(rawName, plusIsSpace: true) : nil
                let value = ContentScanner.needsDecoding(rawValue) ? Percent.decode(rawValue, plusIsSpace: true) : nil
                func withBytes<R>(_ decoded: [UInt8]?, _ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
                    if let decoded { return decoded.withUnsafeBufferPointer(body) }
                    return body(raw)
                }
                withBytes(name, rawName) { n in
                    let listed = queryNames.contains(raw: n)
                    func nameText() -> String { clipName(String(decoding: n, as: UTF8.self)) }
                    if onlyListed && !listed { return }
                    if !listed { scanName(String(decoding: n, as: UTF8.self)) { "\(location) \(sigil)\(nameText())" } }
                    withBytes(value, rawValue) { v in
                        if listed {
                            if !v.isEmpty && !ContentScanner.isMask(v) {
                                let what =
                                    header.map { "query parameter '\(nameText())' of a URL in header '\(clipName($0))'" }
                                    ?? "query parameter '\(nameText())'"
                                breach(rule, what: what, value: v, location: "\(location) \(sigil)\(nameText())")
                            }
                        } else {
                            let valueRaw = value == nil && eq < pair.count ? rawStart.map { ($0 + start + eq + 1)..<($0 + end) } : nil
                            shapes(v, hints: keyInfo(n).hints, raw: valueRaw) { "\(location) \(sigil)\(nameText())" }
                            // Only a value holding `?`, `#` or `%` has anything nested (its location is built then).
                            if v.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "%") }) {
                                nestedValue(v, location: "\(location) \(sigil)\(nameText())")
                            }
                        }
                    }
                }
            }
            start = end + 1
        }
    }
}
