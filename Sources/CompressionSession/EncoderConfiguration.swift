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
    let codec: CompressionProperties.Codec
    let hevcProfile: CompressionProperties.HEVCProfile
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
    /// What the driver reported on the negotiated entrypoint.
    let capabilities: VAEncodeCapabilities
    /// The driver's name, for messages ("vtksoft ...", "Intel iHD driver ...").
    let driver: String
    /// VA_ENC_PACKED_HEADER_* bits vtk sends: FFmpeg's SEQUENCE|SLICE|MISC, of what the driver advertises.
    let packedHeaders: UInt32
    /// B pictures between anchors (0 when reordering is off or the driver has no list-1 references).
    let bFrames: Int
    let bPyramid: Bool
    let openGOP: Bool
    /// List-0 references of a P picture.
    let referenceCount: Int
    let framesInFlight: Int
    /// The rate controller's window in milliseconds (1000, or the tightest data rate limit's).
    let rateControlWindow: Int
    /// colour_primaries, transfer_characteristics, matrix_coefficients (E.2.1, H.273): BT.709 from 720 lines up, else SMPTE 170M.
    let colourDescription: (primaries: UInt8, transfer: UInt8, matrix: UInt8)
    /// What the session changed from what was asked, and why (e.g. B-frames off on a driver without list 1).
    let warnings: [String]
    let log2MaxFrameNum = 8
    let log2MaxPicOrderCntLsb = 8

    var framesPerSecond: Double { Double(frameRate.numerator) / Double(frameRate.denominator) }

    /// The sequence parameters' intra_period, intra_idr_period and ip_period (frames from one I picture to the next,
    /// from one IDR to the next, from one anchor to the next), the same for every codec. Never 0: some drivers divide
    /// by these. With no limit, the largest multiple of ip_period that fits 16 bits, as a "never".
    var vaPeriods: (intra: UInt32, idr: UInt32, ip: UInt32) {
        let ipPeriod = bFrames + 1
        let never = (65535 / ipPeriod) * ipPeriod
        let keyInterval = maxKeyFrameInterval > 0 ? maxKeyFrameInterval : never
        return (UInt32(keyInterval), UInt32(openGOP ? never : keyInterval), UInt32(ipPeriod))
    }
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

    /// The VA profile a session asks for: H.264's as ``vaProfile(_:)``, else HEVC Main or Main 10.
    static func vaProfile(for p: CompressionProperties) -> VAProfile {
        switch p.codec {
        case .h264: return vaProfile(p.profile)
        case .h265: return p.hevcProfile == .main10 ? VAProfileHEVCMain10 : VAProfileHEVCMain
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

    init(width: Int, height: Int, properties p: CompressionProperties, driver: String = "the driver",
         capabilities: (CompressionProperties.Profile) -> VAEncodeCapabilities?) throws(CompressionError) {
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height, reason: "width and height must be positive") }
        guard width % 2 == 0, height % 2 == 0 else {
            throw .invalidDimensions(width: width, height: height, reason: "4:2:0 frames crop in 2-pixel steps, so both must be even")
        }
        guard let caps = capabilities(p.profile) else {
            let name = p.codec == .h264 ? "H.264 \(p.profile.rawValue)" : "H.265 \(p.hevcProfile.rawValue)"
            throw .unsupportedProfile("\(driver) has no \(name) encoder (neither VAEntrypointEncSlice nor VAEntrypointEncSliceLP)")
        }
        if let maxW = caps.maxWidth, width > maxW { throw .invalidDimensions(width: width, height: height, reason: "the driver encodes at most \(maxW) wide") }
        if let maxH = caps.maxHeight, height > maxH { throw .invalidDimensions(width: width, height: height, reason: "the driver encodes at most \(maxH) high") }
        guard width >= 16, height >= 16 else { throw .invalidDimensions(width: width, height: height, reason: "at least one macroblock (16x16)") }

        let vaRC = Self.vaRateControl(p.rateControl)
        guard caps.supportsRateControl(vaRC) else {
            throw .unsupportedRateControl(requested: p.rateControl.rawValue, supported: Self.rateControlNames(caps.rateControlModes),
                                          driver: "\(driver) (\(caps.entrypointName)\(caps.rateControlReported ? "" : ", which reports no VAConfigAttribRateControl: CQP assumed"))")
        }
        var bits = 0, percentage = 100, window = 1000
        switch p.rateControl {
        case .constantQP:
            guard (0...51).contains(p.quantizer) else { throw .invalidQuantizer(p.quantizer) }
        case .constantBitRate, .variableBitRate:
            guard let average = p.averageBitRate, average > 0 else { throw .invalidBitRate(p.averageBitRate ?? 0) }
            bits = average
            // The tightest data rate limit is a peak (VBR) and its span the window.
            var peak = p.peakBitRate
            for limit in p.dataRateLimits {
                guard limit.bytes > 0, limit.seconds > 0, limit.seconds.isFinite else { throw .invalidBitRate(limit.bytes) }
                let rate = Int(Double(limit.bytes * 8) / limit.seconds)
                if rate < (peak ?? Int.max) {
                    peak = rate
                    window = max(1, Int(limit.seconds * 1000))
                }
            }
            if p.rateControl == .variableBitRate, let peak {
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
        switch p.codec == .h265 ? .cabac : p.entropyMode {
        case .cabac?:
            guard p.profile != .constrainedBaseline else { throw .unsupportedEntropyMode("CABAC is not allowed in Constrained Baseline (A.2.1)") }
            cabac = true
        case .cavlc?: cabac = false
        case nil: cabac = p.profile != .constrainedBaseline
        }

        var warnings: [String] = []
        guard (1...16).contains(p.referenceFrameCount) else { throw .invalidReferenceCount(p.referenceFrameCount) }
        let l0 = max(1, caps.maxReferencesL0)
        let references = min(p.referenceFrameCount, l0)
        if references < p.referenceFrameCount {
            warnings.append("\(driver) takes \(l0) list-0 reference(s) (VAConfigAttribEncMaxRefFrames): \(references) used, not \(p.referenceFrameCount)")
        }
        var bFrames = 0
        if p.allowFrameReordering {
            guard (0...16).contains(p.maxConsecutiveBFrames) else { throw .frameReorderingUnsupported("\(p.maxConsecutiveBFrames) B-frames: 0...16") }
            bFrames = p.maxConsecutiveBFrames
            if bFrames > 0 && p.codec == .h265 && caps.maxReferencesL1 > 0 && !caps.predictsFromFuture {
                warnings.append("\(driver) predicts from previous pictures only on \(caps.entrypointName) (VAConfigAttribPredictionDirection): "
                                + "no B-frames, low-delay B pictures (list 1 = list 0)")
                bFrames = 0
            } else if bFrames > 0 && caps.maxReferencesL1 == 0 {
                warnings.append("\(driver) reports no list-1 references on \(caps.entrypointName) (VAConfigAttribEncMaxRefFrames L1 = 0): "
                                + "no B-frames, P pictures only")
                bFrames = 0
            } else if bFrames > 0 && p.codec == .h264 && p.profile == .constrainedBaseline {
                warnings.append("Constrained Baseline has no B slices (A.2.1): P pictures only")
                bFrames = 0
            }
        }

        var depth = p.framesInFlight ?? (p.oneFrameInFlight ? 1 : 3)
        guard (1...16).contains(depth) else { throw .invalidFramesInFlight(depth) }
        if let delay = p.maxFrameDelayCount {
            guard delay >= 0 else { throw .invalidFramesInFlight(delay) }
            // Frames held: B pictures waiting for their anchor plus all but one of those with the driver.
            bFrames = min(bFrames, delay)
            depth = max(1, min(depth, delay - bFrames + 1))
        }
        let gop = H264GOPPlanner.Configuration(
            maxKeyFrameInterval: p.maxKeyFrameInterval, maxKeyFrameIntervalDuration: p.maxKeyFrameIntervalDuration,
            bFrames: bFrames, bPyramid: p.bPyramid && bFrames > 1, openGOP: p.allowOpenGOP, referenceCount: references,
            framesInFlight: depth)

        let mbW = (width + 15) / 16, mbH = (height + 15) / 16
        let high = p.profile == .high
        let level: Int
        if p.codec == .h265 {
            // The DPB holds the references and the current picture (A.4.2, C.5.2.2).
            let dpb = gop.maxDecFrameBuffering + 1
            if let asked = p.level {
                guard let entry = H265Level.all.first(where: { $0.idc == asked }),
                      entry.fits(width: mbW * 16, height: mbH * 16, framesPerSecond: rate, bitsPerSecond: bits, dpbPictures: dpb) else { throw .invalidLevel(asked) }
                level = entry.idc
            } else {
                guard let entry = H265Level.smallest(width: mbW * 16, height: mbH * 16, framesPerSecond: rate, bitsPerSecond: bits, dpbPictures: dpb) else {
                    throw .invalidLevel(0)
                }
                level = entry.idc
            }
        } else if let asked = p.level {
            guard let entry = H264Level.all.first(where: { $0.idc == asked }),
                  entry.fits(widthInMbs: mbW, heightInMbs: mbH, framesPerSecond: rate, bitsPerSecond: bits, high: high,
                                 dpbFrames: gop.maxDecFrameBuffering) else { throw .invalidLevel(asked) }
            level = entry.idc
        } else {
            guard let entry = H264Level.smallest(widthInMbs: mbW, heightInMbs: mbH, framesPerSecond: rate, bitsPerSecond: bits, high: high,
                                                 dpbFrames: gop.maxDecFrameBuffering) else {
                throw .invalidLevel(0)
            }
            level = entry.idc
        }

        self.width = width
        self.height = height
        widthInMbs = mbW
        heightInMbs = mbH
        profile = p.profile
        codec = p.codec
        hevcProfile = p.hevcProfile
        vaProfile = Self.vaProfile(for: p)
        lowDelayB = p.codec == .h265 && caps.maxReferencesL1 > 0 && !caps.predictsFromFuture
        // CTB: the largest the driver codes (as FFmpeg picks from VAConfigAttribEncHEVCBlockSizes), else 32.
        ctbLog2Size = caps.hevcCodingTreeBlockLog2Sizes?.upperBound ?? 5
        // SAO where the driver says it codes it (VAConfigAttribEncHEVCFeatures), as FFmpeg's hevc_vaapi decides; off unreported.
        sampleAdaptiveOffset = caps.hevcSampleAdaptiveOffset ?? false
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
        referenceCount = references
        framesInFlight = depth
        self.capabilities = caps
        self.driver = driver
        packedHeaders = caps.packedHeaders & UInt32(VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_SLICE | VA_ENC_PACKED_HEADER_MISC)
        self.bFrames = gop.bFrames
        bPyramid = gop.bPyramid
        openGOP = gop.openGOP
        rateControlWindow = window
        colourDescription = height >= 720 ? (1, 1, 1) : (6, 6, 6)
        self.warnings = warnings
        gopConfiguration = gop
    }

    /// H.265: P pictures go as B slices with list 1 = list 0 (a driver with list 1 but no FUTURE direction: iHD VDEnc).
    let lowDelayB: Bool
    /// H.265 CtbLog2SizeY.
    let ctbLog2Size: Int
    /// H.265 sample_adaptive_offset_enabled_flag, and slice_sao_luma_flag and slice_sao_chroma_flag with it.
    let sampleAdaptiveOffset: Bool
    /// Bits per sample: 10 for HEVC Main 10.
    var bitDepth: Int { codec == .h265 && hevcProfile == .main10 ? 10 : 8 }

    /// The GOP planner's settings (sizes of the DPB and reorder depth come from it).
    let gopConfiguration: H264GOPPlanner.Configuration

    var plannerConfiguration: H264GOPPlanner.Configuration {
        var c = gopConfiguration
        c.log2MaxFrameNum = log2MaxFrameNum
        c.log2MaxPicOrderCntLsb = log2MaxPicOrderCntLsb
        return c
    }
    var maxNumRefFrames: Int { gopConfiguration.maxNumRefFrames }

    /// QP offsets at CQP from the asked QP, which P pictures get: I pictures 3 finer, a pyramid's reference B
    /// pictures 3 coarser and other B pictures 4 (H.264 and H.265). x264 at `-qp` codes I 3 finer (ipratio 1.4)
    /// and B 2 coarser (pbratio 1.3), its reference B between; vtksoft's native engine, which codes B macroblocks
    /// as 16x16 partitions only, gains from a steeper B side. Measured with `vtk-bench --only encoder-table`
    /// (150 frames of two 720p contents, BD-rate against x264 veryfast, B rows `--bframes 3 --b-pyramid`):
    /// the former I/P 0, reference B 0, B +1 gave +17.3% and +23.0% with B-frames, +9.6% and +13.8% P only; x264's
    /// −3/+1/+2 gave +9.2%, +8.8% and +9.0%, +6.9%; −3/+2/+3 +7.0%, +5.9%; −3/+3/+4 +7.0%, +4.5%; −3/+3/+5
    /// +7.7%, +4.0%; −4/+1/+2 +9.9%, +7.7% (P only +9.7%, +5.9%). H.265 on vtksoft's engine (40 frames of the
    /// first content), this ladder against the former: −1.2% P only, −13.0% with B-frames. FFmpeg's VA-API encoders
    /// match it with `-i_qfactor 1 -i_qoffset -3 -b_qfactor 1 -b_qoffset 4` but for the pyramid's reference B
    /// (EncodeParityTests rule 13, HEVCEncodeParityTests rule 14).
    static let quantizerLadder = (intra: -3, referenceB: 3, nonReferenceB: 4)

    /// QP of a picture at CQP (see ``quantizerLadder``); with a rate controller, the driver's initial QP (26).
    func quantizer(for plan: H264GOPPlanner.PicturePlan) -> Int {
        guard rateControl == .constantQP else { return 26 }
        let ladder = Self.quantizerLadder
        let offset = plan.isIntra ? ladder.intra : plan.type == .b ? (plan.isReference ? ladder.referenceB : ladder.nonReferenceB) : 0
        return min(51, max(0, quantizer + offset))
    }

    /// pic_init_qp (H.264) and init_qp (H.265) at CQP: the intra QP, as FFmpeg's VA-API encoders set it (fixed_qp_idr).
    var initialQuantizer: Int { min(51, max(0, quantizer + Self.quantizerLadder.intra)) }
    var maxNumReorderFrames: Int { gopConfiguration.maxNumReorderFrames }
    var maxDecFrameBuffering: Int { gopConfiguration.maxDecFrameBuffering }
    var vaEntrypoint: VAEntrypoint { capabilities.entrypoint }
    /// Sends packed SPS and PPS (VA_ENC_PACKED_HEADER_SEQUENCE).
    var sendsPackedSequence: Bool { packedHeaders & UInt32(VA_ENC_PACKED_HEADER_SEQUENCE) != 0 }
    var sendsPackedSlice: Bool { packedHeaders & UInt32(VA_ENC_PACKED_HEADER_SLICE) != 0 }
    /// Sends SEI as raw data (VA_ENC_PACKED_HEADER_MISC).
    var sendsPackedSEI: Bool { packedHeaders & UInt32(VA_ENC_PACKED_HEADER_MISC) != 0 }
}
