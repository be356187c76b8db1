import Foundation
import Testing
@testable import SiftCore
import SiftArchive

/// HAR timings to transaction timestamps, against HAR 1.2's rules: phases in order
/// blocked → dns → connect → send → wait → receive, -1 (or absent) for a phase that does not apply,
/// and `ssl` counted inside `connect` (its last part).
@Suite struct HARPhaseTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var timings: String
        /// Expected offsets in ms from startedDateTime; nil = absent.
        var expect: [String: Double?]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "every phase", timings: #"{"blocked":1,"dns":10,"connect":30,"ssl":20,"send":2,"wait":50,"receive":7}"#,
            expect: [
                "domainLookupStart": 1, "domainLookupEnd": 11, "connectStart": 11, "secureConnectionStart": 21,
                "secureConnectionEnd": 41, "connectEnd": 41, "requestStart": 41, "requestEnd": 43, "responseStart": 93,
                "responseEnd": 100
            ]),
        Case(
            name: "reused connection: -1 for dns, connect, ssl",
            timings: #"{"blocked":0.5,"dns":-1,"connect":-1,"ssl":-1,"send":0,"wait":20,"receive":1.25}"#,
            expect: [
                "domainLookupStart": nil, "connectStart": nil, "secureConnectionStart": nil, "requestStart": 0.5,
                "requestEnd": 0.5, "responseStart": 20.5, "responseEnd": 21.75
            ]),
        Case(
            name: "plain http: connect without ssl", timings: #"{"blocked":-1,"dns":2,"connect":5,"ssl":-1,"send":1,"wait":3,"receive":4}"#,
            expect: [
                "domainLookupStart": 0, "connectStart": 2, "connectEnd": 7, "secureConnectionStart": nil,
                "requestStart": 7, "responseEnd": 15
            ]),
        Case(
            name: "ssl equal to connect", timings: #"{"connect":8,"ssl":8,"send":0,"wait":1,"receive":0}"#,
            expect: ["connectStart": 0, "secureConnectionStart": 0, "secureConnectionEnd": 8, "requestStart": 8, "responseEnd": 9]),
        Case(
            name: "ssl larger than connect is clamped inside it", timings: #"{"connect":5,"ssl":9,"send":0,"wait":1,"receive":0}"#,
            expect: ["connectStart": 0, "secureConnectionStart": 0, "connectEnd": 5]),
        Case(
            name: "absurd and negative values do not apply", timings: #"{"blocked":1e300,"dns":-7,"send":0,"wait":1,"receive":0}"#,
            expect: ["domainLookupStart": nil, "requestStart": 0, "responseEnd": 1]),
        Case(
            name: "no response: wait and receive -1", timings: #"{"blocked":3,"send":0,"wait":-1,"receive":-1}"#,
            expect: ["requestStart": 3, "requestEnd": 3, "responseStart": nil, "responseEnd": nil])
    ]

    @Test(arguments: cases)
    func phases(_ c: Case) throws {
        let entry = try JSONDocument(
            string:
                #"{"startedDateTime":"2026-11-29T10:15:02.000Z","timings":\#(c.timings),"request":{"url":"https://a.test/"},"response":{"status":200}}"#
        ).root
        let (tx, start, _) = HARMapping.transaction(entry)
        let t0 = try #require(start)
        for (field, ms) in c.expect {
            let got: Double? = {
                guard case .string(let s)? = tx[field], let t = Timestamp.parse(s) else { return nil }
                return (t * 1_000_000 - Double(t0)) / 1000
            }()
            if let ms {
                let g = try #require(got, "\(c.name): \(field) missing")
                #expect(abs(g - ms) < 0.001, "\(c.name): \(field) \(g) != \(ms)")
            } else {
                #expect(got == nil, "\(c.name): \(field) should be absent")
            }
        }
    }

    /// The record's duration is the span of the timings; `ssl` is not added twice.
    @Test func durationCountsSSLOnce() throws {
        let e = try JSONDocument(
            string:
                #"{"startedDateTime":"2026-11-29T10:15:02.000Z","time":100,"timings":{"blocked":1,"dns":10,"connect":30,"ssl":20,"send":2,"wait":50,"receive":7},"request":{"method":"GET","url":"https://a.test/"},"response":{"status":200,"headers":[]}}"#
        ).root
        guard case .object(let r) = HARMapping.record([e], seq: 1, fallbackId: "entries[0]") else { Issue.record(); return }
        #expect(r["duration"] == .double(0.1))
    }
}

