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
#endif
