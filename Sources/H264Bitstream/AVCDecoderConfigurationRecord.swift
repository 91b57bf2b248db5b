/// AVCDecoderConfigurationRecord ("avcC", ISO/IEC 14496-15 5.3.3.1), the High-profile extension included.
public struct AVCDecoderConfigurationRecord: Hashable, Sendable {
    public var configurationVersion: UInt8 = 1
    public var avcProfileIndication: UInt8
    public var profileCompatibility: UInt8
    public var avcLevelIndication: UInt8
    /// 1, 2 or 4.
    public var nalUnitLengthSize: Int
    public var sequenceParameterSets: [[UInt8]]
    public var pictureParameterSets: [[UInt8]]
    /// Present for profile_idc 100, 110, 122, 144 when the writer included it (many writers omit it).
    public var highProfileExtension: HighProfileExtension?

    public struct HighProfileExtension: Hashable, Sendable {
        public var chromaFormat: Int
        public var bitDepthLumaMinus8: Int
        public var bitDepthChromaMinus8: Int
        public var sequenceParameterSetExtensions: [[UInt8]]
    }

    static let profilesWithExtension: Set<UInt8> = [100, 110, 122, 144]

    /// Builds a record from SPS and PPS NAL units (header byte included, emulation prevention in).
    public init(sps: [NALUnit], pps: [NALUnit], nalUnitLengthSize: Int = 4) throws(BitstreamError) {
        guard let first = sps.first else { throw .missingParameterSet(kind: "SPS", id: 0) }
        guard !pps.isEmpty else { throw .missingParameterSet(kind: "PPS", id: 0) }
        try LengthPrefixedSample.checkLengthSize(nalUnitLengthSize)
        self.init(parsedSPS: try SequenceParameterSet(nalUnit: first), sps: sps, pps: pps, nalUnitLengthSize: nalUnitLengthSize)
    }

    /// A record from an SPS already parsed (no error path: the caller vouches for the units).
    init(parsedSPS parsed: SequenceParameterSet, sps: [NALUnit], pps: [NALUnit], nalUnitLengthSize: Int) {
        avcProfileIndication = parsed.profileIdc
        profileCompatibility = UInt8(sps.first?.bytes.dropFirst(2).first ?? 0)
        avcLevelIndication = parsed.levelIdc
        self.nalUnitLengthSize = nalUnitLengthSize
        sequenceParameterSets = sps.map { Array($0.bytes) }
        pictureParameterSets = pps.map { Array($0.bytes) }
        if Self.profilesWithExtension.contains(parsed.profileIdc) {
            highProfileExtension = HighProfileExtension(
                chromaFormat: parsed.chromaFormatIdc, bitDepthLumaMinus8: parsed.bitDepthLumaMinus8,
                bitDepthChromaMinus8: parsed.bitDepthChromaMinus8, sequenceParameterSetExtensions: [])
        }
    }

    /// Parses a record (the payload of an avcC box).
    public init(bytes: [UInt8]) throws(BitstreamError) {
        var p = 0
        func byte() throws(BitstreamError) -> UInt8 {
            guard p < bytes.count else { throw .malformedRecord(byteOffset: p, reason: "ends early") }
            defer { p += 1 }
            return bytes[p]
        }
        func units(_ count: Int, _ what: String) throws(BitstreamError) -> [[UInt8]] {
            var out: [[UInt8]] = []
            for _ in 0..<count {
                let at = p
                let length = Int(try byte()) << 8 | Int(try byte())
                guard length > 0 else { throw .malformedRecord(byteOffset: at, reason: "empty \(what)") }
                guard length <= bytes.count - p else {
                    throw .malformedRecord(byteOffset: at, reason: "\(what) length \(length) runs past the end (\(bytes.count - p) bytes left)")
                }
                out.append(Array(bytes[p..<(p + length)]))
                p += length
            }
            return out
        }
        configurationVersion = try byte()
        guard configurationVersion == 1 else {
            throw .malformedRecord(byteOffset: 0, reason: "configurationVersion \(configurationVersion), expected 1")
        }
        avcProfileIndication = try byte()
        profileCompatibility = try byte()
        avcLevelIndication = try byte()
        let lengthSizeMinusOne = Int(try byte() & 3)
        guard lengthSizeMinusOne != 2 else { throw .malformedRecord(byteOffset: 4, reason: "lengthSizeMinusOne 2 (3-byte lengths) is not allowed") }
        nalUnitLengthSize = lengthSizeMinusOne + 1
        sequenceParameterSets = try units(Int(try byte() & 0x1F), "SPS")
        pictureParameterSets = try units(Int(try byte()), "PPS")
        if Self.profilesWithExtension.contains(avcProfileIndication) && bytes.count - p >= 4 {
            let chroma = Int(try byte() & 3)
            let luma = Int(try byte() & 7)
            let chromaDepth = Int(try byte() & 7)
            let extensions = try units(Int(try byte()), "SPS extension")
            highProfileExtension = HighProfileExtension(chromaFormat: chroma, bitDepthLumaMinus8: luma,
                                                        bitDepthChromaMinus8: chromaDepth, sequenceParameterSetExtensions: extensions)
        }
    }

    /// The record's bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = [configurationVersion, avcProfileIndication, profileCompatibility, avcLevelIndication,
                            0xFC | UInt8(nalUnitLengthSize - 1), 0xE0 | UInt8(sequenceParameterSets.count)]
        func put(_ unit: [UInt8]) {
            out.append(UInt8(unit.count >> 8)); out.append(UInt8(unit.count & 0xFF)); out.append(contentsOf: unit)
        }
        sequenceParameterSets.forEach(put)
        out.append(UInt8(pictureParameterSets.count))
        pictureParameterSets.forEach(put)
        if let ext = highProfileExtension {
            out.append(0xFC | UInt8(ext.chromaFormat))
            out.append(0xF8 | UInt8(ext.bitDepthLumaMinus8))
            out.append(0xF8 | UInt8(ext.bitDepthChromaMinus8))
            out.append(UInt8(ext.sequenceParameterSetExtensions.count))
            ext.sequenceParameterSetExtensions.forEach(put)
        }
        return out
    }
}
