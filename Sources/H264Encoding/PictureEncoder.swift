import H264Bitstream

/// One 8-bit plane with a border of replicated samples around it, so motion compensation and intra
/// prediction never bounds-check per sample. `(0, 0)` is the top-left visible sample.
public struct PaddedPlane: Sendable {
    public let width: Int
    public let height: Int
    public let padding: Int
    public let stride: Int
    public var samples: [UInt8]

    public init(width: Int, height: Int, padding: Int) {
        self.width = width
        self.height = height
        self.padding = padding
        stride = width + 2 * padding
        samples = [UInt8](repeating: 0, count: stride * (height + 2 * padding))
    }

    /// Index of sample (x, y) in ``samples``; x and y may reach into the padding.
    @inline(__always) public func index(_ x: Int, _ y: Int) -> Int { (y + padding) * stride + x + padding }
}

/// A picture in 4:2:0 as the engine holds it: coded size (whole macroblocks), padded planes.
public struct EncoderPicture: Sendable {
    public var luma: PaddedPlane { didSet { reconstructionToken = nil } }
    public var cb: PaddedPlane { didSet { reconstructionToken = nil } }
    public var cr: PaddedPlane { didSet { reconstructionToken = nil } }
    /// Set on a reconstruction the engine returns; any change to its samples clears it.
    public internal(set) var reconstructionToken: ReconstructionToken?
    /// Per macroblock, once the engine has coded the picture: whether its motion makes colZeroFlag 1 for a
    /// B picture that has it as RefPicList1[0] (8.4.1.2.2: refIdxCol 0, both mvCol components in −1...1).
    /// The engine codes one motion per macroblock, so the flag holds for every 4x4 block of it. Empty for a
    /// picture the engine did not code (its B pictures then use direct prediction only where colZeroFlag
    /// cannot matter).
    public var colocatedZero: [Bool] = []

    /// Luma padding of a picture (chroma: half), enough for motion vectors reaching past the edges.
    public static let defaultPadding = 32

    public init(widthInMbs: Int, heightInMbs: Int, padding: Int = defaultPadding) {
        luma = PaddedPlane(width: widthInMbs * 16, height: heightInMbs * 16, padding: padding)
        cb = PaddedPlane(width: widthInMbs * 8, height: heightInMbs * 8, padding: padding / 2)
        cr = PaddedPlane(width: widthInMbs * 8, height: heightInMbs * 8, padding: padding / 2)
    }

    /// A picture of these planes (the chroma ones half the luma's size).
    public init(luma: PaddedPlane, cb: PaddedPlane, cr: PaddedPlane) {
        self.luma = luma
        self.cb = cb
        self.cr = cr
    }
}

/// A reconstructed picture that a list entry names (8.2.4): its samples and what direct prediction and
/// implicit weights need of it.
public struct ReferencePicture: Sendable {
    public var picture: EncoderPicture
    /// PicOrderCnt of the frame (8.2.1).
    public var picOrderCnt: Int
    public var isLongTerm: Bool
    public init(picture: EncoderPicture, picOrderCnt: Int, isLongTerm: Bool = false) {
        self.picture = picture
        self.picOrderCnt = picOrderCnt
        self.isLongTerm = isLongTerm
    }
}

/// One slice to code: its header (as it will be written, or as the client's packed header says) and
/// the macroblocks it covers.
public struct SliceRequest: Sendable {
    public var header: SliceHeader
    public var macroblockCount: Int
    /// The client's packed slice header (NAL header byte + slice_header() bits, unescaped RBSP bits) to
    /// put in front of the slice data verbatim; nil: write `header` with ``SliceHeader/write(_:sps:pps:)``.
    public var packedHeader: (bytes: [UInt8], bitLength: Int)?
    public init(header: SliceHeader, macroblockCount: Int, packedHeader: (bytes: [UInt8], bitLength: Int)? = nil) {
        self.header = header
        self.macroblockCount = macroblockCount
        self.packedHeader = packedHeader
    }
}

/// Everything a hardware encoder is told for one picture, as Swift values (no VA types).
public struct EncodeRequest: Sendable {
    public var sps: SequenceParameterSet
    public var pps: PictureParameterSet
    public var slices: [SliceRequest]
    /// The source picture at coded size (the driver replicates edges past the visible size).
    public var source: EncoderPicture
    /// RefPicList0 / RefPicList1 in list order (after any modification), as the slice headers imply.
    public var refPicList0: [ReferencePicture]
    public var refPicList1: [ReferencePicture]
    /// PicOrderCnt of the current picture (temporal direct, implicit weights).
    public var picOrderCnt: Int
    public init(sps: SequenceParameterSet, pps: PictureParameterSet, slices: [SliceRequest], source: EncoderPicture,
                refPicList0: [ReferencePicture] = [], refPicList1: [ReferencePicture] = [], picOrderCnt: Int = 0) {
        self.sps = sps
        self.pps = pps
        self.slices = slices
        self.source = source
        self.refPicList0 = refPicList0
        self.refPicList1 = refPicList1
        self.picOrderCnt = picOrderCnt
    }
}

/// What the engine gives back: each slice as a complete NAL unit (header byte + escaped payload, no
/// start code), and the reconstruction, deblocked, exactly as a decoder would rebuild it (8.7).
public struct EncodedPicture: Sendable {
    public var sliceNALUnits: [[UInt8]]
    public var reconstruction: EncoderPicture
    public init(sliceNALUnits: [[UInt8]], reconstruction: EncoderPicture) {
        self.sliceNALUnits = sliceNALUnits
        self.reconstruction = reconstruction
    }
}

/// Why the engine cannot code a request as asked.
public enum EncodingError: Error, Equatable, Sendable {
    /// The request asks for something the engine does not implement (named), e.g. interlace, 4:4:4.
    case unsupported(String)
    /// The request contradicts itself (named), e.g. a P slice with an empty RefPicList0.
    case inconsistent(String)
}
