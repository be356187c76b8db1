// swift-tools-version:6.0
// pbsift: a forensic analyzer for Palbe debug-console session exports.
import PackageDescription

let package = Package(
    name: "pbsift",
    products: [
        .executable(name: "pbsift", targets: ["pbsift"])
    ],
    targets: [
        // zlib's C API (zlib1g-dev on Debian/Ubuntu, Homebrew `zlib` on macOS).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // Inputs to named byte sources: folders, zip, tar, gzip, stdin. Bounded; never extracts.
        .target(name: "SiftArchive", dependencies: ["CZlib"]),
        // The session model, JSON, the reader, integrity checks, findings and output helpers.
        .target(name: "SiftCore", dependencies: ["SiftArchive"]),
        // `verify`: the redaction contract and credential detectors.
        // Release builds leave out the run-time exclusivity checks here (the compiler's static ones stay):
        // the scanner's state is touched per value, and the checks cost about as much as the work.
        .target(
            name: "SiftVerify", dependencies: ["SiftCore", "SiftArchive"],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        // `waterfall`: timing phases per transaction, summaries, renderers.
        .target(name: "SiftWaterfall", dependencies: ["SiftCore"]),
        // `correlate`: server log scanning and the request-id join.
        .target(name: "SiftCorrelate", dependencies: ["SiftCore", "SiftArchive"]),
        // `report`: the analyses composed into one support report, led by a verdict; its renderers.
        .target(name: "SiftReport", dependencies: ["SiftCore", "SiftVerify", "SiftWaterfall", "SiftCorrelate"]),
        // The option table, the parser, the commands, exit codes, colour and progress.
        .target(name: "SiftCLI", dependencies: ["SiftCore", "SiftVerify", "SiftWaterfall", "SiftCorrelate", "SiftReport"]),
        .executableTarget(name: "pbsift", dependencies: ["SiftCLI", "CZlib"]),
        // The fuzz targets' entry points (`fuzz/Entries`), built plainly so `swift test` replays
        // `fuzz/regressions`; the libFuzzer build is `fuzz/run`, never part of `swift build`.
        .target(
            name: "SiftFuzz", dependencies: ["SiftArchive", "SiftCore", "SiftVerify", "SiftWaterfall", "SiftCorrelate"],
            path: "fuzz/Entries"),

        // Test-only: one scratch folder per test process, removed at exit.
        .target(name: "SiftTestSupport", path: "Tests/SiftTestSupport"),
        .testTarget(name: "SiftArchiveTests", dependencies: ["SiftTestSupport", "SiftArchive", "CZlib"]),
        .testTarget(name: "SiftCoreTests", dependencies: ["SiftTestSupport", "SiftCore"], exclude: ["Fixtures"]),
        .testTarget(name: "SiftVerifyTests", dependencies: ["SiftTestSupport", "SiftVerify", "SiftArchive"]),
        .testTarget(
            name: "SiftWaterfallTests", dependencies: ["SiftTestSupport", "SiftWaterfall", "SiftVerify"], resources: [.copy("Golden")]),
        .testTarget(
            name: "SiftCorrelateTests", dependencies: ["SiftTestSupport", "SiftCorrelate", "SiftVerify"], exclude: ["Formats", "Skew"]),
        .testTarget(name: "SiftFuzzTests", dependencies: ["SiftFuzz"]),
        .testTarget(name: "SiftCLITests", dependencies: ["SiftTestSupport", "SiftCLI", "SiftReport"], resources: [.copy("Golden")])
    ]
)
