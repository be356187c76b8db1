import Foundation

/// One regular file found under a folder.
public struct FolderFile: Sendable, Equatable {
    /// The path to open: the root joined with `relative` (lossless, see `PathBytes`).
    public var path: String
    /// The name inside the root, `/`-separated.
    public var relative: String
    /// The size `lstat` reported.
    public var size: Int64
}

/// Something under a folder that is not read: never followed or never opened.
public struct FolderSkip: Sendable, Equatable {
    public enum Why: Sendable, Equatable {
        /// A symbolic link: never followed.
        case link
        /// A FIFO, device or socket (`a fifo`, `a character device`…): never opened.
        case special(String)
        /// `lstat` failed on the name.
        case uninspectable(String)
        /// A folder inside that could not be listed.
        case unlistable(String)
        /// `maxEntries` was passed here: this and the rest were not listed.
        case tooMany(Int)
    }

    /// The name inside the root.
    public var relative: String
    public var why: Why

    /// What the problem is, for `PATH: reason` (the path names the entry).
    public var reason: String {
        switch why {
        case .link: "a symbolic link; skipped, never followed"
        case .special(let kind): "\(kind); skipped, never opened"
        case .uninspectable(let e): "cannot inspect: \(e)"
        case .unlistable(let e): "cannot open the folder: \(e)"
        case .tooMany(let n): "more than \(n) entries under the folder; this one and the rest were not read"
        }
    }

    /// The archive problem an export's walk records for it.
    public var problem: ArchiveProblem {
        switch why {
        case .link, .special: .linkSkipped
        case .uninspectable, .unlistable: .unreadable
        case .tooMany: .decompressionLimit
        }
    }
}

/// A folder's regular files and what was skipped, as `FolderListing.list` found them.
public struct FolderListing: Sendable {
    /// Sorted by their relative names (by UTF-8 bytes).
    public var files: [FolderFile] = []
    /// In the order met.
    public var skipped: [FolderSkip] = []
    /// Why the root itself could not be opened, when it could not.
    public var rootError: String?

    /// Lists every regular file under `root` without following links: `lstat` on every name; a link,
    /// a FIFO, a device or a socket inside is skipped and listed in `skipped`, never opened. At most
    /// `maxEntries` names (files, folders, links) are looked at. The one folder walk of pbsift: the
    /// exports' (`InputWalker`) and the server logs' (`--logs`).
    public static func list(root: String, maxEntries: Int) -> FolderListing {
        var out = FolderListing()
        let rootBytes = PathBytes.bytes(root)
        var files: [(rel: [UInt8], size: Int64)] = []
        var pending: [[UInt8]] = [[]]
        var first = true
        var entries = 0
        collect: while let rel = pending.popLast() {
            let dirPath = join(rootBytes, rel)
            guard
                let dir = dirPath.withUnsafeBufferPointer({ opendir(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
                )
            else {
                if first {
                    out.rootError = errnoText()
                    return out
                }
                out.skipped.append(FolderSkip(relative: PathBytes.string(rel), why: .unlistable(errnoText())))
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
                entries += 1
                if entries > maxEntries {
                    out.skipped.append(FolderSkip(relative: shown, why: .tooMany(maxEntries)))
                    break collect
                }
                var st = stat()
                let rc = join(rootBytes, childRel).withUnsafeBufferPointer {
                    lstat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st)
                }
                guard rc == 0 else {
                    out.skipped.append(FolderSkip(relative: shown, why: .uninspectable(errnoText())))
                    continue
                }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: pending.append(childRel)
                case S_IFREG: files.append((childRel, Int64(st.st_size)))
                case S_IFLNK: out.skipped.append(FolderSkip(relative: shown, why: .link))
                default: out.skipped.append(FolderSkip(relative: shown, why: .special(specialKind(st.st_mode))))
                }
            }
        }
        files.sort { $0.rel.lexicographicallyPrecedes($1.rel) }
        out.files = files.map { f in
            FolderFile(path: PathBytes.string(join(rootBytes, f.rel).dropLast()), relative: PathBytes.string(f.rel), size: f.size)
        }
        return out
    }

    /// `a fifo`, `a character device`, `a block device`, `a socket`.
    static func specialKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a fifo"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    /// `root/rel` as a NUL-terminated byte path.
    static func join(_ root: [UInt8], _ rel: [UInt8]) -> [UInt8] {
        var p = root
        if !rel.isEmpty {
            if p.last != 0x2F { p.append(0x2F) }
            p += rel
        }
        p.append(0)
        return p
    }
}

/// Walks a folder input of an export: the files of `FolderListing.list`, each handed to the visitor.
struct FolderWalker {
    let root: String
    let state: WalkState

    func run() {
        let listing = FolderListing.list(root: root, maxEntries: state.limits.maxEntries)
        if let why = listing.rootError {
            state.unreadable("cannot open the folder: \(why)")
            return
        }
        for skip in listing.skipped {
            state.issue(skip.problem, entry: skip.relative, message: Self.message(skip))
        }
        // Visit what was listed even when the entry bound cut the listing short.
        let stoppedByCount = state.stopped
        state.stopped = false
        defer { state.stopped = state.stopped || stoppedByCount }
        for file in listing.files where !state.stopped {
            let source: FileSource
            do {
                source = try FileSource(pathBytes: PathBytes.cString(file.path))
            } catch {
                state.issue(.unreadable, entry: file.relative, message: "cannot open '\(file.relative)': \(describe(error))")
                continue
            }
            state.deliver(raw: file.relative, declaredSize: file.size, source: source, clean: false)
        }
    }

    /// The walk's message for a skipped name (the export's findings quote it).
    static func message(_ skip: FolderSkip) -> String {
        let shown = skip.relative
        switch skip.why {
        case .link: return "'\(shown)' is a symbolic link; skipped, never followed"
        case .special(let kind): return "'\(shown)' is \(kind); skipped"
        case .uninspectable(let e): return "cannot inspect '\(shown)': \(e)"
        case .unlistable(let e): return "cannot open folder '\(shown)': \(e)"
        case .tooMany(let n): return "more than \(n) entries; '\(shown)' and the rest were not read"
        }
    }
}
