/// A picture in 4:2:0 as the engine holds it: coded size (whole macroblocks), padded planes.
public struct EncoderPicture: Sendable {
    public var luma: PaddedPlane { didSet { reconstructionToken = nil } }
    public var cb: PaddedPlane { didSet { reconstructionToken = nil } }
    public var cr: PaddedPlane { didSet { reconstructionToken = nil } }
    /// Set on a reconstruction the engine returns; any change to its samples clears it.
    public internal(set) var reconstructionToken: ReconstructionToken?
    /// Per macroblock, once the engine has coded the picture: bit q set when the motion of its 8x8 quadrant q
    /// (raster) makes colZeroFlag 1 for a B picture that has it as RefPicList1[0] (8.4.1.2.2: refIdxCol 0,
    /// both mvCol components in −1...1). The engine codes one motion per quadrant, so the flag holds for every
    /// 4x4 block of it. Empty for a picture the engine did not code (its B pictures then use direct prediction
    /// only where colZeroFlag cannot matter).
    public var colocatedZero: [UInt8] = []

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
