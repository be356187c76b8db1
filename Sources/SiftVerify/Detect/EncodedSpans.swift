import SiftCore

/// A credential written encoded inside a string: base64 of either alphabet (padded or not) or hex,
/// as a JSON value, a header, a query value, a path segment or in free text. Each run of those
/// characters long enough to hold a credential is decoded; when it decodes to text, the detectors
/// run over that text (and over its percent-decoding, and over the runs inside it: two encodings
/// deep). A finding there names the encoding in its location (`$.data (base64-decoded)`) and carries
/// the encoded run as its value: those are the bytes that stand in the export, so the preview, the
/// fingerprint and what `scrub` replaces are theirs.
enum EncodedSpans {
    /// The bytes of a run: both base64 alphabets (hex digits are among them).
    static let runBytes = ByteSet("A-Za-z0-9+/_-")
    /// The same with `\`, for raw JSON text where `/` may stand escaped (`\/`).
    static let rawRunBytes = ByteSet("A-Za-z0-9+/_\\-")
    /// Shortest base64 run decoded (15 bytes: an AWS key id is 20).
    static let minBase64 = 20
    /// Shortest base64 run decoded whole when its bytes are not text (48 bytes: a token and more).
    static let minBinaryBase64 = 64
    /// Shortest hex run decoded (16 bytes); it must have an even length.
    static let minHex = 32
    /// Encodings followed inside one another; text still encoded past them is a bound.
    static let maxDepth = 4

    /// Whether `b` holds a run of `minBase64` bytes or more that could be an encoding (the
    /// prefilter: most strings have none). Looks at one byte in `minBase64` where the text has no run.
    @inline(__always) static func mayHold(_ b: UnsafeBufferPointer<UInt8>, raw: Bool = false) -> Bool {
        b.count >= minBase64 && hasRun(b, raw ? rawRunBytes : runBytes)
    }

    static func hasRun(_ b: UnsafeBufferPointer<UInt8>, _ set: ByteSet) -> Bool {
        let n = b.count, l = minBase64
        var i = l - 1
        // Bytes before `floor` are known to start no run long enough.
        var floor = 0
        while i < n {
            if !set.contains(b[i]) { floor = i + 1; i += l; continue }
            var s = i
            while s > floor && set.contains(b[s - 1]) { s -= 1 }
            var e = i + 1
            while e < n && set.contains(b[e]) && e - s < l { e += 1 }
            if e - s >= l { return true }
            floor = e + 1
            i = e + l
        }
        return false
    }

    @inline(__always) static func printable(_ c: UInt8) -> Bool {
        (c >= 0x20 && c < 0x7F) || c == 0x09 || c == 0x0A || c == 0x0D
    }

    /// Bytes decoded from a run are looked at when at least this share is printable text
    /// (random bytes, an image or a hash are about 38 %).
    static func isText(printable: Int, of count: Int) -> Bool { count > 0 && printable * 100 >= count * 85 }

