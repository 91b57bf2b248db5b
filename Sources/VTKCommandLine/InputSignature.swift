import H264Bitstream
import H265Bitstream

/// What a file is, told by its first bytes rather than its name: the containers and codecs vtk does not
/// read get a message that names them and says what to do instead.
enum InputSignature: Equatable {
    case mp4
    case y4m
    case h264AnnexB
    case hevcAnnexB
    case mpegTransportStream
    case matroska
    case unknown

    /// Bytes enough to tell every case apart.
    static let headLength = 1024

    init(head: some Collection<UInt8>) {
        let bytes = Array(head.prefix(Self.headLength))
        if bytes.count >= 8, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            self = .mp4  // ISO/IEC 14496-12 4.3 (MOV files start the same way)
        } else if bytes.starts(with: Array("YUV4MPEG2".utf8)) {
            self = .y4m
        } else if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            self = .matroska  // EBML header (RFC 8794), Matroska and WebM
        } else if Self.isTransportStream(bytes) {
            self = .mpegTransportStream
        } else if let header = Self.firstNALHeader(bytes) {
            self = Self.isHEVC(header) ? .hevcAnnexB : Self.isH264(header.0) ? .h264AnnexB : .unknown
        } else {
            self = .unknown
        }
    }

    /// Sync byte 0x47 at the start of three consecutive 188-byte packets (ISO/IEC 13818-1 2.4.3.2);
    /// two when the file is shorter.
    private static func isTransportStream(_ bytes: [UInt8]) -> Bool {
        let packets = stride(from: 0, to: min(bytes.count, 3 * 188), by: 188).map { bytes[$0] }
        return packets.count >= 2 && packets.allSatisfy { $0 == 0x47 }
    }

    /// The two bytes after the start code (00 00 01, after at most a few leading zero bytes, B.2) the
    /// file begins with.
    private static func firstNALHeader(_ bytes: [UInt8]) -> (UInt8, UInt8)? {
        var i = 0
        while i < min(bytes.count, 16), bytes[i] == 0 { i += 1 }
        guard i >= 2, i < 16, i < bytes.count - 2, bytes[i] == 1 else { return nil }
        return (bytes[i + 1], bytes[i + 2])
    }

    /// An H.265 NAL unit header (7.3.1.2 of H.265): forbidden bit 0, a VPS/SPS/PPS/AUD/SEI type,
    /// nuh_layer_id 0 and nuh_temporal_id_plus1 1.
    private static func isHEVC(_ header: (UInt8, UInt8)) -> Bool {
        let type = (header.0 >> 1) & 0x3F
        return header.0 & 0x80 == 0 && [32, 33, 34, 35, 39, 40].contains(type) && header.0 & 1 == 0 && header.1 == 1
    }

    /// An H.264 NAL unit header (7.3.1) of a type that can begin a stream: SPS, AUD, SEI, or a slice.
    private static func isH264(_ header: UInt8) -> Bool {
        header & 0x80 == 0 && [1, 5, 6, 7, 9].contains(header & 0x1F)
    }

    /// Why vtk does not read this as `codec`, and what to do instead; nil for what it reads.
    func notMessage(_ name: String, codec: VideoCodec) -> String? {
        switch self {
        case .hevcAnnexB where codec != .h265:
            return "\(name) is an H.265 (HEVC) stream, not \(codec.name): leave out --codec \(CodecDetection.option(codec))"
        case .h264AnnexB where codec != .h264:
            return "\(name) is an H.264 (AVC) stream, not \(codec.name): leave out --codec \(CodecDetection.option(codec))"
        case .mpegTransportStream:
            return "\(name) is an MPEG transport stream; vtk reads \(codec.name) as Annex B or MP4 (to rewrap: ffmpeg -i \(name) -c copy out.mp4)"
        case .matroska:
            return "\(name) is a Matroska/WebM file; vtk reads \(codec.name) as Annex B or MP4 (to rewrap: ffmpeg -i \(name) -c copy out.mp4)"
        case .y4m:
            return "\(name) is a Y4M file of raw frames, not \(codec.name) (to encode it: vtk encode \(name) -o out.264)"
        case .mp4, .h264AnnexB, .hevcAnnexB, .unknown:
            return nil
        }
    }

    /// Why `vtk encode` does not take this as frames; nil for raw or Y4M input.
    func notRawFramesMessage(_ name: String) -> String? {
        switch self {
        case .mp4:
            return "\(name) is an MP4 file, already coded; encode takes raw frames or Y4M (to re-encode: vtk decode \(name) -o frames.y4m, then vtk encode frames.y4m)"
        case .h264AnnexB:
            return "\(name) is an H.264 stream, already coded; encode takes raw frames or Y4M (to re-encode: vtk decode \(name) -o frames.y4m, then vtk encode frames.y4m)"
        case .hevcAnnexB, .mpegTransportStream, .matroska:
            return "\(name) is coded video, not raw frames; encode takes raw NV12/I420 or Y4M (to get them: ffmpeg -i \(name) -pix_fmt yuv420p frames.y4m)"
        case .y4m, .unknown:
            return nil
        }
    }
}
