#ifndef VTK_CZLIB_SHIM_H
#define VTK_CZLIB_SHIM_H
#include <zlib.h>
#endif
