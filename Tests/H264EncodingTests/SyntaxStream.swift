import Foundation
import H264Bitstream
import VTKTestSupport
@testable import H264Encoding

/// Builds Annex B streams from macroblock syntax alone (no engine): SPS, PPS and one slice per picture,
/// every picture a reference (pic_order_cnt_type 2, so output order is decoding order), deblocking off
/// so I_PCM samples come back verbatim. Decodes them with FFmpeg's software decoder.
struct SyntaxStream {
    enum Coder: String, CustomStringConvertible {
        case cavlc, cabac
        var description: String { rawValue }
    }

    struct Picture {
        var sliceType: SliceType
        var sliceQP: Int
        var cabacInitIdc = 0
        var numRefIdxL0ActiveMinus1 = 0
        var numRefIdxL1ActiveMinus1 = 0
        var macroblocks: [MacroblockSyntax]
    }

    var widthInMbs: Int
    var heightInMbs: Int
    var high = false
    var transform8x8Mode = false
    var pictures: [Picture] = []

    var width: Int { widthInMbs * 16 }
    var height: Int { heightInMbs * 16 }
    var frameSize: Int { width * height * 3 / 2 }

    var sps: SequenceParameterSet {
        var sps = SequenceParameterSet()
        sps.profileIdc = high ? 100 : 77
        sps.levelIdc = 40
        sps.log2MaxFrameNumMinus4 = 4
        sps.picOrderCntType = 2
        sps.maxNumRefFrames = 4
        sps.picWidthInMbsMinus1 = widthInMbs - 1
        sps.picHeightInMapUnitsMinus1 = heightInMbs - 1
        sps.frameMbsOnlyFlag = true
        sps.direct8x8InferenceFlag = true
        return sps
    }

    func pps(_ coder: Coder) -> PictureParameterSet {
        var pps = PictureParameterSet()
        pps.entropyCodingModeFlag = coder == .cabac
        pps.deblockingFilterControlPresentFlag = true
        pps.hasHighProfileTail = high
        pps.transform8x8ModeFlag = transform8x8Mode
        return pps
    }

    /// The whole stream, each slice written by `coder`.
    func annexB(_ coder: Coder) -> [UInt8] {
        let sps = sps, pps = pps(coder)
        var out: [UInt8] = []
        func put(_ nal: [UInt8]) { out += [0, 0, 0, 1] + nal }
        put(Array(sps.nalUnit().bytes))
        put(Array(pps.nalUnit(sps: sps).bytes))
        for (index, picture) in pictures.enumerated() {
            var header = SliceHeader()
            header.nalUnitType = index == 0 ? .idrSlice : .nonIDRSlice
            header.nalRefIdc = 3
            header.sliceTypeRaw = picture.sliceType.rawValue + 5
            header.frameNum = index % 256
            header.directSpatialMvPredFlag = true
            header.numRefIdxActiveOverrideFlag = picture.sliceType != .i
            header.numRefIdxL0ActiveMinus1 = picture.numRefIdxL0ActiveMinus1
            header.numRefIdxL1ActiveMinus1 = picture.numRefIdxL1ActiveMinus1
            header.decRefPicMarking = DecRefPicMarking()
            header.cabacInitIdc = picture.cabacInitIdc
            header.sliceQpDelta = picture.sliceQP - 26
            header.disableDeblockingFilterIdc = 1
            var w = BitWriter()
            header.write(&w, sps: sps, pps: pps)
            let coding = SliceCoding(sliceType: picture.sliceType, widthInMbs: widthInMbs, heightInMbs: heightInMbs,
                                     firstMbInSlice: 0, sliceQP: picture.sliceQP, cabacInitIdc: picture.cabacInitIdc,
                                     numRefIdxL0ActiveMinus1: picture.numRefIdxL0ActiveMinus1,
                                     numRefIdxL1ActiveMinus1: picture.numRefIdxL1ActiveMinus1,
                                     transform8x8Mode: transform8x8Mode, direct8x8Inference: true)
            let rbsp: [UInt8]
            switch coder {
            case .cavlc: rbsp = Self.writeSlice(CAVLCSliceWriter(header: w, slice: coding), picture.macroblocks)
            case .cabac: rbsp = Self.writeSlice(CABACSliceWriter(header: w, slice: coding), picture.macroblocks)
            }
            put([rbsp[0]] + EmulationPrevention.insert(Array(rbsp.dropFirst())))
        }
        return out
    }

