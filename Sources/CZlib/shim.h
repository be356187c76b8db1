#ifndef PBSIFT_CZLIB_SHIM_H
#define PBSIFT_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro in zlib.h; Swift cannot call macros, so wrap it. */
static inline int pbsift_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
static inline int pbsift_deflateInit2(z_streamp strm, int level, int windowBits) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

/* Buffers of `bytes` and more get a mapping of their own, given back when freed (glibc only; elsewhere
   a no-op). glibc's default raises that threshold to the size of the first large buffer freed, and
   then keeps freed large buffers in its heaps. */
#if defined(__GLIBC__)
#include <malloc.h>
static inline void pbsift_map_large_buffers(int bytes) { (void)mallopt(M_MMAP_THRESHOLD, bytes); }
/* Memory freed at the top of a heap stays with the process up to `keep` bytes, and a heap grows by `pad`
   bytes more than it is asked for: a run that allocates and frees the same few MiB over and over (a
   line's parse, a batch of records) no longer hands pages back to the kernel only to fault them in
   again. The peak is unchanged: what is kept is what the next allocations take first. */
static inline void pbsift_keep_freed_memory(int keep, int pad) {
    (void)mallopt(M_TRIM_THRESHOLD, keep);
    (void)mallopt(M_TOP_PAD, pad);
}
#else
static inline void pbsift_map_large_buffers(int bytes) { (void)bytes; }
static inline void pbsift_keep_freed_memory(int keep, int pad) { (void)keep; (void)pad; }
#endif
#endif
