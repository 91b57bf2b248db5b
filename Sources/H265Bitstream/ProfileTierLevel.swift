import NALStream

/// profile_tier_level() (7.3.3): the general profile, tier and level, and the sub-layers' ones.
public struct ProfileTierLevel: Hashable, Sendable {
    public var generalProfileSpace = 0
    public var generalTierFlag = false
    public var generalProfileIdc = 0
    public var generalProfileCompatibilityFlags: UInt32 = 0
    public var generalProgressiveSourceFlag = false
    public var generalInterlacedSourceFlag = false
    public var generalNonPackedConstraintFlag = false
    public var generalFrameOnlyConstraintFlag = false
    public var generalLevelIdc = 0
    public var subLayerLevelIdc: [Int?] = []

    public init() {}

    /// general_profile_compatibility_flag[j].
    public func compatible(with j: Int) -> Bool { generalProfileCompatibilityFlags & (1 << UInt32(31 - j)) != 0 }

    /// The profile named by general_profile_idc or, failing that, the compatibility flags (A.3).
    public var profile: Int {
        if generalProfileIdc != 0 { return generalProfileIdc }
        return (1...31).first(where: compatible(with:)) ?? 0
    }

    public init(_ r: inout SyntaxReader, profilePresent: Bool, maxNumSubLayersMinus1: Int) throws(BitstreamError) {
        if profilePresent {
            try Self.profile(&r, prefix: "general", into: &self)
        }
        generalLevelIdc = try r.u(8, "general_level_idc")
        var profilePresentFlags: [Bool] = [], levelPresentFlags: [Bool] = []
        for i in 0..<maxNumSubLayersMinus1 {
            profilePresentFlags.append(try r.flag("sub_layer_profile_present_flag[\(i)]"))
            levelPresentFlags.append(try r.flag("sub_layer_level_present_flag[\(i)]"))
        }
        if maxNumSubLayersMinus1 > 0 {
            for i in maxNumSubLayersMinus1..<8 { _ = try r.u(2, "reserved_zero_2bits[\(i)]") }
        }
        for i in 0..<maxNumSubLayersMinus1 {
            if profilePresentFlags[i] {
                var sub = ProfileTierLevel()
                try Self.profile(&r, prefix: "sub_layer", index: i, into: &sub)
            }
            subLayerLevelIdc.append(levelPresentFlags[i] ? try r.u(8, "sub_layer_level_idc[\(i)]") : nil)
        }
    }

    /// The 88 bits of profile information, general or of a sub-layer.
    private static func profile(_ r: inout SyntaxReader, prefix: String, index: Int? = nil, into p: inout ProfileTierLevel) throws(BitstreamError) {
        let suffix = index.map { "[\($0)]" } ?? ""
        p.generalProfileSpace = try r.u(2, "\(prefix)_profile_space\(suffix)")
        p.generalTierFlag = try r.flag("\(prefix)_tier_flag\(suffix)")
        p.generalProfileIdc = try r.u(5, "\(prefix)_profile_idc\(suffix)")
        var flags: UInt32 = 0
        for j in 0..<32 { flags = flags << 1 | (try r.flag("\(prefix)_profile_compatibility_flag\(suffix)[\(j)]") ? 1 : 0) }
        p.generalProfileCompatibilityFlags = flags
        p.generalProgressiveSourceFlag = try r.flag("\(prefix)_progressive_source_flag\(suffix)")
        p.generalInterlacedSourceFlag = try r.flag("\(prefix)_interlaced_source_flag\(suffix)")
        p.generalNonPackedConstraintFlag = try r.flag("\(prefix)_non_packed_constraint_flag\(suffix)")
        p.generalFrameOnlyConstraintFlag = try r.flag("\(prefix)_frame_only_constraint_flag\(suffix)")
        let idc = p.generalProfileIdc
        func is_(_ k: Int) -> Bool { idc == k || p.compatible(with: k) }
        if (4...11).contains(where: is_) {
            for name in ["max_12bit", "max_10bit", "max_8bit", "max_422chroma", "max_420chroma", "max_monochrome", "intra",
                         "one_picture_only", "lower_bit_rate"] {
                _ = try r.flag("\(prefix)_\(name)_constraint_flag\(suffix)")
            }
            if [5, 9, 10, 11].contains(where: is_) {
                _ = try r.flag("\(prefix)_max_14bit_constraint_flag\(suffix)")
                try r.long(33, "\(prefix)_reserved_zero_33bits\(suffix)")
            } else {
                try r.long(34, "\(prefix)_reserved_zero_34bits\(suffix)")
            }
        } else if is_(2) {
            _ = try r.u(7, "\(prefix)_reserved_zero_7bits\(suffix)")
            _ = try r.flag("\(prefix)_one_picture_only_constraint_flag\(suffix)")
            try r.long(35, "\(prefix)_reserved_zero_35bits\(suffix)")
        } else {
            try r.long(43, "\(prefix)_reserved_zero_43bits\(suffix)")
        }
        if [1, 2, 3, 4, 5, 9, 11].contains(where: is_) {
            _ = try r.flag("\(prefix)_inbld_flag\(suffix)")
        } else {
            _ = try r.flag("\(prefix)_reserved_zero_bit\(suffix)")
        }
    }

    /// The profile's name (A.3).
    public var profileName: String {
        switch profile {
        case 1: "Main"
        case 2: "Main 10"
        case 3: "Main Still Picture"
        case 4: "Format Range Extensions"
        case 5: "High Throughput"
        case 9: "Screen Content Coding"
        default: "profile \(profile)"
        }
    }
}

