import CLibVA
import Foundation
import Testing
import VideoAcceleration
import VTKMedia
import VTKTestSupport

/// vtksoft displays opened in-process: personas are per display, and the environment is left alone.
@Suite("vtksoft displays", .enabled(if: VTKSoftDriverLocation.directory != nil, "libvtksoft_drv_video.so not built"))
struct SoftwareDisplayTests {
    @Test("soft:NAME makes that display the persona; a display opened after it is plain vtksoft; VTKSOFT_PERSONA is untouched")
    func personaPerDisplay() throws {
        let before = ProcessInfo.processInfo.environment["VTKSOFT_PERSONA"]
        let nvidia = try VADisplayConnection.open(.softwarePersona("nvidia"))
        #expect(nvidia.vendor.contains("[vtksoft persona nvidia]"), "\(nvidia.vendor)")
        // nvidia-vaapi-driver decodes only: the persona's own entrypoints, not vtksoft's.
        #expect(!nvidia.canDo(.encode))
        let plain = try VADisplayConnection.open(.software)
        #expect(!plain.vendor.contains("vtksoft persona"), "\(plain.vendor)")
        #expect(plain.canDo(.encode))
        #expect(nvidia.vendor.contains("[vtksoft persona nvidia]"))  // the first display kept its persona
        #expect(ProcessInfo.processInfo.environment["VTKSOFT_PERSONA"] == before)
    }

    @Test("A candidate soft:NAME opens as that persona, named by its candidate text")
    func candidate() throws {
        let connection = try VADisplayConnection.openCandidate("soft:radeonsi-24")
        #expect(connection.devicePath == "soft:radeonsi-24")
        #expect(connection.vendor.contains("vtksoft persona radeonsi-24"), "\(connection.vendor)")
    }

    @Test("An unknown persona is an error naming it, not a plain vtksoft display")
    func unknownPersona() {
        #expect {
            _ = try VADisplayConnection.open(.softwarePersona("no-such-persona"))
        } throws: { error in
            "\(error)".contains("no-such-persona")
        }
    }

    @Test("readNV12 of a surface that does not exist names the call that failed (vaSyncSurface), not vaMapBuffer")
    func readErrorNamesTheCall() throws {
        let connection = try VADisplayConnection.open(.software)
        #expect {
            _ = try VASurfaceReader.readNV12(connection, surface: 0x7FFF_0000, surfaceWidth: 16, surfaceHeight: 16, crop: (0, 0, 16, 16))
        } throws: { error in
            (error as? VAError)?.function.hasPrefix("vaSyncSurface") == true
        }
    }

    @Test("What the writer puts into a surface the reader reads back, through derived and created images alike",
          arguments: [true, false])
    func writeThenRead(derive: Bool) throws {
        let connection = try VADisplayConnection.open(.software)
        let surfaces = try VASurfaceSet(connection, width: 32, height: 32, count: 1)
        var picture = PixelBuffer(format: .nv12, width: 30, height: 18)
        for p in picture.planes.indices {
            for i in picture.planes[p].bytes.indices { picture.planes[p].bytes[i] = UInt8(truncatingIfNeeded: i * 7 + p * 50) }
        }
        try VASurfaceWriter.writeNV12(connection, picture, to: surfaces.ids[0], surfaceWidth: 32, surfaceHeight: 32, derive: derive)
        let back = try VASurfaceReader.readNV12(connection, surface: surfaces.ids[0], surfaceWidth: 32, surfaceHeight: 32, crop: (0, 0, 30, 18))
        #expect(back.planes.map(\.bytes) == picture.planes.map(\.bytes))
    }
}
