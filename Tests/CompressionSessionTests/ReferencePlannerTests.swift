@testable import CompressionSession
import CLibVA
import Testing
import VideoAcceleration
import VTKMedia

@Suite("H264ReferencePlanner: frame_num, POC, IDRs and reference slots without VA")
struct ReferencePlannerTests {
    func plans(_ configuration: H264ReferencePlanner.Configuration, count: Int, forced: Set<Int> = [], fps: Int32 = 30) -> [H264ReferencePlanner.PicturePlan] {
        var planner = H264ReferencePlanner(configuration)
        return (0..<count).map { i in
            let time = MediaTime(value: Int64(i), timescale: fps)
            let plan = planner.next(presentationTime: time, forceKeyFrame: forced.contains(i))
            planner.commit(plan, presentationTime: time)
            return plan
        }
    }

    @Test func ipppWithOneReference() {
        let p = plans(.init(maxKeyFrameInterval: 4, referenceCount: 1, reconstructedSlots: 4), count: 9)
        #expect(p.map(\.isIDR) == [true, false, false, false, true, false, false, false, true])
        #expect(p.map(\.frameNum) == [0, 1, 2, 3, 0, 1, 2, 3, 0])
        #expect(p.map(\.picOrderCnt) == [0, 2, 4, 6, 0, 2, 4, 6, 0])
        #expect(p.map(\.idrPicId) == [0, 0, 0, 0, 1, 1, 1, 1, 2])
        #expect(p.map(\.reconstructedSlot) == [0, 1, 2, 3, 0, 1, 2, 3, 0])
        // Each P predicts from the picture before it, in the slot that picture was written to.
        for i in 1..<9 where !p[i].isIDR {
            #expect(p[i].references == [.init(slot: p[i - 1].reconstructedSlot, frameNum: p[i - 1].frameNum, picOrderCnt: p[i - 1].picOrderCnt)])
            #expect(!p[i].references.contains { $0.slot == p[i].reconstructedSlot })
        }
        #expect(p.filter(\.isIDR).allSatisfy { $0.references.isEmpty })
    }

    @Test func frameNumAndPOCWrap() {
        let p = plans(.init(referenceCount: 1, reconstructedSlots: 2, log2MaxFrameNum: 4, log2MaxPicOrderCntLsb: 4), count: 20)
        #expect(p.map(\.frameNum) == (0..<20).map { $0 % 16 })
        #expect(p.map(\.picOrderCntLsb) == (0..<20).map { (2 * $0) % 16 })
    }

    @Test func durationLimitAndForcedKeyFrames() {
        let p = plans(.init(maxKeyFrameInterval: 0, maxKeyFrameIntervalDuration: MediaTime(value: 1, timescale: 3)), count: 30, forced: [5])
        // 1/3 s is 10 frames at 30 fps, counted from the last IDR, forced ones included.
        #expect(p.indices.filter { p[$0].isIDR } == [0, 5, 15, 25])
    }

    @Test func nextDoesNotChangeTheState() {
        var planner = H264ReferencePlanner(.init())
        let a = planner.next(presentationTime: .zero, forceKeyFrame: false)
        _ = planner.next(presentationTime: .zero, forceKeyFrame: true)
        #expect(planner.next(presentationTime: .zero) == a)
        planner.commit(a, presentationTime: .zero)
        #expect(planner.next(presentationTime: MediaTime(value: 1, timescale: 30)).frameNum == 1)
    }

    @Test func twoReferencesSlideNearestFirst() {
        let p = plans(.init(referenceCount: 2, reconstructedSlots: 3), count: 5)
        #expect(p[3].references.map(\.frameNum) == [2, 1])
        #expect(Set(p[3].references.map(\.slot)).count == 2 && !p[3].references.map(\.slot).contains(p[3].reconstructedSlot))
    }
}

@Suite("Properties checked against what a driver reports")
struct EncoderConfigurationTests {
    func caps(rateControl: Int32 = VA_RC_CQP | VA_RC_CBR | VA_RC_VBR, l1: Int = 0) -> (CompressionProperties.Profile) -> VAEncodeCapabilities? {
        { _ in VAEncodeCapabilities(profile: VAProfileH264High, rateControlModes: UInt32(rateControl), packedHeaders: 0,
                                    maxReferencesL0: 1, maxReferencesL1: l1, maxSlices: 1, maxWidth: 4096, maxHeight: 4096) }
    }

    func refusal(_ properties: CompressionProperties, width: Int = 320, height: Int = 192,
                 caps: ((CompressionProperties.Profile) -> VAEncodeCapabilities?)? = nil) -> CompressionError? {
        do {
            _ = try EncoderConfiguration(width: width, height: height, properties: properties, capabilities: caps ?? self.caps())
            return nil
        } catch { return error }
    }

    @Test func refusals() {
        var p = CompressionProperties()
        p.rateControl = .constantBitRate
        guard case .unsupportedRateControl(let asked, let supported)? = refusal(p, caps: caps(rateControl: VA_RC_CQP)) else {
            Issue.record("CBR on a CQP-only driver"); return
        }
        #expect(asked == "CBR" && supported == ["CQP"])
        guard case .unsupportedProfile? = refusal(CompressionProperties(), caps: { _ in nil }) else { Issue.record("no profile"); return }
        p.allowFrameReordering = true
        p.averageBitRate = 1_000_000
        guard case .frameReorderingUnsupported(let why)? = refusal(p, caps: caps(l1: 1)) else { Issue.record("B-frames"); return }
        #expect(why.contains("not implemented"))
        guard case .frameReorderingUnsupported(let why0)? = refusal(p) else { Issue.record("B-frames"); return }
        #expect(why0.contains("L1 = 0"))
    }

    @Test func levelChoice() throws {
        var p = CompressionProperties()
        p.expectedFrameRate = 30
        #expect(try EncoderConfiguration(width: 1280, height: 720, properties: p, capabilities: caps()).levelIdc == 31)
        #expect(try EncoderConfiguration(width: 1920, height: 1080, properties: p, capabilities: caps()).levelIdc == 40)
        #expect(try EncoderConfiguration(width: 320, height: 192, properties: p, capabilities: caps()).levelIdc == 13)
        p.level = 30
        guard case .invalidLevel(30)? = refusal(p, width: 1280, height: 720) else { Issue.record("720p30 in level 3"); return }
    }

    @Test func frameRates() {
        let ntsc = EncoderConfiguration.rational(29.97), pal = EncoderConfiguration.rational(25), odd = EncoderConfiguration.rational(12.5)
        #expect(ntsc.numerator == 30000 && ntsc.denominator == 1001)
        #expect(pal.numerator == 25 && pal.denominator == 1)
        #expect(odd.numerator == 12500 && odd.denominator == 1000)
    }
}
