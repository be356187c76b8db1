import Foundation
import SiftTestSupport
import Testing
@testable import SiftCore

/// The one sink and the one JSON writer.
@Suite struct OutputSinkTests {
    @Test func fileIsWrittenWholeOnFinish() throws {
        let dir = Scratch.directory("sink")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("out.txt").path
        let sink = try OutputSink.file(path: path)
        let line = String(repeating: "x", count: 999) + "\n"
        for _ in 0..<200 { sink.write(line) } // more than the buffer holds
        #expect(!FileManager.default.fileExists(atPath: path), "nothing at PATH before finish")
        #expect(sink.finish() == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 200 * 1000)
    }

    @Test func aWriteErrorNamesThePathOnce() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let sink = try OutputSink.file(path: "/dev/full")
        sink.write(String(repeating: "y", count: 100_000))
        let failure = try #require(sink.finish())
        #expect(failure.message.hasPrefix("pbsift: /dev/full: "))
        #expect(sink.finish() == nil, "reported once")
        #expect(!sink.closed)
    }

    @Test func aClosedPipeIsClosedNotAFailure() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])
        signal(SIGPIPE, SIG_IGN)
        let sink = OutputSink.descriptor(fds[1], label: "standard output")
        sink.write(String(repeating: "z", count: 200_000))
        sink.flush()
        #expect(sink.closed)
        #expect(sink.finish() == nil)
        close(fds[1])
    }

    /// A document written into another at its depth is the document the tree would print.
    @Test func nestedDocumentsAreWrittenAtTheirDepth() {
        let inner: JSONOut = .object(["b": .array([.int(1), .string("x\u{2028}\"")]), "a": .null])
        let outer: JSONOut = .object(["k": .double(1.5), "nested": inner, "z": .array([])])
        for pretty in [true, false] {
            var w = JSONWriter(pretty: pretty)
            w.beginObject()
            w.key("k"); w.double(1.5)
            w.key("nested"); w.value(inner)
            w.key("z"); w.beginArray(); w.endArray()
            w.endObject()
            #expect(w.text == outer.render(pretty: pretty))
        }
        #expect(
            outer.render(pretty: true)
                == "{\n  \"k\": 1.5,\n  \"nested\": {\n    \"a\": null,\n    \"b\": [\n      1,\n      \"x\\u2028\\\"\"\n    ]\n  },\n  \"z\": []\n}"
        )
    }

    /// Characters a terminal or a viewer acts on, or that reorder or hide text, are escaped in every
    /// JSON pbsift writes: C0 and C1 controls, DEL, U+2028/2029, bidi marks, embeddings, overrides and
    /// isolates, zero-width characters, U+FEFF; other non-ASCII text stays as it is.
    @Test func controlsAndBidiCharactersAreEscaped() {
        let cases: [(String, String)] = [
            ("a\u{85}b", "a\\u0085b"), ("\u{9B}31m", "\\u009b31m"), ("\u{1B}[2J", "\\u001b[2J"),
            ("x\u{202E}y", "x\\u202ey"), ("\u{202A}\u{202D}", "\\u202a\\u202d"), ("\u{2066}\u{2069}", "\\u2066\\u2069"),
            ("\u{200B}\u{200F}", "\\u200b\\u200f"), ("\u{61C}", "\\u061c"), ("\u{FEFF}", "\\ufeff"),
            ("é😀\u{2027}\u{2030}\u{A0}", "é😀\u{2027}\u{2030}\u{A0}")
        ]
        for (input, escaped) in cases {
            var w = JSONWriter(pretty: false)
            w.string(input)
            #expect(w.text == "\"" + escaped + "\"", "\(input.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect((try? JSONDocument(bytes: Array(w.text.utf8)).root.string) == input)
        }
    }

    @Test func aLargeDocumentReachesTheSinkInPieces() {
        var pieces: [String] = []
        let sink = OutputSink.memory { pieces.append($0) }
        var w = JSONWriter(pretty: false, sink: sink)
        let tree: JSONOut = .array((0..<20_000).map { .string("value \($0)") })
        w.value(tree)
        w.flush()
        #expect(pieces.count > 1)
        #expect(pieces.joined() == tree.render(pretty: false))
    }
}
