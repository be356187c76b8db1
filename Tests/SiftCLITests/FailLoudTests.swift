import Foundation
import Testing
@testable import SiftCLI

/// Every problem with an input or a log is on standard error as `pbsift: PATH: reason`, in every
/// command and format, and a verdict is never built on what was not read. Through the built binary.
@Suite(.serialized) struct FailLoudTests {
    static let reading = ["report", "inspect", "verify", "waterfall", "records", "har"]

    @Test(arguments: reading)
    func missingInputIsLoud(command: String) throws {
        let dir = try makeTempDir()
        for format in command == "records" ? ["jsonl", "csv"] : command == "har" ? ["har"] : ["text", "json"] {
            let missing = dir.appendingPathComponent("missing.zip").path
            let r = try Binary.run([command, "--format", format, missing])
            #expect(r.status == 2, "\(command) \(format)")
            #expect(r.err.contains("pbsift: \(missing): no such file or directory\n"), "\(command) \(format): \(r.err)")
            #expect(!r.out.contains("ok   credentials"), "\(command): a verdict on nothing")
        }
    }

    @Test func reportOnMissingInputSaysNotChecked() throws {
        let r = try Binary.run(["report", "/nonexistent/missing.zip"])
        let first = r.out.split(separator: "\n").dropFirst().first { !$0.isEmpty }.map(String.init) ?? ""
        #expect(first.contains("FAIL credentials  Not checked:"), "\(first)")
        #expect(!r.out.contains("No request failed"))
    }

    /// (file name, bytes, words stderr must hold) — none of them is an export; `verify` must not pass.
    static let notExports: [(String, [UInt8], String)] = [
        ("passwd", Array("root:x:0:0:root:/root:/bin/bash\nbin:x:1:1::/:/sbin/nologin\n".utf8), "looks like text"),
        ("blob.bin", [0x7F, 0x45, 0x4C, 0x46, 0, 0, 1, 2, 0xFF, 0xFE] + [UInt8](repeating: 0, count: 40), "looks like binary data"),
        ("empty.jsonl", [], "(empty)"),
        ("empty.zip", [], "(empty)"),
        ("empty.tar.gz", [], "(empty)"),
        ("data.json", Array("{\n  \"a\": [1, 2]\n}\n".utf8), "looks like plain JSON"),
        ("other.jsonl", Array("{\"a\":1}\n{\"b\":2}\n".utf8), "no line is a Palbe record")
    ]

    @Test(arguments: notExports.indices)
    func notAPalbeExport(index: Int) throws {
        let (name, bytes, words) = Self.notExports[index]
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        for format in ["text", "json", "sarif"] {
            let r = try Binary.run(["verify", "--format", format, path])
            #expect(r.status == 2, "\(name) \(format): verify passed on nothing")
            #expect(r.err.contains("pbsift: \(path): not a Palbe export"), "\(name): \(r.err)")
            #expect(r.err.contains(words), "\(name): \(r.err)")
            // The verdict never reads as a pass for bytes nobody checked.
            if format == "text" {
                #expect(r.out.contains("pbsift verify: not verified in full (1 input not read in full): no findings"), "\(r.out)")
            }
        }
    }

    @Test func emptyFolderIsNotAnExport() throws {
        let dir = try makeTempDir()
        let r = try Binary.run(["verify", dir.path])
        #expect(r.status == 2)
        #expect(r.err == "pbsift: \(dir.path): not a Palbe export (an empty folder)\n")
    }

    @Test func missingLogMakesNoClaimAboutTheServer() throws {
        let path = try Fixture.write(Fixture.clean)
        let log = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("missing.log").path
        let r = try Binary.run(["report", path, "--logs", log])
        #expect(r.status == 2)
        #expect(r.err.contains("pbsift: \(log)"), "\(r.err)")
        #expect(r.out.contains("FAIL server"), "\(r.out)")
        #expect(r.out.contains("Not checked"))
        #expect(!r.out.contains("never reached"))
        #expect(!r.out.contains("never saw"))
        #expect(!r.out.contains("never seen"))
    }

