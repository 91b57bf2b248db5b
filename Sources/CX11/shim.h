#ifndef VTK_CX11_SHIM_H
#define VTK_CX11_SHIM_H
/* Xlib (libx11-dev) and the MIT shared-memory extension (libxext-dev): the X connection vtk presents on, the
   XPutImage path of vtksoft's vaPutSurface, and vtk play's window (X11Display). */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>
#include <X11/extensions/XShm.h>
#include <sys/ipc.h>
#include <sys/shm.h>

/* XDestroyImage is a macro. */
static inline void vtk_x11_destroy_image(XImage *image) { XDestroyImage(image); }

/* The last X error, recorded instead of Xlib's default handler exiting the process. */
static int vtk_x11_last_error = 0;
static inline int vtk_x11_error_handler(Display *display, XErrorEvent *event) {
    (void)display;
    vtk_x11_last_error = event->error_code;
    return 0;
}
static inline void vtk_x11_install_error_handler(void) { XSetErrorHandler(vtk_x11_error_handler); }
static inline int vtk_x11_take_error(void) { int e = vtk_x11_last_error; vtk_x11_last_error = 0; return e; }
#endif
