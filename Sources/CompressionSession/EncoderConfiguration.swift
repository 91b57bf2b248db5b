import CLibVA
import VideoAcceleration
import VTKMedia

/// The session's properties checked against the driver's capabilities and resolved into what the VA
/// parameter buffers need: sizes in macroblocks, cropping, profile, level, rate control, timing.
struct EncoderConfiguration: Sendable {
    let width: Int
    let height: Int
    let widthInMbs: Int
    let heightInMbs: Int
    var codedWidth: Int { widthInMbs * 16 }
    var codedHeight: Int { heightInMbs * 16 }
    let profile: CompressionProperties.Profile
    let vaProfile: VAProfile
    let levelIdc: Int
    let cabac: Bool
    let rateControl: CompressionProperties.RateControl
    /// VA_RC_* for VAConfigAttribRateControl.
    let vaRateControl: UInt32
    let quantizer: Int
    /// For CBR the average, for VBR the peak (what VAEncMiscParameterRateControl.bits_per_second carries).
    let bitsPerSecond: Int
    /// VBR: average as a percentage of the peak; 100 for CBR.
    let targetPercentage: Int
    let frameRate: (numerator: Int, denominator: Int)
    let maxKeyFrameInterval: Int
    let maxKeyFrameIntervalDuration: MediaTime?
    let referenceCount: Int
    let framesInFlight: Int
    let log2MaxFrameNum = 8
    let log2MaxPicOrderCntLsb = 9

    var framesPerSecond: Double { Double(frameRate.numerator) / Double(frameRate.denominator) }
    var frameDuration: MediaTime { MediaTime(value: Int64(frameRate.denominator), timescale: Int32(frameRate.numerator)) }

    /// The VA profile for each of ours.
    static func vaProfile(_ profile: CompressionProperties.Profile) -> VAProfile {
        switch profile {
        case .constrainedBaseline: return VAProfileH264ConstrainedBaseline
        case .main: return VAProfileH264Main
        case .high: return VAProfileH264High
        }
    }

    static func vaRateControl(_ mode: CompressionProperties.RateControl) -> UInt32 {
        switch mode {
        case .constantQP: return UInt32(VA_RC_CQP)
        case .constantBitRate: return UInt32(VA_RC_CBR)
        case .variableBitRate: return UInt32(VA_RC_VBR)
        }
    }

    /// Names of the VA_RC_* modes in `mask`.
    static func rateControlNames(_ mask: UInt32) -> [String] {
        let names: [(Int32, String)] = [(VA_RC_CQP, "CQP"), (VA_RC_CBR, "CBR"), (VA_RC_VBR, "VBR"), (VA_RC_VCM, "VCM"),
                                        (VA_RC_VBR_CONSTRAINED, "VBR_CONSTRAINED"), (VA_RC_ICQ, "ICQ"), (VA_RC_QVBR, "QVBR"), (VA_RC_AVBR, "AVBR")]
        return names.filter { mask & UInt32($0.0) != 0 }.map(\.1)
    }

    /// A rate as a fraction: integers over 1, NTSC-style rates over 1001, anything else over 1000.
    static func rational(_ rate: Double) -> (numerator: Int, denominator: Int) {
        if rate == rate.rounded() { return (Int(rate), 1) }
        let ntsc = rate * 1001 / 1000
        if abs(ntsc - ntsc.rounded()) < 1e-3 { return (Int(ntsc.rounded()) * 1000, 1001) }
        return (Int((rate * 1000).rounded()), 1000)
    }

