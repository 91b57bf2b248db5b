import NALStream

/// The `hvcC` record (ISO/IEC 14496-15, 8.3.3.1): how MP4 carries the VPS, SPS, PPS (and SEI) of an
/// H.265 track, and the size of the NAL unit lengths in its samples.
public struct HEVCDecoderConfigurationRecord: Hashable, Sendable {
    /// general_profile_space ... general_level_idc: the 12 bytes of profile_tier_level's general part.
    public var profileTierLevelBytes: [UInt8]
    public var minSpatialSegmentationIdc: Int
    public var parallelismType: Int
    public var chromaFormatIdc: Int
    public var bitDepthLumaMinus8: Int
    public var bitDepthChromaMinus8: Int
    public var avgFrameRate: Int
    public var constantFrameRate: Int
    public var numTemporalLayers: Int
    public var temporalIdNested: Bool
    public var nalUnitLengthSize: Int
    /// NAL unit arrays by type (32 VPS, 33 SPS, 34 PPS, 39/40 SEI), in record order.
    public var arrays: [(completeness: Bool, type: UInt8, nalUnits: [[UInt8]])]

    public static func == (a: Self, b: Self) -> Bool { a.bytes == b.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

    public func nalUnits(ofType type: H265NALUnitType) -> [[UInt8]] {
        arrays.filter { $0.type == type.rawValue }.flatMap(\.nalUnits)
    }

    /// Parses a record (the payload of the `hvcC` box).
    public init(bytes: [UInt8]) throws(BitstreamError) {
        func fail(_ at: Int, _ why: String) -> BitstreamError { .malformedRecord(byteOffset: at, reason: "hvcC: " + why) }
        guard bytes.count >= 23 else { throw fail(0, "\(bytes.count) bytes, at least 23 needed") }
        guard bytes[0] == 1 else { throw fail(0, "configurationVersion \(bytes[0]), 1 expected") }
        profileTierLevelBytes = Array(bytes[1...12])
        minSpatialSegmentationIdc = Int(bytes[13] & 0x0F) << 8 | Int(bytes[14])
        parallelismType = Int(bytes[15] & 3)
        chromaFormatIdc = Int(bytes[16] & 3)
        bitDepthLumaMinus8 = Int(bytes[17] & 7)
        bitDepthChromaMinus8 = Int(bytes[18] & 7)
        avgFrameRate = Int(bytes[19]) << 8 | Int(bytes[20])
        constantFrameRate = Int(bytes[21] >> 6)
        numTemporalLayers = Int(bytes[21] >> 3 & 7)
        temporalIdNested = bytes[21] & 4 != 0
        nalUnitLengthSize = Int(bytes[21] & 3) + 1
        guard nalUnitLengthSize != 3 else { throw fail(21, "lengthSizeMinusOne 2 (3-byte lengths are not allowed)") }
        var position = 23
        arrays = []
        for _ in 0..<Int(bytes[22]) {
            guard position + 3 <= bytes.count else { throw fail(position, "NAL unit array header cut short") }
            let completeness = bytes[position] & 0x80 != 0, type = bytes[position] & 0x3F
            let count = Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
            position += 3
            var units: [[UInt8]] = []
            for _ in 0..<count {
                guard position + 2 <= bytes.count else { throw fail(position, "NAL unit length cut short") }
                let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
                position += 2
                guard length > 0, position + length <= bytes.count else { throw fail(position - 2, "NAL unit of \(length) bytes runs past the record") }
                units.append(Array(bytes[position..<(position + length)]))
                position += length
            }
            arrays.append((completeness, type, units))
        }
    }

    /// A record for parameter sets (the first SPS gives the profile, chroma format and bit depths).
    public init(vps: [NALUnit], sps: [NALUnit], pps: [NALUnit], nalUnitLengthSize: Int = 4) throws(BitstreamError) {
        guard let first = sps.first else { throw .missingParameterSet(kind: "SPS", id: 0) }
        let parsed = try H265SequenceParameterSet(nalUnit: first)
        let rbsp = first.h265RBSP
        guard rbsp.count >= 13 else { throw .malformedNALUnit(byteOffset: first.offset, reason: "SPS too short for its profile_tier_level") }
        profileTierLevelBytes = Array(rbsp[1...12])
        minSpatialSegmentationIdc = parsed.vui.minSpatialSegmentationIdc
        parallelismType = 0
        chromaFormatIdc = parsed.chromaFormatIdc
        bitDepthLumaMinus8 = parsed.bitDepthLumaMinus8
        bitDepthChromaMinus8 = parsed.bitDepthChromaMinus8
        avgFrameRate = 0
        constantFrameRate = 0
        numTemporalLayers = parsed.maxSubLayersMinus1 + 1
        temporalIdNested = parsed.temporalIdNestingFlag
        try LengthPrefixedSample.checkLengthSize(nalUnitLengthSize)
        self.nalUnitLengthSize = nalUnitLengthSize
        arrays = [(true, 32, vps.map { Array($0.bytes) }), (true, 33, sps.map { Array($0.bytes) }), (true, 34, pps.map { Array($0.bytes) })]
    }

    /// The record's bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = [1] + profileTierLevelBytes
        out += [0xF0 | UInt8(minSpatialSegmentationIdc >> 8 & 0x0F), UInt8(minSpatialSegmentationIdc & 0xFF)]
        out += [0xFC | UInt8(parallelismType), 0xFC | UInt8(chromaFormatIdc), 0xF8 | UInt8(bitDepthLumaMinus8), 0xF8 | UInt8(bitDepthChromaMinus8)]
        out += [UInt8(avgFrameRate >> 8 & 0xFF), UInt8(avgFrameRate & 0xFF)]
        out.append(UInt8(constantFrameRate << 6 | numTemporalLayers << 3 | (temporalIdNested ? 4 : 0) | (nalUnitLengthSize - 1)))
        out.append(UInt8(arrays.count))
        for array in arrays {
            out.append((array.completeness ? 0x80 : 0) | array.type)
            out += [UInt8(array.nalUnits.count >> 8), UInt8(array.nalUnits.count & 0xFF)]
            for unit in array.nalUnits { out += [UInt8(unit.count >> 8 & 0xFF), UInt8(unit.count & 0xFF)] + unit }
        }
        return out
    }
}
