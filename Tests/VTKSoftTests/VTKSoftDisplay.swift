import CLibVA
import VideoAcceleration
import Foundation
import VTKTestSupport

/// A vtksoft display (``VADisplayConnection/softwareDisplay()``) whose vaTerminate the test
/// calls itself, so that it can check what the driver reports at that moment.
final class VTKSoftDisplay {
    let display: VADisplay
    private(set) var isTerminated = false

    enum OpenError: Error, CustomStringConvertible {
        case driverMissing
        case libva(String)
        var description: String {
            switch self {
            case .driverMissing: VTKSoftDriverLocation.missingMessage
            case .libva(let message): "libva: \(message)"
            }
        }
    }

    /// Builds the display and runs vaInitialize, loading vtksoft from `driversDirectory`.
    init(driversDirectory: URL) throws {
        // libva loads it through LIBVA_DRIVERS_PATH, which VTKTestEnvironment set at load to the build directory.
        let searchPath = ProcessInfo.processInfo.environment["LIBVA_DRIVERS_PATH"] ?? ""
        guard searchPath.split(separator: ":").contains(where: { URL(fileURLWithPath: String($0)).standardizedFileURL == driversDirectory.standardizedFileURL }) else {
            throw OpenError.libva("LIBVA_DRIVERS_PATH '\(searchPath)' does not lead to \(driversDirectory.path)")
        }
        display = try VADisplayConnection.softwareDisplay()
        var major: Int32 = 0, minor: Int32 = 0
        let status = vaInitialize(display, &major, &minor)
        guard status == VA_STATUS_SUCCESS else {
            vaTerminate(display)
            throw OpenError.libva(String(cString: vaErrorStr(status)))
        }
    }

    func terminate() {
        guard !isTerminated else { return }
        isTerminated = true
        vaTerminate(display)
    }

    deinit { terminate() }
}
