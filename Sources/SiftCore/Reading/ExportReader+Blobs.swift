import Foundation
import SiftArchive

extension InputPass {
    // MARK: blobs

    func readBlob(entry: ArchiveEntry, root: String, hex: String) {
        // Made only when this thread hashes: the hasher's engine is loaded by whichever thread makes
        // the first, and a store's first blob would otherwise hold the walk up while it loads.
        var hasher: SHA256? = hashesBlobsAside ? nil : SHA256()
        var kept: [UInt8] = []
        var total: Int64 = 0
        var complete = true
        var buf = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let n: Int
            do {
                n = try buf.withUnsafeMutableBytes { try entry.source.read(into: $0) }
            } catch {
                complete = false
                break
            }
            if n == 0 { break }
            if hasher != nil { buf.withUnsafeBytes { hasher!.update(raw: UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
            total += Int64(n)
            if kept.count + n <= limits.maxBlobBytes {
                kept += buf[0..<n]
            } else {
                complete = false
            }
        }
        let name = hex.lowercased()
        blobs.roots[root, default: RootInfo()].bytes += total
        if blobs.seen[root]?[name] == nil {
            blobs.seen[root, default: [:]][name] = BlobSeen(file: entry.name, size: total)
        }
        let wellFormed = name.utf8.count == 64 && name.utf8.allSatisfy { hexValue($0) >= 0 }
        let check = BlobCheck(file: entry.name, name: name, wellFormed: wellFormed, complete: complete)
        var sha = ""
        if hashesBlobsAside {
            // Only a complete blob's hash is compared with its name: `kept` then holds every byte.
            if wellFormed && complete { hashAside(kept, into: check) }
            blobs.checks.append(check)
        } else if var hasher {
            sha = hasher.finalizeHex()
            check.sha = sha
            checkName(check)
        }
        if total > Int64(FormatLimits.storedBody) {
            finding(
                ReaderRule.storedBodyTooLarge, .medium, file: entry.name,
                message: "blob holds \(total) bytes, over the SDK's \(FormatLimits.storedBody)-byte stored-body limit")
        }
        let blob = BlobContent(
            input: input.path, root: root, file: entry.name, name: name, bytes: kept,
            size: total, complete: complete, sha256: sha)
        for a in analyses { a.blob(blob) }
    }

    /// Hashes `bytes` on a worker, the hash left in `check`; at most `blobHashBudget` bytes wait.
    func hashAside(_ bytes: [UInt8], into check: BlobCheck) {
        let budget = blobHashBudget, group = blobHashing
        budget.acquire(bytes.count)
        group.enter()
        DispatchQueue.global().async {
            var hasher = SHA256()
            hasher.update(raw: bytes)
            check.sha = hasher.finalizeHex()
            budget.release(bytes.count)
            group.leave()
        }
    }

    /// The findings of a blob's name against its hash, in read order (`hashesBlobsAside`): when the
    /// walk ends, once every hash is made.
    func checkBlobNames() {
        guard !blobs.checks.isEmpty else { return }
        blobHashing.wait()
        for check in blobs.checks { checkName(check) }
        blobs.checks = []
    }

    /// Whether the blob's name is its hash: a finding when it is not, or is no hash at all.
    func checkName(_ check: BlobCheck) {
        if check.wellFormed && check.complete, let sha = check.sha, sha != check.name {
            finding(
                ReaderRule.blobHashMismatch, .high, file: check.file,
                message: "blob bytes hash to sha256:\(sha.prefix(16))…, not to the name it is stored under")
        } else if !check.wellFormed {
            finding(
                ReaderRule.blobHashMismatch, .medium, file: check.file,
                message: "blob name is not 64 hex digits, so its bytes cannot be checked")
        }
    }

    /// The blob cross-checks. A blob is "missing" only when every entry of the input was seen
    /// (`walkComplete`), and "orphan" only when every line of every session file was read too
    /// (`allLinesRead`): a reference in an unread line, or a blob in an unread entry, would prove the
    /// claim wrong. What could not be checked is said (the input is partial already: exit 2).
    func resolveBlobs(walkComplete: Bool = true, allLinesRead: Bool = true) {
        var referenced: [String: Set<String>] = [:]
        var missingUnchecked = 0
        for r in blobs.refs {
            referenced[r.root, default: []].insert(r.hex)
            guard r.session.blobsAvailable else { continue }
            if let b = blobs.seen[r.root]?[r.hex] {
                if let stored = r.storedSize, Int64(stored) != b.size {
                    findings.append(
                        r.session.finding(
                            ReaderRule.bodySizeMismatch, .medium, line: r.line, seq: r.seq,
                            recordId: r.recordId, location: r.location,
                            message: "storedSize says \(stored) bytes but blob sha256:\(r.hex.prefix(12))… holds \(b.size)"))
                }
            } else if !walkComplete {
                missingUnchecked += 1
            } else {
                findings.append(
                    r.session.finding(
                        ReaderRule.blobMissing, .medium, line: r.line, seq: r.seq,
                        recordId: r.recordId, location: r.location,
                        message: "body refers to blob sha256:\(r.hex.prefix(12))…, which is not in the export"))
            }
        }
        var orphansUnchecked = 0
        for (root, byHex) in blobs.seen {
            for (hex, b) in byHex.sorted(by: { $0.key < $1.key }) where !(referenced[root]?.contains(hex) ?? false) {
                guard allLinesRead else {
                    orphansUnchecked += 1
                    continue
                }
                finding(
                    ReaderRule.blobOrphan, .low, file: b.file,
                    message: "blob is referenced by no record of the exported sessions")
            }
        }
        if missingUnchecked > 0 {
            let n = missingUnchecked
            errors.append(
                "not checked: whether \(n) referenced blob\(n == 1 ? " is" : "s are") in the export (the input was not read in full)")
        }
        if orphansUnchecked > 0 {
            let n = orphansUnchecked
            errors.append(
                "not checked: whether \(n) blob\(n == 1 ? " is" : "s are") referenced by a record (not every session line was read)")
        }
        for (root, info) in blobs.roots.sorted(by: { $0.key < $1.key }) where info.bytes > info.budget {
            finding(
                ReaderRule.storeOverBudget, .medium, file: root.isEmpty ? nil : root,
                message: "sessions and blobs take \(info.bytes) bytes, over the store budget of \(info.budget)")
        }
    }
}
