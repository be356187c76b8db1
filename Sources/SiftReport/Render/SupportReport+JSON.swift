import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

extension SupportReport {
    // MARK: JSON

    /// The union of the other commands' documents under one envelope (`docs/schema/report.schema.json`).
    public func json() -> String {
        var w = JSONWriter(pretty: true)
        json(into: &w)
        w.newline()
        return w.text
    }

    /// Writes the JSON document through `w`: the envelope's members, then the waterfall document
    /// (without its findings) as the `waterfall` member, written by its own writer at this depth.
    /// Members are written as they are made: the sessions and findings one element at a time, so the
    /// document is never held as one tree (the failures, a bounded few, are made side by side first).
    public func json(into w: inout JSONWriter) {
        // The envelope `inspect` writes (tool, inputs, sessions, blobs), over every analysis's findings.
        var doc = ReportEnvelope.members(
            inputs: outcome.inputs, findings: findings, blobs: outcome.blobs,
            sections: InspectReport.sections(outcome))
        doc["verdict"] = .array(verdict.map { .object(["key": .string($0.key), "ok": .bool($0.ok), "text": .string($0.text)]) })
        doc["verify"] = verifySummary.json
        if let c = redactedCorrelation {
            // The correlate document's sections, its requests and sessions written one at a time (a
            // hundred thousand requests are never held as one JSON value).
            let summary = JSONOut.object(CorrelationRender.summarySections(c))
            doc.stream("correlation") { w in CorrelationRender.write(summary, listing: c, to: &w) }
        } else {
            doc["correlation"] = .null
        }
        let redactor = redactor
        // Each window's timeline made side by side (its texts redacted), then written in order: a few
        // windows (at most `FailureTimeline.maxWindows`) of a few records each. One entry per failed
        // request: failures whose windows overlap share one timeline, which each of their entries
        // carries (`failures` names them all).
        let failures = Parallel.map(failureWindows) { w -> [JSONOut] in
            let session = JSONOut.opt(redactor.text(w.sessionId.untrusted).value)
            let all = JSONOut.array(
                w.failures.map { f in .object(["seq": .opt(f.seq), "recordId": .opt(redactor.text(f.id.untrusted).value)]) })
            let timeline = JSONOut.array(
                self.timelineEntries(w).map { e in
                    .object([
                        "ts": .opt(e.time),
                        "side": .string(e.side.hasPrefix("device") ? "device" : "server"),
                        "text": .string(e.text), "failed": .bool(e.failed)
                    ])
                })
            return w.failures.map { f in
                .object([
                    "sessionId": session, "seq": .opt(f.seq), "recordId": .opt(redactor.text(f.id.untrusted).value),
                    "failures": all, "timeline": timeline
                ])
            }
        }
        doc.array("failures", failures.flatMap { $0 }) { $0 }
        // Present only when a bound was reached, so ordinary reports keep their shape.
        if timeline.dropped > 0 { doc["failuresNotShown"] = .int(timeline.dropped) }
        // What --session, --since and --until kept, so a document never reads as the whole export.
        if let scope { doc["scope"] = .string(scope) }
        if timeline.cutShort > 0 { doc["timelinesCutShort"] = .int(timeline.cutShort) }
        w.beginObject()
        doc.writeMembers(into: &w)
        // `waterfall` sorts last among the keys.
        w.key("waterfall")
        WaterfallRender.json(waterfall, into: &w, findings: false)
        w.endObject()
    }
}
