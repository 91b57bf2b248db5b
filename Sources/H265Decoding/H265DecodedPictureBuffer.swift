import VideoDecoding

/// The DPB of H.265: pictures wait in it while they are references or not yet output; output is in POC
/// order, as the reorder, latency and size limits force it (C.5.2).
public typealias H265DecodedPictureBuffer = DecodedPictureBuffer<H265BufferRules>

/// The output rules of H.265's DPB (C.5.2.2): the reorder and latency limits of the highest sub-layer.
public struct H265BufferRules: DecodedPictureBufferRules {
    public typealias Picture = H265DecodedPicture
    /// sps_max_num_reorder_pics of the highest sub-layer.
    public let maxNumReorder: Int
    /// SpsMaxLatencyPictures, when the stream limits latency.
    public let maxLatency: Int?

    public init(maxNumReorder: Int, maxLatency: Int?) {
        self.maxNumReorder = maxNumReorder
        self.maxLatency = maxLatency
    }

    public func requiresOutput(_ buffer: H265DecodedPictureBuffer) -> Bool {
        if buffer.waitingForOutput.count > maxNumReorder { return true }
        guard let maxLatency else { return false }
        return buffer.pictures.contains { $0.neededForOutput && $0.latencyCount >= maxLatency }
    }

    /// The reference decoded first.
    public func evictionCandidate(_ buffer: H265DecodedPictureBuffer) -> PictureID? {
        buffer.referencePictures.min(by: { $0.decodeIndex < $1.decodeIndex })?.id
    }
}

extension DecodedPictureBuffer where Rules == H265BufferRules {
    /// `capacity` is sps_max_dec_pic_buffering_minus1 + 1 of the highest sub-layer: pictures held, the
    /// current included.
    public init(capacity: Int, maxNumReorder: Int, maxLatency: Int?) {
        self.init(capacity: capacity, rules: H265BufferRules(maxNumReorder: maxNumReorder, maxLatency: maxLatency))
    }

    public var maxNumReorder: Int { rules.maxNumReorder }
    public var maxLatency: Int? { rules.maxLatency }

    /// C.5.2.3: stores the decoded current picture and bumps while the reorder or latency limit is exceeded.
    mutating func store(_ picture: H265DecodedPicture) -> [Event] {
        updateAll { if $0.neededForOutput { $0.latencyCount += 1 } }
        var current = picture
        current.latencyCount = 0
        insert(current)
        return additionalBumping()
    }
}
