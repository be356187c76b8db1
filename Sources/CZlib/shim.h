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
#else
static inline void pbsift_map_large_buffers(int bytes) { (void)bytes; }
#endif
#endif
