import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ContentScanner {
    // MARK: - Bodies

    /// A body object: inline text, base64, or a blob reference (returned for the caller to resolve later).
    func body(_ v: JSONValue, location: String) -> String? {
        guard v.isObject else { return nil }
        let m = ContentScanner.bodyMembers(v)
        if m.blob == nil, let enc = m.encoding, enc.stringEquals("utf8"), let t = m.text, t.isString {
            textBody(t, contentType: m.contentType?.string, location: location)
            extras(v, location: location)
            return nil
        }
        if m.blob.map({ !$0.isString }) ?? true, let enc = m.encoding, enc.stringEquals("base64"), let d = m.data, d.isString {
            // What `Body` makes of it (`.base64`), decoded from the value's bytes without a String in between
            // (bytes that are not base64 fail the decoding either way).
            let contentType = m.contentType?.string
            let saved = rawRange, savedDirect = rawDirect
            // What `content` finds in the decoding depends on its bytes and on the content type's class
            // alone (multipart and form types aside): bytes found clean before are clean again.
            let tag: UInt8 =
                ContentScanner.typeHas(contentType, ContentScanner.multipartWord)
                    || ContentScanner.typeHas(contentType, ContentScanner.formWord) ? 0 : (contentType ?? "").isEmpty ? 1 : 2
            let memo = tag != 0 && saved == nil && jsonInString == 0 && nesting == 0 && encodedDepth == 0
            withStringBytes(d) { data in
                if memo && cleanBase64Bodies.contains(data, tag: tag) { return }
                let mark = hits.count
                defer { if memo && hits.count == mark { cleanBase64Bodies.insert(data, tag: tag) } }
                bodyBuffer.withDecoded(data) { decoded in
                    // The decoding is checked with the scanner's state as it was outside `withStringBytes`.
                    let inner = rawRange, innerDirect = rawDirect
                    rawRange = saved
                    rawDirect = savedDirect
                    if let decoded { content(decoded, contentType: contentType, location: location, depth: 0) }
                    rawRange = inner
                    rawDirect = innerDirect
                }
            }
            extras(v, location: location)
            return nil
        }
        let body = Body(location: location, json: v)
        switch body.content {
        case .text:
            if let t = m.text, t.isString {
                withStringBytes(t) { content($0, contentType: body.contentType, location: location, depth: 0) }
            }
        case .base64(let bytes, _):
            if let bytes { bytes.withUnsafeBufferPointer { content($0, contentType: body.contentType, location: location, depth: 0) } }
        case .blob(let hex, _, _, _):
            // A reference that is not `sha256:<64 hex>` is text like any other: a credential can stand there.
            if hex == nil, let r = m.blob, r.isString {
                withStringBytes(r) { shapes($0, hints: []) { "\(location).blob" } }
            }
            return hex
        case .none, .invalid:
            break
        }
        extras(v, location: location)
        return nil
    }

    /// The members of a body object `body` reads: the first of each name, as `member` finds it, in one pass.
    struct BodyMembers {
        var blob: JSONValue? = nil
        var encoding: JSONValue? = nil
        var text: JSONValue? = nil
        var contentType: JSONValue? = nil
        var data: JSONValue? = nil
    }

    static let blobWord: StaticString = "blob"
    static let encodingWord: StaticString = "encoding"
    static let textWord: StaticString = "text"
    static let contentTypeWord: StaticString = "contentType"
    static let dataWord: StaticString = "data"

    static func bodyMembers(_ v: JSONValue) -> BodyMembers {
        v.doc.withTape { t in
            var found: (blob: Int?, encoding: Int?, text: Int?, contentType: Int?, data: Int?) = (nil, nil, nil, nil, nil)
            @inline(__always) func bytes(_ w: StaticString) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(start: w.utf8Start, count: w.utf8CodeUnitCount)
            }
            t.forEachMember(v.tapeIndex) { k, x in
                if found.blob == nil && t.equals(k, bytes(blobWord)) {
                    found.blob = x
                } else if found.encoding == nil && t.equals(k, bytes(encodingWord)) {
                    found.encoding = x
                } else if found.text == nil && t.equals(k, bytes(textWord)) {
                    found.text = x
                } else if found.contentType == nil && t.equals(k, bytes(contentTypeWord)) {
                    found.contentType = x
                } else if found.data == nil && t.equals(k, bytes(dataWord)) {
                    found.data = x
                }
            }
            return BodyMembers(
                blob: found.blob.map(t.value), encoding: found.encoding.map(t.value), text: found.text.map(t.value),
                contentType: found.contentType.map(t.value), data: found.data.map(t.value))
        }
    }

    /// Any other member of a body object (a hostile writer's extras) gets the detectors.
    func extras(_ v: JSONValue, location: String) {
        v.forEachMemberName { k, x in
            guard x.isString, !k.stringEquals("text"), !k.stringEquals("data"), !k.stringEquals("blob") else { return }
            // `walk` of the string under `Loc(location)` holding the name.
            plainString(x, hints: hints(k)) { location.isEmpty ? clipName(k.string ?? "") : location + "." + clipName(k.string ?? "") }
        }
    }

    /// An inline utf8 body: a JSON document is scanned where it stands in the line (still escaped);
    /// anything else is decoded and dispatched by content.
    func textBody(_ t: JSONValue, contentType: String?, location: String) {
        let raw = t.rawBytes
        let direct: Bool = raw.withUnsafeBufferPointer { rb in
            guard rb.count >= 2, !ContentScanner.typeHas(contentType, ContentScanner.multipartWord),
                !ContentScanner.typeHas(contentType, ContentScanner.formWord)
            else { return false }
            let inner = UnsafeBufferPointer(rebasing: rb[1..<(rb.count - 1)])
            guard looksLikeJSON(inner, level: 1) else { return false }
            // What the scan finds depends on the text's bytes alone here (its own stems, no enclosing
            // value or document): a text found clean before is clean again.
            let memo = rawRange == nil && jsonInString == 0 && nesting == 0 && encodedDepth == 0
            if memo && cleanBodies.contains(inner) { return true }
            let mark = hits.count
            jsonText(inner, location: location, level: 1, rawBase: raw.startIndex + 1, ownStems: true)
            if memo && hits.count == mark { cleanBodies.insert(inner) }
            return true
        }
        if !direct {
            // The line pass left this text out (see `beginLine`): decode it and scan it in full.
            let saved = rawRange
            rawRange = nil
            let decoded = t.stringBytes
            decoded.withUnsafeBufferPointer { content($0, contentType: contentType, location: location, depth: 0) }
            rawRange = saved
        }
    }

    /// Body bytes of any kind: gzip, multipart, form, JSON (complete or cut), or text. Binary is skipped.
    func content(_ b: UnsafeBufferPointer<UInt8>, contentType: String?, location: String, depth: Int) {
        guard !b.isEmpty else { return }
        guard depth <= maxContentDepth else {
            bound(
                "encodings nested more than \(maxContentDepth + 1) deep (gzip in gzip…); the innermost \(b.count) bytes were not checked",
                location: location)
            return
        }
        if b.count >= 2 && b[0] == 0x1F && b[1] == 0x8B {
            let saved = rawRange
            rawRange = nil
            defer { rawRange = saved }
            let inflated = inflate(b, location: location)
            if Int64(inflated.count) >= maxInflatedBytes {
                bound("gzip body inflates past \(maxInflatedBytes >> 20) MiB; bytes after that were not checked", location: location)
            }
            inflated.withUnsafeBufferPointer { content($0, contentType: contentType, location: location, depth: depth + 1) }
            return
        }
        // UTF-16 text (with a byte-order mark, or ASCII with every other byte zero): read as UTF-8.
        if let utf8 = UTF16Text.decode(b) {
            let saved = rawRange
            rawRange = nil
            defer { rawRange = saved }
            utf8.withUnsafeBufferPointer { content($0, contentType: contentType, location: location, depth: depth + 1) }
            return
        }
        if ContentScanner.typeHas(contentType, ContentScanner.multipartWord) || ((contentType ?? "").isEmpty && Shape.hasPrefix(b, "--"))
            || looksLikeMultipart(b)
        {
            if multipart(b, contentType: contentType ?? "", location: location, depth: depth) { return }
        }
        if ContentScanner.typeHas(contentType, ContentScanner.formWord) {
            form(b, location: location)
            return
        }
        var i = 0
        while i < b.count && ByteSet.space.contains(b[i]) { i += 1 }
        if i < b.count && (b[i] == UInt8(ascii: "{") || b[i] == UInt8(ascii: "[")) {
            jsonText(b, location: location)
            return
        }
        // Compressed without gzip: zlib is inflated; a compression pbsift does not read is said.
        if let kind = Sniff.unsupportedCompression(Array(b.prefix(6))), kind != "zip" {
            bound("a body compressed with \(kind), which is not read; its \(b.count) bytes were not checked", location: location)
            return
        }
        if Deflate.isZlib(b), let z = Deflate.inflate(b, framing: .zlib, limit: Int(maxInflatedBytes)), z.ended || !z.bytes.isEmpty {
            let saved = rawRange
            rawRange = nil
            defer { rawRange = saved }
            if z.bytes.count >= Int(maxInflatedBytes) {
                bound("zlib body inflates past \(maxInflatedBytes >> 20) MiB; bytes after that were not checked", location: location)
            }
            z.bytes.withUnsafeBufferPointer { content($0, contentType: contentType, location: location, depth: depth + 1) }
            return
        }
        guard Shape.looksLikeText(b) else {
            // Raw deflate has no magic: a binary body that inflates whole into text is that text.
            if b.count <= 1 << 20, !Shape.isImage(b), let d = Deflate.inflate(b, framing: .raw, limit: Int(maxInflatedBytes)), d.ended,
                d.bytes.count >= 8, Shape.looksLikeText(d.bytes.withUnsafeBufferPointer { $0 })
            {
                let saved = rawRange
                rawRange = nil
                defer { rawRange = saved }
                d.bytes.withUnsafeBufferPointer { content($0, contentType: contentType, location: location, depth: depth + 1) }
            }
            // Binary bytes (protobuf, gRPC framing): the printable runs inside still get the detectors.
            let saved = rawRange
            rawRange = nil
            for r in Shape.printableRuns(b) { shapes(UnsafeBufferPointer(rebasing: b[r]), hints: []) { location } }
            rawRange = saved
            return
        }
        if looksLikeForm(b) {
            form(b, location: location)
            return
        }
        shapes(b, hints: []) { location }
    }

    /// `a=b&c=d` with no white space: a form body without a content type.
    func looksLikeForm(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count < 1 << 20 else { return false }
        let nameSet = ContentScanner.formNameBytes
        let first = ScanInput(b: b, hints: []).run(0, nameSet, max: 128)
        guard first > 0, first < b.count, b[first] == UInt8(ascii: "=") else { return false }
        for c in b where c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { return false }
        return true
    }
}
