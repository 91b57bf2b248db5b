#ifndef VTK_CLIBYUV_SHIM_H
#define VTK_CLIBYUV_SHIM_H
/* Debian's libyuv-dev ships no pkg-config file: the header is /usr/include/libyuv.h. */
#include <libyuv.h>
#endif
