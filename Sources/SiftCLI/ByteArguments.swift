import SiftArchive

extension PBSift {
    /// The process's arguments read as bytes: a path that is not UTF-8 is kept without loss (see `PathBytes`).
    public static func byteArguments() -> [String] { PathBytes.arguments() }
}
