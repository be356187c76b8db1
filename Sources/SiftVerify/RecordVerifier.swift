import Foundation
import SiftCore

/// verify's checks, one record at a time, handing back at once what the record holds
/// (`verify --follow`): nothing is kept between records, so an endless stream costs the same memory
/// at its millionth record as at its first.
public final class RecordVerifier {
    let config: VerifyConfig
    let worker: VerifyWorker

    public init(config: VerifyConfig = VerifyConfig()) {
        self.config = config
        worker = VerifyWorker(config: config)
    }

    /// The findings `record` of `session` holds, as a whole run would report them (detectors the
    /// config turns off and allowed fingerprints left out).
    public func check(_ record: Record, session: SessionContext) -> [Finding] {
        worker.record(record, session: SessionPlace(session))
        return kept(worker.takeOutput().findings)
    }

    /// The findings of a line that is not a record (not JSON, cut short): read as text.
    public func checkText(_ bytes: [UInt8], line: Int, session: SessionContext) -> [Finding] {
        worker.damagedLine(bytes, line: line, session: SessionPlace(session))
        return kept(worker.takeOutput().findings)
    }

    func kept(_ findings: [Finding]) -> [Finding] { findings.filter(config.reports) }
}
