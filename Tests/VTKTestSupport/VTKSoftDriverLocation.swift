import Foundation

/// Where the built vtksoft driver is, and the environment that makes libva load it.
public enum VTKSoftDriverLocation {
    public static let fileName = "libvtksoft_drv_video.so"

    /// The directory holding libvtksoft_drv_video.so: $VTKSOFT_DRIVERS_PATH, else the build directory
    /// the test bundle runs from (the product is built beside it).
    public static let directory: URL? = {
        let fm = FileManager.default
        if let dir = ProcessInfo.processInfo.environment["VTKSOFT_DRIVERS_PATH"] {
            let url = URL(fileURLWithPath: dir)
            return fm.fileExists(atPath: url.appendingPathComponent(fileName).path) ? url : nil
        }
        let starts = [CommandLine.arguments.first, try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")]
            .compactMap { $0 }.map { URL(fileURLWithPath: $0) }
        for start in starts {
            var dir = start.deletingLastPathComponent()
            for _ in 0..<6 {
                if fm.fileExists(atPath: dir.appendingPathComponent(fileName).path) { return dir.standardizedFileURL }
                dir = dir.deletingLastPathComponent()
            }
        }
        return nil
    }()

    public static var library: URL? { directory?.appendingPathComponent(fileName) }

    public static let missingMessage = "\(fileName) not found beside the test bundle (build it with swift build, or set VTKSOFT_DRIVERS_PATH)"

    /// Environment for a process (ffmpeg, vainfo, vtk) to use vtksoft on `display`.
    public static func environment(display: String, extra: [String: String] = [:]) -> [String: String] {
        var env = ["LIBVA_DRIVER_NAME": "libvtksoft", "DISPLAY": display, "LIBVA_MESSAGING_LEVEL": "1"]
        if let directory { env["LIBVA_DRIVERS_PATH"] = directory.path }
        return env.merging(extra) { $1 }
    }

    /// ``environment(display:extra:)`` for a third-party VA client (ffmpeg, vainfo, gst-launch-1.0, mpv): under a
    /// sanitizer, with its runtime preloaded (``Sanitizer/clientEnvironment``). Never for vtk's own programs,
    /// which carry the runtime already (a second one is refused).
    public static func clientEnvironment(display: String, extra: [String: String] = [:]) -> [String: String] {
        guard case .success(let preload) = Sanitizer.clientEnvironment else { return environment(display: display, extra: extra) }
        return environment(display: display, extra: preload.merging(extra) { $1 })
    }
}