    /// `b[from..<to]` (symbols of either base64 alphabet) decoded; a symbol left over at the end is
    /// dropped. Nil when fewer than half of the first 36 bytes are printable (an image, random bytes:
    /// about 38 %): the rest is not decoded, unless `whole` asks for every byte.
    static func base64(
        _ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, whole: Bool = false
    ) -> (bytes: [UInt8], printable: Int)? {
        var out: [UInt8] = []
        out.reserveCapacity((to - from) * 3 / 4)
        var acc: UInt32 = 0, bits: UInt32 = 0, printable = 0
        return Base64.table.withUnsafeBufferPointer { t -> (bytes: [UInt8], printable: Int)? in
            for k in from..<to {
                let v = t[Int(b[k])]
                if v < 0 { return nil }
                acc = acc << 6 | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    let c = UInt8(truncatingIfNeeded: acc >> bits)
                    out.append(c)
                    if EncodedSpans.printable(c) { printable += 1 }
                    if !whole && out.count == 36 && printable < 18 { return nil }
                }
            }
            return (out, printable)
        }
    }

    /// `b[from..<to]` (an even number of hex digits) decoded; nil as for `base64`.
    static func hex(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> (bytes: [UInt8], printable: Int)? {
        var out: [UInt8] = []
        out.reserveCapacity((to - from) / 2)
        var printable = 0
        var k = from
        while k + 1 < to {
            guard let h = Shape.hexNibble(b[k]), let l = Shape.hexNibble(b[k + 1]) else { return nil }
            let c = h << 4 | l
            out.append(c)
            if EncodedSpans.printable(c) { printable += 1 }
            if out.count == 36 && printable < 18 { return nil }
            k += 2
        }
        return (out, printable)
    }

    /// Whether a base64 run in `b` decodes to text (the check made at the depth bound).
    static func holdsEncodedText(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = b.count
        while i < n {
            guard runBytes.contains(b[i]) else { i += 1; continue }
            var e = i
            while e < n && runBytes.contains(b[e]) { e += 1 }
            defer { i = e }
            guard e - i >= minBase64 else { continue }
            let end = e - ((e - i) % 4 == 1 ? 1 : 0)
            if let d = base64(b, i, end), isText(printable: d.printable, of: d.bytes.count) { return true }
        }
        return false
    }

    /// `location` with the decoding named: `… (base64-decoded)`, `… (base64-decoded, then hex-decoded)`.
    static func located(_ location: String, _ encoding: String) -> String {
        if location.hasSuffix("-decoded)") { return String(location.dropLast()) + ", then " + encoding + "-decoded)" }
        return location + " (" + encoding + "-decoded)"
    }
}

extension ContentScanner {
    /// Called by `shapes` for each string it is given: the encoded runs in `b` decoded and checked.
    /// `covered`: where a specific detector matched in `b` already (a JWT, a base64-wrapped JWT): not
    /// decoded again. `since`: where this string's own hits start in `hits` (a generic hit on the
    /// same bytes gives way to what the decoding finds).
    @inline(__always) func encodedSpans(_ b: UnsafeBufferPointer<UInt8>, covered: [Range<Int>], since: Int, location: () -> String) {
        guard EncodedSpans.mayHold(b) else { return }
        guard encodedDepth < EncodedSpans.maxDepth else {
            if EncodedSpans.holdsEncodedText(b) {
                bound(
                    "text encoded more than \(EncodedSpans.maxDepth) times over (base64 in base64…); the innermost was not checked",
                    location: location())
            }
            return
        }
        decodeRuns(b, covered: covered, since: since, location: location)
    }

    private func decodeRuns(_ b: UnsafeBufferPointer<UInt8>, covered: [Range<Int>], since: Int, location: () -> String) {
        let set = EncodedSpans.runBytes
        let n = b.count
        // Matches do not overlap: in order of their start, their ends are in order too, and runs come in
        // order, so one cursor walks them.
        let covered = covered.sorted { $0.lowerBound < $1.lowerBound }
        var c = 0
        var i = 0
        while i < n {
            guard set.contains(b[i]) else { i += 1; continue }
            var e = i
            var upper = false, lower = false, nonHex = false, dash = false
            while e < n {
                let c = b[e]
                guard set.contains(c) else { break }
                switch c {
                case UInt8(ascii: "A")...UInt8(ascii: "F"): upper = true
                case UInt8(ascii: "a")...UInt8(ascii: "f"): lower = true
                case UInt8(ascii: "G")...UInt8(ascii: "Z"): upper = true; nonHex = true
                case UInt8(ascii: "g")...UInt8(ascii: "z"): lower = true; nonHex = true
                case UInt8(ascii: "0")...UInt8(ascii: "9"): break
                case UInt8(ascii: "-"), UInt8(ascii: "_"): dash = true
                default: nonHex = true
                }
                e += 1
            }
            let s = i
            i = e
            guard e - s >= EncodedSpans.minBase64 else { continue }
            while c < covered.count && covered[c].upperBound <= s { c += 1 }
            if c < covered.count && covered[c].lowerBound < e { continue }
            if !nonHex {
                // Hex digits (and `-`, `_`): a hex encoding when it is one even run, else an id, a
                // UUID or a hash, never base64 of text.
                if !dash && (e - s) % 2 == 0 && e - s >= EncodedSpans.minHex, let d = EncodedSpans.hex(b, s, e) {
                    decoded(d, span: s..<e, in: b, encoding: "hex", since: since, location: location)
                }
                continue
            }
            // Base64 of text mixes the cases (every symbol standing for a byte's high bits is `I`–`f`).
            guard upper && lower else { continue }
            if base64Run(b, s, e, since: since, location: location) { continue }
            // A run glued to a word (`key_`, `path/`): each part between `+`, `/`, `_` and `-`.
            var p = s
            while p < e {
                var q = p
                while q < e && ByteSet.alnum.contains(b[q]) { q += 1 }
                if q - p >= EncodedSpans.minBase64 && (p > s || q < e) { _ = base64Run(b, p, q, since: since, location: location) }
                p = q + 1
            }
        }
    }

