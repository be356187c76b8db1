import Foundation
import SiftCore

/// `pbsift completions <shell>`: a shell completion script on standard output.
public enum CompletionsCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "completions",
        abstract: "Print a shell completion script for bash, zsh or fish.",
        arguments: [ArgumentSpec("shell", help: "The shell to complete for.", allowed: Completions.shells)],
        options: [],
        examples: [
            ("pbsift completions bash > ~/.local/share/bash-completion/completions/pbsift", "Install bash completions."),
            ("pbsift completions fish > ~/.config/fish/completions/pbsift.fish", "Install fish completions.")
        ],
        formats: [],
        commonOptions: false)

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        io.out(SafeText(program: Completions.script(for: options.argument("shell").first ?? "bash")))
        return .ok
    }
}
