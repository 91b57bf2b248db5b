import CLibVA
import H264Bitstream
import PixelConversion
import VideoAcceleration
import VTKMedia

/// What one codec adds to the VA encoder (as FFmpeg's vaapi_encode_h264.c and _h265.c add to vaapi_encode.c):
/// the codec's parameter and packed header buffers of a picture, in render order. Rate-control, HRD and
/// frame-rate parameters are the encoder's own, the same for every codec.
protocol VAPictureMapper {
    /// Buffers before the misc parameters (the sequence parameters on a key picture).
    func sequenceBuffers(_ plan: H264GOPPlanner.PicturePlan, rate: H264RateSettings, context: VAContext) throws(VAError) -> [VABufferID]
    /// The picture, packed header and slice buffers after them.
    mutating func pictureBuffers(_ plan: H264GOPPlanner.PicturePlan, context: VAContext, reconstructed: (Int) -> VASurfaceID,
                                 codedBuffer: VABufferID) throws(VAError) -> [VABufferID]
}

/// The VA side of encoding, for every codec: a config and context on the negotiated entrypoint (EncSlice or
/// EncSliceLP), a ring of input surfaces and coded buffers (`framesInFlight` of each, like FFmpeg's async
/// depth), and reconstructed surfaces for the references. Pictures go in, in coding order, with
/// ``submit(_:plan:)`` and come back oldest first with ``collectOldest()``, so the driver can work on one
/// while the caller copies the next. The codec's buffers come from its ``VAPictureMapper``.
final class VAEncoder {
    let connection: VADisplayConnection
    let configuration: EncoderConfiguration
    private var mapper: any VAPictureMapper
    /// Rate settings in force, and those last sent to the driver; a difference sends new misc buffers with the next picture.
    private var rate: H264RateSettings
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

    init(connection: VADisplayConnection, configuration c: EncoderConfiguration, mapper: any VAPictureMapper) throws(VAError) {
        self.connection = connection
        self.configuration = c
        self.mapper = mapper
        rate = H264RateSettings(configuration: c)
        let tenBit = c.bitDepth > 8
        let rtFormat = UInt32(tenBit ? VA_RT_FORMAT_YUV420_10 : VA_RT_FORMAT_YUV420)
        var attributes = [
            VAConfigAttrib(type: VAConfigAttribRTFormat, value: rtFormat),
            VAConfigAttrib(type: VAConfigAttribRateControl, value: c.vaRateControl),
        ]
        // Packed headers only where the driver advertised them (VAConfigAttribEncPackedHeaders).
        if c.capabilities.packedHeaders != 0 {
            attributes.append(VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: c.packedHeaders))
        }
        vaConfig = try VAConfiguration(connection, profile: c.vaProfile, entrypoint: c.vaEntrypoint, attributes: attributes)
        // Inputs first, then the reconstructed pictures; all at the coded (macroblock-aligned) size.
        let reconstructed = c.plannerConfiguration.reconstructedSlots
        surfaces = try VASurfaceSet(connection, width: c.codedWidth, height: c.codedHeight, count: c.framesInFlight + reconstructed,
                                    rtFormat: rtFormat, fourcc: UInt32(tenBit ? VA_FOURCC_P010 : VA_FOURCC_NV12))
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
    func update(rate: H264RateSettings) { self.rate = rate }

    private func inputSurface(_ slot: Int) -> VASurfaceID { surfaces.ids[slot] }
    private func reconstructedSurface(_ slot: Int) -> VASurfaceID { surfaces.ids[configuration.framesInFlight + slot] }

    /// Puts `frame` (NV12, or P010 for 10 bits; the session's size) into the next free input surface and
    /// encodes it as `plan` says. Sequence parameters (and packed headers) go with every IDR; rate-control,
    /// HRD and frame-rate parameters with every IDR and whenever they changed.
    func submit(_ frame: PixelBuffer, plan: H264GOPPlanner.PicturePlan) throws(VAError) {
        precondition(!isFull, "collect the oldest picture first")
        let slot = submitted % configuration.framesInFlight
        precondition(!inFlight.contains(slot))
        let source = inputSurface(slot)
        if frame.format == .i420 {
            // Converted straight into the surface (no NV12 copy in between).
            try VASurfaceWriter.writeNV12(connection, width: frame.width, height: frame.height, to: source, surfaceWidth: configuration.codedWidth,
                                          surfaceHeight: configuration.codedHeight) { luma, lumaPitch, chroma, chromaPitch in
                PixelConverter.writeNV12(frame, luma: luma, lumaPitch: lumaPitch, chroma: chroma, chromaPitch: chromaPitch)
            }
        } else {
            try VASurfaceWriter.write(connection, frame, to: source, surfaceWidth: configuration.codedWidth, surfaceHeight: configuration.codedHeight)
        }

        var buffers: [VABufferID] = []
        do {
            let c = configuration
            buffers += try mapper.sequenceBuffers(plan, rate: rate, context: context)
            if plan.isIDR || sentRate != rate {
                if c.rateControl != .constantQP {
                    buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeRateControl, rate.rateControl(window: c.rateControlWindow)))
                    buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeHRD, rate.hrd()))
                }
                buffers.append(try context.miscParameterBuffer(VAEncMiscParameterTypeFrameRate, rate.frameRateParameter()))
            }
            buffers += try mapper.pictureBuffers(plan, context: context, reconstructed: reconstructedSurface, codedBuffer: codedBuffers[slot].id)
        } catch {
            context.destroy(buffers: buffers)
            throw error
        }
        try context.render(target: source, buffers: buffers)
        sentRate = rate
        inFlight.append(slot)
        submitted += 1
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

