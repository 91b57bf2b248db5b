import H264Bitstream
import VideoDecoding
import VTKMedia

/// What a coded picture is (7.4.3 field_pic_flag, bottom_field_flag), and what a frame store holds.
public enum PictureStructure: Hashable, Sendable, CustomStringConvertible {
    case frame
    case topField
    case bottomField

    /// The structure of a coded picture from its slice header.
    public init(_ header: SliceHeader) {
        self = !header.fieldPicFlag ? .frame : (header.bottomFieldFlag ? .bottomField : .topField)
    }

    public var isField: Bool { self != .frame }
    /// The other field's parity (a frame stays a frame).
    public var opposite: PictureStructure {
        switch self {
        case .frame: return .frame
        case .topField: return .bottomField
        case .bottomField: return .topField
        }
    }

    public var description: String {
        switch self {
        case .frame: return "frame"
        case .topField: return "top field"
        case .bottomField: return "bottom field"
        }
    }
}

/// A frame store: a decoded (or non-existing) frame, complementary field pair or single field, and the
/// state the decoding process keeps for it. In a field's reference list, the value stands for one field of
/// its store (``structure`` says which).
public struct DecodedPicture: BufferedPicture {
    public let id: PictureID
    /// Position in decoding order of the store's first picture, from 0.
    public let decodeIndex: Int
    public var frameNum: Int
    /// FrameNumWrap (8.2.4.1), updated for each new current picture.
    public var frameNumWrap = 0
    public var longTermFrameIdx = 0
    public var topFieldOrderCnt = 0
    public var bottomFieldOrderCnt = 0
    /// The fields decoded into the store: both for a frame or a complementary field pair.
    public var hasTopField = true
    public var hasBottomField = true
    /// Marking of each field (8.2.5); a frame's fields are marked alike.
    public var topReference: ReferenceMarking = .unused
    public var bottomReference: ReferenceMarking = .unused
    /// The whole store (a frame, or a field pair), or one field of it: a lone field's store, or an entry of
    /// a field's reference list.
    public var structure: PictureStructure = .frame
    /// A frame coded with mb_adaptive_frame_field_flag (7.4.3, MbaffFrameFlag).
    public var isMbaff = false
    /// How the store's first picture was coded: a frame, or the field that came first.
    public var codedStructure: PictureStructure = .frame
    /// pic_struct of the picture timing SEI that came with the store's first picture (Table D-1), if any.
    public var picStruct: Int?
    /// The sequence may code fields (frame_mbs_only_flag 0): the frame is interlaced content.
    public var isInterlaced = false
    public var neededForOutput = false
    public var isIDR = false
    public var nalRefIdc: UInt8 = 0
    /// Made for a gap in frame_num (8.2.5.2): no sample data, never output.
    public var nonExisting = false
    /// The picture had a memory_management_control_operation equal to 5.
    public var hadMMCO5 = false
    /// Decoded from damaged input or with references that were missing: the pixels may be wrong.
    public var isDamaged = false
    /// Presentation time of the sample the picture came from.
    public var presentationTime: MediaTime = .invalid

    /// PicOrderCnt (8-1): Min(TopFieldOrderCnt, BottomFieldOrderCnt) of a frame or field pair; a field's own.
    public var picOrderCnt: Int {
        switch structure {
        case .topField: return topFieldOrderCnt
        case .bottomField: return bottomFieldOrderCnt
        case .frame:
            if hasTopField && hasBottomField { return min(topFieldOrderCnt, bottomFieldOrderCnt) }
            return hasTopField ? topFieldOrderCnt : bottomFieldOrderCnt
        }
    }

    /// A first field whose second field never came (lost, or replaced by a field of the same parity).
    public var isUnpaired = false

    /// The marking of the frame or complementary field pair: a store is a reference frame only when both
    /// its fields are marked alike (8.2.4.2.1). An unpaired field's store stands in for its lost frame, as
    /// FFmpeg lets it, so that frames predicted from it find it (and are flagged). Setting it marks every
    /// field the store holds.
    public var reference: ReferenceMarking {
        get {
            if isUnpaired { return hasTopField ? topReference : bottomReference }
            return hasTopField && hasBottomField && topReference == bottomReference ? topReference : .unused
        }
        set {
            if hasTopField { topReference = newValue }
            if hasBottomField { bottomReference = newValue }
        }
    }

    /// The marking of one field.
    public func reference(of field: PictureStructure) -> ReferenceMarking {
        switch field {
        case .topField: return hasTopField ? topReference : .unused
        case .bottomField: return hasBottomField ? bottomReference : .unused
        case .frame: return reference
        }
    }

    public mutating func setReference(_ marking: ReferenceMarking, of field: PictureStructure) {
        switch field {
        case .topField: topReference = marking
        case .bottomField: bottomReference = marking
        case .frame: reference = marking
        }
    }

    /// The field's order count.
    public func orderCount(of field: PictureStructure) -> Int {
        field == .bottomField ? bottomFieldOrderCnt : (field == .topField ? topFieldOrderCnt : picOrderCnt)
    }

    /// PicNum of a short-term frame (8-28).
    public var picNum: Int { frameNumWrap }
    /// LongTermPicNum of a long-term frame (8-29).
    public var longTermPicNum: Int { longTermFrameIdx }
    /// PicNum of one of the store's fields seen from a current field of parity `current` (8-30, 8-31).
    public func picNum(of field: PictureStructure, current: PictureStructure) -> Int {
        field == current ? 2 * frameNumWrap + 1 : 2 * frameNumWrap
    }
    /// LongTermPicNum of one of the store's fields seen from a current field (8-32, 8-33).
    public func longTermPicNum(of field: PictureStructure, current: PictureStructure) -> Int {
        field == current ? 2 * longTermFrameIdx + 1 : 2 * longTermFrameIdx
    }

    /// The store's fields were coded as field pictures (rather than as one frame).
    public var isFieldPair: Bool { codedStructure.isField }
    /// Which field comes first in time, as FFmpeg tells a stream's field order: nil for progressive content
    /// (frame_mbs_only_flag 1, or a frame whose pic_struct or field order counts say so). A field pair's
    /// first field; a frame's pic_struct when there is one (D.2.2, Table D-1); else its smaller field order count.
    public var topFieldFirst: Bool? {
        guard isInterlaced else { return nil }
        if codedStructure.isField { return codedStructure == .topField }
        if let picStruct { return PictureTiming.topFieldFirst(picStruct: picStruct) }
        return topFieldOrderCnt == bottomFieldOrderCnt ? nil : topFieldOrderCnt < bottomFieldOrderCnt
    }

    /// At least one field is a reference: the store counts against max_num_ref_frames (8.2.5.3).
    public var isReference: Bool { topReference != .unused || bottomReference != .unused }
    public var hasShortTermField: Bool { topReference == .shortTerm || bottomReference == .shortTerm }
    public var hasLongTermField: Bool { topReference == .longTerm || bottomReference == .longTerm }

    /// This store seen as one of its fields, for a field's reference list.
    public func field(_ parity: PictureStructure) -> DecodedPicture {
        var copy = self
        copy.structure = parity
        return copy
    }
}
