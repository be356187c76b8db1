import Foundation
import Testing
import SiftTestSupport
@testable import SiftArchive

/// Damaged archives never crash, hang or read past their bounds: flip bytes in valid ones and walk.
@Suite struct FuzzTests {
    @Test(arguments: ["zip", "zip64", "tar", "tar.gz", "jsonl.gz"])
    func mutatedArchivesNeverCrash(kind: String) {
        let body = Array(String(repeating: "{\"type\":\"log\",\"seq\":1}\n", count: 40).utf8)
        let base: [UInt8]
        switch kind {
        case "zip":
            base = makeZip([ZipItem(name: "a.jsonl", data: body), ZipItem(name: "b", data: body, deflate: false, dataDescriptor: true)])
        case "zip64": base = makeZip([ZipItem(name: "a.jsonl", data: body, zip64: true)], zip64End: true)
        case "tar": base = makeTar([TarItem(name: String(repeating: "p", count: 120), data: body), TarItem(name: "b", data: body)])
        case "tar.gz": base = gzip(makeTar([TarItem(name: "a", data: body), TarItem(name: "b", data: body)]))
        default: base = gzip(body) + gzip(body)
        }
        var rng = SeededGenerator(seed: UInt64(kind.utf8.count) * 7919)
        let dir = TempDir()
        var limits = ReadLimits.default
        limits.maxInputBytes = 1 << 20
        limits.maxEntries = 100
        for round in 0..<150 {
            var bytes = base
            let flips = 1 + Int(rng.next() % 4)
            for _ in 0..<flips {
                let at = Int(rng.next() % UInt64(bytes.count))
                bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            }
            if round % 10 == 9 { bytes.removeLast(Int(rng.next() % UInt64(bytes.count))) }
            let (result, seen) = walkAll(dir.write("m\(round).\(kind == "zip64" ? "zip" : kind)", bytes), limits: limits)
            #expect(result.bytesRead <= limits.maxInputBytes)
            #expect(seen.count <= limits.maxEntries)
            // Every problem an entry's reader met is in the result.
            for v in seen {
                if let e = v.error { #expect(result.issues.contains { $0.message == e.message }, "\(kind) round \(round): \(e.message)") }
            }
        }
    }
}
