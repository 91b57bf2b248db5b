import Foundation
import Testing
import VTKTestSupport

/// `vtk play` through vaPutSurface moves no picture through the CPU: vtksoft's capture (VTKSOFT_CAPTURE with
/// VTKSOFT_CAPTURE_CALLS=1) has a line for every vaDeriveImage, vaGetImage, vaPutImage and vaPutSurface.
/// Rules of the count: decoded surfaces are shown where they are, so a run has no image call at all and one
/// vaPutSurface of a real surface per frame the timing log says was shown (the presenter's probe of
/// VA_INVALID_SURFACE at start is not a frame). The old copy path (`--present va-copy`, hidden) is the
/// control: the same count sees at least a readback and a write per frame shown there.
extension PlayTests {
    struct CapturedCalls {
        var imageCalls = 0
        var putSurfaces = 0
        var pictures = 0
    }

    static func capturedCalls(_ capture: URL) throws -> CapturedCalls {
        var calls = CapturedCalls()
        for line in try String(contentsOf: capture, encoding: .utf8).split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["picture"] != nil { calls.pictures += 1 }
            switch object["call"] as? String {
            case "vaDeriveImage", "vaGetImage", "vaPutImage": calls.imageCalls += 1
            case "vaPutSurface" where (object["surface"] as? Int) != 0xFFFF_FFFF: calls.putSurfaces += 1
            default: break
            }
        }
        return calls
    }

    /// Plays `frames` frames with `present`; the calls captured and the frames the timing log says were shown.
    static func playCapturing(_ stream: Stream, present: String, frames: Int) throws -> (calls: CapturedCalls, shown: Int) {
        let capture = TestPaths.scratch.appendingPathComponent("play-calls-\(present).jsonl")
        let log = TestPaths.scratch.appendingPathComponent("play-calls-\(present)-timing.jsonl")
        try? FileManager.default.removeItem(at: capture)
        let result = try VTKBinary.run(["play", stream.url.path, "--fps", "25", "--rate", "4", "--present", present, "--frames", "\(frames)",
                                        "--timing-log", log.path],
                                       extraEnvironment: ["DISPLAY": try #require(server).display, "VTKSOFT_CAPTURE": capture.path,
                                                          "VTKSOFT_CAPTURE_CALLS": "1"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("(vaPutSurface)"), "\(result.stderrText)")
        let shown = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["presented"] as? Double != nil
        }.count
        return (try capturedCalls(capture), shown)
    }

    @Test("vtk play through vaPutSurface shows each decoded surface where it is: no vaDeriveImage, vaGetImage or vaPutImage in vtksoft's capture, one vaPutSurface per frame shown (the copy path, the control, has them)",
          .enabled(if: ready, missing))
    func zeroCopyPresentation() throws {
        let stream = try #require(try Self.generated().first)
        let direct = try Self.playCapturing(stream, present: "va", frames: 12)
        // Not "12 pictures decoded": --frames counts frames shown, dropped or skipped, and a decode slower than
        // the 10 ms frame period (a sanitizer build on a busy machine) skips frames never decoded.
        #expect(direct.shown > 0 && direct.calls.pictures >= direct.shown, "shown \(direct.shown), pictures decoded \(direct.calls.pictures)")
        #expect(direct.calls.imageCalls == 0, "image calls: \(direct.calls.imageCalls) for \(direct.shown) frames shown")
        #expect(direct.calls.putSurfaces == direct.shown, "vaPutSurface \(direct.calls.putSurfaces) times for \(direct.shown) frames shown")
        let copied = try Self.playCapturing(stream, present: "va-copy", frames: 12)
        #expect(copied.shown > 0)
        #expect(copied.calls.imageCalls >= 2 * copied.shown, "copy path: \(copied.calls.imageCalls) image calls for \(copied.shown) frames shown")
        print("vtk play --present va: \(direct.calls.imageCalls) image calls, \(direct.calls.putSurfaces) vaPutSurface for \(direct.shown) frames shown; "
              + "va-copy: \(copied.calls.imageCalls) image calls for \(copied.shown)")
    }
}
