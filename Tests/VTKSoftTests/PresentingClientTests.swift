import Foundation
import Testing
import VTKTestSupport

/// Third-party VA clients that present, through vtksoft's vaPutSurface, on the test process's Xvfb: a screenshot
/// (xwd of the root window, where the client's window sits at 0,0 with no window manager) equals the frame
/// FFmpeg's software decoder gives, converted to RGB by swscale. Each waits for its picture with a generous
/// bound that only a broken run reaches; nothing depends on how fast the client plays.
@Suite("Third-party clients present through vtksoft", .serialized,
       .enabled(if: PresentingClients.unavailableReason == nil, Comment(rawValue: PresentingClients.unavailableReason ?? "")))
struct PresentingClientTests {
    /// vaapi-copy: vtksoft decodes, mpv copies the frames out and vo_vaapi puts them back (vaPutImage) in surfaces it
    /// presents. vaapi: the command; mpv 0.35 finds no decode device with --vo=vaapi, decodes in software and
    /// presents the same way.
    @Test("mpv --vo=vaapi shows the stream's last frame (kept open) in its window",
          .enabled(if: ProcessRunner.which("mpv") != nil, "mpv not installed: skipping the mpv --vo=vaapi check"),
          arguments: ["vaapi-copy", "vaapi"])
    func mpv(hwdec: String) throws {
        let stream = try #require(GeneratedStream.standard.first)  // 176x144, 30 frames of testsrc2
        let url = try stream.url()
        let last = try #require(try RGBImage.ffmpegFrame(url, index: stream.frames - 1, width: stream.width, height: stream.height))
        let first = try #require(try RGBImage.ffmpegFrame(url, index: 0, width: stream.width, height: stream.height))
        let player = try BackgroundProcess("mpv", ["--no-config", "--vo=vaapi", "--hwdec=\(hwdec)", "--keep-open=yes", "--geometry=+0+0",
                                                   "--no-audio", "--osd-level=0", url.path], environment: PresentingClients.environment)
        defer { player.stop() }
        let shown = PresentingClients.waitForPicture(last, player: player)
        let output = player.stop().output
        print("mpv --hwdec=\(hwdec): Y-PSNR of the window against frame \(stream.frames - 1): \(shown.psnr) dB; against frame 0: \(shown.againstFirst(first)) dB")
        #expect(shown.psnr >= PresentingClients.minimumPSNR, "mpv's window never showed the last frame: best Y-PSNR \(shown.psnr) dB. mpv said:\n\(output)")
        #expect(shown.againstFirst(first) < 30, "the window matches frame 0 as well: the check cannot tell frames apart")
        #expect(output.contains("VO: [vaapi]"), "mpv did not use vo=vaapi:\n\(output)")
        if hwdec == "vaapi-copy" {
            #expect(output.contains("Using hardware decoding (vaapi-copy)"), "mpv did not decode through VA-API:\n\(output)")
        }
    }

    @Test("GStreamer vaapih264dec ! vaapisink shows the picture, and no longer reports 'could not render surface'",
          .enabled(if: PresentingClients.gstreamerVAAPI, "GStreamer's vaapih264dec/vaapisink (gstreamer1.0-vaapi) not installed: skipping the vaapisink check"))
    func vaapisink() throws {
        // One picture, decoded again and again (multifilesrc loops): whatever instant the screenshot catches shows it.
        let stream = GeneratedStream(name: "x264-one-idr-176x144", width: 176, height: 144, frames: 1,
                                     encoderOptions: ["-c:v", "libx264", "-profile:v", "baseline"])
        let url = try stream.url()
        let picture = try #require(try RGBImage.ffmpegFrame(url, index: 0, width: stream.width, height: stream.height))
        let pipeline = ["multifilesrc", "location=\(url.path)", "loop=true", "!", "h264parse", "!", "vaapih264dec", "!", "vaapisink", "sync=false"]
        let sink = try BackgroundProcess("gst-launch-1.0", pipeline, environment: PresentingClients.environment)
        defer { sink.stop() }
        let shown = PresentingClients.waitForPicture(picture, player: sink)
        let running = sink.isRunning
        let output = sink.stop().output
        print("vaapisink: Y-PSNR of the window against the picture: \(shown.psnr) dB")
        #expect(shown.psnr >= PresentingClients.minimumPSNR, "vaapisink's window never showed the picture: best Y-PSNR \(shown.psnr) dB. gst-launch said:\n\(output)")
        #expect(running, "gst-launch-1.0 stopped on its own:\n\(output)")
        #expect(!output.contains("could not render surface"), "vaapisink:\n\(output)")
    }

