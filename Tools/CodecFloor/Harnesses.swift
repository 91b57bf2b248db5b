import CLibAVCodec
import BenchSupport
#if canImport(Glibc)
import Glibc
#endif

/// The software codecs vtksoft wraps, used directly, as whole processes (`codec-floor --libavcodec-decode`,
/// `codec-floor --openh264-encode`), so that they are timed the same way as vtk and ffmpeg: start-up included.
/// A process of its own without Foundation (nor does `vtk` load it): the floor carries no start-up that vtk
/// does not.
enum Harness {
    /// libavcodec's H.264 decoder, one thread, no output: the floor of vtk's decode through vtksoft.
    /// The stream is split into packets by libavcodec's own parser.
    static func libavcodecDecode(_ path: String) -> Int32 {
        guard let file = MappedFile(path) else { return 3 }
        defer { file.close() }
        av_log_set_level(AV_LOG_ERROR)
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_H264), var context = Optional(avcodec_alloc_context3(codec)),
              let ctx = context else { return 4 }
        ctx.pointee.thread_count = 1
        ctx.pointee.thread_type = 0
        guard avcodec_open2(ctx, codec, nil) >= 0, let parser = av_parser_init(Int32(AV_CODEC_ID_H264.rawValue)) else { return 4 }
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        var frames = 0
        func receive() {
            while avcodec_receive_frame(ctx, frame) >= 0 {
                frames += 1
                av_frame_unref(frame)
            }
        }
        let bytes = [UInt8](file.bytes)
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while true {
                var out: UnsafeMutablePointer<UInt8>?
                var size: Int32 = 0
                let remaining = buffer.count - offset
                let used = av_parser_parse2(parser, ctx, &out, &size, remaining > 0 ? buffer.baseAddress! + offset : nil, Int32(remaining),
                                            Int64.min, Int64.min, 0)
                offset += Int(used)
                if size > 0, let out {
                    packet!.pointee.data = out
                    packet!.pointee.size = size
                    _ = avcodec_send_packet(ctx, packet)
                    receive()
                }
                if remaining == 0 { break }
            }
        }
        _ = avcodec_send_packet(ctx, nil)
        receive()
        av_parser_close(parser)
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&context)
        print("frames=\(frames)")
        return frames > 0 ? 0 : 3
    }

    /// openh264 directly (BenchSupport.OpenH264Direct), the coded pictures written to `output`.
    static func openh264Encode(_ path: String, width: Int, height: Int, frames: Int, qp: Int32?, bitRate: Int32?, keyint: UInt32,
                               output: String) -> Int32 {
        guard let pictures = MappedFile(path) else { return 3 }
        defer { pictures.close() }
        guard let out = fopen(output, "wb") else { return 5 }
        defer { fclose(out) }
        let raw = pictures.bytes
        var coded = 0
        do {
            _ = try OpenH264Direct.encode(raw, width: width, height: height, frames: frames, qp: qp, bitRate: bitRate, keyint: keyint) { bytes in
                fwrite(bytes.baseAddress, 1, bytes.count, out)
                // Frames already coded leave memory, so that peak RSS is the encoder's, not the whole input's (vtk streams its input).
                coded += 1
                dropPages(raw, upTo: coded * width * height * 3 / 2)
            }
        } catch {
            return 6
        }
        return 0
    }

    /// Releases the whole pages of `buffer` below `offset` (madvise MADV_DONTNEED); they are not read again.
    static func dropPages(_ buffer: UnsafeRawBufferPointer, upTo offset: Int) {
        guard let base = buffer.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: base) + page - 1) / page * page, end = (Int(bitPattern: base) + min(offset, buffer.count)) / page * page
        guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(pointer, end - start, MADV_DONTNEED)
    }
}

/// A whole file mapped read-only (what `Data(contentsOf:options: .alwaysMapped)` gave, without Foundation).
struct MappedFile {
    let bytes: UnsafeRawBufferPointer

    init?(_ path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    func close() {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
