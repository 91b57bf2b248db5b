import CLibVA
import Foundation
import VTKTestSupport
import H264Bitstream
import Testing

/// A tiny VA client written for the tests: one 64x64 picture encoded through vtksoft, and decoded back
/// through vtksoft from VA parameters filled from the encoded stream's own SPS and PPS.
struct VTKSoftVAClient {
    let display: VADisplay
    static let size = 64

    /// A diagonal gradient, so a decode that lands in the wrong place or not at all shows.
    static func sample(x: Int, y: Int) -> UInt8 { UInt8(truncatingIfNeeded: 16 + (x + y) * 3 / 2) }

    func check(_ status: VAStatus, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(status == VA_STATUS_SUCCESS, "\(what): \(String(cString: vaErrorStr(status)))", sourceLocation: sourceLocation)
    }

    func createSurface(width: Int = size, height: Int = size) throws -> VASurfaceID {
        var surface = VASurfaceID(VA_INVALID_ID)
        try check(vaCreateSurfaces(display, UInt32(VA_RT_FORMAT_YUV420), UInt32(width), UInt32(height), &surface, 1, nil, 0), "vaCreateSurfaces")
        return surface
    }

    func createBuffer<T>(_ context: VAContextID, _ type: VABufferType, _ value: T) throws -> VABufferID {
        var value = value
        var id = VABufferID(VA_INVALID_ID)
        try check(vaCreateBuffer(display, context, type, UInt32(MemoryLayout<T>.size), 1, &value, &id), "vaCreateBuffer \(type)")
        return id
    }

    /// Writes the gradient into the surface through vaDeriveImage (which maps the surface memory).
    func fill(_ surface: VASurfaceID) throws {
        var image = VAImage()
        try check(vaDeriveImage(display, surface, &image), "vaDeriveImage")
        defer { vaDestroyImage(display, image.image_id) }
        var pointer: UnsafeMutableRawPointer?
        try check(vaMapBuffer(display, image.buf, &pointer), "vaMapBuffer")
        let base = try #require(pointer).assumingMemoryBound(to: UInt8.self)
        let pitch = Int(image.pitches.0), chroma = base + Int(image.offsets.1)
        for y in 0..<Self.size { for x in 0..<Self.size { base[y * pitch + x] = Self.sample(x: x, y: y) } }
        for y in 0..<Self.size / 2 { for x in 0..<Self.size { chroma[y * Int(image.pitches.1) + x] = 128 } }
        try check(vaUnmapBuffer(display, image.buf), "vaUnmapBuffer")
    }

    /// Reads the luma plane back with vaGetImage into an I420 image; `sync`: vaSyncSurface first (else
    /// vaGetImage itself must wait for a picture in flight).
    func luma(_ surface: VASurfaceID, sync: Bool = true) throws -> [UInt8] {
        var format = VAImageFormat()
        format.fourcc = UInt32(VA_FOURCC_I420)
        var image = VAImage()
        try check(vaCreateImage(display, &format, Int32(Self.size), Int32(Self.size), &image), "vaCreateImage")
        defer { vaDestroyImage(display, image.image_id) }
        if sync {
            // DECODING_ERROR: the picture is there, with concealed damage (vaQuerySurfaceError says where).
            let status = vaSyncSurface(display, surface)
            if status != VA_STATUS_ERROR_DECODING_ERROR { try check(status, "vaSyncSurface") }
        }
        try check(vaGetImage(display, surface, 0, 0, UInt32(Self.size), UInt32(Self.size), image.image_id), "vaGetImage")
        return try lumaPlane(of: image)
    }

    /// Reads the luma plane through vaDeriveImage, without vaSyncSurface (vaDeriveImage must wait).
    func derivedLuma(_ surface: VASurfaceID) throws -> [UInt8] {
        var image = VAImage()
        try check(vaDeriveImage(display, surface, &image), "vaDeriveImage")
        defer { vaDestroyImage(display, image.image_id) }
        return try lumaPlane(of: image)
    }

    private func lumaPlane(of image: VAImage) throws -> [UInt8] {
        var pointer: UnsafeMutableRawPointer?
        try check(vaMapBuffer(display, image.buf, &pointer), "vaMapBuffer")
        defer { vaUnmapBuffer(display, image.buf) }
        let base = try #require(pointer).assumingMemoryBound(to: UInt8.self)
        let pitch = Int(image.pitches.0)
        return (0..<Self.size * Self.size).map { base[($0 / Self.size) * pitch + $0 % Self.size] }
    }

