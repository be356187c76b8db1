import Foundation

/// Another program the tests check pbsift's output with (`unzip -t`, Python's zipfile).
public enum ExternalTool {
    /// Runs `args[0]` from /usr/bin, /bin or /usr/local/bin with the rest as its arguments, output
    /// discarded; its exit status, or nil when it is not installed.
    public static func status(_ args: [String]) -> Int32? {
        guard
            let dir = ["/usr/bin", "/bin", "/usr/local/bin"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0 + "/" + args[0])
            })
        else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: dir + "/" + args[0])
        p.arguments = Array(args.dropFirst())
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        p.waitUntilExit()
        return p.terminationStatus
    }
}
