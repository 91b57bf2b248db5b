import H265Bitstream

/// The VPS, SPS and PPS active for the picture being encoded (7.4.2.4.2).
public struct H265ActiveParameterSets: Sendable {
    public var vps: VideoParameterSet
    public var sps: H265SequenceParameterSet
    public var pps: H265PictureParameterSet

    public init(vps: VideoParameterSet = VideoParameterSet(), sps: H265SequenceParameterSet, pps: H265PictureParameterSet) {
        (self.vps, self.sps, self.pps) = (vps, sps, pps)
    }
}