    init(width: Int, height: Int, properties p: CompressionProperties,
         capabilities: (CompressionProperties.Profile) -> VAEncodeCapabilities?) throws(CompressionError) {
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height, reason: "width and height must be positive") }
        guard width % 2 == 0, height % 2 == 0 else {
            throw .invalidDimensions(width: width, height: height, reason: "4:2:0 frames crop in 2-pixel steps, so both must be even")
        }
        guard let caps = capabilities(p.profile) else {
            throw .unsupportedProfile("the driver has no H.264 \(p.profile.rawValue) encoder (no VAEntrypointEncSlice)")
        }
        if let maxW = caps.maxWidth, width > maxW { throw .invalidDimensions(width: width, height: height, reason: "the driver encodes at most \(maxW) wide") }
        if let maxH = caps.maxHeight, height > maxH { throw .invalidDimensions(width: width, height: height, reason: "the driver encodes at most \(maxH) high") }
        guard width >= 16, height >= 16 else { throw .invalidDimensions(width: width, height: height, reason: "at least one macroblock (16x16)") }

        let vaRC = Self.vaRateControl(p.rateControl)
        guard caps.supportsRateControl(vaRC) else {
            throw .unsupportedRateControl(requested: p.rateControl.rawValue, supported: Self.rateControlNames(caps.rateControlModes))
        }
        var bits = 0, percentage = 100
        switch p.rateControl {
        case .constantQP:
            guard (0...51).contains(p.quantizer) else { throw .invalidQuantizer(p.quantizer) }
        case .constantBitRate, .variableBitRate:
            guard let average = p.averageBitRate, average > 0 else { throw .invalidBitRate(p.averageBitRate ?? 0) }
            bits = average
            if p.rateControl == .variableBitRate, let peak = p.peakBitRate {
                guard peak >= average else { throw .invalidBitRate(peak) }
                bits = peak
                percentage = max(1, Int((Double(average) * 100 / Double(peak)).rounded()))
            }
            guard bits <= Int(UInt32.max) else { throw .invalidBitRate(bits) }
        }

        let rate = p.expectedFrameRate ?? 30
        guard rate.isFinite, rate > 0, rate <= 1000 else { throw .invalidFrameRate(rate) }
        let fraction = Self.rational(rate)
        guard fraction.numerator < 65536, fraction.denominator < 65536 else { throw .invalidFrameRate(rate) }

        guard p.maxKeyFrameInterval >= 0 else { throw .invalidKeyFrameInterval("\(p.maxKeyFrameInterval) frames") }
        if let d = p.maxKeyFrameIntervalDuration {
            guard d.isNumeric, d > .zero else { throw .invalidKeyFrameInterval("duration \(d)") }
        }

        let cabac: Bool
        switch p.entropyMode {
        case .cabac?:
            guard p.profile != .constrainedBaseline else { throw .unsupportedEntropyMode("CABAC is not allowed in Constrained Baseline (A.2.1)") }
            cabac = true
        case .cavlc?: cabac = false
        case nil: cabac = p.profile != .constrainedBaseline
        }

        if p.allowFrameReordering {
            if caps.maxReferencesL1 == 0 {
                throw .frameReorderingUnsupported("the driver reports no list-1 references (VAConfigAttribEncMaxRefFrames L1 = 0), so no B-frames")
            }
            throw .frameReorderingUnsupported("the driver has list-1 references, but B-frame planning is not implemented yet")
        }

        let depth = p.framesInFlight ?? (p.realTime ? 1 : 3)
        guard (1...16).contains(depth) else { throw .invalidFramesInFlight(depth) }

        let mbW = (width + 15) / 16, mbH = (height + 15) / 16
        let high = p.profile == .high
        let level: Int
        if let asked = p.level {
            guard let entry = H264Level.all.first(where: { $0.idc == asked }),
                  entry.fits(widthInMbs: mbW, heightInMbs: mbH, framesPerSecond: rate, bitsPerSecond: bits, high: high) else { throw .invalidLevel(asked) }
            level = entry.idc
        } else {
            guard let entry = H264Level.smallest(widthInMbs: mbW, heightInMbs: mbH, framesPerSecond: rate, bitsPerSecond: bits, high: high) else {
                throw .invalidLevel(0)
            }
            level = entry.idc
        }

        self.width = width
        self.height = height
        widthInMbs = mbW
        heightInMbs = mbH
        profile = p.profile
        vaProfile = Self.vaProfile(p.profile)
        levelIdc = level
        self.cabac = cabac
        rateControl = p.rateControl
        vaRateControl = vaRC
        quantizer = p.quantizer
        bitsPerSecond = bits
        targetPercentage = percentage
        frameRate = fraction
        maxKeyFrameInterval = p.maxKeyFrameInterval
        maxKeyFrameIntervalDuration = p.maxKeyFrameIntervalDuration
        referenceCount = max(1, min(caps.maxReferencesL0, 1))
        framesInFlight = depth
    }

    var plannerConfiguration: H264ReferencePlanner.Configuration {
        .init(maxKeyFrameInterval: maxKeyFrameInterval, maxKeyFrameIntervalDuration: maxKeyFrameIntervalDuration,
              referenceCount: referenceCount, reconstructedSlots: referenceCount + framesInFlight,
              log2MaxFrameNum: log2MaxFrameNum, log2MaxPicOrderCntLsb: log2MaxPicOrderCntLsb)
    }
}
