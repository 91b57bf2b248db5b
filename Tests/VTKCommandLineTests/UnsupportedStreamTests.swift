import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// Streams vtk does not decode are refused in one line with the reason, exit 3, and are not-supported in a
/// suite (not failures): H.264 High 10, 4:2:2 and 4:4:4 (VA has no such profile) and SVC/MVC.
@Suite("vtk refuses what VA cannot decode", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct UnsupportedStreamTests {
    /// One refused stream: how it is made, and what the line must say.
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        /// libx264's pixel format, or nil for the 4:2:0 base stream.
        let pixelFormat: String?
        /// NAL units put after the parameter sets of the base stream (SVC/MVC headers FFmpeg cannot write).
        let inserted: [UInt8]
        let reason: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "high10", pixelFormat: "yuv420p10le", inserted: [], reason: "has no H.264 High 10 profile"),
        Case(name: "high422", pixelFormat: "yuv422p", inserted: [], reason: "has no H.264 4:2:2 decode profile"),
        Case(name: "high444", pixelFormat: "yuv444p", inserted: [], reason: "has no H.264 4:4:4 decode profile"),
        // A subset SPS (type 15, nal_ref_idc 3) of profile_idc 128 (Stereo High): only its first byte is read.
        Case(name: "mvc-subset-sps", pixelFormat: nil, inserted: [0, 0, 0, 1, 0x6F, 128, 0, 30, 0xFF, 0x80],
             reason: "H.264 MVC (Stereo High), profile_idc 128"),
        // A coded slice extension (type 20) with svc_extension_flag 1: an SVC enhancement layer.
        Case(name: "svc-slice-extension", pixelFormat: nil, inserted: [0, 0, 0, 1, 0x74, 0x80, 0, 0, 0x12, 0x80],
             reason: "H.264 SVC: vtk decodes single-layer streams only"),
    ]

    static func make(_ item: Case, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("\(item.name).264")
        try Fixture.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25", "-frames:v", "4", "-c:v", "libx264",
                            "-pix_fmt", item.pixelFormat ?? "yuv420p", url.path])
        guard !item.inserted.isEmpty else { return url }
        var bytes = [UInt8](try Data(contentsOf: url))
        // After the PPS: before the first slice (type 5) starts.
        let starts = AnnexBScanner.nalUnits(in: bytes).filter { $0.type == .idrSlice }.map(\.offset)
        let idr = try #require(starts.first) - 3  // the unit's offset is past its 3-byte start code
        let start = idr > 0 && bytes[idr - 1] == 0 ? idr - 1 : idr
        bytes.insert(contentsOf: item.inserted, at: start)
        try Data(bytes).write(to: url)
        return url
    }

    @Test("vtk decode: one line with the reason, exit 3, no MD5", arguments: cases)
    func refused(_ item: Case) throws {
        let stream = try Self.make(item, in: try Fixture.folder(item.name))
        let result = try VTKBinary.run(["decode", stream.path, "--md5", "--device", "soft"])
        #expect(result.status == 3, "\(result.stderrText)")
        #expect(!result.stdoutText.contains("MD5="), "\(result.stdoutText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(lines.first?.contains("unsupported format: ") == true && lines.first?.contains(item.reason) == true, "\(result.stderrText)")
    }

    @Test("vtk suite run: every refused stream is not-supported on vtk:soft, none fails")
    func suiteNotSupported() throws {
        let folder = try Fixture.folder("refused-suite")
        var vectors: [[String: Any]] = []
        for item in Self.cases {
            let stream = try Self.make(item, in: folder)
            // The MD5 is never reached; any value does.
            vectors.append(["name": item.name, "input_file": stream.lastPathComponent, "output_format": "yuv420p",
                            "result": String(repeating: "0", count: 32)])
        }
        let suite = folder.appendingPathComponent("refused.json")
        try JSONSerialization.data(withJSONObject: ["name": "refused", "codec": "H.264", "description": "refused streams",
                                                    "test_vectors": vectors]).write(to: suite)
        let json = folder.appendingPathComponent("report.json").path
        let run = try VTKBinary.run(["suite", "run", suite.path, "--resources", folder.path, "--decoder", "vtk:soft", "--json", json, "-q"])
        #expect(run.status == 0, "not-supported is not a failure: \(run.stdoutText) \(run.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]])
        #expect(results.count == Self.cases.count)
        for result in results {
            #expect(result["status"] as? String == "not-supported", "\(result)")
        }
    }
}
