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

/* libva-x11 (va/va_x11.h, in libva-dev), declared here with the X11 types left opaque so that this module
   does not include Xlib.h (which CX11 owns): a Display* is a pointer, a Drawable an XID (unsigned long). */
VADisplay vaGetDisplay(void *x11Display);
VAStatus vaPutSurface(VADisplay dpy, VASurfaceID surface, unsigned long draw,
                      short srcx, short srcy, unsigned short srcw, unsigned short srch,
                      short destx, short desty, unsigned short destw, unsigned short desth,
                      VARectangle *cliprects, unsigned int number_cliprects, unsigned int flags);
#endif
