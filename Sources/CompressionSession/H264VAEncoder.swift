import CLibVA
import H264Bitstream
import VideoAcceleration
import VTKMedia

/// The VA side of encoding: a config and context on the negotiated entrypoint (EncSlice or EncSliceLP),
/// a ring of input surfaces and coded buffers (`framesInFlight` of each, like FFmpeg's async depth), and
/// reconstructed surfaces for the references. Pictures go in, in coding order, with ``submit(_:plan:)``
/// and come back oldest first with ``collectOldest()``, so the driver can work on one while the caller
/// copies the next.
final class H264VAEncoder {
    let connection: VADisplayConnection
    let configuration: EncoderConfiguration
    private var parameters: H264EncodeParameters
    /// Rate settings last sent to the driver; a difference sends new misc buffers with the next picture.
    private var sentRate: H264RateSettings?
    private let vaConfig: VAConfiguration
    private let surfaces: VASurfaceSet
    private let context: VAContext
    private let codedBuffers: [VACodedBuffer]
    /// Submitted and not yet collected: the ring slot each used, oldest first.
    private var inFlight: [Int] = []
    private var submitted = 0

    var framesInFlight: Int { inFlight.count }
    var isFull: Bool { inFlight.count == configuration.framesInFlight }

    init(connection: VADisplayConnection, headers: H264StreamHeaders) throws(VAError) {
        let c = headers.configuration
        self.connection = connection
        self.configuration = c
        parameters = H264EncodeParameters(headers: headers)
        var attributes = [
            VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420)),
            VAConfigAttrib(type: VAConfigAttribRateControl, value: c.vaRateControl),
        ]
        // Packed headers only where the driver advertised them (VAConfigAttribEncPackedHeaders).
        if c.capabilities.packedHeaders != 0 {
            attributes.append(VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: c.packedHeaders))
        }
        vaConfig = try VAConfiguration(connection, profile: c.vaProfile, entrypoint: c.vaEntrypoint, attributes: attributes)
        // Inputs first, then the reconstructed pictures; all at the coded (macroblock-aligned) size.
        let reconstructed = c.plannerConfiguration.reconstructedSlots
        surfaces = try VASurfaceSet(connection, width: c.codedWidth, height: c.codedHeight, count: c.framesInFlight + reconstructed)
        context = try VAContext(connection, configuration: vaConfig, surfaces: surfaces, width: c.codedWidth, height: c.codedHeight)
        var buffers: [VACodedBuffer] = []
        for _ in 0..<c.framesInFlight { buffers.append(try VACodedBuffer(context, capacity: Self.codedBufferSize(c))) }
        codedBuffers = buffers
    }

    /// As FFmpeg sizes its output buffers (vaapi_encode_alloc_output_buffer): three bytes per luma sample of the
    /// coded surface plus 64 KiB of headers, twice an uncompressed 4:2:0 picture, so no conforming picture
    /// (A.3.1 bounds a macroblock at 384 bytes plus header bits) can overflow it.
    static func codedBufferSize(_ c: EncoderConfiguration) -> Int { 3 * c.codedWidth * c.codedHeight + (1 << 16) }

    /// Bit rate or frame rate for the pictures from the next one on (new misc parameter buffers).
    func update(rate: H264RateSettings) { parameters.rate = rate }

    private func inputSurface(_ slot: Int) -> VASurfaceID { surfaces.ids[slot] }
    private func reconstructedSurface(_ slot: Int) -> VASurfaceID { surfaces.ids[configuration.framesInFlight + slot] }

    /// Puts `frame` (NV12, the session's size) into the next free input surface and encodes it as `plan` says.
    /// Sequence parameters (and packed SPS/PPS) go with every IDR; rate-control, HRD and frame-rate
    /// parameters with every IDR and whenever they changed.
    func submit(_ frame: PixelBuffer, plan: H264GOPPlanner.PicturePlan) throws(VAError) {
        precondition(!isFull, "collect the oldest picture first")
        let slot = submitted % configuration.framesInFlight
        precondition(!inFlight.contains(slot))
        let source = inputSurface(slot)
        try VASurfaceWriter.writeNV12(connection, frame, to: source, surfaceWidth: configuration.codedWidth, surfaceHeight: configuration.codedHeight)

        var buffers: [VABufferID] = []
        do {
            let c = configuration
            if plan.isIDR {
                var sequence = parameters.sequence()
                buffers.append(try context.buffer(VAEncSequenceParameterBufferType, &sequence))
            }
            if plan.isIDR || sentRate != parameters.rate {
                if c.rateControl != .constantQP {
                    buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeRateControl, parameters.rateControl()))
                    buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeHRD, parameters.hrd()))
                }
                buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeFrameRate, parameters.frameRate()))
            }
            var picture = parameters.picture(plan, reconstructed: reconstructedSurface, codedBuffer: codedBuffers[slot].id)
            buffers.append(try context.buffer(VAEncPictureParameterBufferType, &picture))
            if plan.isIDR && c.sendsPackedSequence {
                let headers = parameters.headers
                buffers += try packedHeader(VAEncPackedHeaderSequence.rawValue,
                                            AnnexBScanner.byteStream([headers.spsNALUnit, headers.ppsNALUnit]), bits: nil)
            }
            if c.sendsPackedSEI, let sei = parameters.headers.packedSEI(plan) {
                buffers += try packedHeader(VAEncPackedHeaderRawData.rawValue, sei, bits: nil)
            }
            if c.sendsPackedSlice {
                let header = parameters.headers.packedSliceHeader(plan)
                buffers += try packedHeader(VAEncPackedHeaderSlice.rawValue, header.bytes, bits: header.bits)
            }
            var slice = parameters.slice(plan, reconstructed: reconstructedSurface)
            buffers.append(try context.buffer(VAEncSliceParameterBufferType, &slice))
        } catch {
            context.destroy(buffers: buffers)
            throw error
        }
        try context.render(target: source, buffers: buffers)
        sentRate = parameters.rate
        inFlight.append(slot)
        submitted += 1
    }

    /// A VAEncPackedHeaderParameterBuffer and its data buffer. `bytes` is NAL units with start codes and
    /// emulation prevention in place; `bits` is the exact length when the last byte is not all header (slices).
    private func packedHeader(_ type: UInt32, _ bytes: [UInt8], bits: Int?) throws(VAError) -> [VABufferID] {
        var parameter = VAEncPackedHeaderParameterBuffer()
        parameter.type = type
        parameter.bit_length = UInt32(bits ?? bytes.count * 8)
        parameter.has_emulation_bytes = 1
        let p = try context.buffer(VAEncPackedHeaderParameterBufferType, &parameter)
        let data = bytes.withUnsafeBytes { raw in
            Result { () throws(VAError) -> VABufferID in try context.buffer(VAEncPackedHeaderDataBufferType, bytes: raw) }
        }
        switch data {
        case .success(let d): return [p, d]
        case .failure(let error):
            context.destroy(buffers: [p])
            throw error
        }
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
