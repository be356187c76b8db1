import Foundation

/// The one batch → lanes → in-order pipeline of the analyses. Items are batched on the caller's
/// thread; each batch runs on one lane (a serial queue owning its `State`), and the batches' outputs
/// are applied in submission order, whichever lane finishes first. At most `budget` bytes are in
/// flight: `submit` waits while it is spent. With `lanes: 0` every item is worked and applied on the
/// caller's thread at once.
///
/// `release` says when a batch's bytes are given back: `.whenWorked`, as soon as its lane is done
/// (its output may still wait for earlier batches), or `.whenApplied`, once its output is applied.
public final class OrderedWorkers<Item: Sendable, State: AnyObject, Output>: @unchecked Sendable {
    public enum Release: Sendable { case whenWorked, whenApplied }

    private struct Lane {
        let queue: DispatchQueue
        let state: State
    }

    private let lanes: [Lane]
    private let inlineState: State?
    private let budget: ByteBudget
    private let batchBytes: Int
    private let batchCount: Int
    private let release: Release
    private let work: ([Item], State) -> Output
    private let apply: (Output) -> Void

    // The caller's side (one thread).
    private var batch: [Item] = []
    private var size = 0
    private var submitted = 0

    // The apply side, under `lock`.
    private let lock = NSLock()
    private var nextApply = 0
    private var waiting: [Int: (output: Output, bytes: Int)] = [:]

    public init(
        lanes: Int, label: String, budget: ByteBudget, batchBytes: Int, batchCount: Int, release: Release,
        makeState: (Int) -> State, work: @escaping ([Item], State) -> Output, apply: @escaping (Output) -> Void
    ) {
        self.lanes = (0..<max(0, lanes)).map { Lane(queue: DispatchQueue(label: "\(label).\($0)"), state: makeState($0)) }
        self.inlineState = lanes > 0 ? nil : makeState(0)
        self.budget = budget
        self.batchBytes = batchBytes
        self.batchCount = max(1, batchCount)
        self.release = release
        self.work = work
        self.apply = apply
    }

    /// Whether items are worked on the caller's thread.
    public var isInline: Bool { lanes.isEmpty }

    /// Adds an item that holds `bytes` while it waits; hands the batch over when it is full.
    public func submit(_ item: Item, bytes: Int) {
        if let state = inlineState {
            let out = work([item], state)
            withApplied { apply(out) }
            return
        }
        batch.append(item)
        size += bytes
        if size >= batchBytes || batch.count >= batchCount { flush() }
    }

    /// Hands the current batch to its lane.
    public func flush() {
        guard !batch.isEmpty else { return }
        let items = batch, bytes = size
        batch = []
        size = 0
        budget.acquire(bytes)
        let seq = submitted
        submitted += 1
        // A lane's state is only ever touched on its own queue.
        nonisolated(unsafe) let lane = lanes[seq % lanes.count]
        lane.queue.async { [self] in
            let out = work(items, lane.state)
            put(seq, out, bytes: bytes)
            if release == .whenWorked { budget.release(bytes) }
        }
    }

    private func put(_ seq: Int, _ output: Output, bytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        waiting[seq] = (output, bytes)
        while let w = waiting.removeValue(forKey: nextApply) {
            apply(w.output)
            if release == .whenApplied { budget.release(w.bytes) }
            nextApply += 1
        }
    }

    /// Hands over what is batched and waits until every batch is applied.
    public func drain() {
        flush()
        for lane in lanes { lane.queue.sync {} }
    }

    /// Runs `body` under the apply lock: no output is applied meanwhile.
    public func withApplied<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Runs `body` on every lane's state, on that lane (after the work handed to it so far).
    public func forEachState(_ body: (State) -> Void) {
        if let s = inlineState { body(s) }
        for lane in lanes { lane.queue.sync { body(lane.state) } }
    }
}
