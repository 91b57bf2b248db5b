import H264Bitstream

/// The decoded picture buffer: frame stores holding reference frames, field pairs or single fields and
/// frames waiting for output, with the output ("bumping") process of C.4.5.3.
///
/// Storage (``store(_:)``, ``completeSecondField(_:)``) and the output rules (``bump()``, C.4.5) are kept
/// apart from the marking of clause 8.2.5, which the decoding process does through ``update(_:_:)``.
public struct DecodedPictureBuffer: Sendable {
    /// Frame stores held: references, and non-references waiting for output.
    public private(set) var pictures: [DecodedPicture] = []
    /// The store holding a first field whose second field may come next: it is not output before it is
    /// complete (C.4.5.3 outputs frames, and a field pair is one frame).
    public private(set) var awaitingSecondField: PictureID?
    /// Frame buffers available (MaxDpbFrames, or max_dec_frame_buffering).
    public private(set) var capacity: Int
    /// With VUI bitstream_restriction, a frame is output once more than this many wait (C.4.5.3 allows
    /// earlier output; the order is the same).
    public private(set) var maxNumReorderFrames: Int?

    public init(capacity: Int, maxNumReorderFrames: Int? = nil) {
        self.capacity = max(1, capacity)
        self.maxNumReorderFrames = maxNumReorderFrames
    }

    /// DPB capacity for a sequence (A.3.1 item h, Table A-1 MaxDpbMbs; VUI max_dec_frame_buffering when
    /// present), at least max_num_ref_frames.
    public static func capacity(for sps: SequenceParameterSet) -> Int {
        let frameMbs = sps.picWidthInMbs * sps.frameHeightInMbs
        var level = Int(sps.levelIdc)
        // Level 1b is signalled as level_idc 11 with constraint_set3_flag in Baseline/Main/Extended.
        if level == 11 && sps.constraintSet3Flag && [66, 77, 88].contains(sps.profileIdc) { level = 9 }
        let maxDpbMbs = Self.maxDpbMbs[level] ?? 696_320
        var frames = min(max(maxDpbMbs / max(frameMbs, 1), 1), 16)
        if sps.vuiParametersPresentFlag && sps.vui.bitstreamRestrictionFlag {
            frames = max(1, sps.vui.maxDecFrameBuffering)
        }
        return max(frames, sps.maxNumRefFrames, 1)
    }

    /// Table A-1, MaxDpbMbs by level_idc (9 stands for level 1b).
    static let maxDpbMbs: [Int: Int] = [
        9: 396, 10: 396, 11: 900, 12: 2376, 13: 2376, 20: 2376, 21: 4752, 22: 8100, 30: 8100, 31: 18000,
        32: 20480, 40: 32768, 41: 32768, 42: 34816, 50: 110_400, 51: 184_320, 52: 184_320,
        60: 696_320, 61: 696_320, 62: 696_320,
    ]

    public var isEmpty: Bool { pictures.isEmpty }
    public var referenceFrames: [DecodedPicture] { pictures.filter(\.isReference) }
    public var shortTermFrames: [DecodedPicture] { pictures.filter { $0.reference == .shortTerm } }
    public var longTermFrames: [DecodedPicture] { pictures.filter { $0.reference == .longTerm } }
    /// Stores with at least one short-term (long-term) reference field: the entries of 8.2.4.2.2 and 8.2.5.3.
    public var shortTermStores: [DecodedPicture] { pictures.filter(\.hasShortTermField) }
    public var longTermStores: [DecodedPicture] { pictures.filter(\.hasLongTermField) }

    public func picture(_ id: PictureID) -> DecodedPicture? { pictures.first { $0.id == id } }

    mutating func update(_ id: PictureID, _ change: (inout DecodedPicture) -> Void) {
        if let i = pictures.firstIndex(where: { $0.id == id }) { change(&pictures[i]) }
    }

    mutating func updateAll(_ change: (inout DecodedPicture) -> Void) {
        for i in pictures.indices { change(&pictures[i]) }
    }

    /// Removes frames that are neither references nor waiting for output; returns their ids.
    mutating func removeUnused() -> [PictureID] {
        let gone = pictures.filter { !$0.isReference && !$0.neededForOutput }.map(\.id)
        pictures.removeAll { !$0.isReference && !$0.neededForOutput }
        return gone
    }

