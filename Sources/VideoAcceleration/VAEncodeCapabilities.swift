import CLibVA

/// What a driver says it can do when encoding one H.264 profile on one entrypoint (VAEntrypointEncSlice or
/// VAEntrypointEncSliceLP), read once from vaGetConfigAttributes (va.h, VAConfigAttribType).
public struct VAEncodeCapabilities: Hashable, Sendable {
    public let profile: VAProfile
    public let entrypoint: VAEntrypoint
    /// VA_RC_* bits (VAConfigAttribRateControl). A driver that does not report the attribute is taken to
    /// do CQP only, as FFmpeg does (vaapi_encode_init_rate_control).
    public let rateControlModes: UInt32
    /// False when the driver left VAConfigAttribRateControl unreported and CQP was assumed.
    public let rateControlReported: Bool
    /// VA_ENC_PACKED_HEADER_* bits (VAConfigAttribEncPackedHeaders); 0 means the driver writes every header.
    public let packedHeaders: UInt32
    /// References the driver takes in list 0 and list 1 (VAConfigAttribEncMaxRefFrames: bits 0-15 and 16-31).
    public let maxReferencesL0: Int
    public let maxReferencesL1: Int
    /// Slices per picture (VAConfigAttribEncMaxSlices); 1 when not reported.
    public let maxSlices: Int
    /// Largest picture (VAConfigAttribMaxPictureWidth/Height); nil when not reported.
    public let maxWidth: Int?
    public let maxHeight: Int?
    /// VA_PREDICTION_DIRECTION_* bits (VAConfigAttribPredictionDirection); nil when not reported (both
    /// directions). Without FUTURE, list 1 holds past pictures only: low-delay B (iHD's HEVC VDEnc).
    public var predictionDirection: UInt32? = nil
    /// CtbLog2SizeY values the driver codes (VAConfigAttribEncHEVCBlockSizes); nil when not reported.
    public var hevcCodingTreeBlockLog2Sizes: ClosedRange<Int>? = nil
    /// Whether the driver codes sample adaptive offset (VAConfigAttribEncHEVCFeatures' sao: supported or
    /// required); nil when the attribute is not reported.
    public var hevcSampleAdaptiveOffset: Bool? = nil

    /// Whether list 1 may hold pictures that follow the current one in output order (true B-frames).
    public var predictsFromFuture: Bool {
        guard let direction = predictionDirection else { return true }
        return direction & UInt32(VA_PREDICTION_DIRECTION_FUTURE) != 0
    }

    static let notSupported: UInt32 = 0x8000_0000  // VA_ATTRIB_NOT_SUPPORTED

