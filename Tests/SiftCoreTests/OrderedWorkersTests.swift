import Foundation
import Testing
@testable import SiftCore

/// The analyses' one pipeline: whatever the lanes' timing, outputs are applied in submission order,
/// the budget holds, `drain()` waits for the last apply, and no lanes means inline.
@Suite struct OrderedWorkersTests {
    final class Sink: @unchecked Sendable {
        var applied: [Int] = []
    }
    final class LaneState {
        let id: Int
        var worked = 0
        init(_ id: Int) { self.id = id }
    }

    static func pipeline(
        lanes: Int, budget: ByteBudget, release: OrderedWorkers<Int, LaneState, [Int]>.Release,
        sink: Sink
    ) -> OrderedWorkers<Int, LaneState, [Int]> {
        OrderedWorkers(
            lanes: lanes, label: "test", budget: budget, batchBytes: 64, batchCount: 7, release: release,
            makeState: { LaneState($0) },
            work: { items, state in
                state.worked += items.count
                // A random delay per batch: lanes finish out of order.
                usleep(UInt32.random(in: 0...300))
                return items
            },
            apply: { sink.applied += $0 })
    }

    @Test(arguments: [OrderedWorkers<Int, LaneState, [Int]>.Release.whenWorked, .whenApplied])
    func appliedInSubmissionOrderWithinTheBudget(_ release: OrderedWorkers<Int, LaneState, [Int]>.Release) {
        let sink = Sink()
        let budget = ByteBudget(limit: 256)
        let w = Self.pipeline(lanes: 4, budget: budget, release: release, sink: sink)
        for i in 0..<10_000 { w.submit(i, bytes: Int.random(in: 1...20)) }
        w.drain()
        // drain() returns after the last apply: everything is there, in order.
        #expect(w.withApplied { sink.applied } == Array(0..<10_000))
        #expect(budget.highWater <= 256)
        var worked = 0
        w.forEachState { worked += $0.worked }
        #expect(worked == 10_000)
    }

    @Test func noLanesRunsInline() {
        let sink = Sink()
        let w = Self.pipeline(lanes: 0, budget: ByteBudget(limit: 1), release: .whenWorked, sink: sink)
        #expect(w.isInline)
        for i in 0..<100 {
            w.submit(i, bytes: 1000)
            // Applied at once, on this thread: no drain needed.
            #expect(sink.applied.last == i)
        }
    }

    @Test func anItemLargerThanTheBudgetStillPasses() {
        let sink = Sink()
        let budget = ByteBudget(limit: 10)
        let w = Self.pipeline(lanes: 2, budget: budget, release: .whenApplied, sink: sink)
        for i in 0..<50 { w.submit(i, bytes: 100) }
        w.drain()
        #expect(w.withApplied { sink.applied } == Array(0..<50))
    }
}