    @Test("vaapisink on the nvidia persona, whose vaPutSurface is unimplemented, reports 'could not render surface' (vtksoft before vaPutSurface)",
          .enabled(if: PresentingClients.gstreamerVAAPI, "GStreamer's vaapih264dec/vaapisink (gstreamer1.0-vaapi) not installed: skipping the vaapisink check"))
    func vaapisinkWithoutPresentation() throws {
        let url = try GeneratedStream(name: "x264-one-idr-176x144", width: 176, height: 144, frames: 1,
                                      encoderOptions: ["-c:v", "libx264", "-profile:v", "baseline"]).url()
        let sink = try BackgroundProcess("gst-launch-1.0", ["filesrc", "location=\(url.path)", "!", "h264parse", "!", "vaapih264dec", "!", "vaapisink"],
                                         environment: PresentingClients.environment.merging(["VTKSOFT_PERSONA": "nvidia"]) { $1 })
        #expect(sink.wait { !sink.isRunning }, "gst-launch-1.0 did not end")
        let result = sink.stop()
        #expect(result.status != 0)
        #expect(result.output.contains("could not render surface"), "gst-launch said:\n\(result.output)")
    }
}

enum PresentingClients {
    static let unavailableReason: String? = {
        if let reason = VTKSoftFFmpeg.unavailableReason { return reason }
        if !X11Screenshot.isInstalled { return "xwd (x11-apps) not installed: skipping the third-party presentation checks" }
        return nil
    }()

    static let gstreamerVAAPI: Bool = {
        guard ProcessRunner.which("gst-inspect-1.0") != nil, ProcessRunner.which("gst-launch-1.0") != nil else { return false }
        return ["vaapih264dec", "vaapisink"].allSatisfy { (try? ProcessRunner.run("gst-inspect-1.0", [$0], environment: environment))?.status == 0 }
    }()

    /// vtksoft on the test's Xvfb; gstreamer-vaapi otherwise refuses drivers not on its list.
    static var environment: [String: String] {
        VTKSoftDriverLocation.clientEnvironment(display: Xvfb.shared?.display ?? ":0", extra: ["GST_VAAPI_ALL_DRIVERS": "1"])
    }

    /// BT.601 through two different converters (vtksoft's libyuv, FFmpeg's swscale) differs by a level or two.
    static let minimumPSNR = 38.0

    struct Shown {
        var psnr = 0.0
        var image: RGBImage?
        func againstFirst(_ other: RGBImage) -> Double { image?.lumaPSNR(other) ?? 0 }
    }

    /// Screenshots the window's place (0,0, the picture's size) until it shows `picture` or the client ends.
    static func waitForPicture(_ picture: RGBImage, player: BackgroundProcess) -> Shown {
        var best = Shown()
        _ = player.wait {
            guard let display = Xvfb.shared?.display,
                  let shot = X11Screenshot.root(display: display)?.cropped(x: 0, y: 0, width: picture.width, height: picture.height) else { return false }
            let psnr = shot.lumaPSNR(picture)
            if psnr > best.psnr { best = Shown(psnr: psnr, image: shot) }
            return psnr >= minimumPSNR
        }
        return best
    }
}
