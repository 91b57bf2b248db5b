import H264Bitstream
import VideoDecoding

/// H.264's decoded picture buffer: frame stores holding reference frames, field pairs or single fields and
/// frames waiting for output, with the output process of C.4.5.3.
///
/// Storage (``DecodedPictureBuffer/store(_:)``, ``DecodedPictureBuffer/completeSecondField(_:)``) and the
/// output rules (``H264BufferRules``) are kept apart from the marking of clause 8.2.5, which the decoding
/// process does through ``DecodedPictureBuffer/update(_:_:)``.
public typealias H264DecodedPictureBuffer = DecodedPictureBuffer<H264BufferRules>

/// The storage and output rules of H.264's DPB (C.4.5): frame stores that take a second field, and earlier
/// output when the stream says how much reordering it needs.
public struct H264BufferRules: DecodedPictureBufferRules {
    public typealias Picture = DecodedPicture
    /// The store holding a first field whose second field may come next: it is not output before it is
    /// complete (C.4.5.3 outputs frames, and a field pair is one frame).
    public fileprivate(set) var awaitingSecondField: PictureID?
    /// With VUI bitstream_restriction, a frame is output once more than this many wait (C.4.5.3 allows
    /// earlier output; the order is the same).
    public let maxNumReorderFrames: Int?

    public init(maxNumReorderFrames: Int?) {
        self.maxNumReorderFrames = maxNumReorderFrames
    }

    /// The reordering a sequence allows: VUI max_num_reorder_frames when the SPS gives it, and none with
    /// pic_order_cnt_type 2, whose output order is the decoding order (8.2.1.3: PicOrderCnt grows with
    /// frame_num within a coded video sequence, and an IDR or MMCO 5 outputs everything before it, C.4.4).
    /// Each frame of such a stream is then output as soon as it is stored, in the order bumping gives when
    /// the DPB is full, and its surface is free again sooner.
    public static func maxNumReorderFrames(for sps: SequenceParameterSet) -> Int? {
        if sps.picOrderCntType == 2 { return 0 }
        return sps.vuiParametersPresentFlag && sps.vui.bitstreamRestrictionFlag ? sps.vui.maxNumReorderFrames : nil
    }

    public func holdsBack(_ picture: DecodedPicture) -> Bool { picture.id == awaitingSecondField }

    public func requiresOutput(_ buffer: H264DecodedPictureBuffer) -> Bool {
        guard let reorder = maxNumReorderFrames else { return false }
        return buffer.readyForOutputCount > reorder
    }

    /// The oldest short-term reference.
    public func evictionCandidate(_ buffer: H264DecodedPictureBuffer) -> PictureID? {
        buffer.oldestShortTermStore()?.id
    }

    public mutating func bufferEmptied() { awaitingSecondField = nil }
}

extension DecodedPictureBuffer where Rules == H264BufferRules {
    public init(capacity: Int, maxNumReorderFrames: Int? = nil) {
        self.init(capacity: capacity, rules: H264BufferRules(maxNumReorderFrames: maxNumReorderFrames))
    }

    /// DPB capacity for a sequence (A.3.1 item h, Table A-1 MaxDpbMbs; VUI max_dec_frame_buffering when
    /// present), at least max_num_ref_frames.
    public static func capacity(for sps: SequenceParameterSet) -> Int {
        let frameMbs = sps.picWidthInMbs * sps.frameHeightInMbs
        var level = Int(sps.levelIdc)
        // Level 1b is signalled as level_idc 11 with constraint_set3_flag in Baseline/Main/Extended.
        if level == 11 && sps.constraintSet3Flag && [66, 77, 88].contains(sps.profileIdc) { level = 9 }
        let maxDpbMbs = H264BufferRules.maxDpbMbs[level] ?? 696_320
        var frames = min(max(maxDpbMbs / max(frameMbs, 1), 1), 16)
        if sps.vuiParametersPresentFlag && sps.vui.bitstreamRestrictionFlag {
            frames = max(1, sps.vui.maxDecFrameBuffering)
        }
        return max(frames, sps.maxNumRefFrames, 1)
    }

    /// The store holding a first field whose second field may come next.
    public var awaitingSecondField: PictureID? { rules.awaitingSecondField }
    public var maxNumReorderFrames: Int? { rules.maxNumReorderFrames }

    public var referenceFrames: [DecodedPicture] { referencePictures }
    public var shortTermFrames: [DecodedPicture] { pictures.filter { $0.reference == .shortTerm } }
    public var longTermFrames: [DecodedPicture] { pictures.filter { $0.reference == .longTerm } }
    /// Stores with at least one short-term (long-term) reference field: the entries of 8.2.4.2.2 and 8.2.5.3.
    public var shortTermStores: [DecodedPicture] { pictures.filter(\.hasShortTermField) }
    /// The store with a short-term field of smallest FrameNumWrap (the first of equals), other than `excluded`:
    /// what the sliding window and a full DPB give up (8.2.5.3), found without making the list of stores.
    public func oldestShortTermStore(excluding excluded: PictureID? = nil) -> DecodedPicture? {
        var oldest: DecodedPicture?
        for store in pictures where store.hasShortTermField && store.id != excluded {
            if let found = oldest, found.frameNumWrap <= store.frameNumWrap { continue }
            oldest = store
        }
        return oldest
    }
    public var longTermStores: [DecodedPicture] { pictures.filter(\.hasLongTermField) }

    /// Stores a decoded frame or first field after bumping as C.4.5.1/C.4.5.2 require; returns outputs and
    /// removals in order. A non-reference frame with a lower POC than every waiting frame is output at once
    /// when the DPB is full (C.4.5.2) and never stored.
    mutating func store(_ picture: DecodedPicture) -> [Event] {
        var events = removeUnused()
        if !picture.structure.isField && !picture.isReference && picture.neededForOutput && isFull
            && waitingForOutput.allSatisfy({ picture.picOrderCnt < $0.picOrderCnt }) {
            return events + [.output(picture), .removed(picture.id)]
        }
        events += makeRoom()
        insert(picture)
        // A first field waits for its pair before it can be output.
        rules.awaitingSecondField = picture.structure.isField ? picture.id : nil
        return events + additionalBumping()
    }

    /// The second field of the store awaiting it was decoded: the store now holds the field pair
    /// (C.4.5.1/C.4.5.2: it takes no new frame buffer).
    mutating func completeSecondField(_ picture: DecodedPicture) -> [Event] {
        insert(picture)
        rules.awaitingSecondField = nil
        return additionalBumping()
    }

    /// The next picture is not the second field of the store awaiting one: that field stays unpaired and
    /// may be output on its own.
    mutating func endFieldPairing() -> [Event] {
        guard rules.awaitingSecondField != nil else { return [] }
        rules.awaitingSecondField = nil
        return additionalBumping()
    }

    /// Marks every frame unused for reference (IDR, MMCO 5), keeping those waiting for output.
    mutating func markAllUnused() -> [Event] {
        updateAll { $0.reference = .unused }
        return removeUnused()
    }
}

extension H264BufferRules {
    /// Table A-1, MaxDpbMbs by level_idc (9 stands for level 1b).
    static let maxDpbMbs: [Int: Int] = [
        9: 396, 10: 396, 11: 900, 12: 2376, 13: 2376, 20: 2376, 21: 4752, 22: 8100, 30: 8100, 31: 18000,
        32: 20480, 40: 32768, 41: 32768, 42: 34816, 50: 110_400, 51: 184_320, 52: 184_320,
        60: 696_320, 61: 696_320, 62: 696_320,
    ]
}