    public init(profile: VAProfile, entrypoint: VAEntrypoint = VAEntrypointEncSlice, rateControlModes: UInt32,
                rateControlReported: Bool = true, packedHeaders: UInt32, maxReferencesL0: Int, maxReferencesL1: Int,
                maxSlices: Int, maxWidth: Int?, maxHeight: Int?) {
        self.profile = profile
        self.entrypoint = entrypoint
        self.rateControlModes = rateControlReported ? rateControlModes : UInt32(VA_RC_CQP)
        self.rateControlReported = rateControlReported
        self.packedHeaders = packedHeaders
        self.maxReferencesL0 = maxReferencesL0
        self.maxReferencesL1 = maxReferencesL1
        self.maxSlices = maxSlices
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// The entrypoints H.264 encoding can use, in FFmpeg's order of preference: the full encoder, then the
    /// low-power (fixed-function) one; `lowPower` puts the low-power one first.
    public static func entrypointPreference(lowPower: Bool) -> [VAEntrypoint] {
        lowPower ? [VAEntrypointEncSliceLP, VAEntrypointEncSlice] : [VAEntrypointEncSlice, VAEntrypointEncSliceLP]
    }

    /// The one place an encode entrypoint is chosen: the first of ``entrypointPreference(lowPower:)`` the
    /// driver offers for the profile, with its capabilities. `available` says what the driver offers.
    public static func negotiate(lowPower: Bool, available: (VAEntrypoint) -> VAEncodeCapabilities?) -> VAEncodeCapabilities? {
        for entrypoint in entrypointPreference(lowPower: lowPower) {
            if let found = available(entrypoint) { return found }
        }
        return nil
    }

    /// The capabilities for `profile` on the entrypoint negotiation picks, or nil when the driver has no encoder for it.
    public static func query(_ connection: VADisplayConnection, profile: VAProfile, lowPower: Bool = false) -> VAEncodeCapabilities? {
        guard connection.profiles().contains(profile) else { return nil }
        let offered = connection.entrypoints(for: profile)
        return negotiate(lowPower: lowPower) { entrypoint in
            offered.contains(entrypoint) ? query(connection, profile: profile, entrypoint: entrypoint) : nil
        }
    }

    /// The capabilities on one entrypoint the driver offers.
    public static func query(_ connection: VADisplayConnection, profile: VAProfile, entrypoint: VAEntrypoint) -> VAEncodeCapabilities {
        let values = connection.attributes(
            [VAConfigAttribRateControl, VAConfigAttribEncPackedHeaders, VAConfigAttribEncMaxRefFrames,
             VAConfigAttribEncMaxSlices, VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight,
             VAConfigAttribPredictionDirection, VAConfigAttribEncHEVCBlockSizes, VAConfigAttribEncHEVCFeatures],
            profile: profile, entrypoint: entrypoint)
        func value(_ type: VAConfigAttribType) -> UInt32? {
            guard let v = values[type], v != notSupported else { return nil }
            return v
        }
        let references = value(VAConfigAttribEncMaxRefFrames) ?? 1
        let rateControl = value(VAConfigAttribRateControl) ?? 0
        var capabilities = VAEncodeCapabilities(
            profile: profile,
            entrypoint: entrypoint,
            rateControlModes: rateControl,
            rateControlReported: rateControl != 0,
            packedHeaders: value(VAConfigAttribEncPackedHeaders) ?? 0,
            maxReferencesL0: Int(references & 0xFFFF),
            maxReferencesL1: Int(references >> 16),
            maxSlices: Int(value(VAConfigAttribEncMaxSlices) ?? 1),
            maxWidth: value(VAConfigAttribMaxPictureWidth).map(Int.init),
            maxHeight: value(VAConfigAttribMaxPictureHeight).map(Int.init))
        capabilities.predictionDirection = value(VAConfigAttribPredictionDirection)
        if let sizes = value(VAConfigAttribEncHEVCBlockSizes) {
            var v = VAConfigAttribValEncHEVCBlockSizes()
            v.value = sizes
            let low = Int(v.bits.log2_min_coding_tree_block_size_minus3) + 3, high = Int(v.bits.log2_max_coding_tree_block_size_minus3) + 3
            capabilities.hevcCodingTreeBlockLog2Sizes = min(low, high)...max(low, high)
        }
        if let features = value(VAConfigAttribEncHEVCFeatures) {
            var v = VAConfigAttribValEncHEVCFeatures()
            v.value = features
            capabilities.hevcSampleAdaptiveOffset = v.bits.sao != 0
        }
        return capabilities
    }

    public func supportsRateControl(_ mode: UInt32) -> Bool { rateControlModes & mode != 0 }

    /// "EncSlice" or "EncSliceLP".
    public var entrypointName: String { Self.name(of: entrypoint) }

    public static func name(of entrypoint: VAEntrypoint) -> String {
        switch entrypoint {
        case VAEntrypointVLD: return "VLD"
        case VAEntrypointEncSlice: return "EncSlice"
        case VAEntrypointEncSliceLP: return "EncSliceLP"
        case VAEntrypointEncPicture: return "EncPicture"
        case VAEntrypointFEI: return "FEI"
        case VAEntrypointStats: return "Stats"
        case VAEntrypointVideoProc: return "VideoProc"
        default: return "entrypoint \(entrypoint.rawValue)"
        }
    }

    /// Names of the VA_ENC_PACKED_HEADER_* bits in `mask` ("none" for 0).
    public static func packedHeaderNames(_ mask: UInt32) -> String {
        let names: [(Int32, String)] = [(VA_ENC_PACKED_HEADER_SEQUENCE, "SEQUENCE"), (VA_ENC_PACKED_HEADER_PICTURE, "PICTURE"),
                                        (VA_ENC_PACKED_HEADER_SLICE, "SLICE"), (VA_ENC_PACKED_HEADER_MISC, "MISC"),
                                        (VA_ENC_PACKED_HEADER_RAW_DATA, "RAW_DATA")]
        let present = names.filter { mask & UInt32($0.0) != 0 }.map(\.1)
        return present.isEmpty ? "none" : present.joined(separator: "|")
    }
}
