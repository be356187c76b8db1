import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ContentScanner {
    // MARK: - Record fields (tape values)

    /// Calls `body` with a string value's decoded bytes (no copy when it has no escape); while it runs,
    /// `rawRange` is the value's place in the line, for the prefilter.
    func withStringBytes<R>(_ v: JSONValue, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let line = recordLine, v.doc === recordDoc, v.isString {
            // A value of the record line: read where it stands (no slice of the document's bytes made).
            let r = v.contentRange
            let saved = rawRange, savedDirect = rawDirect
            rawRange = (r.lowerBound - 1)..<(r.upperBound + 1)
            defer { rawRange = saved; rawDirect = savedDirect }
            let inner = UnsafeBufferPointer(rebasing: line[r])
            if let base = inner.baseAddress, memchr(base, 0x5C, inner.count) != nil {
                rawDirect = nil
                let decoded = v.stringBytes
                return decoded.withUnsafeBufferPointer(body)
            }
            rawDirect = inner.baseAddress
            return body(inner)
        }
        let raw = v.rawBytes
        let saved = rawRange, savedDirect = rawDirect
        rawRange = raw.startIndex..<raw.endIndex
        defer { rawRange = saved; rawDirect = savedDirect }
        let direct: R? = raw.withUnsafeBufferPointer { rb -> R? in
            guard rb.count >= 2 else { return nil }
            let inner = UnsafeBufferPointer(rebasing: rb[1..<(rb.count - 1)])
            if let base = inner.baseAddress, memchr(base, 0x5C, inner.count) != nil { return nil }
            rawDirect = inner.baseAddress
            return body(inner)
        }
        if let direct { return direct }
        rawDirect = nil
        let decoded = v.stringBytes
        return decoded.withUnsafeBufferPointer(body)
    }

    /// Walks a value: under `names` (when given) a listed key must hold `***`; every string gets the detectors.
    func walk(_ v: JSONValue, _ loc: inout Loc, names: NameSet?, rule: RuleID?, what: String, listed: Bool, hints: NameHints) {
        switch v.kind {
        case .object:
            v.forEachMemberName { k, x in
                let l = listed || (names.map { set in k.withStringUTF8 { set.contains(raw: $0) } } ?? false)
                loc.push(.name(k))
                let facts = nameFacts(k)
                scanName(k, facts: facts) { loc.render() }
                walk(x, &loc, names: names, rule: rule, what: what, listed: l, hints: facts.hints)
                loc.pop()
            }
        case .array:
            var i = 0
            v.forEachElement { x in
                loc.push(.index(i))
                walk(x, &loc, names: names, rule: rule, what: what, listed: listed, hints: hints)
                loc.pop()
                i += 1
            }
        case .string:
            withStringBytes(v) { b in
                if listed, let rule {
                    if !b.isEmpty && !ContentScanner.isMask(b) {
                        breach(rule, what: "\(what) '\(clipName(loc.lastKey ?? ""))'", value: b, location: loc.render())
                    }
                } else {
                    let mark = hits.count
                    shapes(b, hints: hints) { loc.render() }
                    if ContentScanner.isURL(b) {
                        listedQuery(b, location: loc.render())
                    } else {
                        percentEncoded(b, since: mark) { loc.render() }
                        // A JSON document serialised into a metadata value: its names are on the same list.
                        if let rule, names != nil && looksLikeJSON(b, level: 0) {
                            innerDocument(b, shapeHitsFrom: mark, location: loc.render(), rule: rule, what: what)
                        }
                    }
                }
            }
        case .number:
            if listed, let rule {
                let raw = Array(v.rawBytes)
                raw.withUnsafeBufferPointer {
                    breach(rule, what: "\(what) '\(clipName(loc.lastKey ?? ""))'", value: $0, location: loc.render())
                }
            }
        default:
            break
        }
    }

    /// `walk` of a string value under no name list and no listed name (`walk(v, &loc, names: nil, …,
    /// listed: false, hints:)`): the detectors, then a URL's listed query or the percent-decoding.
    /// `location` is what `loc.render()` gives there, made only when a check needs it.
    @inline(__always) func plainString(_ v: JSONValue, hints: NameHints, location: () -> String) {
        withStringBytes(v) { b in
            let mark = hits.count
            shapes(b, hints: hints, location: location)
            if ContentScanner.isURL(b) {
                listedQuery(b, location: location())
            } else {
                percentEncoded(b, since: mark, location: location)
            }
        }
    }

    /// Free text (a log message, an error description): detectors only, on the text and on its
    /// percent-decoding (a credential written `%67%68%70…` in a message leaks just the same).
    func freeText(_ v: JSONValue, location: String) {
        if v.isString {
            withStringBytes(v) { b in
                let mark = hits.count
                shapes(b, hints: []) { location }
                percentEncoded(b, since: mark) { location }
            }
        } else {
            var loc = Loc(location, jsonPath: false)
            walk(v, &loc, names: nil, rule: nil, what: "", listed: false, hints: [])
        }
    }

    /// `request.headers` / `response.headers`: the header list, URL-valued headers, detectors on the rest.
}
