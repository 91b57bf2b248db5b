import CLibVA

/// VAConfigAttribEncHEVCBlockSizes (va_enc_hevc.h) as a persona states it: the CTB sizes a driver codes
/// (iHD's VDEnc: 64 only) with 8x8 minimum coding blocks and 4x4 to 32x32 transforms.
struct HEVCBlockSizes: Equatable {
    /// CtbLog2SizeY values taken (7.4.3.2.1: 4...6).
    var ctbLog2Sizes: ClosedRange<Int>

    init(ctbLog2Sizes: ClosedRange<Int>) { self.ctbLog2Sizes = ctbLog2Sizes }

    /// Read from an attribute value; nil for VA_ATTRIB_NOT_SUPPORTED.
    init?(attribute value: UInt32) {
        guard value != Persona.notSupported else { return nil }
        var v = VAConfigAttribValEncHEVCBlockSizes()
        v.value = value
        let low = Int(v.bits.log2_min_coding_tree_block_size_minus3) + 3, high = Int(v.bits.log2_max_coding_tree_block_size_minus3) + 3
        ctbLog2Sizes = min(low, high)...max(low, high)
    }

    var value: UInt32 {
        var v = VAConfigAttribValEncHEVCBlockSizes()
        v.bits.log2_max_coding_tree_block_size_minus3 = UInt32(ctbLog2Sizes.upperBound - 3)
        v.bits.log2_min_coding_tree_block_size_minus3 = UInt32(ctbLog2Sizes.lowerBound - 3)
        v.bits.log2_min_luma_coding_block_size_minus3 = 0
        v.bits.log2_max_luma_transform_block_size_minus2 = 3
        v.bits.log2_min_luma_transform_block_size_minus2 = 0
        v.bits.max_max_transform_hierarchy_depth_inter = 3
        v.bits.min_max_transform_hierarchy_depth_inter = 0
        v.bits.max_max_transform_hierarchy_depth_intra = 3
        v.bits.min_max_transform_hierarchy_depth_intra = 0
        return v.value
    }
}

extension Persona {
    /// The limits of the HEVC encoder on (profile, entrypoint), from the attribute table: CTB sizes
    /// (VAConfigAttribEncHEVCBlockSizes) and whether list entries may come from the future
    /// (VAConfigAttribPredictionDirection; not reported: both directions).
    func hevcEncodeLimits(_ profile: VAProfile, _ entrypoint: VAEntrypoint) -> HEVCEncodeSession.Limits {
        var limits = HEVCEncodeSession.Limits()
        if let sizes = HEVCBlockSizes(attribute: attribute(VAConfigAttribEncHEVCBlockSizes, profile: profile, entrypoint: entrypoint)) {
            limits.ctbLog2Sizes = sizes.ctbLog2Sizes
        }
        let direction = attribute(VAConfigAttribPredictionDirection, profile: profile, entrypoint: entrypoint)
        if direction != Persona.notSupported { limits.futureReferences = direction & UInt32(VA_PREDICTION_DIRECTION_FUTURE) != 0 }
        return limits
    }
}
