#ifndef VTK_CX11_SHIM_H
#define VTK_CX11_SHIM_H
/* Xlib (libx11-dev): the X connection vtk presents on, and the XPutImage path of vtksoft's vaPutSurface. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#endif
