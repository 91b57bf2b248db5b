import VTKMedia

/// How a ``CompressionSession`` encodes, like the kVTCompressionPropertyKey_* values given to
/// VTCompressionSession. A value: set the fields, hand it to the session.
public struct CompressionProperties: Hashable, Sendable {
    /// At most `bytes` in any `seconds` (one entry of kVTCompressionPropertyKey_DataRateLimits).
    public struct DataRateLimit: Hashable, Sendable {
        public var bytes: Int
        public var seconds: Double
        public init(bytes: Int, seconds: Double) { self.bytes = bytes; self.seconds = seconds }
    }

    public enum RateControl: String, Hashable, Sendable, CaseIterable {
        /// P pictures at ``CompressionProperties/quantizer``, I pictures 3 finer and B pictures 3 (a pyramid's
        /// reference B) or 4 coarser (VA_RC_CQP).
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

    /// The codec (kCMVideoCodecType_H264, kCMVideoCodecType_HEVC).
    public enum Codec: String, Hashable, Sendable, CaseIterable {
        case h264 = "H.264"
        case h265 = "H.265"
    }

    /// H.265 profiles (A.3.2, A.3.3).
    public enum HEVCProfile: String, Hashable, Sendable, CaseIterable {
        case main = "Main"
        /// 10-bit samples: frames in P010 or yuv420p10 (8-bit frames are widened).
        case main10 = "Main 10"
    }

    public var codec: Codec = .h264
    /// The H.265 profile, for ``Codec/h265``; ``profile`` is H.264's.
    public var hevcProfile: HEVCProfile = .main

    public var rateControl: RateControl = .constantQP
    /// QP of P pictures for ``RateControl/constantQP``, 0...51 (I and B offset from it, clipped to 0...51).
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
    /// Low latency: one frame with the driver at a time (``framesInFlight`` 1 unless set), so each frame's
    /// sample comes back from the call that encoded it.
    public var oneFrameInFlight: Bool = false
    /// B-frames (kVTCompressionPropertyKey_AllowFrameReordering). Off by default here: it needs a driver
    /// with list-1 references; without them the session falls back to P pictures and says so in
    /// ``CompressionSession/warnings``.
    public var allowFrameReordering: Bool = false
    /// B pictures between two anchors when reordering is allowed (FFmpeg's -bf), at most 16.
    public var maxConsecutiveBFrames: Int = 2
    /// The middle B picture of each run is a reference the others predict from (x264's b-pyramid).
    public var bPyramid: Bool = false
    /// List-0 references of a P picture (FFmpeg's -refs); capped at what the driver takes in list 0.
    public var referenceFrameCount: Int = 1
    /// Key frames after the first are non-IDR I pictures that earlier B pictures may reference
    /// (kVTCompressionPropertyKey_AllowOpenGOP).
    public var allowOpenGOP: Bool = false
    /// Frames the session may hold before the first sample comes out (kVTCompressionPropertyKey_MaxFrameDelayCount):
    /// B pictures waiting for their anchor plus frames with the driver. nil for no limit.
    public var maxFrameDelayCount: Int?
    /// Bytes over seconds, each pair a ceiling (kVTCompressionPropertyKey_DataRateLimits). The tightest becomes
    /// the VBR peak and its window the rate controller's.
    public var dataRateLimits: [DataRateLimit] = []
    /// The low-power (fixed-function, VAEntrypointEncSliceLP) encoder before the full one.
    public var preferLowPower: Bool = false
    /// Frames handed to the driver before the oldest is collected (the async depth); 1 when ``oneFrameInFlight``, else 3.
    public var framesInFlight: Int?

    /// kVTCompressionPropertyKey_ProfileLevel: "H264_High_4_1", "H264_Main_AutoLevel", "H264_ConstrainedBaseline_3_0" …
    public var profileLevel: String {
        get {
            let name = profile == .constrainedBaseline ? "ConstrainedBaseline" : profile.rawValue
            return "H264_\(name)_" + (level.map { "\($0 / 10)_\($0 % 10)" } ?? "AutoLevel")
        }
        set {
            let parts = newValue.split(separator: "_")
            guard parts.count >= 3, parts[0] == "H264" else { return }
            switch parts[1] {
            case "Baseline", "ConstrainedBaseline": profile = .constrainedBaseline
            case "Main": profile = .main
            case "High": profile = .high
            default: return
            }
            level = parts.count == 4 ? Int(parts[2]).flatMap { major in Int(parts[3]).map { major * 10 + $0 } } : nil
        }
    }

    public init() {}
}
