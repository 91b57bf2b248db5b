@testable import CompressionSession
import CLibVA
import Testing
import VideoAcceleration
import VTKMedia

@Suite("Properties checked against what a driver reports")
struct EncoderConfigurationTests {
    func caps(rateControl: Int32 = VA_RC_CQP | VA_RC_CBR | VA_RC_VBR, l0: Int = 1, l1: Int = 0, reported: Bool = true,
              entrypoint: VAEntrypoint = VAEntrypointEncSlice) -> (CompressionProperties.Profile) -> VAEncodeCapabilities? {
        { _ in VAEncodeCapabilities(profile: VAProfileH264High, entrypoint: entrypoint, rateControlModes: UInt32(rateControl),
                                    rateControlReported: reported, packedHeaders: 0, maxReferencesL0: l0, maxReferencesL1: l1,
                                    maxSlices: 1, maxWidth: 4096, maxHeight: 4096) }
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
        guard case .unsupportedRateControl(let asked, let supported, _)? = refusal(p, caps: caps(rateControl: VA_RC_CQP)) else {
            Issue.record("CBR on a CQP-only driver"); return
        }
        #expect(asked == "CBR" && supported == ["CQP"])
        guard case .unsupportedProfile? = refusal(CompressionProperties(), caps: { _ in nil }) else { Issue.record("no profile"); return }
        // A driver that reports no VAConfigAttribRateControl is taken to do CQP, as FFmpeg does; CBR is refused, naming it.
        guard case .unsupportedRateControl(_, let assumed, let driver)? = refusal(p, caps: caps(rateControl: 0, reported: false)) else {
            Issue.record("CBR on a driver without VAConfigAttribRateControl"); return
        }
        #expect(assumed == ["CQP"] && driver.contains("CQP assumed"))
        #expect(refusal(CompressionProperties(), caps: caps(rateControl: 0, reported: false)) == nil)
    }

    @Test("B-frames: used where the driver has list 1, else a warning and P pictures only")
    func frameReordering() throws {
        var p = CompressionProperties()
        p.allowFrameReordering = true
        p.maxConsecutiveBFrames = 3
        p.bPyramid = true
        let with = try EncoderConfiguration(width: 1280, height: 720, properties: p, capabilities: caps(l0: 4, l1: 1))
        #expect(with.bFrames == 3 && with.bPyramid && with.warnings.isEmpty)
        #expect(with.maxNumReorderFrames == 2 && with.maxNumRefFrames == 4)
        let without = try EncoderConfiguration(width: 1280, height: 720, properties: p, driver: "radeonsi", capabilities: caps(l0: 1, l1: 0))
        #expect(without.bFrames == 0 && without.maxNumReorderFrames == 0)
        #expect(without.warnings.count == 1 && without.warnings[0].contains("radeonsi") && without.warnings[0].contains("L1 = 0"))
        // References beyond the driver's list 0 are capped, with a warning.
        p.allowFrameReordering = false
        p.referenceFrameCount = 3
        let capped = try EncoderConfiguration(width: 320, height: 192, properties: p, capabilities: caps(l0: 2))
        #expect(capped.referenceCount == 2 && capped.warnings.count == 1)
        // MaxFrameDelayCount: B-frames plus frames in flight held before output.
        p.allowFrameReordering = true
        p.maxConsecutiveBFrames = 2
        p.maxFrameDelayCount = 2
        let delayed = try EncoderConfiguration(width: 320, height: 192, properties: p, capabilities: caps(l0: 4, l1: 1))
        #expect(delayed.bFrames == 2 && delayed.framesInFlight == 1)
        p.maxFrameDelayCount = 0
        let immediate = try EncoderConfiguration(width: 320, height: 192, properties: p, capabilities: caps(l0: 4, l1: 1))
        #expect(immediate.bFrames == 0 && immediate.framesInFlight == 1)
    }

    @Test("ProfileLevel strings as VideoToolbox names them")
    func profileLevel() {
        var p = CompressionProperties()
        p.profileLevel = "H264_Main_4_1"
        #expect(p.profile == .main && p.level == 41)
        p.profileLevel = "H264_ConstrainedBaseline_AutoLevel"
        #expect(p.profile == .constrainedBaseline && p.level == nil && p.profileLevel == "H264_ConstrainedBaseline_AutoLevel")
        p.profileLevel = "H264_High_3_1"
        #expect(p.profileLevel == "H264_High_3_1")
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
