import CZlib
import SiftCLI
import Foundation
// Buffers of 1 MiB and more (long lines and their parses, blobs, decoded bodies) are mapped on their
// own and given back when freed: with glibc's default, freed ones stayed resident in its heaps and
// the process held up to twice what was live.
pbsift_map_large_buffers(1 << 20)
// Freed memory kept for reuse (up to 64 MiB) instead of returned and faulted in again: 5-8 % less time
// in the waterfall and the report.
pbsift_keep_freed_memory(64 << 20, 16 << 20)
// Arguments as bytes: a path that is not UTF-8 must open exactly that file.
exit(PBSift.main(PBSift.byteArguments()))