    /// `b[s..<e]` decoded as base64 from its start, then (text glued before it) from its next three
    /// symbols; whether one of them decoded to text that was checked.
    private func base64Run(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, since: Int, location: () -> String) -> Bool {
        for shift in 0..<4 where e - s - shift >= EncodedSpans.minBase64 {
            let end = e - ((e - s - shift) % 4 == 1 ? 1 : 0)
            guard let d = EncodedSpans.base64(b, s + shift, end) else { continue }
            if EncodedSpans.isText(printable: d.printable, of: d.bytes.count) || shift == 0 {
                if decoded(d, span: s..<e, in: b, encoding: "base64", since: since, location: location) { return true }
                if EncodedSpans.isText(printable: d.printable, of: d.bytes.count) { return true }
            }
        }
        // Bytes that are not text from their start (compressed, binary framing, random bytes around a
        // token): decoded whole and read as a body is, when the run is long enough to hold a credential
        // beside something else.
        guard e - s >= EncodedSpans.minBinaryBase64 else { return false }
        let end = e - ((e - s) % 4 == 1 ? 1 : 0)
        guard let d = EncodedSpans.base64(b, s, end, whole: true), !EncodedSpans.isText(printable: d.printable, of: d.bytes.count)
        else { return false }
        return binary(d.bytes, span: s..<e, in: b, since: since, location: location)
    }

    /// Bytes decoded from `b[span]` that are not text: dispatched as a body's bytes are (gzip, zlib
    /// and raw deflate inflated, UTF-16 read, the printable runs of anything else checked). Hits found
    /// there carry the encoded run as their value.
    private func binary(_ bytes: [UInt8], span: Range<Int>, in b: UnsafeBufferPointer<UInt8>, since: Int, location: () -> String) -> Bool {
        guard !bytes.withUnsafeBufferPointer({ Shape.isImage($0) }) else { return false }
        let saved = rawRange
        rawRange = nil
        encodedDepth += 1
        defer {
            rawRange = saved
            encodedDepth -= 1
        }
        let mark = hits.count
        let where_ = EncodedSpans.located(location(), "base64")
        bytes.withUnsafeBufferPointer { content($0, contentType: nil, location: where_, depth: encodedDepth) }
        guard hits.count > mark else { return false }
        let found = takeRunHits(from: mark, value: String(decoding: UnsafeBufferPointer(rebasing: b[span]), as: UTF8.self))
        hits.append(contentsOf: found)
        return found.contains { !$0.bound }
    }