    @Test func devicesAreRefusedAtOnce() throws {
        for device in ["/dev/null", "/dev/zero"] where FileManager.default.fileExists(atPath: device) {
            let r = try Binary.run(["verify", device])
            #expect(r.status == 2)
            #expect(r.err == "pbsift: \(device): a character device, not a file, folder or pipe; not read\n")
        }
    }

    @Test func pipeWithoutWriterDoesNotHang() throws {
        let dir = try makeTempDir()
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let start = Date()
        let r = try Binary.run(["verify", fifo], env: ["PBSIFT_PIPE_WAIT": "0.3"])
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(r.status == 2)
        #expect(r.err.contains("pbsift: \(fifo): nothing wrote to the pipe within 0.3 s"), "\(r.err)")
    }

    /// A pipe named by `--logs` that nothing writes to is waited for `PBSIFT_PIPE_WAIT` when given,
    /// then reported unread with exit status 2.
    @Test func logsPipeWithoutWriterFollowsThePipeWait() throws {
        let dir = try makeTempDir()
        let fifo = dir.appendingPathComponent("logs.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let session = try Fixture.write([Fixture.header(), CorrelateCommandTests.network])
        let start = Date()
        let r = try Binary.run(["correlate", session, "--logs", fifo], env: ["PBSIFT_PIPE_WAIT": "0.3"])
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(r.status == 2)
        #expect(r.err.contains("pbsift: \(fifo): no writer opened the pipe within"), "\(r.err)")
    }

    @Test func pipeWithWriterIsRead() throws {
        let dir = try makeTempDir()
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let text = Fixture.clean.joined(separator: "\n") + "\n"
        let writer = Thread {
            if let h = FileHandle(forWritingAtPath: fifo) {
                h.write(Data(text.utf8))
                try? h.close()
            }
        }
        writer.start()
        let r = try Binary.run(["inspect", "--json", fifo])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.isEmpty)
    }

    @Test func unreadableFileIsLoud() throws {
        guard geteuid() != 0 else { return } // root reads anything
        let path = try Fixture.write(Fixture.clean)
        #expect(chmod(path, 0) == 0)
        let r = try Binary.run(["verify", path])
        #expect(r.status == 2)
        #expect(r.err == "pbsift: \(path): permission denied\n")
    }

    @Test func zipHeaderMismatchIsLoud() throws {
        let dir = try makeTempDir()
        let body = Array((Fixture.clean.joined(separator: "\n") + "\n").utf8)
        var zip = ZipBytes.stored(name: "sessions/\(Fixture.sessionId).jsonl", body)
        zip[14] ^= 0xFF // the local header's CRC-32
        let path = dir.appendingPathComponent("export.zip").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(zip)))
        let r = try Binary.run(["inspect", "--json", path])
        #expect(r.status == 2)
        #expect(r.out.contains("archive.header-mismatch"))
        #expect(r.err.contains("pbsift: \(path): sessions/\(Fixture.sessionId).jsonl: zip entry"), "\(r.err)")
    }
}

/// A one-entry stored zip, written by hand (the CLI tests have no zip writer of their own).
enum ZipBytes {
    static func stored(name: String, _ data: [UInt8]) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        var crc: UInt32 = 0xFFFF_FFFF
        for b in data {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        let n = Array(name.utf8)
        let size = le32(UInt32(data.count))
        var out: [UInt8] =
            [0x50, 0x4B, 3, 4] + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc) + size + size
            + le16(n.count) + le16(0) + n + data
        let cd = out.count
        out +=
            [0x50, 0x4B, 1, 2] + le16(0x0314) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc) + size + size
            + le16(n.count) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0o100644 << 16) + le32(0) + n
        let cdSize = out.count - cd
        out += [0x50, 0x4B, 5, 6] + le16(0) + le16(0) + le16(1) + le16(1) + le32(UInt32(cdSize)) + le32(UInt32(cd)) + le16(0)
        return out
    }
}
