@testable import DecompressionSession
import H264Bitstream
import H264Decoding
import Testing

/// VA has no plain Baseline profile: such pictures go to the driver as Main, which is right only without
/// Baseline's own tools (FMO, ASO, redundant slices). The check runs on the decoding process's requests
/// for streams written here with each tool.
@Suite("Plain Baseline decoded as Main only without FMO, ASO or redundant slices")
struct BaselineAsMainTests {
    /// One IDR picture of 2x2 macroblocks in two slices starting at `starts`, with `configure` applied to the PPS.
    static func request(constrained: Bool, starts: [Int], redundant: Bool = false,
                        configure: (inout PictureParameterSet) -> Void = { _ in }) throws -> PictureDecodeRequest {
        var sps = SequenceParameterSet()
        sps.profileIdc = 66
        sps.constraintSet1Flag = constrained
        sps.levelIdc = 30
        sps.picWidthInMbsMinus1 = 1
        sps.picHeightInMapUnitsMinus1 = 1
        var pps = PictureParameterSet()
        pps.redundantPicCntPresentFlag = redundant
        configure(&pps)
        var units = [sps.nalUnit(), pps.nalUnit(sps: sps)]
        for (i, start) in starts.enumerated() {
            var h = SliceHeader()
            h.nalUnitType = .idrSlice
            h.nalRefIdc = 3
            h.firstMbInSlice = start
            h.sliceTypeRaw = 7
            h.redundantPicCnt = redundant && i == starts.count - 1 ? 1 : 0
            h.decRefPicMarking = DecRefPicMarking()
            var w = BitWriter()
            h.write(&w, sps: sps, pps: pps)
            w.rbspTrailingBits()
            units.append(NALUnit([w.bytes[0]] + EmulationPrevention.insert(Array(w.bytes.dropFirst()))))
        }
        var process = H264DecodingProcess()
        for unit in AccessUnitAssembler.accessUnits(in: AnnexBScanner.byteStream(units)) {
            for event in process.decode(unit) { if case .decode(let request) = event { return request } }
        }
        throw DecompressionError.internalInconsistency("no picture decoded")
    }

    func refusal(_ request: PictureDecodeRequest) -> String? {
        do { try H264VAAccelerator.checkBaselineAsMain(request); return nil } catch { return "\(error)" }
    }

    @Test func plainBaselineWithoutItsToolsGoesAsMain() throws {
        #expect(refusal(try Self.request(constrained: false, starts: [0, 2])) == nil)
        #expect(refusal(try Self.request(constrained: true, starts: [2, 0])) == nil)  // Constrained Baseline goes as itself
    }

    @Test func arbitrarySliceOrderIsRefused() throws {
        #expect(refusal(try Self.request(constrained: false, starts: [2, 0]))?.contains("arbitrary slice order") == true)
    }

    @Test func sliceGroupsAreRefused() throws {
        let request = try Self.request(constrained: false, starts: [0, 2]) { pps in
            pps.numSliceGroupsMinus1 = 1
            pps.sliceGroupMapType = 2
            pps.topLeft = [0]
            pps.bottomRight = [0]
        }
        #expect(refusal(request)?.contains("slice groups") == true)
    }
}
