import Foundation
import SiftCore

/// The command-line entry point. STUB until the CLI frame lands.
public enum PBSift {
    /// Every subcommand, in help order.
    public static let commands: [any SiftCommand.Type] = []

    public static func main(_ argv: [String]) -> Int32 { 0 }
}
