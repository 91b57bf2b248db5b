import VTKMedia

/// How a ``CompressionSession`` encodes, like the kVTCompressionPropertyKey_* values given to
/// VTCompressionSession. A value: set the fields, hand it to the session.
public struct CompressionProperties: Hashable, Sendable {
    public enum RateControl: String, Hashable, Sendable, CaseIterable {
        /// Every picture at ``CompressionProperties/quantizer`` (VA_RC_CQP).
        case constantQP = "CQP"
        /// ``CompressionProperties/averageBitRate`` held over a one-second buffer (VA_RC_CBR).
        case constantBitRate = "CBR"
        /// ``CompressionProperties/averageBitRate`` on average, ``CompressionProperties/peakBitRate`` at most (VA_RC_VBR).
        case variableBitRate = "VBR"
    }

    public enum Profile: String, Hashable, Sendable, CaseIterable {
        case constrainedBaseline = "Constrained Baseline"
        case main = "Main"
        case high = "High"
    }

    public enum EntropyMode: String, Hashable, Sendable { case cavlc = "CAVLC", cabac = "CABAC" }

    public var rateControl: RateControl = .constantQP
    /// QP for ``RateControl/constantQP``, 0...51.
    public var quantizer: Int = 26
    /// Bits per second for CBR and VBR (kVTCompressionPropertyKey_AverageBitRate).
    public var averageBitRate: Int?
    /// VBR ceiling; the average when nil.
    public var peakBitRate: Int?
    /// At most this many frames from one IDR to the next; 0 means no limit (kVTCompressionPropertyKey_MaxKeyFrameInterval).
    public var maxKeyFrameInterval: Int = 0
    /// At most this long from one IDR to the next, by presentation time; nil means no limit
    /// (kVTCompressionPropertyKey_MaxKeyFrameIntervalDuration). With both limits the first one met wins.
    public var maxKeyFrameIntervalDuration: MediaTime?
    /// Frames per second the source runs at: VUI timing and the rate controller's budget per frame. 30 when nil.
    public var expectedFrameRate: Double?
    public var profile: Profile = .high
    /// level_idc (e.g. 31 for 3.1); the smallest level that fits size, frame rate and bit rate when nil.
    public var level: Int?
    /// CABAC for Main and High, CAVLC for Constrained Baseline when nil.
    public var entropyMode: EntropyMode?
    /// Low latency: one frame in flight, so each frame's sample comes back from the call that encoded it.
    public var realTime: Bool = false
    /// B-frames (kVTCompressionPropertyKey_AllowFrameReordering). Off by default here: it needs a driver
    /// with list-1 references.
    public var allowFrameReordering: Bool = false
    /// Frames handed to the driver before the oldest is collected (the async depth); 1 when ``realTime``, else 3.
    public var framesInFlight: Int?

    public init() {}
}