@Suite struct HARStreamTests {
    func events(_ text: String, max: Int = 1 << 20, chunk: Int = 7) -> [HARStream.Event] {
        final class Bytes: ByteSource {
            var data: [UInt8]
            var pos = 0
            init(_ d: [UInt8]) { data = d }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
                let n = min(buffer.count, data.count - pos)
                for i in 0..<n { buffer[i] = data[pos + i] }
                pos += n
                return n
            }
        }
        var s = HARStream(source: Bytes(Array(text.utf8)), maxValue: max, chunkSize: chunk)
        var out: [HARStream.Event] = []
        while let e = s.next() { out.append(e) }
        return out
    }

    func entryCount(_ ev: [HARStream.Event]) -> Int {
        ev.filter {
            if case .entry = $0 { return true }; return false
        }.count
    }

    @Test func walksEntriesOneByOneAcrossChunks() {
        let ev = events(#"{"log":{"version":"1.2","creator":{"name":"x"},"entries":[{"a":"}]\""},{"b":[1,{"c":2}]}],"comment":"z"}}"#)
        #expect(entryCount(ev) == 2)
        if case .entry(let i, let bytes, _, _) = ev.first(where: {
            if case .entry = $0 { return true }; return false
        }) {
            #expect(i == 0)
            #expect(String(decoding: bytes, as: UTF8.self) == #"{"a":"}]\""}"#)
        }
        #expect(
            ev.contains {
                if case .logMember("comment", _) = $0 { return true }; return false
            })
        #expect(
            !ev.contains {
                if case .damaged = $0 { return true }; if case .truncated = $0 { return true }; return false
            })
    }

    @Test func entriesBeforeOtherMembersAndOtherRootMembers() {
        let ev = events(#"{"x":[1,2],"log":{"entries":[{}],"creator":{"name":"late"}},"y":null}"#)
        #expect(entryCount(ev) == 1)
        #expect(
            ev.contains {
                if case .logMember("creator", _) = $0 { return true }; return false
            })
        // Root members other than `log` are handed out too (verify reads them).
        #expect(
            ev.contains {
                if case .rootMember("x", _, 1) = $0 { return true }; return false
            })
        #expect(
            ev.contains {
                if case .rootMember("y", _, 1) = $0 { return true }; return false
            })
        #expect(ev.count == 4)
    }

    @Test func truncationNamesThePlace() {
        let ev = events(#"{"log":{"entries":[{"a":1},{"b":"#)
        #expect(entryCount(ev) == 1)
        guard case .truncated(let msg, _, _)? = ev.last else { Issue.record("\(ev)"); return }
        #expect(msg.contains("log.entries[1]"))
    }

    @Test func tooLargeEntryIsSkippedAndCounted() {
        let big = String(repeating: "x", count: 100)
        let ev = events(#"{"log":{"entries":[{"a":"\#(big)"},{"b":1}]}}"#, max: 50)
        #expect(entryCount(ev) == 1)
        #expect(
            ev.contains {
                if case .tooLarge("log.entries[0]", 108, _, _) = $0 { return true }; return false
            })
    }

    @Test func brokenStructureEndsTheWalkWithAFinding() {
        let ev = events(#"{"log":{"entries":[{"a":1} x {"b":2}]}}"#)
        #expect(entryCount(ev) == 1)
        #expect(
            ev.contains {
                if case .damaged = $0 { return true }; return false
            })
    }

    @Test func missingCommaBetweenEntriesIsRead() {
        let ev = events(#"{"log":{"entries":[{"a":1} {"b":2}]}}"#)
        #expect(entryCount(ev) == 2)
    }

    @Test func sniffing() {
        #expect(HARStream.looksLikeHAR(Array("\u{FEFF}{\n  \"log\" : {".utf8)))
        #expect(HARStream.looksLikeHAR(Array(#"{"log":{"#.utf8)))
        #expect(!HARStream.looksLikeHAR(Array(#"{"type":"session","log":1}"#.utf8)))
        #expect(!HARStream.looksLikeHAR(Array("[]".utf8)))
    }
}
