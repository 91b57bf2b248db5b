// The test process's "main" for the environment: vtk's library code never calls setenv (vtk sets
// LIBVA_DRIVERS_PATH once in its main), so a test process that opens vtksoft in-process needs libva's
// search path set before any test thread starts. A constructor runs at load, single-threaded, before
// the test runner: the one safe moment.
#include "VTKTestEnvironment.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *drivers_path;

const char *vtk_test_drivers_path(void) { return drivers_path; }

static int holds_driver(const char *directory) {
    char file[PATH_MAX];
    if (snprintf(file, sizeof file, "%s/libvtksoft_drv_video.so", directory) >= (int)sizeof file) return 0;
    return access(file, R_OK) == 0;
}

__attribute__((constructor)) static void vtk_test_environment(void) {
    // A runner that chose a search path keeps it.
    if (getenv("LIBVA_DRIVERS_PATH")) return;
    static char directory[PATH_MAX];
    const char *chosen = getenv("VTKSOFT_DRIVERS_PATH");
    if (chosen) {
        if (strlen(chosen) >= sizeof directory) return;
        strcpy(directory, chosen);
    } else {
        // The build directory: the test binary is built beside the driver.
        ssize_t n = readlink("/proc/self/exe", directory, sizeof directory - 1);
        if (n <= 0) return;
        directory[n] = 0;
        char *slash = strrchr(directory, '/');
        if (!slash) return;
        *slash = 0;
    }
    if (!holds_driver(directory)) return;
    setenv("LIBVA_DRIVERS_PATH", directory, 1);
    drivers_path = directory;
}