extension VAContext {
    /// A VAEncPackedHeaderParameterBuffer and its data buffer. `bytes` is NAL units with start codes and
    /// emulation prevention in place; `bits` is the exact length when the last byte is not all header (slices).
    func packedHeader(_ type: UInt32, _ bytes: [UInt8], bits: Int?) throws(VAError) -> [VABufferID] {
        var parameter = VAEncPackedHeaderParameterBuffer()
        parameter.type = type
        parameter.bit_length = UInt32(bits ?? bytes.count * 8)
        parameter.has_emulation_bytes = 1
        let p = try buffer(VAEncPackedHeaderParameterBufferType, &parameter)
        let data = bytes.withUnsafeBytes { raw in
            Result { () throws(VAError) -> VABufferID in try buffer(VAEncPackedHeaderDataBufferType, bytes: raw) }
        }
        switch data {
        case .success(let d): return [p, d]
        case .failure(let error):
            destroy(buffers: [p])
            throw error
        }
    }
}

/// H.264's buffers (va_enc_h264.h): sequence on IDRs; picture, packed SPS/PPS on IDRs, SEI and slice header
/// where the driver takes them, then the slice.
struct H264PictureMapper: VAPictureMapper {
    let parameters: H264EncodeParameters

    func sequenceBuffers(_ plan: H264GOPPlanner.PicturePlan, rate: H264RateSettings, context: VAContext) throws(VAError) -> [VABufferID] {
        guard plan.isIDR else { return [] }
        var p = parameters
        p.rate = rate
        var sequence = p.sequence()
        return [try context.buffer(VAEncSequenceParameterBufferType, &sequence)]
    }

    func pictureBuffers(_ plan: H264GOPPlanner.PicturePlan, context: VAContext, reconstructed: (Int) -> VASurfaceID,
                        codedBuffer: VABufferID) throws(VAError) -> [VABufferID] {
        let c = parameters.configuration
        var buffers: [VABufferID] = []
        do {
            var picture = parameters.picture(plan, reconstructed: reconstructed, codedBuffer: codedBuffer)
            buffers.append(try context.buffer(VAEncPictureParameterBufferType, &picture))
            if plan.isIDR && c.sendsPackedSequence {
                let headers = parameters.headers
                buffers += try context.packedHeader(VAEncPackedHeaderSequence.rawValue,
                                                    AnnexBScanner.byteStream([headers.spsNALUnit, headers.ppsNALUnit]), bits: nil)
            }
            if c.sendsPackedSEI, let sei = parameters.headers.packedSEI(plan) {
                buffers += try context.packedHeader(VAEncPackedHeaderRawData.rawValue, sei, bits: nil)
            }
            if c.sendsPackedSlice {
                let header = parameters.headers.packedSliceHeader(plan)
                buffers += try context.packedHeader(VAEncPackedHeaderSlice.rawValue, header.bytes, bits: header.bits)
            }
            var slice = parameters.slice(plan, reconstructed: reconstructed)
            buffers.append(try context.buffer(VAEncSliceParameterBufferType, &slice))
        } catch {
            context.destroy(buffers: buffers)
            throw error
        }
        return buffers
    }
}

/// H.265's buffers (va_enc_hevc.h): sequence on IDRs; picture, packed VPS/SPS/PPS on IDRs and the slice
/// header where the driver takes them, then the slice. Tracks the last IRAP so that the B pictures coded
/// after a CRA but shown before it are RASL pictures.
struct H265PictureMapper: VAPictureMapper {
    let parameters: H265EncodeParameters
    /// Display index of the last IDR or CRA.
    private var lastIRAP = 0

    init(parameters: H265EncodeParameters) { self.parameters = parameters }

    func sequenceBuffers(_ plan: H264GOPPlanner.PicturePlan, rate: H264RateSettings, context: VAContext) throws(VAError) -> [VABufferID] {
        guard plan.isIDR else { return [] }
        var sequence = parameters.sequence(rate: rate)
        return [try context.buffer(VAEncSequenceParameterBufferType, &sequence)]
    }

    mutating func pictureBuffers(_ plan: H264GOPPlanner.PicturePlan, context: VAContext, reconstructed: (Int) -> VASurfaceID,
                                 codedBuffer: VABufferID) throws(VAError) -> [VABufferID] {
        if plan.isIntra { lastIRAP = plan.displayIndex }
        let leading = plan.displayIndex < lastIRAP
        let c = parameters.configuration
        var buffers: [VABufferID] = []
        do {
            var picture = parameters.picture(plan, leading: leading, reconstructed: reconstructed, codedBuffer: codedBuffer)
            buffers.append(try context.buffer(VAEncPictureParameterBufferType, &picture))
            if plan.isIDR && c.sendsPackedSequence {
                buffers += try context.packedHeader(VAEncPackedHeaderSequence.rawValue, parameters.headers.packedSequence, bits: nil)
            }
            if c.sendsPackedSlice {
                let header = parameters.headers.packedSliceHeader(plan, leading: leading)
                buffers += try context.packedHeader(VAEncPackedHeaderSlice.rawValue, header.bytes, bits: header.bits)
            }
            var slice = parameters.slice(plan, leading: leading, reconstructed: reconstructed)
            buffers.append(try context.buffer(VAEncSliceParameterBufferType, &slice))
        } catch {
            context.destroy(buffers: buffers)
            throw error
        }
        return buffers
    }
}
