import Foundation

/// Every temporary folder a test run makes lives under one folder per test process, removed when
/// the process exits, so runs leave nothing behind in the system's temporary directory.
public enum Scratch {
    /// `TMPDIR/pbsift-tests-PID-UUID`, made on first use.
    public static let root: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("pbsift-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: Scratch.root) }
        return url
    }()

    /// A new, empty folder under `root`; `name` only makes it easier to find while a test runs.
    public static func directory(_ name: String = "t") -> URL {
        let clean = String(name.filter { $0.isLetter || $0.isNumber }.prefix(40))
        let url = root.appendingPathComponent("\(clean)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
