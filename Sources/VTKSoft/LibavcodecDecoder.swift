import CLibAVCodec
import NALStream

/// The planes of the picture libavcodec decoded one access unit into (planar 4:2:0, 8 bits, or 10 bits
/// in 16-bit little-endian words).
struct DecodedPicture {
    let planes: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>)
    let strides: (Int32, Int32, Int32)
    let width: Int
    let height: Int
    var bitDepth = 8
}

/// FFmpeg's H.264 (or H.265) decoder, fed one access unit at a time, single-threaded.
///
/// A VA decoder must have the picture in the render target when vaSyncSurface returns, but libavcodec
/// holds pictures back for reordering. So a custom get_buffer2 notes the buffer libavcodec allocates
/// for each picture: the last one allocated while a packet is decoded is that packet's picture (pictures
/// invented for frame_num gaps are allocated before it). It is read straight after avcodec_send_packet,
/// and the output queue is drained and ignored.
///
/// The second field of a frame allocates nothing: libavcodec decodes it into its first field's picture.
/// So the decoder keeps a reference to the current picture's buffers (``current``) until the next one
/// is allocated, and a packet the caller says continues that picture reads it there.
final class LibavcodecDecoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// Our reference to the buffers of the picture libavcodec allocated last: they stay valid whatever
    /// libavcodec does with its own frame.
    fileprivate var current: UnsafeMutablePointer<AVFrame>?
    /// A picture was allocated while the present packet was decoded.
    fileprivate var allocatedInPacket = false
    /// libavcodec's frame for the current picture (one of its DPB's frames, which live as long as the
    /// decoder): its decode_error_flags are set once the packet is decoded (error concealment runs at the
    /// end of the picture).
    fileprivate var currentInternal: UnsafeMutablePointer<AVFrame>?

    /// Takes the first picture allocated during a packet rather than the last: libavcodec's H.265 decoder
    /// allocates the current picture before any it invents for missing references.
    private let firstAllocatedIsCurrent: Bool

    /// The current picture's buffers: its luma in the render target's memory when the caller offers one.
    fileprivate let allocator: SurfaceFrameAllocator?
    /// The render target offered for the present packet's picture (to the first picture allocated).
    fileprivate var target: SurfaceFrameAllocator.Target?

    init?(codecID: AVCodecID = AV_CODEC_ID_H264) {
        firstAllocatedIsCurrent = codecID == AV_CODEC_ID_HEVC
        allocator = SurfaceFrameAllocator()
        guard let codec = avcodec_find_decoder(codecID), let context = avcodec_alloc_context3(codec) else { return nil }
        self.context = context
        // libavcodec logs to standard error of the client process; a driver must stay quiet (damage it
        // conceals is reported through vaQuerySurfaceError) and leave the client's own log level alone
        // (FFmpeg's messages are the client's): this context's messages are pushed below every level by
        // log_level_offset, not silenced for the whole process. VTKSOFT_LIBAV_LOG=1 shows them.
        if getenv("VTKSOFT_LIBAV_LOG") == nil { context.pointee.log_level_offset = 2 * AV_LOG_TRACE }
        context.pointee.thread_count = 1
        context.pointee.thread_type = 0
        // The client decides what to show; every picture it submits must be decoded, also ones
        // libavcodec would judge as not yet recovered or damaged.
        context.pointee.flags |= AV_CODEC_FLAG_OUTPUT_CORRUPT
        context.pointee.flags2 |= AV_CODEC_FLAG2_SHOW_ALL
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.get_buffer2 = { avctx, frame, flags in
            guard let avctx, let frame, let opaque = avctx.pointee.opaque else { return avcodec_default_get_buffer2(avctx, frame, flags) }
            let decoder = Unmanaged<LibavcodecDecoder>.fromOpaque(opaque).takeUnretainedValue()
            let status: Int32
            if let allocator = decoder.allocator, SurfaceFrameAllocator.serves(frame) {
                // Gap pictures come before the current one in H.264: when one takes the target, the
                // current picture is pooled and the copy path moves the surface off libavcodec's memory.
                status = allocator.allocate(avctx, frame, target: decoder.target)
                decoder.target = nil
            } else {
                status = avcodec_default_get_buffer2(avctx, frame, flags)
            }
            guard status >= 0 else { return status }
            if decoder.firstAllocatedIsCurrent && decoder.allocatedInPacket { return status }
            decoder.allocatedInPacket = true
            decoder.currentInternal = frame
            if let current = decoder.current {
                av_frame_unref(current)
                if av_frame_ref(current, frame) < 0 { decoder.currentInternal = nil }
            }
            return status
        }
        guard avcodec_open2(context, codec, nil) >= 0 else { return nil }
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        current = av_frame_alloc()
        guard packet != nil, frame != nil, current != nil else { return nil }
    }

    deinit {
        avcodec_free_context(&context)
        av_packet_free(&packet)
        av_frame_free(&frame)
        av_frame_free(&current)
    }

    /// What decoding one access unit gave.
    struct Outcome {
        /// libavcodec made a picture.
        var decoded: Bool
        /// libavcodec found errors in the picture (and concealed what it could): decode_error_flags set,
        /// or the packet refused as invalid data.
        var hadErrors: Bool
    }

    /// Decodes one access unit and hands `consume` the picture it was decoded into, while
    /// libavcodec still holds it. `continuesPicture`: the unit is the second field of the picture decoded
    /// last, so when it allocates nothing (libavcodec paired it), that picture is its picture.
    /// `target`: the render target, offered to libavcodec for the picture's luma (see ``SurfaceFrameAllocator``).
    func decode(_ accessUnit: [NALUnit], continuesPicture: Bool = false, target: SurfaceFrameAllocator.Target? = nil,
                consume: (DecodedPicture) -> Void) -> Outcome {
        guard let context, let packet, let frame, let current else { return Outcome(decoded: false, hadErrors: true) }
        drain(context, frame)
        allocatedInPacket = false
        if !continuesPicture {
            // Only a second field reads the held picture: let go of it now, so that its surface (often the
            // next render target) is no longer held through us.
            av_frame_unref(current)
            currentInternal = nil
        }
        self.target = target
        defer { self.target = nil }
        guard Self.write(accessUnit, into: packet) else { return Outcome(decoded: false, hadErrors: true) }
        let status = avcodec_send_packet(context, packet)
        av_packet_unref(packet)
        var picture: DecodedPicture?
        if allocatedInPacket || continuesPicture, currentInternal != nil { picture = DecodedPicture(frame: current.pointee) }
        let errorFlags = picture == nil ? 0 : currentInternal?.pointee.decode_error_flags ?? 0
        if let picture { consume(picture) }
        if !allocatedInPacket && !continuesPicture {
            // Nothing decoded: the held picture no longer follows on from what the client sent.
            av_frame_unref(current)
            currentInternal = nil
        }
        drain(context, frame)
        return Outcome(decoded: picture != nil, hadErrors: status < 0 || errorFlags != 0)
    }

    /// Writes the NAL units into a new packet as a byte stream (Annex B: each after a four-byte start code),
    /// the one copy of their bytes. False when the packet cannot be allocated.
    private static func write(_ units: [NALUnit], into packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        let size = units.reduce(0) { $0 + 4 + $1.bytes.count }
        guard size <= Int(Int32.max), av_new_packet(packet, Int32(size)) >= 0, var to = packet.pointee.data else { return false }
        for unit in units {
            to.update(repeating: 0, count: 3)
            to[3] = 1
            to += 4
            unit.bytes.withUnsafeBufferPointer { bytes in
                if let from = bytes.baseAddress { to.update(from: from, count: bytes.count) }
            }
            to += unit.bytes.count
        }
        return true
    }

    private func drain(_ context: UnsafeMutablePointer<AVCodecContext>, _ frame: UnsafeMutablePointer<AVFrame>) {
        while avcodec_receive_frame(context, frame) >= 0 { av_frame_unref(frame) }
    }
}

extension DecodedPicture {
    /// nil unless planar 4:2:0, 8 or 10 bits, the layouts vtksoft converts.
    init?(frame: AVFrame) {
        let format = AVPixelFormat(rawValue: frame.format)
        guard format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUV420P10LE,
              let y = frame.data.0, let u = frame.data.1, let v = frame.data.2 else { return nil }
        bitDepth = format == AV_PIX_FMT_YUV420P10LE ? 10 : 8
        planes = (y, u, v)
        strides = (frame.linesize.0, frame.linesize.1, frame.linesize.2)
        width = Int(frame.width)
        height = Int(frame.height)
    }
}
