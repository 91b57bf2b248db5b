import COpenH264

/// What an openh264 encoder is set up with; a change means a new encoder (openh264 applies most
/// settings only at initialization), except a change of constant QP alone (``OpenH264Encoder/adopt(_:)``).
struct OpenH264Settings: Equatable {
    enum RateControl: Equatable {
        case constantQP(Int32)
        case bitrate(target: Int32, peak: Int32)
    }

    var width: Int32
    var height: Int32
    var frameRate: Float
    var rateControl: RateControl
    var profile: EProfileIdc
    var level: Int32
    var cabac: Bool
    var deblocking: (disable: Int32, alpha: Int32, beta: Int32)
    var qpRange: (min: Int32, max: Int32)?

    static func == (a: Self, b: Self) -> Bool {
        a.width == b.width && a.height == b.height && a.frameRate == b.frameRate && a.rateControl == b.rateControl
            && a.profile == b.profile && a.level == b.level && a.cabac == b.cabac && a.deblocking == b.deblocking
            && a.qpRange?.min == b.qpRange?.min && a.qpRange?.max == b.qpRange?.max
    }

    /// Whether `other` is these settings at another constant QP: what an encoder can move to without starting over.
    func differsOnlyInConstantQP(from other: Self) -> Bool {
        guard case .constantQP = rateControl, case .constantQP = other.rateControl else { return false }
        var same = other
        same.rateControl = rateControl
        return same == self
    }
}

/// An openh264 ISVCEncoder making one single-layer, single-slice AVC picture per call, never skipping.
final class OpenH264Encoder {
    private var encoder: UnsafeMutablePointer<ISVCEncoder?>?
    /// The encoder's function table, read once it exists.
    private var api = ISVCEncoderVtbl()
    private(set) var settings: OpenH264Settings
    /// The parameters it was initialized with, kept for a change of constant QP.
    private var parameters = SEncParamExt()
    private var frameIndex: Int64 = 0
    private var info = SFrameBSInfo()

    init?(_ settings: OpenH264Settings) {
        self.settings = settings
        guard WelsCreateSVCEncoder(&encoder) == 0, let table = encoder?.pointee?.pointee else { return nil }
        api = table
        // openh264 warns on stderr that bitrate control without frame skipping is loose; that is the
        // VA contract (one coded picture per vaEndPicture), not news for the client.
        var traceLevel = Int32(WELS_LOG_ERROR)
        _ = api.SetOption(encoder, ENCODER_OPTION_TRACE_LEVEL, &traceLevel)
        var p = SEncParamExt()
        _ = api.GetDefaultParams(encoder, &p)
        p.iUsageType = CAMERA_VIDEO_REAL_TIME
        p.iPicWidth = settings.width
        p.iPicHeight = settings.height
        p.fMaxFrameRate = settings.frameRate
        p.iTemporalLayerNum = 1
        p.iSpatialLayerNum = 1
        // The client decides picture types: no IDRs of openh264's own, no scene-change IDRs.
        p.uiIntraPeriod = 0
        p.bEnableSceneChangeDetect = false
        p.iNumRefFrame = 1
        p.eSpsPpsIdStrategy = CONSTANT_ID
        p.bPrefixNalAddingCtrl = false
        p.bEnableSSEI = false
        p.bSimulcastAVC = false
        p.iPaddingFlag = 0
        p.iEntropyCodingModeFlag = settings.cabac ? 1 : 0
        // One coded picture per vaEndPicture.
        p.bEnableFrameSkip = false
        p.iMultipleThreadIdc = 1
        p.bEnableDenoise = false
        p.bEnableBackgroundDetection = false
        p.bEnableFrameCroppingFlag = true
        p.bEnableLongTermReference = false
        p.iLoopFilterDisableIdc = settings.deblocking.disable
        p.iLoopFilterAlphaC0Offset = settings.deblocking.alpha
        p.iLoopFilterBetaOffset = settings.deblocking.beta
        p.sSpatialLayers.0.iVideoWidth = settings.width
        p.sSpatialLayers.0.iVideoHeight = settings.height
        p.sSpatialLayers.0.fFrameRate = settings.frameRate
        p.sSpatialLayers.0.uiProfileIdc = settings.profile
        p.sSpatialLayers.0.uiLevelIdc = ELevelIdc(rawValue: UInt32(settings.level))
        p.sSpatialLayers.0.sSliceArgument.uiSliceMode = SM_SINGLE_SLICE
        switch settings.rateControl {
        case .constantQP(let qp):
            p.iRCMode = RC_OFF_MODE
            // Adaptive quantization would move QPs away from the one the client chose.
            p.bEnableAdaptiveQuant = false
            p.sSpatialLayers.0.iDLayerQp = qp
            // The picture QP is iDLayerQp clipped to this range, which openh264 reads only at initialization:
            // the whole range, so that a later QP (changeConstantQP) is coded as asked. openh264 raises a
            // minimum below 12 to 12, as it did when the range was the one QP.
            p.iMinQp = 1
            p.iMaxQp = 51
            p.iTargetBitrate = 1_000_000
            p.sSpatialLayers.0.iSpatialBitrate = 1_000_000
        case .bitrate(let target, let peak):
            p.iRCMode = RC_BITRATE_MODE
            p.iTargetBitrate = target
            p.iMaxBitrate = peak
            p.sSpatialLayers.0.iSpatialBitrate = target
            p.sSpatialLayers.0.iMaxSpatialBitrate = peak
            if let range = settings.qpRange {
                p.iMinQp = range.min
                p.iMaxQp = range.max
            }
        }
        guard api.InitializeExt(encoder, &p) == 0 else { return nil }
        parameters = p
        var format = Int32(videoFormatI420.rawValue)
        _ = api.SetOption(encoder, ENCODER_OPTION_DATAFORMAT, &format)
    }

