#ifndef VTK_CLIBYUV_SHIM_H
#define VTK_CLIBYUV_SHIM_H
/* Debian's libyuv-dev ships no pkg-config file: the header is /usr/include/libyuv.h. */
#include <libyuv.h>

/* libyuv's colour matrices by address: Swift would pass a copy of the const globals, which libyuv's SIMD
   rows may read with aligned loads. */
static inline const struct YuvConstants *vtk_yuv_bt601(void) { return &kYuvI601Constants; }
static inline const struct YuvConstants *vtk_yuv_bt709(void) { return &kYuvH709Constants; }
#endif
