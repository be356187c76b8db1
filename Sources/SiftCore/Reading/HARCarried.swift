/// What of a HAR entry its record does not hold.
///
/// The mapping (`HARMapping.record`) reads the HAR 1.2 fields it knows, in the shapes the format gives
/// them. Whatever else an entry holds — a member of another name, a field of another shape (headers as
/// an object, a request as a string), the headers of a redirect's middle hop, a member written twice —
/// is found here by comparing the entry with the record built from it: every string and member name of
/// the entry that the record lacks is handed to verify as text, under the path where it stands. No
/// field is dropped because the mapping did not expect it.
extension HARMapping {
    /// Names of the HAR 1.2 format and of what `pbsift har` writes: a member so named is read by the
    /// mapping, so its name needs no check of its own (its value still does).
    static let formatNames: Set<String> = ownFields.union([
        "log", "entries", "startedDateTime", "time", "request", "response", "cache", "timings", "serverIPAddress",
        "connection", "pageref", "comment", "method", "url", "httpVersion", "cookies", "headers", "queryString",
        "postData", "headersSize", "bodySize", "status", "statusText", "content", "redirectURL", "name", "value",
        "path", "domain", "expires", "httpOnly", "secure", "sameSite", "mimeType", "text", "params", "fileName",
        "contentType", "size", "compression", "encoding", "beforeRequest", "afterRequest", "lastAccess", "eTag",
        "hitCount", "blocked", "dns", "connect", "send", "wait", "receive", "ssl"
    ])

    /// Members whose values the mapping carries in another spelling (cookies joined into a header,
    /// parameters form-encoded into a body or query, the session header's fields), by their path.
    static let carriedElsewhere: Set<[String]> = [
        ["request", "cookies"], ["response", "cookies"], ["request", "postData", "params"], ["request", "queryString"],
        ["_session"], ["_sessionId"]
    ]

    /// A digest of a string's decoded bytes (or of a member name), for asking whether a record holds it.
    /// `Hasher` is seeded per process, so no input can be written to collide with another.
    @inlinable
    static func digest(_ v: JSONValue) -> Int {
        v.withStringUTF8 { b in
            var h = Hasher()
            h.combine(bytes: UnsafeRawBufferPointer(b))
            return h.finalize()
        }
    }

    /// The digests of every string and member name in `v`.
    static func strings(of v: JSONValue, into set: inout Set<Int>) {
        switch v.kind {
        case .string:
            set.insert(digest(v))
        case .array:
            v.forEachElement { strings(of: $0, into: &set) }
        case .object:
            v.forEachMemberName { name, value in
                set.insert(digest(name))
                strings(of: value, into: &set)
            }
        default:
            break
        }
    }

    /// One part of an entry its record lacks: where it stands (member names; an element as `[3]`
    /// joined to its array's name) and its JSON text.
    struct Uncarried {
        var path: [String]
        var bytes: ArraySlice<UInt8>
    }

    /// Every part of `entry` whose strings or member names `carried` (the record's, as digests) lacks.
    /// A `{name, value}` pair whose value is missing comes whole, so the name it was sent under stays
    /// beside it; a member of a name the format does not have comes with its whole value.
    static func uncarried(_ entry: JSONValue, carried: Set<Int>) -> [Uncarried] {
        var out: [Uncarried] = []
        walk(entry, path: [], carried: carried, into: &out)
        return out
    }

    private static func walk(_ v: JSONValue, path: [String], carried: Set<Int>, into out: inout [Uncarried]) {
        switch v.kind {
        case .string:
            if !carried.contains(digest(v)) { out.append(Uncarried(path: path, bytes: v.rawBytes)) }
        case .array:
            var i = 0
            v.forEachElement { x in
                var p = path
                if let last = p.popLast() { p.append(last + "[\(i)]") } else { p.append("[\(i)]") }
                walk(x, path: p, carried: carried, into: &out)
                i += 1
            }
        case .object:
            if let value = v.member("value"), value.isString, v.member("name")?.isString == true,
                !carried.contains(digest(value))
            {
                out.append(Uncarried(path: path, bytes: v.rawBytes))
                return
            }
            v.forEachMemberName { nameValue, value in
                let name = nameValue.string ?? ""
                let p = path + [name]
                if carriedElsewhere.contains(p) { return }
                // The entry's start is read as its time; its spelling carries nothing else.
                if p == ["startedDateTime"], value.isString, value.string.flatMap(Timestamp.parse) != nil { return }
                guard formatNames.contains(name) || carried.contains(digest(nameValue)) else {
                    out.append(Uncarried(path: p, bytes: value.rawBytes))
                    return
                }
                walk(value, path: p, carried: carried, into: &out)
            }
        default:
            break
        }
    }

    /// `parts` as one JSON object under `root`, nested by their paths (`{"entry":{"request":{"headers":…}}}`),
    /// so verify reads each value under the name it stood under.
    static func text(_ parts: [Uncarried], root: String) -> [UInt8] {
        final class Node {
            var children: [(String, Node)] = []
            var values: [(String, ArraySlice<UInt8>)] = []
            func child(_ name: String) -> Node {
                if let c = children.first(where: { $0.0 == name }) { return c.1 }
                let c = Node()
                children.append((name, c))
                return c
            }
        }
        let top = Node()
        // The entry itself, when it is not an object.
        if parts.count == 1, let only = parts.first, only.path.isEmpty {
            var q = ""
            JSONOut.quote(root, into: &q)
            return Array("{\(q):".utf8) + only.bytes + [UInt8(ascii: "}")]
        }
        for part in parts {
            var node = top.child(root)
            guard let last = part.path.last else {
                node.values.append(("", part.bytes))
                continue
            }
            for name in part.path.dropLast() { node = node.child(name) }
            node.values.append((last, part.bytes))
        }
        var out: [UInt8] = []
        func emit(_ node: Node) {
            out.append(UInt8(ascii: "{"))
            var first = true
            func key(_ k: String) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                var q = ""
                JSONOut.quote(k, into: &q)
                out += Array(q.utf8)
                out.append(UInt8(ascii: ":"))
            }
            for (k, bytes) in node.values {
                key(k)
                out += bytes
            }
            for (k, c) in node.children {
                key(k)
                emit(c)
            }
            out.append(UInt8(ascii: "}"))
        }
        emit(top)
        return out
    }
}
