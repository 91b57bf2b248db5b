import Foundation
import H264Bitstream
import H264Decoding
import Testing
import VTKTestSupport

/// A lost IDR makes a frame_num gap that wraps around MaxFrameNum: the count it gave ("209 picture(s) lost" in a
/// 90-frame stream) was no count. The message names the frame_num values instead (7.4.3).
@Suite("frame_num gap message")
struct FrameNumGapMessageTests {
    @Test("a lost IDR: the gap is named by its frame_num values, with no wrapped-around count",
          .enabled(if: ProcessRunner.hasFFmpeg, "needs ffmpeg with libx264"))
    func lostIDR() throws {
        let stream = try GeneratedStream(name: "gap-message-30", width: 64, height: 48, frames: 30,
                                         encoderOptions: ["-c:v", "libx264", "-x264-params", "keyint=10:min-keyint=10:scenecut=0:bframes=0"]).url()
        let units = AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: stream))).filter(\.hasPicture)
        try #require(units.count == 30 && units[10].isIDR)
        var process = H264DecodingProcess()
        var problems: [String] = []
        for (index, unit) in units.enumerated() where index != 10 {
            for case .problem(let problem) in process.decode(unit) { problems.append(problem.description) }
        }
        let gap = try #require(problems.first { $0.contains("frame_num gap") }, "\(problems)")
        #expect(gap.contains("frame_num gap from 9 to 1"), "\(gap)")
        #expect(gap.hasPrefix("picture(s) lost before byte"), "no count: \(gap)")
    }
}
