#ifndef VTK_CLIBVA_SHIM_H
#define VTK_CLIBVA_SHIM_H
#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_backend.h>
#include <va/va_enc_h264.h>
#include <va/va_str.h>

/* Exported by libva.so (2.x) but not declared in its public headers: the constructors its own
   DRM and X11 back ends use to build a display. vtk uses them to build a display with no device
   for the vtksoft driver. */
VADisplayContextP va_newDisplayContext(void);
VADriverContextP va_newDriverContext(VADisplayContextP dctx);
#endif
