import SiftArchive

/// Reading a HAR 1.2 file as sessions of network records (see `HARMapping`).
///
/// The document is streamed (`HARStream`): each entry is parsed on its own, bounded by
/// `ReadLimits.maxLineBytes`, so a HAR of hundreds of MB costs the memory of its largest entry. An
/// entry that is damaged, or over the bound, is a finding naming it, and the entries after it are
/// read; a document cut short is a finding naming where, and every entry before is read. Entries
/// with one `_sessionId` (written by `pbsift har`) form one session each; any other HAR is one session.
extension InputPass {
    /// `.har`, `.har.gz`: a name that says HAR (the bytes still decide).
    static func isHARName(_ name: String) -> Bool {
        let n = name.lowercased()
        return n.hasSuffix(".har") || n.hasSuffix(".har.gz")
    }

    /// Looks at the first bytes of `entry` (inflated when gzip'd); when they start a HAR document,
    /// reads it and returns true. Otherwise returns the source to read as JSON Lines.
    func sniffHAR(entry: ArchiveEntry, source: ByteSource) -> (isHAR: Bool, source: ByteSource) {
        let peek = PrefixedSource.peek(source, count: 64)
        guard HARStream.looksLikeHAR(peek.peeked) else { return (false, peek) }
        return (true, peek)
    }

    /// Why HAR input gave no record: an empty capture, or entries none of which could be read.
    func emptyHARReason() -> String {
        facts.harEntries == 0
            ? "a HAR capture with no entries"
            : "a HAR capture none of whose \(facts.harEntries) entr\(facts.harEntries == 1 ? "y" : "ies") could be read"
    }

