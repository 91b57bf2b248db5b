import CLibAVCodec
import Glibc

/// libavcodec's picture buffers (its get_buffer2) for 8-bit 4:2:0: the current picture's luma straight in
/// the render target's luma plane, at the surface's pitch, so that only chroma is left to interleave
/// into NV12; every other picture (no target, a target of another pitch or too small, pictures invented
/// for frame_num gaps) in pooled buffers at the same pitch, since libavcodec's motion compensation needs
/// one linesize for every picture of a stream. Chroma is always pooled.
///
/// Buffers follow avcodec_default_get_buffer2: dimensions aligned by avcodec_align_dimensions2 (H.264
/// adds rows for chroma motion compensation that reads one too many), 64-byte aligned rows, zeroed
/// pools. A surface's luma is followed by its chroma plane, so reads past the last luma row stay inside
/// the allocation.
final class SurfaceFrameAllocator {
    /// Where the next picture may go: `surface` when the picture is at most `width` x `height` (the
    /// part the copy path would write, so that the bytes written are the same).
    struct Target {
        let surface: Surface
        let width: Int
        let height: Int
    }

    private struct Layout: Equatable {
        var format: Int32
        var width: Int32
        var height: Int32
    }

    private var layout: Layout?
    private var lumaPitch = 0
    private var chromaPitch = 0
    private var chromaPlaneSize = 0
    private var lumaPool: OpaquePointer?
    private var chromaPool: OpaquePointer?

    /// Pictures whose luma went into the target surface, and the ones that went to pooled buffers.
    private(set) var direct = 0
    private(set) var pooled = 0

    /// Surface memory libavcodec held when its surface moved on; spare once libavcodec lets go.
    private var retired: [PlaneMemory] = []
    private var spare: [PlaneMemory] = []

    deinit { releasePools() }

    /// Memory of `size` for a surface moving off libavcodec's: a spare one, or new. Memory is spare when
    /// only this allocator refers to it (libavcodec's lease has ended, the surface moved on).
    private func spareMemory(size: Int) -> PlaneMemory {
        var index = 0
        while index < retired.count {
            if isKnownUniquelyReferenced(&retired[index]) {
                let memory = retired.remove(at: index)
                if spare.count < 4 { spare.append(memory) }
            } else {
                index += 1
            }
        }
        if let index = spare.firstIndex(where: { $0.size == size }) { return spare.remove(at: index) }
        return PlaneMemory(size: size, mapped: true)
    }

    private func releasePools() {
        av_buffer_pool_uninit(&lumaPool)
        av_buffer_pool_uninit(&chromaPool)
    }

    /// Whether this allocator serves the frame's format (8-bit 4:2:0); other formats go to libavcodec's default.
    static func serves(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        return format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P
    }

    /// Fills `frame` (data, linesize, buf); `target` is used when it fits. Returns 0 or AVERROR.
    func allocate(_ avctx: UnsafeMutablePointer<AVCodecContext>, _ frame: UnsafeMutablePointer<AVFrame>, target: Target?) -> Int32 {
        var width = frame.pointee.width, height = frame.pointee.height
        guard width > 0, height > 0 else { return -EINVAL }
        let key = Layout(format: frame.pointee.format, width: width, height: height)
        var align = (Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0))
        withUnsafeMutablePointer(to: &align) { avcodec_align_dimensions2(avctx, &width, &height, UnsafeMutableRawPointer($0).assumingMemoryBound(to: Int32.self)) }
        let alignedWidth = Int(width), alignedHeight = Int(height)
        let fits = target.map {
            $0.surface.format == .nv12 && Int(key.width) <= $0.width && Int(key.height) <= $0.height
                && alignedWidth <= $0.surface.pitch && $0.surface.pitch % 64 == 0
        } ?? false
        if layout != key {
            releasePools()
            layout = key
            lumaPitch = fits ? target?.surface.pitch ?? 0 : (alignedWidth + 63) & ~63
            chromaPitch = ((lumaPitch / 2) + 63) & ~63
            let padding = 16 + 64 - 1 + 64
            chromaPlaneSize = (chromaPitch * ((alignedHeight + 1) / 2) + 63) & ~63
            lumaPool = av_buffer_pool_init(lumaPitch * alignedHeight + padding, av_buffer_allocz)
            chromaPool = av_buffer_pool_init(2 * chromaPlaneSize + padding, av_buffer_allocz)
        }
        guard let chroma = av_buffer_pool_get(chromaPool), let chromaData = chroma.pointee.data else { return -ENOMEM }
        let luma: UnsafeMutablePointer<AVBufferRef>
        if fits, let surface = target?.surface, surface.pitch == lumaPitch {
            // Nothing else writes the surface now (the worker decodes into it). When libavcodec still
            // holds its memory (a reference, or a picture it has yet to output), the surface moves to
            // other memory and libavcodec keeps the old, recycled once it lets go.
            if surface.isHeldByDecoder {
                let old = surface.move(to: spareMemory(size: surface.memory.size), keepingOutside: Int(key.width), Int(key.height))
                retired.append(old)
            } else {
                surface.releaseFromDecoder()
            }
            let lent = surface.lumaForDecoding
            let lease = DecoderLease(memory: lent.memory)
            guard let buffer = av_buffer_create(lent.luma, surface.pitch * surface.allocatedHeight, { opaque, _ in
                guard let opaque else { return }
                Unmanaged<DecoderLease>.fromOpaque(opaque).takeRetainedValue().end()
            }, Unmanaged.passRetained(lease).toOpaque(), 0) else {
                var chroma: UnsafeMutablePointer<AVBufferRef>? = chroma
                av_buffer_unref(&chroma)
                return -ENOMEM
            }
            surface.decoderLease = lease
            luma = buffer
            direct += 1
        } else {
            guard let buffer = av_buffer_pool_get(lumaPool) else {
                var chroma: UnsafeMutablePointer<AVBufferRef>? = chroma
                av_buffer_unref(&chroma)
                return -ENOMEM
            }
            luma = buffer
            pooled += 1
        }
        frame.pointee.buf.0 = luma
        frame.pointee.buf.1 = chroma
        frame.pointee.data.0 = luma.pointee.data
        frame.pointee.data.1 = chromaData
        frame.pointee.data.2 = chromaData + chromaPlaneSize
        frame.pointee.linesize.0 = Int32(lumaPitch)
        frame.pointee.linesize.1 = Int32(chromaPitch)
        frame.pointee.linesize.2 = Int32(chromaPitch)
        if let offset = MemoryLayout<AVFrame>.offset(of: \AVFrame.data) {
            frame.pointee.extended_data = (UnsafeMutableRawPointer(frame) + offset).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        }
        return 0
    }
}
