#ifndef VTK_TEST_ENVIRONMENT_H
#define VTK_TEST_ENVIRONMENT_H

/// The LIBVA_DRIVERS_PATH this test process set at load (the vtksoft build directory), or NULL when it
/// found one set already or no vtksoft beside the test binary.
const char *vtk_test_drivers_path(void);

#endif
