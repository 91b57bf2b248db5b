// The vtk command: everything is in VTKCommandLine so that it can be tested.
import VideoAcceleration
import VTKCommandLine
#if canImport(Glibc)
import Glibc
#endif

// libva prints "libva info: ..." lines on every vaInitialize; keep standard error for vtk's own messages
// unless the user asked for libva's.
setenv("LIBVA_MESSAGING_LEVEL", "1", 0)
// libva finds drivers through LIBVA_DRIVERS_PATH, read at every vaInitialize: lead it to vtksoft here, once,
// before any thread starts, since library code does not touch the environment.
if let path = try? SoftwareDriverLocation.searchPathLeadingToSoftware() { setenv("LIBVA_DRIVERS_PATH", path, 1) }
// SIGINT/SIGTERM: the command finishes its output and exits with 130; a second signal quits at once.
Interruption.install()
exit(VTKCommand.main(Array(CommandLine.arguments.dropFirst())))
