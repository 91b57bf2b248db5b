import VTKMedia

/// The encoder's GOP and reference planning, with no VA in it. Frames go in in display order; pictures
/// come out in decoding order, each with its type, frame_num (7.4.3), picture order count (8.2.1.1, type 0),
/// the reference lists it predicts from and the reconstructed-picture slot it is written to.
///
/// The structure is x264's and FFmpeg's: up to ``Configuration/bFrames`` B pictures between two anchors
/// (I or P), coded after the anchor that follows them. With ``Configuration/bPyramid`` the middle B of each
/// run is itself a reference, coded first, and the halves on either side predict from it. P pictures use
/// up to ``Configuration/referenceCount`` previous references, B pictures one on each side. References
/// leave by the sliding window (8.2.5.3) alone; ``Configuration/maxNumRefFrames`` is sized so that no
/// picture still needed is pushed out.
///
/// A key frame is an IDR, or with ``Configuration/openGOP`` a non-IDR I picture that the B pictures
/// before it may predict from; only the first frame and forced key frames are then IDRs. Before an IDR
/// the waiting B pictures are closed off: the last becomes a P picture.
public struct H264GOPPlanner: Sendable {
    public enum PictureType: String, Hashable, Sendable {
        case idr = "IDR", i = "I", p = "P", b = "B"
        /// slice_type (Table 7-6): P 0, B 1, I 2.
        public var sliceType: Int { self == .p ? 0 : self == .b ? 1 : 2 }
        public var isIntra: Bool { self == .idr || self == .i }
    }

    public struct Configuration: Hashable, Sendable {
        /// A key frame at least every this many frames; 0 for no limit.
        public var maxKeyFrameInterval: Int
        /// A key frame once this much presentation time has passed since the last one; nil for no limit.
        public var maxKeyFrameIntervalDuration: MediaTime?
        /// B pictures between anchors, at most.
        public var bFrames: Int
        public var bPyramid: Bool
        /// Key frames after the first are non-IDR I pictures that B pictures before them may reference.
        public var openGOP: Bool
        /// List-0 references of a P picture.
        public var referenceCount: Int
        /// Pictures the encoder may have with the driver at once (their slots stay busy).
        public var framesInFlight: Int
        public var log2MaxFrameNum: Int
        public var log2MaxPicOrderCntLsb: Int

        public init(maxKeyFrameInterval: Int = 0, maxKeyFrameIntervalDuration: MediaTime? = nil, bFrames: Int = 0,
                    bPyramid: Bool = false, openGOP: Bool = false, referenceCount: Int = 1, framesInFlight: Int = 1,
                    log2MaxFrameNum: Int = 8, log2MaxPicOrderCntLsb: Int = 8) {
            self.maxKeyFrameInterval = maxKeyFrameInterval
            self.maxKeyFrameIntervalDuration = maxKeyFrameIntervalDuration
            self.bFrames = bFrames
            self.bPyramid = bPyramid
            self.openGOP = openGOP
            self.referenceCount = referenceCount
            self.framesInFlight = framesInFlight
            self.log2MaxFrameNum = log2MaxFrameNum
            self.log2MaxPicOrderCntLsb = log2MaxPicOrderCntLsb
        }

        /// The B pictures of a full run in coding order: offset in display order and whether it is a reference.
        public var bCodingOrder: [(offset: Int, isReference: Bool)] { H264GOPPlanner.bCodingOrder(count: bFrames, pyramid: bPyramid) }
        /// Reference B pictures per run.
        public var referenceBFrames: Int { bCodingOrder.filter(\.isReference).count }

        /// max_num_ref_frames (7.4.2.1.1): P references; with B pictures both anchors; with a pyramid the reference
        /// B pictures of this run and of the one before, which the sliding window pushes out in coding order.
        public var maxNumRefFrames: Int {
            bFrames == 0 ? referenceCount : max(referenceCount, 2) + 2 * referenceBFrames
        }

        /// max_dec_frame_buffering (E.2.1): the references, plus with B pictures a buffer for a non-reference
        /// picture waiting for output, so that a decoder need not output it straight from decoding (C.4.5.2).
        public var maxDecFrameBuffering: Int { maxNumRefFrames + (bFrames > 0 ? 1 : 0) }

