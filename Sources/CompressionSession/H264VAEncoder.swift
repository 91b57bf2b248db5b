import CLibVA
import VideoAcceleration
import VTKMedia

/// The VA side of encoding: a config and context for EncSlice, a ring of input surfaces and coded
/// buffers (`framesInFlight` of each, like FFmpeg's async depth), and reconstructed surfaces for the
/// references. Pictures go in with ``submit(_:plan:)`` and come back oldest first with
/// ``collectOldest()``, so the driver can work on one while the caller copies the next.
final class H264VAEncoder {
    let connection: VADisplayConnection
    let configuration: EncoderConfiguration
    private let parameters: H264EncodeParameters
    private let vaConfig: VAConfiguration
    private let surfaces: VASurfaceSet
    private let context: VAContext
    private let codedBuffers: [VACodedBuffer]
    /// Submitted and not yet collected: the ring slot each used, oldest first.
    private var inFlight: [Int] = []

    var framesInFlight: Int { inFlight.count }
    var isFull: Bool { inFlight.count == configuration.framesInFlight }

    init(connection: VADisplayConnection, configuration c: EncoderConfiguration) throws(VAError) {
        self.connection = connection
        self.configuration = c
        parameters = H264EncodeParameters(configuration: c)
        vaConfig = try VAConfiguration(connection, profile: c.vaProfile, entrypoint: VAEntrypointEncSlice, attributes: [
            VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420)),
            VAConfigAttrib(type: VAConfigAttribRateControl, value: c.vaRateControl),
        ])
        // Inputs first, then the reconstructed pictures; all at the coded (macroblock-aligned) size.
        let reconstructed = c.referenceCount + c.framesInFlight
        surfaces = try VASurfaceSet(connection, width: c.codedWidth, height: c.codedHeight, count: c.framesInFlight + reconstructed)
        context = try VAContext(connection, configuration: vaConfig, surfaces: surfaces, width: c.codedWidth, height: c.codedHeight)
        // Room for an uncompressed 4:2:0 picture plus headers: more than any coded picture (A.3.1 bounds
        // a macroblock well below 384 bytes except PCM, which is exactly 384 + header bits).
        let capacity = c.codedWidth * c.codedHeight * 3 / 2 + 64 * 1024
        var buffers: [VACodedBuffer] = []
        for _ in 0..<c.framesInFlight { buffers.append(try VACodedBuffer(context, capacity: capacity)) }
        codedBuffers = buffers
    }

    private func inputSurface(_ slot: Int) -> VASurfaceID { surfaces.ids[slot] }
    private func reconstructedSurface(_ slot: Int) -> VASurfaceID { surfaces.ids[configuration.framesInFlight + slot] }

    /// Puts `frame` (NV12, the session's size) into the next free input surface and encodes it as `plan` says.
    /// Sequence, rate-control, frame-rate and HRD parameters go with every IDR.
    func submit(_ frame: PixelBuffer, plan: H264ReferencePlanner.PicturePlan) throws(VAError) {
        precondition(!isFull, "collect the oldest picture first")
        let slot = plan.index % configuration.framesInFlight
        precondition(!inFlight.contains(slot))
        let source = inputSurface(slot)
        try VASurfaceWriter.writeNV12(connection, frame, to: source, surfaceWidth: configuration.codedWidth, surfaceHeight: configuration.codedHeight)

        var buffers: [VABufferID] = []
        do {
            if plan.isIDR {
                var sequence = parameters.sequence()
                buffers.append(try context.buffer(VAEncSequenceParameterBufferType, &sequence))
                if configuration.rateControl != .constantQP {
                    buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeRateControl, parameters.rateControl()))
                    buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeHRD, parameters.hrd()))
                }
                buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeFrameRate, parameters.frameRate()))
            }
            var picture = parameters.picture(plan, reconstructed: reconstructedSurface, codedBuffer: codedBuffers[slot].id)
            buffers.append(try context.buffer(VAEncPictureParameterBufferType, &picture))
            var slice = parameters.slice(plan, reconstructed: reconstructedSurface)
            buffers.append(try context.buffer(VAEncSliceParameterBufferType, &slice))
        } catch {
            context.destroy(buffers: buffers)
            throw error
        }
        try context.render(target: source, buffers: buffers)
        inFlight.append(slot)
    }

    /// Waits for the oldest submitted picture and returns its coded bytes (Annex B, as the driver wrote them).
    func collectOldest() throws(VAError) -> [UInt8]? {
        guard let slot = inFlight.first else { return nil }
        inFlight.removeFirst()
        let status = vaSyncSurface(connection.display, inputSurface(slot))
        guard status == VA_STATUS_SUCCESS else { throw VAError("vaSyncSurface(\(inputSurface(slot)))", status) }
        return try codedBuffers[slot].read()
    }
}
