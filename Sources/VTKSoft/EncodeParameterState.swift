import CLibVA
import H264Encoding

/// What an encode context keeps across pictures of the buffers its client renders: the sequence parameters
/// and the misc parameters (rate control, frame rate, HRD, MaxFrameSize), which clients send once or with
/// IRAPs only. Both native encode sessions (H.264 and H.265) read them the same way.
struct EncodeParameterState<Sequence> {
    private(set) var sequence: Sequence?
    private(set) var rateControl: VAEncMiscParameterRateControl?
    private(set) var frameRate: VAEncMiscParameterFrameRate?
    private(set) var hrd: VAEncMiscParameterHRD?
    /// MaxFrameSize in bits (CBR/VBR: a bigger picture is coded again at a higher QP, as iHD's multi-pass).
    private(set) var maxFrameSize: Int?

    /// Keeps what this picture's buffers carry and returns the sequence and picture parameters it is coded
    /// with: a picture needs a sequence (once), a picture and at least one slice buffer.
    mutating func picture<Picture, Slice>(_ buffers: CodecEncodePictureBuffers<Sequence, Picture, Slice>) throws(VAError) -> (Sequence, Picture) {
        if let s = buffers.sequence { sequence = s }
        if let r = buffers.rateControl { rateControl = r }
        if let f = buffers.frameRate { frameRate = f }
        if let h = buffers.hrd { hrd = h }
        if let m = buffers.maxFrameSize { maxFrameSize = m > 0 ? m : nil }
        guard let seq = sequence, let pic = buffers.picture, !buffers.slices.isEmpty else {
            throw VAError.invalidParameter.because("a picture needs sequence (once), picture and slice parameters")
        }
        return (seq, pic)
    }

    /// The rate controller's parameters under the config's VA_RC_CBR or VA_RC_VBR (nil under any other mode):
    /// the misc parameters where the client sent them, else the sequence's bits_per_second. `timing`: frames
    /// per second from the sequence's VUI, used when no frame-rate misc parameter came.
    func rateControlParameters(mode rateControlMode: UInt32, sequenceBitsPerSecond: UInt32, timing: Double?,
                               lumaSamples: Int) -> RateController.Parameters? {
        let mode: RateController.Mode
        switch rateControlMode {
        case UInt32(VA_RC_CBR): mode = .cbr
        case UInt32(VA_RC_VBR): mode = .vbr
        default: return nil
        }
        let rc = rateControl
        let bits = Int(rc.map { $0.bits_per_second } ?? 0)
        return RateController.Parameters(
            mode: mode, bitsPerSecond: bits > 0 ? bits : max(Int(sequenceBitsPerSecond), 1),
            targetPercentage: Int(rc?.target_percentage ?? 100), windowSize: Int(rc?.window_size ?? 0),
            initialQP: Int(rc?.initial_qp ?? 0), minQP: Int(rc?.min_qp ?? 0), maxQP: Int(rc?.max_qp ?? 0),
            bufferSize: Int(hrd?.buffer_size ?? 0), initialBufferFullness: Int(hrd?.initial_buffer_fullness ?? 0),
            framesPerSecond: CodecEncodePictureBuffers<Sequence, Void, Void>.framesPerSecond(frameRate, timing: timing),
            lumaSamples: lumaSamples)
    }
}
