#ifndef VTK_COPENH264_SHIM_H
#define VTK_COPENH264_SHIM_H
#include <stdbool.h>
#include <wels/codec_api.h>
#include <wels/codec_ver.h>
#endif
