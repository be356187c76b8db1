import Foundation

/// Walks a folder without following links: `lstat` for every name, files opened with `O_NOFOLLOW`,
/// visited in sorted order of their relative names (by UTF-8 bytes).
struct FolderWalker {
    let root: String
    let state: WalkState

    func run() {
        let rootBytes = PathBytes.bytes(root)
        var files: [(rel: [UInt8], size: Int64)] = []
        var pending: [[UInt8]] = [[]]
        var first = true
        collect: while let rel = pending.popLast() {
            let dirPath = join(rootBytes, rel)
            guard let dir = dirPath.withUnsafeBufferPointer({ opendir(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }) else {
                let why = errnoText()
                if first {
                    state.unreadable("cannot open the folder: \(why)")
                    return
                }
                let shown = PathBytes.string(rel)
                state.issue(.unreadable, entry: shown, message: "cannot open folder '\(shown)': \(why)")
                continue
            }
            first = false
            defer { closedir(dir) }
            var names: [[UInt8]] = []
            while let ent = readdir(dir) {
                let namePtr = UnsafeRawPointer(ent).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19)
                let length = strlen(namePtr.assumingMemoryBound(to: CChar.self))
                let name = Array(UnsafeRawBufferPointer(start: namePtr, count: length))
                if name == [0x2E] || name == [0x2E, 0x2E] { continue }
                names.append(name)
            }
            for name in names {
                let childRel = rel.isEmpty ? name : rel + [0x2F] + name
                let shown = PathBytes.string(childRel)
                guard state.countEntry(shown) else { break collect }
                var st = stat()
                let rc = join(rootBytes, childRel).withUnsafeBufferPointer {
                    lstat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st)
                }
                guard rc == 0 else {
                    state.issue(.unreadable, entry: shown, message: "cannot inspect '\(shown)': \(errnoText())")
                    continue
                }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: pending.append(childRel)
                case S_IFREG: files.append((childRel, Int64(st.st_size)))
                case S_IFLNK:
                    state.issue(.linkSkipped, entry: shown, message: "'\(shown)' is a symbolic link; skipped, never followed")
                default:
                    let kind: String
                    switch st.st_mode & S_IFMT {
                    case S_IFIFO: kind = "fifo"
                    case S_IFCHR: kind = "character device"
                    case S_IFBLK: kind = "block device"
                    case S_IFSOCK: kind = "socket"
                    default: kind = "special file"
                    }
                    state.issue(.linkSkipped, entry: shown, message: "'\(shown)' is a \(kind); skipped")
                }
            }
        }
        // Visit what was collected even when the entry bound cut the listing short.
        let stoppedByCount = state.stopped
        state.stopped = false
        defer { state.stopped = state.stopped || stoppedByCount }
        files.sort { $0.rel.lexicographicallyPrecedes($1.rel) }
        for file in files where !state.stopped {
            let shown = PathBytes.string(file.rel)
            let source: FileSource
            do {
                source = try FileSource(pathBytes: join(rootBytes, file.rel))
            } catch {
                state.issue(.unreadable, entry: shown, message: "cannot open '\(shown)': \(describe(error))")
                continue
            }
            state.deliver(raw: shown, declaredSize: file.size, source: source, clean: false)
        }
    }

    /// `root/rel` as a NUL-terminated byte path.
    private func join(_ root: [UInt8], _ rel: [UInt8]) -> [UInt8] {
        var p = root
        if !rel.isEmpty {
            if p.last != 0x2F { p.append(0x2F) }
            p += rel
        }
        p.append(0)
        return p
    }
}