    private static func writeSlice<W: SliceDataWriter>(_ writer: W, _ macroblocks: [MacroblockSyntax]) -> [UInt8] {
        var writer = writer
        for mb in macroblocks { writer.write(mb) }
        return writer.finish()
    }

    struct Decoded {
        var frames: [[UInt8]]
        var errors: String
    }

    /// FFmpeg's software decode as yuv420p frames, and whatever it printed at -v error.
    func decode(_ coder: Coder) throws -> Decoded {
        let url = TestPaths.scratch.appendingPathComponent("syntax-\(coder)-\(UUID().uuidString).h264")
        try Data(annexB(coder)).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-f", "h264", "-i", url.path, "-fps_mode", "passthrough",
                                                      "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        let bytes = [UInt8](result.stdout)
        let frames = stride(from: 0, to: bytes.count - frameSize + 1, by: frameSize).map { Array(bytes[$0..<$0 + frameSize]) }
        return Decoded(frames: frames, errors: result.stderrText + (result.status != 0 ? "\nexit status \(result.status)" : ""))
    }

    /// The samples of macroblock `addr` in a yuv420p frame, in pcm_sample order (luma 256, Cb 64, Cr 64).
    func macroblockSamples(_ frame: [UInt8], _ addr: Int) -> [UInt8] {
        let mbX = addr % widthInMbs, mbY = addr / widthInMbs
        var out: [UInt8] = []
        out.reserveCapacity(384)
        for y in 0..<16 {
            let start: Int = (mbY * 16 + y) * width + mbX * 16
            out += frame[start..<start + 16]
        }
        let chromaWidth = width / 2
        for plane in 0..<2 {
            let base: Int = width * height + plane * chromaWidth * (height / 2)
            for y in 0..<8 {
                let start: Int = base + (mbY * 8 + y) * chromaWidth + mbX * 8
                out += frame[start..<start + 8]
            }
        }
        return out
    }

    /// Where two decodes first differ: picture, macroblock address and kind, or nil.
    func firstDifference(_ a: [[UInt8]], _ b: [[UInt8]]) -> String? {
        guard a.count == b.count else { return "frame counts differ: \(a.count) vs \(b.count)" }
        for (index, (fa, fb)) in zip(a, b).enumerated() where fa != fb {
            for addr in 0..<(widthInMbs * heightInMbs) where macroblockSamples(fa, addr) != macroblockSamples(fb, addr) {
                let picture = pictures[index]
                return "picture \(index) (\(picture.sliceType), QP \(picture.sliceQP), cabac_init_idc \(picture.cabacInitIdc)): "
                    + "first differing macroblock \(addr) (x \(addr % widthInMbs), y \(addr / widthInMbs)), "
                    + "\(picture.macroblocks[addr].kind)"
            }
        }
        return nil
    }

    /// I_PCM macroblocks whose decoded samples are not their pcm samples, described.
    func pcmMismatches(_ frames: [[UInt8]]) -> [String] {
        var out: [String] = []
        for (index, picture) in pictures.enumerated() where index < frames.count {
            for (addr, mb) in picture.macroblocks.enumerated() where mb.kind == .pcm {
                if macroblockSamples(frames[index], addr) != mb.pcmSamples { out.append("picture \(index) macroblock \(addr)") }
            }
        }
        return out
    }
}
