import CLibVA
import Foundation
import VTKTestSupport

/// A VA display with no device behind it, whose driver is vtksoft: what libva's DRM back end builds,
/// minus the DRM file descriptor (vtksoft never uses one).
///
/// Lives in the test target rather than VTKTestSupport only because VTKTestSupport does not depend on
/// CLibVA; it is meant to move to the VA layer.
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
        // libva reads the search path at vaInitialize; the name comes from the callbacks below.
        setenv("LIBVA_DRIVERS_PATH", driversDirectory.path, 1)
        guard let dctx = va_newDisplayContext() else { throw OpenError.libva("va_newDisplayContext failed") }
        guard let ctx = va_newDriverContext(dctx) else {
            free(dctx)
            throw OpenError.libva("va_newDriverContext failed")
        }
        ctx.pointee.native_dpy = nil
        ctx.pointee.display_type = UInt(VA_DISPLAY_DRM)
        ctx.pointee.drm_state = nil
        dctx.pointee.vaIsValid = { dctx in dctx?.pointee.pDriverContext != nil ? 1 : 0 }
        dctx.pointee.vaDestroy = { dctx in
            guard let dctx else { return }
            free(dctx.pointee.pDriverContext)
            free(dctx)
        }
        dctx.pointee.vaGetNumCandidates = { _, count in
            count?.pointee = 1
            return VAStatus(VA_STATUS_SUCCESS)
        }
        dctx.pointee.vaGetDriverNameByIndex = { _, name, _ in
            name?.pointee = strdup("libvtksoft")
            return VAStatus(VA_STATUS_SUCCESS)
        }
        display = VADisplay(dctx)
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
