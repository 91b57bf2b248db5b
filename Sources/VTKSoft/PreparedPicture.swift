import H264Encoding

/// What both native encode sessions (H.264 and H.265) check and resolve at vaEndPicture for the worker,
/// whatever the codec: the surfaces, the reference lists, the rate control of the picture, the client's
/// packed headers, and the violations found so far. Each session's `Prepared` adds its codec's parameters.
struct PreparedPicture {
    /// RefPicList0 and RefPicList1, their surfaces resolved.
    let references: [[PendingReference]]
    let source: Surface
    /// The current picture's surface (CurrPic, decoded_curr_pic), where the reconstruction goes.
    let target: Surface
    let kind: RateController.PictureKind
    let rateControl: RateController.Parameters?
    let maxFrameSize: Int?
    /// The client's packed headers that go into the stream (the persona's policy applied).
    let packedHeaders: [PackedHeader]
    /// The driver writes the parameter sets before this picture (an IDR or IRAP with none packed).
    let writeParameterSets: Bool
    let violations: [String]
}
