#ifndef VTK_CLIBAVCODEC_SHIM_H
#define VTK_CLIBAVCODEC_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavutil/imgutils.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#endif
