import Foundation

/// How many threads parse, check and scan logs in parallel: one per core, or `PBSIFT_THREADS` (a
/// whole number from 1 to 64; 1 keeps every reading stage on one thread beside the checks; verify's
/// checkers stay at most 4). The output does not depend on it: work done in parallel is handed back
/// in input order.
public enum ReadWorkers {
    public static let count: Int = {
        if let v = getenv("PBSIFT_THREADS"), let n = Int(String(cString: v)), (1...64).contains(n) { return n }
        return max(1, ProcessInfo.processInfo.activeProcessorCount)
    }()
}
