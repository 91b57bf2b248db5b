import Foundation

/// Runs GStreamer's vaapih264dec (gstreamer-vaapi) against vtksoft on the test process's Xvfb display.
public enum VTKSoftGStreamer {
    /// The environment of a GStreamer client of vtksoft: gstreamer-vaapi refuses drivers not on its list
    /// (vtksoft) unless GST_VAAPI_ALL_DRIVERS is set.
    static var environment: [String: String] {
        VTKSoftDriverLocation.clientEnvironment(display: Xvfb.shared?.display ?? ":0", extra: ["GST_VAAPI_ALL_DRIVERS": "1"])
    }

    /// Why the GStreamer checks cannot run here, or nil when they can.
    public static let unavailableReason: String? = {
        if let reason = VTKSoftFFmpeg.unavailableReason { return reason }
        guard ProcessRunner.which("gst-launch-1.0") != nil, ProcessRunner.which("gst-inspect-1.0") != nil else {
            return "gst-launch-1.0 not installed (gstreamer1.0-tools, gstreamer1.0-vaapi): skipping the GStreamer VA client checks"
        }
        let inspect = try? ProcessRunner.run("gst-inspect-1.0", ["vaapih264dec"], environment: environment)
        if inspect?.status != 0 { return "GStreamer has no vaapih264dec on vtksoft (gstreamer1.0-vaapi): skipping the GStreamer VA client checks" }
        return nil
    }()

    public static var isAvailable: Bool { unavailableReason == nil }

    /// MD5 of the I420 frames vaapih264dec decodes from `stream` through vtksoft, and the run (leaks,
    /// violations). `-q` keeps gst-launch quiet; the output file is the frames one after another.
    public static func decodeMD5(_ stream: URL) throws -> (md5: String?, run: VTKSoftFFmpeg.Run) {
        let output = TestPaths.scratch.appendingPathComponent("gst-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try VTKSoftFFmpeg.runReporting("gst-launch-1.0", [
            "-q", "filesrc", "location=\(stream.path)", "!", "h264parse", "!", "vaapih264dec", "!", "videoconvert", "dither=none", "!",
            "video/x-raw,format=I420", "!", "filesink", "location=\(output.path)",
        ], environment: environment)
        guard run.result.status == 0, let data = try? Data(contentsOf: output), !data.isEmpty else { return (nil, run) }
        let md5 = try ProcessRunner.run("md5sum", [output.path]).stdoutText.split(separator: " ").first.map(String.init)
        return (md5, run)
    }

    /// Encodes `frames` frames of videotestsrc at `width` x `height` with vaapih265enc through vtksoft into an
    /// H.265 Annex B file, and the run (leaks, violations).
    public static func encodeH265(frames: Int, width: Int, height: Int, to output: URL) throws -> VTKSoftFFmpeg.Run {
        try VTKSoftFFmpeg.runReporting("gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=\(frames)", "!", "video/x-raw,width=\(width),height=\(height),format=NV12", "!",
            "vaapih265enc", "!", "h265parse", "!", "filesink", "location=\(output.path)",
        ], environment: environment)
    }
}
