#ifndef VTK_CLIBAVUTIL_SHIM_H
#define VTK_CLIBAVUTIL_SHIM_H
#include <libavutil/md5.h>
#endif