    /// The hits found from `mark` on inside a decoded run, taken out of `hits`: each rule once (two
    /// matches of one rule in one run are one value), its value the encoded run as it stands, `edit`
    /// applied; bounds kept as they are.
    private func takeRunHits(from mark: Int, value: String, edit: (inout RawHit) -> Void = { _ in }) -> [RawHit] {
        var rules = Set<RuleID>()
        var found: [RawHit] = []
        for var h in hits[mark...] {
            if h.bound { found.append(h); continue }
            guard rules.insert(h.rule).inserted else { continue }
            h.value = value
            edit(&h)
            found.append(h)
        }
        hits.removeSubrange(mark...)
        return found
    }

    /// The detectors over bytes decoded from `b[span]`: over the whole when they are text, else over
    /// their printable runs when a detector's stem stands in them. Hits found there carry the encoded
    /// run as their value and name the encoding in their location. Whether anything was found.
    @discardableResult
    private func decoded(
        _ d: (bytes: [UInt8], printable: Int), span: Range<Int>, in b: UnsafeBufferPointer<UInt8>, encoding: String,
        since: Int, location: () -> String
    ) -> Bool {
        let text = EncodedSpans.isText(printable: d.printable, of: d.bytes.count)
        let bytes = d.bytes
        let saved = rawRange
        rawRange = nil
        encodedDepth += 1
        defer {
            rawRange = saved
            encodedDepth -= 1
        }
        let mark = hits.count
        bytes.withUnsafeBufferPointer { db in
            if text {
                if hasStem(db) {
                    shapes(db, hints: []) { EncodedSpans.located(location(), encoding) }
                } else {
                    encodedSpans(db, covered: [], since: hits.count) { EncodedSpans.located(location(), encoding) }
                }
                // Base64 of `user:password` whole, with no name beside it: a Basic credential all the same.
                // (Not when the run is found as it stands already: `Authorization: Basic …`, `_auth=…`.)
                if hits.count == mark, encoding == "base64", UserPassword.holds(db, named: false),
                    let d = engine.detectors.first(where: { $0.id == "encoded-user-password" })
                {
                    let run = String(decoding: UnsafeBufferPointer(rebasing: b[span]), as: UTF8.self)
                    if !hits[since..<mark].contains(where: { !$0.bound && $0.value.contains(run) }) {
                        hits.append(
                            RawHit(
                                rule: d.rule, severity: d.severity, location: EncodedSpans.located(location(), encoding), value: "",
                                message: "the value looks like a user name and password"))
                    }
                }
                if let base = db.baseAddress, memchr(base, 0x25, db.count) != nil {
                    let pd = Percent.decodeText(db)
                    if pd.count < db.count {
                        pd.withUnsafeBufferPointer { p in
                            shapes(p, hints: []) { EncodedSpans.located(EncodedSpans.located(location(), encoding), "percent") }
                        }
                    }
                }
            } else if hasStem(db) {
                for r in Shape.printableRuns(db) {
                    shapes(UnsafeBufferPointer(rebasing: db[r]), hints: []) { EncodedSpans.located(location(), encoding) }
                }
            }
        }
        guard hits.count > mark else { return false }
        let value = String(decoding: UnsafeBufferPointer(rebasing: b[span]), as: UTF8.self)
        let found = takeRunHits(from: mark, value: value) { h in
            let plain = "the value looks like "
            if h.message.hasPrefix(plain) {
                h.message = "the value holds " + String(h.message.dropFirst(plain.count)) + ", " + encoding + "-encoded"
            } else if !h.message.contains("-encoded") {
                h.message += " (" + encoding + "-encoded)"
            }
        }
        // A generic match on the same run (a random value under a credential-like name) gives way.
        let top = found.filter { !$0.bound }.map(\.severity).max()
        if let top, since < mark {
            let kept = hits[since..<mark].filter { $0.bound || $0.severity > top || !$0.value.contains(value) }
            hits.replaceSubrange(since..<mark, with: kept)
        }
        hits.append(contentsOf: found)
        return found.contains { !$0.bound }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
