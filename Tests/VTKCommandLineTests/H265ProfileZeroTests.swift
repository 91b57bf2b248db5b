import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// H.265 streams whose general_profile_idc is 0, as early test streams have it: vtk infers Main or Main 10
/// (from the compatibility flags, else the bit depth) as FFmpeg and libde265 do, says so in one warning,
/// and decodes them to the MD5 of the unedited stream.
@Suite("vtk decode of H.265 general_profile_idc 0", .serialized,
       .enabled(if: VTKBinary.available, VTKBinary.missing), .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct H265ProfileZeroTests {
    /// `bytes` with general_profile_idc 0 in every VPS and SPS (profile_tier_level(), 7.3.3, starts at byte 4
    /// of a VPS's RBSP after its 2-byte header and at byte 1 of an SPS's), and, when `clearFlags`, every
    /// general_profile_compatibility_flag 0 too. The RBSP is edited and escaped again.
    static func profileZero(_ bytes: [UInt8], clearFlags: Bool) -> [UInt8] {
        let units = AnnexBScanner.nalUnits(in: bytes).map { unit -> NALUnit in
            let type = (unit.bytes.first ?? 0) >> 1 & 0x3F
            guard type == 32 || type == 33 else { return unit }
            var rbsp = EmulationPrevention.remove(unit.bytes.dropFirst(2))
            let ptl = type == 32 ? 4 : 1
            guard rbsp.count > ptl + 5 else { return unit }
            rbsp[ptl] &= 0xE0  // general_profile_space (2) and general_tier_flag kept, general_profile_idc 0
            if clearFlags { for i in ptl + 1...ptl + 4 { rbsp[i] = 0 } }
            return NALUnit(Array(unit.bytes.prefix(2)) + EmulationPrevention.insert(rbsp), offset: unit.offset)
        }
        return AnnexBScanner.byteStream(units)
    }

    struct Case: Sendable, CustomStringConvertible {
        let stream: GeneratedStream
        let clearFlags: Bool
        let decodedAs: String
        var description: String { "\(stream.name)\(clearFlags ? ", no compatibility flags" : "")" }
    }

    static let cases: [Case] = [
        Case(stream: GeneratedStream.h265[0], clearFlags: false, decodedAs: "Main, from general_profile_compatibility_flag[1]"),
        Case(stream: GeneratedStream.h265[0], clearFlags: true, decodedAs: "Main, from the bit depth (8-bit"),
        Case(stream: GeneratedStream.h265[2], clearFlags: true, decodedAs: "Main 10, from the bit depth (10-bit"),
    ]

    @Test("vtk decode --md5 of the stream rewritten to general_profile_idc 0 equals the original's, with one warning", arguments: cases)
    func decodesAsOriginal(_ item: Case) throws {
        let original = try item.stream.url()
        let edited = TestPaths.scratch.appendingPathComponent("profile0-\(UUID().uuidString).265")
        defer { try? FileManager.default.removeItem(at: edited) }
        let bytes = [UInt8](try Data(contentsOf: original))
        let rewritten = Self.profileZero(bytes, clearFlags: item.clearFlags)
        #expect(rewritten != bytes)
        try Data(rewritten).write(to: edited)
        // Without compatibility flags FFmpeg, the oracle, names no profile either.
        if item.clearFlags {
            let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=profile", "-of", "csv=p=0", edited.path])
            #expect(!probe.stdoutText.contains("Main"), "ffprobe still sees a named profile: \(probe.stdoutText)")
        }
        let want = try VTKBinary.run(["decode", original.path, "--md5", "--device", "soft", "-q"])
        let got = try VTKBinary.run(["decode", edited.path, "--md5", "--device", "soft"])
        #expect(want.status == 0 && got.status == 0, "\(got.stderrText)")
        let md5 = got.stdoutText.split(separator: "\n").first { $0.hasPrefix("MD5=") }.map(String.init)
        #expect(md5 != nil && md5 == want.stdoutText.split(separator: "\n").first.map(String.init))
        let warnings = got.stderrText.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "\(got.stderrText)")
        #expect(warnings.first?.contains("general_profile_idc is 0") == true && warnings.first?.contains(item.decodedAs) == true, "\(got.stderrText)")
    }
}
