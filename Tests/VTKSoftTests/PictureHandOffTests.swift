import CLibVA
import Foundation
import Testing
import VTKTestSupport

/// Who runs a decode picture (PictureWorker): a client thread that waits for it runs it itself when nobody has
/// started it, the worker when the client goes on. Either way the picture is done when any call that reads it
/// returns, pictures run in submission order, and one nobody waits for still gets done.
@Suite("vtksoft picture hand-off")
struct PictureHandOffTests {
    /// Nobody syncs: polling vaQuerySurfaceStatus alone must see the picture finish (the poll starts the worker).
    @Test("A decode picture nobody waits for finishes while the client polls vaQuerySurfaceStatus")
    func statusPollFinishesThePicture() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let client = VTKSoftVAClient(display: owner.display)
        let stream = try client.encodeOnePicture()
        let decode = try VTKSoftVAClient.DecodeContext(client)
        defer { decode.destroy() }
        let target = decode.targets[0]
        try client.submitDecode(stream, context: decode.id, target: target)
        var status = VASurfaceRendering
        var polls = 0
        while status == VASurfaceRendering, polls < 120_000 {
            try client.check(vaQuerySurfaceStatus(owner.display, target, &status), "vaQuerySurfaceStatus")
            if status == VASurfaceRendering { usleep(1000) }
            polls += 1
        }
        #expect(status == VASurfaceReady, "still Rendering after \(polls) polls")
        // Read without vaSyncSurface: the pixels are there already.
        #expect(VTKSoftVAClient.error(try client.luma(target, sync: false)) < 3)
    }

    /// Three pictures submitted, then the last one synced from a thread that submitted none: the pictures run
    /// oldest first, so when that sync returns the earlier two are done too, each surface holding its picture.
    @Test("Syncing the last of three pictures from another thread finishes all three")
    func syncFromAnotherThreadRunsTheQueue() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let client = VTKSoftVAClient(display: owner.display)
        let stream = try client.encodeOnePicture()
        let decode = try VTKSoftVAClient.DecodeContext(client, count: 3)
        defer { decode.destroy() }
        for target in decode.targets { try client.submitDecode(stream, context: decode.id, target: target) }
        nonisolated(unsafe) let display = owner.display
        let last = decode.targets[2]
        let synced = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status = VAStatus(VA_STATUS_ERROR_OPERATION_FAILED)
        Thread.detachNewThread {
            status = vaSyncSurface(display, last)
            synced.signal()
        }
        synced.wait()
        #expect(status == VA_STATUS_SUCCESS)
        for target in decode.targets {
            var surfaceStatus = VASurfaceRendering
            try client.check(vaQuerySurfaceStatus(owner.display, target, &surfaceStatus), "vaQuerySurfaceStatus")
            #expect(surfaceStatus == VASurfaceReady, "surface \(target) once a later picture is synced")
            #expect(VTKSoftVAClient.error(try client.luma(target, sync: false)) < 3, "surface \(target)")
        }
    }
}
