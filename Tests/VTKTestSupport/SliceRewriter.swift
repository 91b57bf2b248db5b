import H264Bitstream

/// Rewrites the headers of an H.264 byte stream while keeping every slice's slice_data() bits, so that
/// tests can make streams with header values no encoder at hand chooses (emulation prevention inside a
/// slice header, memory_management_control_operation 5) that still decode to the original pictures.
public enum SliceRewriter {
    public enum Failure: Error, CustomStringConvertible {
        case unparsable(offset: Int, String)
        public var description: String {
            switch self { case let .unparsable(offset, reason): "NAL unit at byte \(offset) does not parse: \(reason)" }
        }
    }

    /// One slice as the edit sees it: its header, its picture's index in decoding order, and the sets.
    public struct Slice {
        public var header: SliceHeader
        public let pictureIndex: Int
        /// The SPS as edited, and as it was in the stream.
        public let sps: SequenceParameterSet
        public let originalSPS: SequenceParameterSet
    }

    /// Re-serializes `bytes`: `editSPS` may change each SPS, `editSlice` each slice header (the parameter
    /// sets given are the edited ones). Other NAL units are copied.
    public static func rewrite(_ bytes: [UInt8], editSPS: (inout SequenceParameterSet) -> Void = { _ in },
                               editSlice: (inout Slice) -> Void) throws -> [UInt8] {
        var original = ParameterSets()  // as in the stream: the slice headers parse against these
        var edited = ParameterSets()
        var units: [NALUnit] = []
        var pictureIndex = -1
        for unit in AnnexBScanner.nalUnits(in: bytes) {
            do {
                switch unit.type {
                case .sequenceParameterSet:
                    try original.store(unit)
                    var sps = try SequenceParameterSet(nalUnit: unit)
                    editSPS(&sps)
                    let rewritten = sps.nalUnit(nalRefIdc: unit.nalRefIdc)
                    try edited.store(rewritten)
                    units.append(rewritten)
                case .pictureParameterSet:
                    try original.store(unit)
                    try edited.store(unit)
                    units.append(unit)
                case .nonIDRSlice, .idrSlice:
                    let header = try SliceHeader(nalUnit: unit, parameterSets: original)
                    if header.firstMbInSlice == 0 { pictureIndex += 1 }
                    guard let pps = edited.pps[header.picParameterSetId], let sps = edited.sps[pps.seqParameterSetId],
                          let originalSPS = original.sps[pps.seqParameterSetId] else {
                        throw Failure.unparsable(offset: unit.offset, "no parameter sets")
                    }
                    var slice = Slice(header: header, pictureIndex: pictureIndex, sps: sps, originalSPS: originalSPS)
                    editSlice(&slice)
                    units.append(try reserialize(unit, original: header, edited: slice.header, sps: sps, pps: pps))
                default:
                    units.append(unit)
                }
            } catch let error as BitstreamError {
                throw Failure.unparsable(offset: unit.offset, "\(error)")
            }
        }
        return AnnexBScanner.byteStream(units)
    }

    /// The slice NAL unit with `edited` as its header and the slice data of `unit`, whose header is
    /// `original` (``SliceHeader/replacing(in:original:sps:pps:)``).
    public static func reserialize(_ unit: NALUnit, original: SliceHeader, edited: SliceHeader,
                                   sps: SequenceParameterSet, pps: PictureParameterSet) throws -> NALUnit {
        try edited.replacing(in: unit, original: original, sps: sps, pps: pps)
    }
}
