import H264Bitstream

/// The SPS and PPS active for the picture being encoded (7.4.1.2.1).
public struct H264ActiveParameterSets: Sendable {
    public var sps: SequenceParameterSet
    public var pps: PictureParameterSet

    public init(sps: SequenceParameterSet, pps: PictureParameterSet) {
        (self.sps, self.pps) = (sps, pps)
    }
}
