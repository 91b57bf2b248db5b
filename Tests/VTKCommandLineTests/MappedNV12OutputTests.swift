import Foundation
import Testing
import VTKTestSupport

/// `vtk decode --pix-fmt nv12 -o FILE` writes each frame from the mapped surface (no read-back copy of its own).
/// The oracle is the conformance reference (reference.tsv's MD5 of the I420 output, framemd5/ per frame): FFmpeg
/// converts the raw NV12 file to I420 and sums it. Rules of the comparison:
/// - NV12 to I420 only moves bytes (no arithmetic), so equal I420 MD5s mean equal NV12 bytes.
/// - The streams cover a surface pitch wider than the picture (CIF: rows written apart, writev) and a cropped
///   picture with an odd-width visible area (CVFC1_Sony_C, 300x168); the 720p stream (pitch equal to the width:
///   one write per plane) is cut to its first frames with -n, checked frame by frame.
/// - The H.265 B-pyramid stream ends with several frames output at once (the final flush): past the two the
///   session lends, frames carry read-back pixels, and the file is the same.
/// - `soft:nvidia` refuses vaDeriveImage: vtk maps a vaGetImage copy instead, and the bytes are the same.
@Suite("vtk decode: raw NV12 written from the mapped surface", .serialized)
struct MappedNV12OutputTests {
    static let cases: [(folder: String, name: String, frames: Int?)] = [
        ("h264", "BA1_FT_C.264", nil), ("h264", "CVFC1_Sony_C.jsv", nil), ("h264", "VID_1280x720_cavlc_temporal_direct.264", 6),
        ("h265", "x265_cif_bpyramid.265", nil),
    ]

    @Test("raw NV12 output equals the reference, through vaDeriveImage and through vaGetImage",
          .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: ["soft", "soft:nvidia"])
    func rawNV12(device: String) throws {
        for (folder, name, frames) in Self.cases {
            guard let stream = ConformanceStream.rows(of: folder).first(where: { $0.file == name }) else {
                try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage))
            }
            let raw = TestPaths.scratch.appendingPathComponent("mapped-\(device.replacingOccurrences(of: ":", with: "-"))-\(name).nv12")
            let limit = frames.map { ["-n", "\($0)"] } ?? []
            let run = try VTKBinary.run(["decode", stream.url.path, "--pix-fmt", "nv12", "-o", raw.path, "--device", device, "-q"] + limit)
            #expect(run.status == 0, "\(name) on \(device): \(run.stderrText)")
            let count = frames ?? stream.frames
            let size = stream.width * stream.height + 2 * ((stream.width + 1) / 2) * ((stream.height + 1) / 2)
            #expect(try Data(contentsOf: raw).count == count * size, "\(name) on \(device): file size")
            let input = ["-v", "error", "-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(stream.width)x\(stream.height)", "-i", raw.path, "-pix_fmt", "yuv420p"]
            if frames == nil {
                let md5 = try ProcessRunner.run("ffmpeg", input + ["-f", "md5", "-"])
                #expect(md5.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "MD5=\(stream.md5)", "\(name) on \(device)")
            } else {
                let lines = try ProcessRunner.run("ffmpeg", input + ["-f", "framemd5", "-"]).stdoutText.split(separator: "\n")
                    .filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
                #expect(lines == Array(stream.frameMD5s.prefix(count)), "\(name) on \(device): frame MD5s")
            }
        }
    }

    @Test("with no output at all, frames are still mapped and counted, and the summary is the same as with output",
          .enabled(if: VTKBinary.available, VTKBinary.missing))
    func noOutput() throws {
        guard let stream = ConformanceStream.all.first(where: { $0.file == "BA1_FT_C.264" }) else {
            try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage))
        }
        let run = try VTKBinary.run(["decode", stream.url.path, "--device", "soft", "--json"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stdoutText.contains("\"frames\":\(stream.frames)") || run.stdoutText.contains("\"frames\": \(stream.frames)"), "\(run.stdoutText)")
    }
}