    /// Encodes the gradient as one Constrained Baseline IDR; returns the Annex B bytes. `packedSequence`:
    /// Annex B bytes sent as a packed SEQUENCE header (the config then asks for packed sequence headers).
    func encodeOnePicture(packedSequence: [UInt8]? = nil) throws -> [UInt8] {
        let encode = try submitEncodeOnePicture(packedSequence: packedSequence)
        defer { encode.destroy() }
        try check(vaSyncSurface(display, encode.source), "vaSyncSurface")
        return try codedBytes(encode.coded)
    }

    /// The objects of one encode: config, context, source surface and coded buffer.
    struct EncodeContext {
        let display: VADisplay
        let config: VAConfigID
        let context: VAContextID
        let source: VASurfaceID
        let coded: VABufferID

        func destroy() {
            var source = source
            vaDestroyBuffer(display, coded)
            vaDestroyContext(display, context)
            vaDestroySurfaces(display, &source, 1)
            vaDestroyConfig(display, config)
        }
    }

    /// Submits the gradient for encoding as one Constrained Baseline IDR: returns once vaEndPicture has
    /// (the picture may still be in flight).
    func submitEncodeOnePicture(packedSequence: [UInt8]? = nil) throws -> EncodeContext {
        var attributes = [VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420)),
                          VAConfigAttrib(type: VAConfigAttribRateControl, value: UInt32(VA_RC_CQP))]
        if packedSequence != nil {
            attributes.append(VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: UInt32(VA_ENC_PACKED_HEADER_SEQUENCE)))
        }
        var config = VAConfigID(VA_INVALID_ID)
        try check(vaCreateConfig(display, VAProfileH264ConstrainedBaseline, VAEntrypointEncSlice, &attributes, Int32(attributes.count), &config),
                  "vaCreateConfig")
        var source = try createSurface()
        try fill(source)
        var context = VAContextID(VA_INVALID_ID)
        try check(vaCreateContext(display, config, Int32(Self.size), Int32(Self.size), VA_PROGRESSIVE, &source, 1, &context), "vaCreateContext")
        var coded = VABufferID(VA_INVALID_ID)
        try check(vaCreateBuffer(display, context, VAEncCodedBufferType, 1 << 16, 1, nil, &coded), "coded buffer")
        let encode = EncodeContext(display: display, config: config, context: context, source: source, coded: coded)

        let (sequence, picture, slice) = Self.idrParameters(source: source, coded: coded, qp: 26)
        var buffers = [try createBuffer(context, VAEncSequenceParameterBufferType, sequence),
                       try createBuffer(context, VAEncPictureParameterBufferType, picture)]
        defer { for b in buffers { vaDestroyBuffer(display, b) } }
        if var packed = packedSequence {
            var parameter = VAEncPackedHeaderParameterBuffer()
            parameter.type = UInt32(VAEncPackedHeaderSequence.rawValue)
            parameter.bit_length = UInt32(packed.count * 8)
            parameter.has_emulation_bytes = 1
            buffers.append(try createBuffer(context, VAEncPackedHeaderParameterBufferType, parameter))
            var data = VABufferID(VA_INVALID_ID)
            try check(vaCreateBuffer(display, context, VAEncPackedHeaderDataBufferType, UInt32(packed.count), 1, &packed, &data), "packed data")
            buffers.append(data)
        }
        buffers.append(try createBuffer(context, VAEncSliceParameterBufferType, slice))
        try check(vaBeginPicture(display, context, source), "vaBeginPicture")
        try check(vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "vaRenderPicture")
        try check(vaEndPicture(display, context), "vaEndPicture")
        return encode
    }

    /// The bytes of a coded buffer (vaMapBuffer waits for its picture).
    func codedBytes(_ coded: VABufferID) throws -> [UInt8] {
        var pointer: UnsafeMutableRawPointer?
        try check(vaMapBuffer(display, coded, &pointer), "map coded")
        defer { vaUnmapBuffer(display, coded) }
        let segment = try #require(pointer).assumingMemoryBound(to: VACodedBufferSegment.self).pointee
        let payload = try #require(segment.buf).assumingMemoryBound(to: UInt8.self)
        return Array(UnsafeBufferPointer(start: payload, count: Int(segment.size)))
    }

    /// Picture parameters for an intra reference picture decoded into `target`: no reference frames.
    static func intraPictureParameters(_ target: VASurfaceID) -> VAPictureParameterBufferH264 {
        var picture = VAPictureParameterBufferH264()
        picture.CurrPic.picture_id = target
        picture.CurrPic.flags = UInt32(VA_PICTURE_H264_SHORT_TERM_REFERENCE)
        withUnsafeMutableBytes(of: &picture.ReferenceFrames) { raw in
            for i in 0..<16 {
                var invalid = VAPictureH264()
                invalid.picture_id = VASurfaceID(VA_INVALID_ID)
                invalid.flags = UInt32(VA_PICTURE_H264_INVALID)
                raw.storeBytes(of: invalid, toByteOffset: i * MemoryLayout<VAPictureH264>.stride, as: VAPictureH264.self)
            }
        }
        return picture
    }

    /// Decodes an IDR made by ``encodeOnePicture()`` into a new surface; returns its luma. The slice's
    /// slice_data_bit_offset is `sliceDataBitOffset` of where its slice data starts: VA's convention
    /// unless a test means to send a wrong one.
    func decodeOnePicture(_ stream: [UInt8], sliceDataBitOffset: (SliceDataPosition) -> Int = \.vaBitOffset) throws -> [UInt8] {
        let context = try DecodeContext(self)
        defer { context.destroy() }
        try submitDecode(stream, context: context.id, target: context.targets[0], sliceDataBitOffset: sliceDataBitOffset)
        return try luma(context.targets[0])
    }

    /// A Constrained Baseline decode config and context of `size` x `size` over `count` new surfaces.
    struct DecodeContext {
        let client: VTKSoftVAClient
        var config = VAConfigID(VA_INVALID_ID)
        var id = VAContextID(VA_INVALID_ID)
        var targets: [VASurfaceID]

        init(_ client: VTKSoftVAClient, count: Int = 1) throws {
            self.client = client
            let display = client.display
            try client.check(vaCreateConfig(display, VAProfileH264ConstrainedBaseline, VAEntrypointVLD, nil, 0, &config), "vaCreateConfig")
            targets = try (0..<count).map { _ in try client.createSurface() }
            try client.check(vaCreateContext(display, config, Int32(size), Int32(size), VA_PROGRESSIVE, &targets, Int32(count), &id), "vaCreateContext")
        }

        /// Destroys the context, config and those targets still in `targets`.
        func destroy() {
            var targets = targets
            vaDestroyContext(client.display, id)
            vaDestroySurfaces(client.display, &targets, Int32(targets.count))
            vaDestroyConfig(client.display, config)
        }
    }

    /// Submits the IDR of a stream made by ``encodeOnePicture()`` for decoding into `target`: returns once
    /// vaEndPicture has (the picture may still be in flight).
    func submitDecode(_ stream: [UInt8], context: VAContextID, target: VASurfaceID,
                      sliceDataBitOffset: (SliceDataPosition) -> Int = \.vaBitOffset) throws {
        let units = AnnexBScanner.nalUnits(in: stream)
        let spsUnit = try #require(units.first { $0.type == .sequenceParameterSet })
        let ppsUnit = try #require(units.first { $0.type == .pictureParameterSet })
        let idr = try #require(units.first { $0.type == .idrSlice })
        var sets = ParameterSets()
        try sets.store(spsUnit)
        try sets.store(ppsUnit)
        let sps = try #require(sets.sps.values.first), pps = try #require(sets.pps.values.first)
        let header = try SliceHeader(nalUnit: idr, parameterSets: sets)

        var picture = Self.intraPictureParameters(target)
        picture.picture_width_in_mbs_minus1 = UInt16(sps.picWidthInMbsMinus1)
        picture.picture_height_in_mbs_minus1 = UInt16(sps.frameHeightInMbs - 1)
        picture.num_ref_frames = UInt8(sps.maxNumRefFrames)
        picture.seq_fields.bits.chroma_format_idc = UInt32(sps.chromaFormatIdc)
        picture.seq_fields.bits.frame_mbs_only_flag = sps.frameMbsOnlyFlag ? 1 : 0
        picture.seq_fields.bits.direct_8x8_inference_flag = sps.direct8x8InferenceFlag ? 1 : 0
        picture.seq_fields.bits.log2_max_frame_num_minus4 = UInt32(sps.log2MaxFrameNumMinus4)
        picture.seq_fields.bits.pic_order_cnt_type = UInt32(sps.picOrderCntType)
        picture.seq_fields.bits.log2_max_pic_order_cnt_lsb_minus4 = UInt32(sps.log2MaxPicOrderCntLsbMinus4)
        picture.seq_fields.bits.delta_pic_order_always_zero_flag = sps.deltaPicOrderAlwaysZeroFlag ? 1 : 0
        picture.pic_init_qp_minus26 = Int8(pps.picInitQpMinus26)
        picture.pic_init_qs_minus26 = Int8(pps.picInitQsMinus26)
        picture.chroma_qp_index_offset = Int8(pps.chromaQpIndexOffset)
        picture.pic_fields.bits.entropy_coding_mode_flag = pps.entropyCodingModeFlag ? 1 : 0
        picture.pic_fields.bits.deblocking_filter_control_present_flag = pps.deblockingFilterControlPresentFlag ? 1 : 0
        picture.pic_fields.bits.pic_order_present_flag = pps.bottomFieldPicOrderInFramePresentFlag ? 1 : 0
        picture.pic_fields.bits.reference_pic_flag = 1
        var slice = VASliceParameterBufferH264()
        slice.slice_data_size = UInt32(idr.bytes.count)
        slice.slice_data_offset = 0
        slice.slice_data_flag = UInt32(VA_SLICE_DATA_FLAG_ALL)
        slice.slice_type = 2
        slice.slice_data_bit_offset = UInt16(sliceDataBitOffset(header.sliceDataPosition))
        slice.slice_qp_delta = Int8(header.sliceQpDelta)
        slice.disable_deblocking_filter_idc = UInt8(header.disableDeblockingFilterIdc)
        let sliceData = Array(idr.bytes)

        var dataBuffer = VABufferID(VA_INVALID_ID)
        var bytes = sliceData
        try check(vaCreateBuffer(display, context, VASliceDataBufferType, UInt32(bytes.count), 1, &bytes, &dataBuffer), "slice data")
        var buffers = [try createBuffer(context, VAPictureParameterBufferType, picture),
                       try createBuffer(context, VASliceParameterBufferType, slice), dataBuffer]
        defer { for b in buffers { vaDestroyBuffer(display, b) } }
        try check(vaBeginPicture(display, context, target), "vaBeginPicture")
        try check(vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "vaRenderPicture")
        try check(vaEndPicture(display, context), "vaEndPicture")
    }

    /// Mean absolute difference from the gradient.
    static func error(_ luma: [UInt8]) -> Double {
        let total = luma.enumerated().reduce(0) { $0 + abs(Int($1.element) - Int(sample(x: $1.offset % size, y: $1.offset / size))) }
        return Double(total) / Double(luma.count)
    }

    /// Sequence, picture and slice parameters for one IDR picture of `size` x `size` into `coded`.
    static func idrParameters(source: VASurfaceID, coded: VABufferID, qp: UInt8)
        -> (VAEncSequenceParameterBufferH264, VAEncPictureParameterBufferH264, VAEncSliceParameterBufferH264) {
        var sequence = VAEncSequenceParameterBufferH264()
        sequence.level_idc = 30
        sequence.intra_period = 30
        sequence.intra_idr_period = 30
        sequence.ip_period = 1
        sequence.max_num_ref_frames = 1
        sequence.picture_width_in_mbs = UInt16(size / 16)
        sequence.picture_height_in_mbs = UInt16(size / 16)
        sequence.seq_fields.bits.chroma_format_idc = 1
        sequence.seq_fields.bits.frame_mbs_only_flag = 1
        var picture = VAEncPictureParameterBufferH264()
        picture.CurrPic.picture_id = source
        picture.coded_buf = coded
        picture.pic_init_qp = qp
        picture.pic_fields.bits.idr_pic_flag = 1
        picture.pic_fields.bits.reference_pic_flag = 1
        var slice = VAEncSliceParameterBufferH264()
        slice.num_macroblocks = UInt32((size / 16) * (size / 16))
        slice.slice_type = 2
        return (sequence, picture, slice)
    }
}
