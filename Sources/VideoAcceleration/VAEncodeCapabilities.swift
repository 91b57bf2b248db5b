import CLibVA

/// What a driver says it can do when encoding one H.264 profile (VAEntrypointEncSlice), read once from
/// vaGetConfigAttributes (va.h, VAConfigAttribType).
public struct VAEncodeCapabilities: Hashable, Sendable {
    public let profile: VAProfile
    /// VA_RC_* bits (VAConfigAttribRateControl); 0 when the driver reports none.
    public let rateControlModes: UInt32
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

    static let notSupported: UInt32 = 0x8000_0000  // VA_ATTRIB_NOT_SUPPORTED

    public init(profile: VAProfile, rateControlModes: UInt32, packedHeaders: UInt32, maxReferencesL0: Int, maxReferencesL1: Int,
                maxSlices: Int, maxWidth: Int?, maxHeight: Int?) {
        self.profile = profile
        self.rateControlModes = rateControlModes
        self.packedHeaders = packedHeaders
        self.maxReferencesL0 = maxReferencesL0
        self.maxReferencesL1 = maxReferencesL1
        self.maxSlices = maxSlices
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// The capabilities for `profile`, or nil when the driver has no EncSlice entrypoint for it.
    public static func query(_ connection: VADisplayConnection, profile: VAProfile) -> VAEncodeCapabilities? {
        guard connection.profiles().contains(profile),
              connection.entrypoints(for: profile).contains(VAEntrypointEncSlice) else { return nil }
        let values = connection.attributes(
            [VAConfigAttribRateControl, VAConfigAttribEncPackedHeaders, VAConfigAttribEncMaxRefFrames,
             VAConfigAttribEncMaxSlices, VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight],
            profile: profile, entrypoint: VAEntrypointEncSlice)
        func value(_ type: VAConfigAttribType) -> UInt32? {
            guard let v = values[type], v != notSupported else { return nil }
            return v
        }
        let references = value(VAConfigAttribEncMaxRefFrames) ?? 1
        return VAEncodeCapabilities(
            profile: profile,
            rateControlModes: value(VAConfigAttribRateControl) ?? 0,
            packedHeaders: value(VAConfigAttribEncPackedHeaders) ?? 0,
            maxReferencesL0: Int(references & 0xFFFF),
            maxReferencesL1: Int(references >> 16),
            maxSlices: Int(value(VAConfigAttribEncMaxSlices) ?? 1),
            maxWidth: value(VAConfigAttribMaxPictureWidth).map(Int.init),
            maxHeight: value(VAConfigAttribMaxPictureHeight).map(Int.init))
    }

    public func supportsRateControl(_ mode: UInt32) -> Bool { rateControlModes & mode != 0 }
}
