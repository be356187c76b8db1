import CZlib
import SiftCLI
import Foundation
// Buffers of 1 MiB and more (long lines and their parses, blobs, decoded bodies) are mapped on their
// own and given back when freed: with glibc's default, freed ones stayed resident in its heaps and
// the process held up to twice what was live.
pbsift_map_large_buffers(1 << 20)
// Freed memory kept for reuse (up to 8 MiB a heap) instead of returned and faulted in again: a third
// fewer page faults in the waterfall, for a few MiB more at the peak (64 MiB gave no fewer faults and
// up to 40 MiB more).
pbsift_keep_freed_memory(8 << 20, 1 << 20)
// Arguments as bytes: a path that is not UTF-8 must open exactly that file.
exit(PBSift.main(PBSift.byteArguments()))