    /// One step of the bumping process (C.4.5.3): outputs the frame with the smallest PicOrderCnt of
    /// those waiting, and removes it when it is not a reference. Returns nil when none waits.
    mutating func bump() -> (output: DecodedPicture, removed: PictureID?)? {
        let waiting = pictures.indices.filter { pictures[$0].neededForOutput && pictures[$0].id != awaitingSecondField }
        guard let i = waiting.min(by: { pictures[$0].picOrderCnt < pictures[$1].picOrderCnt }) else { return nil }
        pictures[i].neededForOutput = false
        let picture = pictures[i]
        if !picture.isReference {
            pictures.remove(at: i)
            return (picture, picture.id)
        }
        return (picture, nil)
    }

    var waitingForOutput: [DecodedPicture] { pictures.filter(\.neededForOutput) }

    /// Stores a decoded frame after bumping as C.4.5.1/C.4.5.2 require; returns outputs and removals in order.
    /// A non-reference frame with a lower POC than every waiting frame is output at once when the DPB
    /// is full (C.4.5.2) and never stored.
    mutating func store(_ picture: DecodedPicture) -> [DecodedPictureBufferEvent] {
        var events: [DecodedPictureBufferEvent] = []
        for id in removeUnused() { events.append(.removed(id)) }
        if !picture.structure.isField && !picture.isReference && picture.neededForOutput && pictures.count >= capacity
            && waitingForOutput.allSatisfy({ picture.picOrderCnt < $0.picOrderCnt }) {
            events.append(.output(picture))
            events.append(.removed(picture.id))
            return events
        }
        while pictures.count >= capacity {
            guard let (out, removed) = bump() else { break }  // full of references: a stream error; drop below
            events.append(.output(out))
            if let removed { events.append(.removed(removed)) }
            for id in removeUnused() { events.append(.removed(id)) }
        }
        if pictures.count >= capacity {
            // Only references and nothing to output: the stream has more references than the DPB holds.
            // Drop the oldest short-term reference rather than fail.
            if let oldest = shortTermStores.min(by: { $0.frameNumWrap < $1.frameNumWrap }) {
                pictures.removeAll { $0.id == oldest.id }
                events.append(.removed(oldest.id))
            }
        }
        pictures.append(picture)
        // A first field waits for its pair before it can be output.
        awaitingSecondField = picture.structure.isField ? picture.id : nil
        events += outputReordered()
        return events
    }

    /// The second field of the store awaiting it was decoded: the store now holds the field pair
    /// (C.4.5.1/C.4.5.2: it takes no new frame buffer).
    mutating func completeSecondField(_ picture: DecodedPicture) -> [DecodedPictureBufferEvent] {
        if let i = pictures.firstIndex(where: { $0.id == picture.id }) { pictures[i] = picture } else { pictures.append(picture) }
        awaitingSecondField = nil
        return outputReordered()
    }

    /// The next picture is not the second field of the store awaiting one: that field stays unpaired and
    /// may be output on its own.
    mutating func endFieldPairing() -> [DecodedPictureBufferEvent] {
        guard awaitingSecondField != nil else { return [] }
        awaitingSecondField = nil
        return outputReordered()
    }

    /// Earlier output when the stream says how much reordering it needs.
    private mutating func outputReordered() -> [DecodedPictureBufferEvent] {
        var events: [DecodedPictureBufferEvent] = []
        guard let reorder = maxNumReorderFrames else { return events }
        while waitingForOutput.filter({ $0.id != awaitingSecondField }).count > reorder, let (out, removed) = bump() {
            events.append(.output(out))
            if let removed { events.append(.removed(removed)) }
        }
        return events
    }

    /// Outputs every waiting frame in POC order and empties the buffer (end of stream, or an IDR
    /// or MMCO 5 picture with no_output_of_prior_pics_flag 0: C.4.4).
    mutating func flush(output: Bool = true) -> [DecodedPictureBufferEvent] {
        var events: [DecodedPictureBufferEvent] = []
        awaitingSecondField = nil
        if output {
            while let (out, removed) = bump() {
                events.append(.output(out))
                if let removed { events.append(.removed(removed)) }
            }
        } else {
            for picture in pictures where picture.neededForOutput { events.append(.discarded(picture)) }
        }
        for picture in pictures { events.append(.removed(picture.id)) }
        pictures.removeAll()
        return events
    }

    /// Marks every frame unused for reference (IDR, MMCO 5), keeping those waiting for output.
    mutating func markAllUnused() -> [PictureID] {
        updateAll { $0.reference = .unused }
        return removeUnused()
    }
}

public enum DecodedPictureBufferEvent: Hashable, Sendable {
    /// Output in display order.
    case output(DecodedPicture)
    /// Dropped without output (no_output_of_prior_pics_flag).
    case discarded(DecodedPicture)
    /// The frame left the DPB: its surface can be reused once any output of it is done.
    case removed(PictureID)
}
