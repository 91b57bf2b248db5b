import DecompressionSession
import H264Bitstream
import H265Bitstream
import NALStream

/// What an Annex B source needs to know of a codec's access units to play them: where decoding can start,
/// which pictures lead a random access point, the stream's frame rate and the parameter sets in force.
public protocol AnnexBPlaybackCodec: DecompressionCodec where Assembler.AccessUnit: Sendable {
    /// The access unit's part in display order (H.264 8.2.1; H.265 7.4.2.2, 8.1.3).
    static func role(of unit: Assembler.AccessUnit) -> PictureRole
    /// The frame rate the parameter sets give (VUI timing), if any.
    static func frameRate(of unit: Assembler.AccessUnit) -> (numerator: Int, denominator: Int)?
    /// The parameter-set NAL units in force for the access unit, for an assembler that starts at it.
    static func parameterSetNALUnits(of unit: Assembler.AccessUnit) -> [NALUnit]
}

/// A picture's part in display order.
public enum PictureRole: Equatable, Sendable {
    /// A random access point that pictures may lead (an H.265 IRAP): decoding can start here.
    case randomAccessPoint
    /// Decoding can start here, and no picture leads it (an H.264 IDR or recovery point, an H.265 recovery point).
    case sync
    /// Leads a random access point and refers to pictures before it (RASL): skipped when decoding starts there.
    case skippedLeading
    /// Leads a random access point and refers only to it and its leading pictures (RADL).
    case decodableLeading
    case other

    public var isSync: Bool { self == .randomAccessPoint || self == .sync }
    public var isLeading: Bool { self == .skippedLeading || self == .decodableLeading }
}

extension H264Codec: AnnexBPlaybackCodec {
    public static func role(of unit: AccessUnit) -> PictureRole { unit.isIDR || unit.recoveryPoint != nil ? .sync : .other }

    public static func frameRate(of unit: AccessUnit) -> (numerator: Int, denominator: Int)? {
        (try? H264FormatDescription(parameterSets: unit.parameterSets))?.frameRate
    }

    public static func parameterSetNALUnits(of unit: AccessUnit) -> [NALUnit] {
        let sets = unit.parameterSets
        return sets.spsNALUnits.sorted { $0.key < $1.key }.map(\.value) + sets.ppsNALUnits.sorted { $0.key < $1.key }.map(\.value)
    }
}

extension H265Codec: AnnexBPlaybackCodec {
    public static func role(of unit: H265AccessUnit) -> PictureRole {
        guard let type = unit.slices.first?.header.nalUnitType else { return .other }
        if type.isIRAP { return .randomAccessPoint }
        if type.isRASL { return .skippedLeading }
        if type.isRADL { return .decodableLeading }
        return unit.recoveryPocCount != nil ? .sync : .other
    }

    public static func frameRate(of unit: H265AccessUnit) -> (numerator: Int, denominator: Int)? {
        (try? H265FormatDescription(parameterSets: unit.parameterSets))?.frameRate
    }

    public static func parameterSetNALUnits(of unit: H265AccessUnit) -> [NALUnit] {
        let sets = unit.parameterSets
        return [sets.vpsNALUnits, sets.spsNALUnits, sets.ppsNALUnits].flatMap { $0.sorted { $0.key < $1.key }.map(\.value) }
    }
}