        /// max_num_reorder_frames (E.2.1): the most pictures any picture waits behind, from the run's pattern.
        public var maxNumReorderFrames: Int {
            guard bFrames > 0 else { return 0 }
            // Display positions in coding order: the anchor (after the run), then the B pictures.
            let order = [bFrames] + bCodingOrder.map(\.offset)
            var most = 0
            for (k, position) in order.enumerated() {
                most = max(most, order[..<k].filter { $0 > position }.count)
            }
            return most
        }

        /// Reconstructed-picture slots: the references, the pictures in flight with what they read, and the
        /// references an IDR empties while pictures that read them are still in flight.
        public var reconstructedSlots: Int { 2 * maxNumRefFrames + 2 * framesInFlight + 2 }
    }

    /// A reconstructed picture kept for prediction.
    public struct Reference: Hashable, Sendable {
        public let slot: Int
        public let frameNum: Int
        public let picOrderCnt: Int
    }

    public struct PicturePlan: Hashable, Sendable {
        /// Position in display order, from 0.
        public let displayIndex: Int
        /// Position in coding order, from 0.
        public let codingIndex: Int
        public let type: PictureType
        public let presentationTime: MediaTime
        public var isIDR: Bool { type == .idr }
        public var isIntra: Bool { type.isIntra }
        /// nal_ref_idc != 0.
        public let isReference: Bool
        /// nal_ref_idc: 3 for IDRs, 1 for other references, 0 otherwise (as FFmpeg writes).
        public var nalRefIdc: Int { isIDR ? 3 : isReference ? 1 : 0 }
        /// idr_pic_id of this IDR, or of the IDR the picture follows; consecutive IDRs differ (7.4.3).
        public let idrPicId: Int
        public let frameNum: Int
        /// TopFieldOrderCnt = BottomFieldOrderCnt: the display distance from the last IDR (one per frame, as FFmpeg counts).
        public let picOrderCnt: Int
        public let log2MaxPicOrderCntLsb: Int
        public var picOrderCntLsb: Int { picOrderCnt & ((1 << log2MaxPicOrderCntLsb) - 1) }
        /// Where the driver writes this picture's reconstruction.
        public let reconstructedSlot: Int
        /// Every reference held when this picture is coded (the DPB), oldest first.
        public let referenceFrames: [Reference]
        /// RefPicList0 and RefPicList1 as used: nearest in display order first.
        public let list0: [Reference]
        public let list1: [Reference]
    }

    public let configuration: Configuration
    private var displayCount = 0
    private var codingCount = 0
    private var waiting: [(index: Int, time: MediaTime)] = []
    private var framesSinceKey = 0
    private var lastKeyTime: MediaTime?
    private var idrCount = 0
    private var idrDisplayIndex = 0
    private var previousReferenceFrameNum = 0
    private var dpb: [Reference] = []
    /// Slots written or read by the last pictures, which may still be with the driver.
    private var recentSlots: [[Int]] = []

    public init(_ configuration: Configuration) {
        precondition(configuration.referenceCount >= 1 && configuration.bFrames >= 0 && configuration.framesInFlight >= 1)
        self.configuration = configuration
    }

    /// Frames given but not yet planned (B pictures waiting for their anchor).
    public var waitingFrames: Int { waiting.count }

    /// Takes the next frame in display order; returns the pictures now ready, in coding order.
    public mutating func push(presentationTime: MediaTime, forceKeyFrame: Bool = false) -> [PicturePlan] {
        let c = configuration
        let index = displayCount
        displayCount += 1
        var key = index == 0 || forceKeyFrame
        if c.maxKeyFrameInterval > 0 && framesSinceKey >= c.maxKeyFrameInterval { key = true }
        if let limit = c.maxKeyFrameIntervalDuration, let last = lastKeyTime, presentationTime.isNumeric,
           presentationTime - last >= limit { key = true }
        framesSinceKey += 1
        var out: [PicturePlan] = []
        if key {
            framesSinceKey = 1
            lastKeyTime = presentationTime
            if !c.openGOP || index == 0 || forceKeyFrame {
                out += flush()
                out.append(code(index, presentationTime, .idr, reference: true))
            } else {
                out.append(code(index, presentationTime, .i, reference: true))
                out += codeWaiting()
            }
        } else if waiting.count >= c.bFrames {
            out.append(code(index, presentationTime, .p, reference: true))
            out += codeWaiting()
        } else {
            waiting.append((index, presentationTime))
        }
        return out
    }

