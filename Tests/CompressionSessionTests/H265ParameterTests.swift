@testable import CompressionSession
import CLibVA
import H265Bitstream
import H265Decoding
import Testing
import VideoAcceleration
import VideoDecoding
import VTKMedia

/// H.265 parameters from the GOP planner, without a driver:
/// - negotiation: low-delay B where the driver has list 1 but no FUTURE prediction direction (iHD's VDEnc),
///   the largest CTB the driver codes, the smallest level (Table A.8);
/// - the slice headers vtk writes: every reference the planner holds is in the short-term RPS (so a decoder
///   keeps it, 8.3.2), marked used exactly when a list names it, and the lists vtk's H.265 decoding process
///   builds from that RPS and the header (8.3.4, H265ReferencePictureLists) are the planned ones;
/// - nal_unit_type: IDR_W_RADL, CRA for open-GOP key frames, RASL for the B pictures before a CRA.
@Suite("H.265 encode parameters from the GOP planner")
struct H265ParameterTests {
    typealias Plan = H264GOPPlanner.PicturePlan

    static func capabilities(l0: Int = 4, l1: Int = 1, direction: UInt32? = nil, ctb: ClosedRange<Int>? = nil) -> VAEncodeCapabilities {
        var caps = VAEncodeCapabilities(profile: VAProfileHEVCMain, rateControlModes: UInt32(VA_RC_CQP | VA_RC_CBR | VA_RC_VBR), packedHeaders: 0x1F,
                                        maxReferencesL0: l0, maxReferencesL1: l1, maxSlices: 1, maxWidth: 4096, maxHeight: 4096)
        caps.predictionDirection = direction
        caps.hevcCodingTreeBlockLog2Sizes = ctb
        return caps
    }

    static func configuration(_ p: CompressionProperties, caps: VAEncodeCapabilities = capabilities(),
                              width: Int = 320, height: Int = 192) throws -> EncoderConfiguration {
        var p = p
        p.codec = .h265
        return try EncoderConfiguration(width: width, height: height, properties: p) { _ in caps }
    }

    static func plans(_ c: EncoderConfiguration, count: Int) -> [Plan] {
        var planner = H264GOPPlanner(c.plannerConfiguration)
        var out: [Plan] = []
        for i in 0..<count { out += planner.push(presentationTime: MediaTime(value: Int64(i), timescale: 30)) }
        return out + planner.flush()
    }

    @Test("iHD LP: low-delay B, CTB 64; vtksoft: B-frames, CTB up to 64; level 3.1 for 720p30")
    func negotiation() throws {
        var p = CompressionProperties()
        p.allowFrameReordering = true
        p.maxConsecutiveBFrames = 2
        let lp = try Self.configuration(p, caps: Self.capabilities(l0: 3, l1: 3, direction: UInt32(VA_PREDICTION_DIRECTION_PREVIOUS | VA_PREDICTION_DIRECTION_BI_NOT_EMPTY),
                                                                   ctb: 6...6), width: 1280, height: 720)
        #expect(lp.lowDelayB && lp.bFrames == 0 && lp.ctbLog2Size == 6)
        #expect(lp.warnings.contains { $0.contains("low-delay B") })
        #expect(lp.levelIdc == 93)
        let soft = try Self.configuration(p, caps: Self.capabilities(ctb: 4...6), width: 1280, height: 720)
        #expect(!soft.lowDelayB && soft.bFrames == 2 && soft.ctbLog2Size == 6)
        let unreported = try Self.configuration(p)
        #expect(unreported.ctbLog2Size == 5)  // FFmpeg's guess without VAConfigAttribEncHEVCBlockSizes
        var main10 = p
        main10.hevcProfile = .main10
        let ten = try Self.configuration(main10)
        #expect(ten.vaProfile == VAProfileHEVCMain10 && ten.bitDepth == 10)
        #expect(H265StreamHeaders(configuration: ten).sps.bitDepthLumaMinus8 == 2)
    }

