import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ContentScanner {
    func headers(_ list: JSONValue, side: String) {
        var index = 0
        list.forEachElement { h in
            defer { index += 1 }
            let (nameMember, valueMember) = ContentScanner.nameAndValue(h)
            guard let nameNode = nameMember, nameNode.isString, let value = valueMember else {
                var loc = Loc("\(side).headers[\(index)]", jsonPath: false)
                walk(h, &loc, names: nil, rule: nil, what: "", listed: false, hints: [])
                return
            }
            // The name's facts from its bytes (cached); its text is made only for a location or a message.
            let facts = nameFacts(nameNode)
            scanName(nameNode, facts: facts) { "\(side).headers[\(index)].name" }
            guard value.isString else { return }
            func name() -> String { nameNode.string ?? "" }
            withStringBytes(value) { b in
                if facts.headerListed {
                    if !ContentScanner.isMask(b) {
                        let name = name()
                        breach(
                            VerifyRule.header.id, what: "header '\(clipName(name))'", value: b,
                            location: "\(side).headers[\(clipName(name))]")
                    }
                    return
                }
                if facts.urlHeader {
                    let name = name()
                    let location = "\(side).headers[\(clipName(name))]"
                    if facts.linkHeader {
                        linkHeader(b, location: location, header: name)
                    } else {
                        url(b, location: location, queryRule: VerifyRule.urlInHeader.id, header: name)
                    }
                } else {
                    shapes(b, hints: facts.hints) { "\(side).headers[\(clipName(name()))]" }
                    pseudoHeaderURL(b, name: nameNode, location: { "\(side).headers[\(clipName(name()))]" })
                }
            }
        }
    }

    /// HTTP/2 and HTTP/3 carry the request's URL in pseudo-headers: `:authority` (and `Host`) may hold
    /// `user:password@host`, `:path` the path with its query and matrix parameters. Each is checked
    /// as the URL it is part of: userinfo, and the SDK's query list.
    func pseudoHeaderURL(_ b: UnsafeBufferPointer<UInt8>, name nameNode: JSONValue, location: () -> String) {
        guard let base = b.baseAddress, !b.isEmpty else { return }
        let hasAt = memchr(base, 0x40, b.count) != nil
        let hasQuery = memchr(base, 0x3F, b.count) != nil || memchr(base, 0x3B, b.count) != nil
        guard hasAt || hasQuery else { return }
        // The name's bytes, compared without making a string (most headers are not these).
        let which: Int = withStringBytes(nameNode) { n in
            func isName(_ w: StaticString) -> Bool {
                n.count == w.utf8CodeUnitCount
                    && zip(n, UnsafeBufferPointer(start: w.utf8Start, count: w.utf8CodeUnitCount)).allSatisfy {
                        $0 | 0x20 == $1 | 0x20
                    }
            }
            if hasAt && (isName(":authority") || isName("host")) { return 1 }
            if hasQuery && isName(":path") { return 2 }
            return 0
        }
        guard which != 0 else { return }
        let prefix = which == 1 ? "https://" : "https://authority"
        let whole = Array(prefix.utf8) + Array(b)
        let saved = rawRange
        rawRange = nil
        defer { rawRange = saved }
        whole.withUnsafeBufferPointer { url($0, location: location(), queryRule: VerifyRule.query.id) }
    }

    static let nameWord: StaticString = "name"
    static let valueWord: StaticString = "value"

    /// `h.member("name")` and `h.member("value")` (the first member of each name), found in one pass.
    static func nameAndValue(_ h: JSONValue) -> (name: JSONValue?, value: JSONValue?) {
        h.doc.withTape { t in
            var name: Int? = nil, value: Int? = nil
            let nameBytes = UnsafeBufferPointer(start: nameWord.utf8Start, count: nameWord.utf8CodeUnitCount)
            let valueBytes = UnsafeBufferPointer(start: valueWord.utf8Start, count: valueWord.utf8CodeUnitCount)
            t.forEachMember(h.tapeIndex) { k, v in
                if name == nil && t.equals(k, nameBytes) {
                    name = v
                } else if value == nil && t.equals(k, valueBytes) {
                    value = v
                }
            }
            return (name.map(t.value), value.map(t.value))
        }
    }

    /// `Link: <url>; rel=…, <url>; …`: every URL in angle brackets.
    func linkHeader(_ b: UnsafeBufferPointer<UInt8>, location: String, header: String) {
        var i = 0
        var scanned = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "<") {
                var e = i + 1
                while e < b.count && b[e] != UInt8(ascii: ">") { e += 1 }
                url(UnsafeBufferPointer(rebasing: b[(i + 1)..<e]), location: location, queryRule: VerifyRule.urlInHeader.id, header: header)
                // The text between URLs (parameters) still gets the detectors.
                if i > scanned { shapes(UnsafeBufferPointer(rebasing: b[scanned..<i]), hints: []) { location } }
                i = e + 1
                scanned = min(i, b.count)
            } else {
                i += 1
            }
        }
        if scanned < b.count { shapes(UnsafeBufferPointer(rebasing: b[scanned..<b.count]), hints: []) { location } }
    }

    /// A URL: the password of its userinfo, its listed query (and fragment) parameters, detectors elsewhere.
    /// A URL found clean is remembered (`cleanURLs`): records repeat their endpoints.
}