    deinit {
        if let encoder {
            _ = api.Uninitialize(encoder)
            WelsDestroySVCEncoder(encoder)
        }
    }

    /// Whether this encoder codes the next picture with `wanted`: it has these settings, or only its constant QP
    /// had to change.
    func adopt(_ wanted: OpenH264Settings) -> Bool {
        if wanted == settings { return true }
        guard case .constantQP(let qp) = wanted.rateControl, settings.differsOnlyInConstantQP(from: wanted) else { return false }
        return changeConstantQP(to: qp)
    }

    /// Moves a constant-QP encoder to `qp` from the next picture on. openh264 adjusts its parameters in place
    /// (WelsEncoderParamAdjust: a QP change needs no reset), so the references stay and no IDR is coded; a new
    /// encoder would start with an IDR where the client asked for a P picture (a client whose I and P QPs
    /// differ, as FFmpeg's with `-i_qoffset` or vtk's QP ladder). False when openh264 refuses.
    private func changeConstantQP(to qp: Int32) -> Bool {
        guard case .constantQP = settings.rateControl else { return false }
        var adjusted = parameters
        adjusted.sSpatialLayers.0.iDLayerQp = qp
        guard api.SetOption(encoder, ENCODER_OPTION_SVC_ENCODE_PARAM_EXT, &adjusted) == 0 else { return false }
        parameters = adjusted
        settings.rateControl = .constantQP(qp)
        return true
    }

    /// Encodes one I420 picture; returns the Annex B access unit (SPS and PPS precede each IDR).
    func encode(planes: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>),
                strides: (Int32, Int32, Int32), forceIDR: Bool) -> [UInt8]? {
        if forceIDR && frameIndex > 0 { _ = api.ForceIntraFrame(encoder, true) }
        var source = SSourcePicture()
        source.iColorFormat = Int32(videoFormatI420.rawValue)
        source.iPicWidth = settings.width
        source.iPicHeight = settings.height
        source.iStride = (strides.0, strides.1, strides.2, 0)
        source.pData = (planes.0, planes.1, planes.2, nil)
        // openh264's rate control measures time from these stamps.
        source.uiTimeStamp = Int64(Double(frameIndex) * 1000 / Double(max(settings.frameRate, 1)))
        frameIndex += 1
        guard api.EncodeFrame(encoder, &source, &info) == 0, info.eFrameType != videoFrameTypeSkip,
              info.eFrameType != videoFrameTypeInvalid else { return nil }
        var stream: [UInt8] = []
        stream.reserveCapacity(Int(info.iFrameSizeInBytes))
        let layerCount = Int(info.iLayerNum)
        withUnsafeBytes(of: &info.sLayerInfo) { raw in
            let layers = raw.bindMemory(to: SLayerBSInfo.self)
            for layer in layers.prefix(layerCount) {
                guard let lengths = layer.pNalLengthInByte, let bytes = layer.pBsBuf else { continue }
                let size = (0..<Int(layer.iNalCount)).reduce(0) { $0 + Int(lengths[$1]) }
                stream += UnsafeBufferPointer(start: bytes, count: size)
            }
        }
        return stream
    }
}
