import VTKMedia

/// The encoder's picture and reference planning, with no VA in it: which pictures are IDRs, their
/// frame_num (7.4.3) and picture order count (8.2.1.1, type 0), and which reconstructed-picture slots
/// hold the references each picture predicts from. Pictures are coded in display order (no B-frames),
/// every picture is a reference, and the references are the last `referenceCount` pictures since the
/// IDR (the sliding window of 8.2.5.3), nearest first.
///
/// ``next(presentationTime:forceKeyFrame:)`` only looks; ``commit(_:)`` makes the plan happen, so a
/// picture the driver refused leaves the plan as it was.
public struct H264ReferencePlanner: Hashable, Sendable {
    public struct Configuration: Hashable, Sendable {
        /// An IDR at least every this many frames; 0 for no limit.
        public var maxKeyFrameInterval: Int
        /// An IDR once this much presentation time has passed since the last one; nil for no limit.
        public var maxKeyFrameIntervalDuration: MediaTime?
        /// References per P picture (1 for vtksoft).
        public var referenceCount: Int
        /// Reconstructed-picture slots to rotate through: references plus pictures in flight.
        public var reconstructedSlots: Int
        public var log2MaxFrameNum: Int
        public var log2MaxPicOrderCntLsb: Int

        public init(maxKeyFrameInterval: Int = 0, maxKeyFrameIntervalDuration: MediaTime? = nil, referenceCount: Int = 1,
                    reconstructedSlots: Int = 2, log2MaxFrameNum: Int = 8, log2MaxPicOrderCntLsb: Int = 9) {
            self.maxKeyFrameInterval = maxKeyFrameInterval
            self.maxKeyFrameIntervalDuration = maxKeyFrameIntervalDuration
            self.referenceCount = referenceCount
            self.reconstructedSlots = reconstructedSlots
            self.log2MaxFrameNum = log2MaxFrameNum
            self.log2MaxPicOrderCntLsb = log2MaxPicOrderCntLsb
        }
    }

    /// A reconstructed picture kept for prediction.
    public struct Reference: Hashable, Sendable {
        public let slot: Int
        public let frameNum: Int
        public let picOrderCnt: Int
    }

    public struct PicturePlan: Hashable, Sendable {
        /// Position in coding order (= display order here).
        public let index: Int
        public let isIDR: Bool
        /// I for IDRs, P otherwise (slice_type 2 and 0, Table 7-6).
        public var isIntra: Bool { isIDR }
        /// idr_pic_id of this IDR, or of the IDR a P picture follows; consecutive IDRs differ (7.4.3).
        public let idrPicId: Int
        public let frameNum: Int
        public let picOrderCnt: Int
        public var picOrderCntLsb: Int { picOrderCnt & ((1 << log2MaxPicOrderCntLsb) - 1) }
        let log2MaxPicOrderCntLsb: Int
        /// nal_ref_idc != 0.
        public let isReference: Bool
        /// Where the driver writes this picture's reconstruction.
        public let reconstructedSlot: Int
        /// RefPicList0, nearest first; empty for IDRs.
        public let references: [Reference]
    }

    public let configuration: Configuration
    private var index = 0
    private var framesSinceIDR = 0
    private var lastIDRTime: MediaTime?
    private var idrCount = 0
    private var previousFrameNum = 0
    private var references: [Reference] = []

    public init(_ configuration: Configuration) {
        precondition(configuration.referenceCount >= 1 && configuration.reconstructedSlots > configuration.referenceCount)
        self.configuration = configuration
    }

    /// The plan for the next picture, shown at `presentationTime`.
    public func next(presentationTime: MediaTime, forceKeyFrame: Bool = false) -> PicturePlan {
        let c = configuration
        var idr = index == 0 || forceKeyFrame
        if c.maxKeyFrameInterval > 0 && framesSinceIDR >= c.maxKeyFrameInterval { idr = true }
        if let limit = c.maxKeyFrameIntervalDuration, let last = lastIDRTime, presentationTime.isNumeric,
           presentationTime - last >= limit { idr = true }
        let frameNum = idr ? 0 : (previousFrameNum + 1) % (1 << c.log2MaxFrameNum)
        // Frames only: POC advances by 2 per frame (top and bottom field of each), 0 at the IDR.
        let poc = idr ? 0 : 2 * framesSinceIDR
        return PicturePlan(index: index, isIDR: idr, idrPicId: (idr ? idrCount : max(0, idrCount - 1)) % 65536, frameNum: frameNum, picOrderCnt: poc,
                           log2MaxPicOrderCntLsb: c.log2MaxPicOrderCntLsb, isReference: true,
                           reconstructedSlot: index % c.reconstructedSlots,
                           references: idr ? [] : Array(references.prefix(c.referenceCount)))
    }

    /// Records that `plan` (the last ``next(presentationTime:forceKeyFrame:)``) was submitted.
    public mutating func commit(_ plan: PicturePlan, presentationTime: MediaTime) {
        precondition(plan.index == index, "plans are committed in order")
        index += 1
        if plan.isIDR {
            framesSinceIDR = 0
            lastIDRTime = presentationTime
            idrCount += 1
            references = []
        }
        framesSinceIDR += 1
        previousFrameNum = plan.frameNum
        if plan.isReference {
            references.insert(Reference(slot: plan.reconstructedSlot, frameNum: plan.frameNum, picOrderCnt: plan.picOrderCnt), at: 0)
            if references.count > configuration.referenceCount { references.removeLast(references.count - configuration.referenceCount) }
        }
    }
}