    /// Codes the frames still waiting (end of stream, or before an IDR): the last becomes a P picture.
    public mutating func flush() -> [PicturePlan] {
        guard let last = waiting.popLast() else { return [] }
        return [code(last.index, last.time, .p, reference: true)] + codeWaiting()
    }

    /// The waiting frames as B pictures between the two anchors just coded.
    private mutating func codeWaiting() -> [PicturePlan] {
        let run = waiting
        waiting = []
        return Self.bCodingOrder(count: run.count, pyramid: configuration.bPyramid).map {
            code(run[$0.offset].index, run[$0.offset].time, .b, reference: $0.isReference)
        }
    }

    private mutating func code(_ index: Int, _ time: MediaTime, _ type: PictureType, reference: Bool) -> PicturePlan {
        let c = configuration
        if type == .idr {
            dpb = []
            idrCount += 1
            idrDisplayIndex = index
            previousReferenceFrameNum = 0
        }
        let frameNum = type == .idr ? 0 : (previousReferenceFrameNum + 1) % (1 << c.log2MaxFrameNum)
        let poc = index - idrDisplayIndex
        let before = dpb.filter { $0.picOrderCnt < poc }.sorted { $0.picOrderCnt > $1.picOrderCnt }
        let after = dpb.filter { $0.picOrderCnt > poc }.sorted { $0.picOrderCnt < $1.picOrderCnt }
        let list0: [Reference], list1: [Reference]
        switch type {
        case .idr, .i: (list0, list1) = ([], [])
        case .p: (list0, list1) = (Array(before.prefix(c.referenceCount)), [])
        case .b: (list0, list1) = (Array(before.prefix(1)), Array(after.prefix(1)))
        }
        // The lowest slot no reference holds and no recent picture wrote or read.
        let busy = Set(dpb.map(\.slot) + recentSlots.joined())
        guard let slot = (0..<c.reconstructedSlots).first(where: { !busy.contains($0) }) else {
            preconditionFailure("reconstructed slots exhausted: \(busy.count) of \(c.reconstructedSlots) busy")
        }
        let plan = PicturePlan(displayIndex: index, codingIndex: codingCount, type: type, presentationTime: time,
                               isReference: reference, idrPicId: (idrCount - 1) % 65536, frameNum: frameNum, picOrderCnt: poc,
                               log2MaxPicOrderCntLsb: c.log2MaxPicOrderCntLsb, reconstructedSlot: slot,
                               referenceFrames: dpb, list0: list0, list1: list1)
        codingCount += 1
        recentSlots.append([slot] + dpb.map(\.slot))
        if recentSlots.count > c.framesInFlight { recentSlots.removeFirst() }
        if reference {
            previousReferenceFrameNum = frameNum
            // Sliding window (8.2.5.3): the oldest in coding order leaves when the DPB is full.
            if dpb.count >= c.maxNumRefFrames { dpb.removeFirst(dpb.count - c.maxNumRefFrames + 1) }
            dpb.append(Reference(slot: slot, frameNum: frameNum, picOrderCnt: poc))
        }
        return plan
    }

    /// B pictures of a run of `count` in coding order. With a pyramid the middle one of each stretch of two or
    /// more (the earlier of two middles) is a reference coded before the stretches on either side of it, as
    /// FFmpeg's vaapi_encode_set_b_pictures picks it.
    public static func bCodingOrder(count: Int, pyramid: Bool) -> [(offset: Int, isReference: Bool)] {
        guard pyramid else { return (0..<count).map { ($0, false) } }
        func order(_ lo: Int, _ hi: Int) -> [(offset: Int, isReference: Bool)] {
            let n = hi - lo
            if n <= 0 { return [] }
            if n == 1 { return [(lo, false)] }
            let mid = lo + (n - 1) / 2
            return [(mid, true)] + order(lo, mid) + order(mid + 1, hi)
        }
        return order(0, count)
    }
}
