import H265Bitstream

/// The profile an H.265 stream is decoded as. Early test streams leave general_profile_idc 0; FFmpeg and
/// libde265 decode them all the same, taking the profile from the compatibility flags, and vtk does too,
/// with the bit depth as the last word: Main for 8 bits, Main 10 for 10 (A.3.2, A.3.3).
public enum H265ProfileInference {
    /// general_profile_idc; when it is 0, the first general_profile_compatibility_flag[j] set (j > 0), else
    /// Main (1) for an 8-bit stream and Main 10 (2) for a 10-bit one; 0 when nothing says.
    public static func profile(of sps: H265SequenceParameterSet) -> Int {
        let ptl = sps.profileTierLevel
        if ptl.profile != 0 { return ptl.profile }
        switch max(sps.bitDepthLuma, sps.bitDepthChroma) {
        case 8: return 1
        case 9, 10: return 2
        default: return 0
        }
    }

    /// The one warning for a stream whose general_profile_idc is 0 (nil otherwise): what it is decoded as, and why.
    public static func warning(for sps: H265SequenceParameterSet) -> String? {
        let ptl = sps.profileTierLevel
        guard ptl.generalProfileIdc == 0 else { return nil }
        let inferred = profile(of: sps)
        guard inferred != 0 else { return nil }
        let name = inferred == 1 ? "Main" : inferred == 2 ? "Main 10" : "profile \(inferred)"
        let from = ptl.profile != 0 ? "general_profile_compatibility_flag[\(ptl.profile)]"
            : "the bit depth (\(sps.bitDepthLuma)-bit; no compatibility flag set)"
        return "H.265 general_profile_idc is 0 (an early test stream): decoded as \(name), from \(from)"
    }
}
