import Foundation
import SiftCore
import SiftVerify

/// `pbsift har <input>...`: the network records of an export as one HAR 1.2 document.
public enum HARCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "har",
        abstract: "Write the network records as a HAR 1.2 file, credentials masked.",
        discussion: """
            Streams every network record of the inputs into one HAR 1.2 document that browser \
            developer tools and HAR viewers open: one entry per transaction (a redirect or a retry \
            stays an entry of its own), times in milliseconds, -1 where a phase does not apply, ssl \
            counted inside connect. What HAR has no place for (record and request ids, the SDK's \
            category and label, the state, the session header) is kept in fields whose names start \
            with _. Every value verify would report is masked before it is written. Log and event \
            records have no place in HAR and are left out; a body stored in a blob is named, not copied. \
            pbsift reads the file back as the same records: the waterfall is the same.
            """,
        arguments: [
            ArgumentSpec.exports
        ],
        options: [],
        examples: [
            ("pbsift har export.zip -o session.har", "A HAR file to open in Chrome DevTools or a HAR viewer."),
            ("pbsift har export.zip | jq '.log.entries[] | [.request.url, .time]'", "Each request's URL and time, through jq.")
        ],
        formats: ["har"],
        manSection: """
            The document follows HAR 1.2:
            .Cm log.creator
            is pbsift,
            .Cm pages
            is empty, and each entry carries
            .Cm _recordId , _seq , _requestId , _sessionId
            and the other
            .Cm _
            fields described in docs/har.md.
            The exit status is that of
            .Nm inspect
            for the same inputs.
            """)

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        var run = try ReadingRun(options, spec: spec, io: io)
        let common = run.common
        let sink = try common.openOutput(io)
        let config = VerifyConfig()
        let secrets = RecordSecrets(config: config)
        // Masks are written `***`, as the SDK writes them: the HAR reads back through verify as an export does.
        let base = Redactor.verify(config: config).maskingAsTheSDK()
        // One scan per record, whatever the number of its transactions (entries).
        let writer = HARWriter(creatorVersion: PBSift.version, sink: sink) { record in
            let found = secrets.scan(record)
            let redactor = found.redactor(base)
            return { entry in redactor.json(HARCommand.withholdEncodedBodies(entry, sides: found.bodies)) }
        }
        try run.read(options.argument("input"), analyses: [writer], shouldStop: { [sink] in sink.closed })
        writer.close()
        if let failed = common.close(sink, io: io) { return failed }
        if sink.closed { return .ok }
        return run.status()
    }

    /// A base64 body that holds a credential cannot be masked inside its encoding: its text is left
    /// out and a comment says why.
    static func withholdEncodedBodies(_ entry: JSONOut, sides: Set<String>) -> JSONOut {
        guard !sides.isEmpty, case .object(var e) = entry else { return entry }
        for (side, key) in [("request", "postData"), ("response", "content")] where sides.contains(side) {
            guard case .object(var part)? = e[side], case .object(var body)? = part[key],
                body["encoding"] == .string("base64") || body["_encoding"] == .string("base64")
            else { continue }
            body["text"] = .string("")
            body["encoding"] = nil
            body["_encoding"] = nil
            body["comment"] = .string(RecordMasker.withheld)
            part[key] = .object(body)
            e[side] = .object(part)
        }
        return .object(e)
    }
}