    struct Case: Sendable, CustomStringConvertible {
        var bFrames = 0
        var pyramid = false
        var refs = 1
        var openGOP = false
        var lowDelay = false
        var description: String { "bf \(bFrames)\(pyramid ? " pyramid" : "") refs \(refs)\(openGOP ? " open" : "")\(lowDelay ? " low-delay B" : "")" }
    }

    static let cases: [Case] = [Case(), Case(bFrames: 2), Case(bFrames: 3, pyramid: true), Case(refs: 3), Case(bFrames: 2, openGOP: true),
                                Case(refs: 3, lowDelay: true)]

    @Test("RPS holds the planner's references; the decoder's lists from it are the planned ones", arguments: cases)
    func referenceLists(_ k: Case) throws {
        var p = CompressionProperties()
        p.allowFrameReordering = k.bFrames > 0
        p.maxConsecutiveBFrames = k.bFrames
        p.bPyramid = k.pyramid
        p.referenceFrameCount = k.refs
        p.allowOpenGOP = k.openGOP
        p.maxKeyFrameInterval = 8
        let caps = k.lowDelay ? Self.capabilities(l0: 3, l1: 3, direction: UInt32(VA_PREDICTION_DIRECTION_PREVIOUS)) : Self.capabilities()
        let c = try Self.configuration(p, caps: caps)
        let headers = H265StreamHeaders(configuration: c)
        var lastIRAP = 0
        var seenTypes: Set<UInt8> = []
        for plan in Self.plans(c, count: 30) {
            if plan.isIntra { lastIRAP = plan.displayIndex }
            let leading = plan.displayIndex < lastIRAP
            let h = headers.sliceHeader(plan, leading: leading)
            seenTypes.insert(h.nalUnitType.rawValue)
            if plan.isIDR { #expect(h.nalUnitType == .idrWRADL); continue }
            if plan.type == .i { #expect(h.nalUnitType == .cra) }
            #expect(leading == (h.nalUnitType == .raslN || h.nalUnitType == .raslR), "\(k) picture \(plan.displayIndex)")
            // Every held reference is in the RPS, by POC.
            let rps = h.shortTermRefPicSet
            let pocs = (rps.deltaPocS0 + rps.deltaPocS1).map { plan.picOrderCnt + $0 }
            #expect(Set(pocs) == Set(plan.referenceFrames.map(\.picOrderCnt)) && pocs.count == plan.referenceFrames.count, "\(k) picture \(plan.displayIndex)")
            // The decoder's 8.3.2 split and 8.3.4 lists, pictures named by POC.
            var set = H265ReferencePictureSet()
            set.stCurrBefore = zip(rps.deltaPocS0, rps.usedByCurrPicS0).filter(\.1).map { PictureID(rawValue: plan.picOrderCnt + $0.0) }
            set.stCurrAfter = zip(rps.deltaPocS1, rps.usedByCurrPicS1).filter(\.1).map { PictureID(rawValue: plan.picOrderCnt + $0.0) }
            let lists = H265ReferencePictureLists(slice: h, rps: set)
            let (l0, l1) = headers.lists(plan)
            #expect(lists.list0.map { $0?.rawValue } == l0.map(\.picOrderCnt), "\(k) picture \(plan.displayIndex) list 0")
            if h.sliceType == .b { #expect(lists.list1.map { $0?.rawValue } == l1.map(\.picOrderCnt), "\(k) picture \(plan.displayIndex) list 1") }
            if k.lowDelay && plan.type == .p {
                #expect(h.sliceType == .b && lists.list1 == lists.list0)
                #expect(l0.allSatisfy { $0.picOrderCnt < plan.picOrderCnt })
            }
        }
        if k.openGOP { #expect(seenTypes.contains(H265NALUnitType.cra.rawValue) && seenTypes.contains(H265NALUnitType.raslN.rawValue)) }
    }
}