    func readHAR(entry: ArchiveEntry, source: ByteSource, onError: (Error) -> Void) {
        facts.sawHAR = true
        var stream = HARStream(source: source, maxValue: limits.maxLineBytes)
        var creator: JSONValue?
        var browser: JSONValue?
        var session: SessionContext?
        var sessionKey: String?
        var group: [JSONValue] = []
        /// Each grouped entry's index and line.
        var groupPlaces: [(index: Int, line: Int)] = []
        var groupBytes = 0
        var groupStart = (index: 0, line: 0)
        var groupId: String?
        var seq = 0
        var entries = 0
        var sawTrailing = false

        func start(_ header: JSONValue?, sessionId: String?, line: Int) -> SessionContext {
            let s = SessionContext(input: input, file: entry.name, root: "", blobsAvailable: false)
            s.sessionId = sessionId
            s.fromHAR = true
            for a in analyses { a.beginSession(s) }
            var h = HARMapping.header(creator: creator, browser: browser, sessionId: sessionId)
            if let header, header.isObject, case .object(var o) = header.out {
                o["type"] = .string("session")
                o["seq"] = .int(0)
                if let sessionId { o["sessionId"] = .string(sessionId) }
                h = .object(o)
            }
            if let doc = try? JSONDocument(string: h.render(pretty: false), maxDepth: limits.maxJSONDepth) {
                s.header = doc.root
                s.launchedAt = doc.root["launchedAt"]?.string.flatMap(Timestamp.parse)
                if let t = doc.root["ts"]?.string.flatMap(Timestamp.parse) {
                    s.firstTs = t
                    s.lastTs = t
                }
                let record = Record(line: line, json: doc.root)
                for a in analyses { a.record(record, session: s) }
            }
            return s
        }
        func end() {
            flush()
            guard let s = session else { return }
            for a in analyses { a.endSession(s) }
            list(s)
            session = nil
        }
        func flush() {
            guard !group.isEmpty, let s = session else { return }
            seq += 1
            let bytes = HARMapping.recordBytes(
                group, seq: seq, fallbackId: "entries[\(groupStart.index)]",
                requestIdHeader: requestIdHeader)
            let members = group, places = groupPlaces
            group = []
            groupPlaces = []
            guard let doc = try? JSONDocument(bytes: bytes, maxDepth: limits.maxJSONDepth) else {
                // No record could be made of them: verify still reads every entry whole.
                for (e, place) in zip(members, places) {
                    otherText(HARMapping.text([.init(path: [], bytes: e.rawBytes)], root: "entries[\(place.index)]"), line: place.line)
                }
                return
            }
            var record = Record(line: groupStart.line, json: doc.root)
            // Entries written on one line share it: the entry's index tells them apart.
            record.ordinal = groupStart.index
            // An entry that holds a name twice in one object: the mapping reads one copy, so the
            // record names each such name and carries the entry mapped once per later copy, and
            // verify checks every copy (`verify.duplicate-key`).
            for (e, place) in zip(members, places) where e.doc.hasDuplicateKeys {
                let named = record.duplicateNames.count
                HARMapping.duplicateNames(e, path: "log.entries[\(place.index)]", into: &record.duplicateNames)
                // Each later copy is the whole entry mapped again: as many as fit the budget of a line's later copies.
                let duplicates = e.doc.duplicateKeys()
                let checked = JSONDocument.laterCopiesChecked(duplicates, bytes: e.doc.bytes.count)
                // Copies whose values are written alike are checked with one another: when every
                // copy with a value of its own fits, every copy is checked.
                let every = checked >= JSONDocument.laterCopyCount(duplicates)
                for i in named..<record.duplicateNames.count {
                    let n = record.duplicateNames[i].count
                    record.duplicateNames[i].checked = every ? n : min(n, checked + 1)
                }
                let unmapped = HARMapping.unmapped(e)
                for variant in HARMapping.duplicateVariants(e.doc, duplicates, maxDepth: limits.maxJSONDepth, limit: checked) {
                    let copy = HARMapping.recordBytes(
                        [variant.root], seq: seq, fallbackId: "entries[\(place.index)]",
                        requestIdHeader: requestIdHeader)
                    if let copyDoc = try? JSONDocument(bytes: copy, maxDepth: limits.maxJSONDepth) { record.copies.append(copyDoc.root) }
                    for (name, bytes) in HARMapping.unmapped(variant.root)
                    where !unmapped.contains(where: { $0.0 == name && $0.1 == bytes }) {
                        other("entry", name, bytes, line: place.line)
                    }
                }
            }
            // Whatever an entry holds that its record does not (a member of another name or shape,
            // a redirect's middle hop) is read as text under its path.
            var carried = Set<Int>()
            HARMapping.strings(of: doc.root, into: &carried)
            for copy in record.copies { HARMapping.strings(of: copy, into: &carried) }
            for (e, place) in zip(members, places) {
                let parts = HARMapping.uncarried(e, carried: carried)
                if !parts.isEmpty { otherText(HARMapping.text(parts, root: "entries[\(place.index)]"), line: place.line) }
            }
            facts.harRecords += 1
            s.recordCount += 1
            s.counts["network", default: 0] += 1
            s.bytes += Int64(groupBytes)
            groupBytes = 0
            if let t = record.ts {
                s.firstTs = min(s.firstTs ?? t, t)
                s.lastTs = max(s.lastTs ?? t, t)
            }
            for a in analyses { a.record(record, session: s) }
        }
        func current(line: Int) -> SessionContext {
            if let s = session { return s }
            let s = start(nil, sessionId: nil, line: line)
            session = s
            return s
        }
        /// A member outside the entries, as the text `{"log": {"name": value}}` (or `{"name": value}`).
        func other(_ parent: String?, _ name: String, _ bytes: [UInt8], line: Int) {
            var key = ""
            JSONOut.quote(name, into: &key)
            let open = Array(((parent.map { "{\"\($0)\":" } ?? "") + "{" + key + ":").utf8)
            otherText(open + bytes + Array((parent == nil ? "}" : "}}").utf8), line: line)
        }
        func otherText(_ text: [UInt8], line: Int) {
            let file = SessionContext(input: input, file: entry.name, root: "", blobsAvailable: false)
            for a in analyses { a.otherText(text, line: line, file: file) }
        }
        func lose(_ rule: ReaderRule, _ severity: Severity, line: Int, offset: Int64, _ message: String, partial isPartial: Bool) {
            let s = current(line: line)
            s.damagedLines += 1
            findings.append(s.finding(rule, severity, line: line, message: message + " (at byte \(offset))"))
            if isPartial {
                partial = true
                errors.append("\(entry.name): \(message) (line \(line), byte \(offset))")
            }
        }

        while !shouldStop(), let event = stream.next() {
            switch event {
            case .logMember(let name, let bytes):
                if name == "creator" || name == "browser", let doc = try? JSONDocument(bytes: bytes, maxDepth: limits.maxJSONDepth) {
                    if name == "creator" { creator = doc.root } else { browser = doc.root }
                }
                // Every member outside the entries (`pages`, `comment`, `_` fields…) is handed over as
                // text, so verify reads what a HAR holds there too.
                if name != "version" { other("log", name, bytes, line: stream.memberLine) }
            case .rootMember(let name, let bytes, let line):
                other(nil, name, bytes, line: line)
            case .entry(let index, let bytes, let line, let offset):
                entries += 1
                facts.harEntries += 1
                let doc: JSONDocument
                do {
                    doc = try JSONDocument(bytes: bytes, maxDepth: limits.maxJSONDepth, maxValues: limits.maxJSONValues)
                } catch {
                    lose(
                        ReaderRule.malformedLine, .medium, line: line, offset: offset,
                        "log.entries[\(index)] is not valid JSON: \(error.description); the entries after it are read",
                        partial: error.reason == .tooDeep || error.reason == .tooMany)
                    continue
                }
                let e = doc.root
                guard e.isObject else {
                    // No record can be made of it; verify still reads all of it.
                    lose(
                        ReaderRule.malformedLine, .medium, line: line, offset: offset,
                        "log.entries[\(index)] is not an object; it is read as text", partial: false)
                    otherText(HARMapping.text([.init(path: [], bytes: doc.root.rawBytes)], root: "entries[\(index)]"), line: line)
                    continue
                }
                // `params` beside a `postData.text` are read under their names (the body is the text).
                for (name, bytes) in HARMapping.unmapped(e) { other("entry", name, bytes, line: line) }
                let key = e["_sessionId"]?.string
                if session == nil || key != sessionKey {
                    end()
                    sessionKey = key
                    session = start(e["_session"], sessionId: key, line: line)
                }
                // Consecutive entries sharing a `_recordId` are one record's transactions (redirects,
                // retries); what the record keeps of one hop only (a middle hop's headers) is read
                // as text by the check on what each entry's record carries.
                let rid = e["_recordId"]?.string
                if rid == nil || rid != groupId || group.count >= 64 {
                    flush()
                    groupStart = (index, line)
                }
                groupId = rid
                group.append(e)
                groupPlaces.append((index, line))
                groupBytes += bytes.count
            case .tooLarge(let what, let bytes, let line, let offset):
                lose(
                    ReaderRule.malformedLine, .medium, line: line, offset: offset,
                    "\(what) is \(bytes) bytes, over the \(limits.maxLineBytes)-byte bound for one entry; not read",
                    partial: true)
            case .damaged(let message, let line, let offset):
                flush()
                lose(
                    ReaderRule.malformedLine, .high, line: line, offset: offset,
                    "the HAR is damaged: \(message); nothing after it is read", partial: true)
            case .another(let line, let offset):
                flush()
                let s = current(line: line)
                findings.append(
                    s.finding(
                        ReaderRule.malformedLine, .medium, line: line,
                        message: "another JSON document starts after the HAR's end (at byte \(offset)); it is read too"))
            case .trailing(let bytes, let line, let offset):
                if !sawTrailing {
                    sawTrailing = true
                    let s = current(line: line)
                    findings.append(
                        s.finding(
                            ReaderRule.malformedLine, .medium, line: line,
                            message: "bytes follow the HAR's end (from byte \(offset)); they are read as text"))
                }
                otherText(bytes, line: line)
            case .truncated(let message, let line, let offset):
                flush()
                // A source that threw (a cut gzip stream) is reported by whoever saw it first.
                if stream.sourceError == nil {
                    lose(
                        ReaderRule.tornLine, .medium, line: line, offset: offset,
                        "\(message): the HAR is cut short after \(entries) entr\(entries == 1 ? "y" : "ies")", partial: true)
                }
            }
        }
        if let error = stream.sourceError { flush(); onError(error) }
        if !stream.foundEntries && !partial {
            let s = current(line: 1)
            findings.append(
                s.finding(
                    ReaderRule.malformedLine, .medium, line: 1,
                    message: "the HAR has no log.entries array: no request was read"))
        }
        _ = current(line: 1)
        end()
        blobs.roots["", default: RootInfo()].bytes += stream.bytesRead
    }
}
