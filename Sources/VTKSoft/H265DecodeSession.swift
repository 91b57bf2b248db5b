import CLibAVCodec
import CLibYUV
import H264Bitstream
import CLibVA

/// A decode context's codec state for H.265: rebuilds the parameter sets and the slices' reference
/// picture sets from each picture's VA buffers, has libavcodec decode the access unit, and writes the
/// picture into the render target (NV12, or P010 for Main 10).
final class H265DecodeSession: PictureDecoding {
    private let rebuilder: H265ParameterSetRebuilder
    private let decoder: LibavcodecDecoder
    /// The VPS, SPS and PPSs last sent, so that they are sent again only when they change.
    private var sentSequence: [[UInt8]] = []
    private var sentPPS: [Int: [UInt8]] = [:]

    init?(profile: VAProfile) {
        guard let decoder = LibavcodecDecoder(codecID: AV_CODEC_ID_HEVC) else { return nil }
        self.decoder = decoder
        rebuilder = H265ParameterSetRebuilder(profile: profile)
    }

    /// vaEndPicture's part: checks one picture's buffers and builds its access unit. No H.265 parameter is
    /// checked against the slice data yet: `violations` stays empty.
    func prepare(_ buffers: [RenderedBuffer], for surface: Surface, contextWidth: Int, contextHeight: Int,
                 violations: inout [ParameterViolation]) throws(VAError) -> PreparedAccessUnit {
        let rendered = try RenderedPicture<VAPictureParameterBufferHEVC, VAIQMatrixBufferHEVC, VASliceParameterBufferHEVC>(buffers, headerSize: 2)
        let picture = rendered.picture, matrix = rendered.matrix
        let f = picture.pic_fields.bits
        let tenBit = surface.format == .p010
        guard f.chroma_format_idc == 1, picture.bit_depth_luma_minus8 == picture.bit_depth_chroma_minus8,
              picture.bit_depth_luma_minus8 == (tenBit ? 2 : 0) else { throw .unsupportedRTFormat }
        let width = Int(picture.pic_width_in_luma_samples), height = Int(picture.pic_height_in_luma_samples)
        guard width <= max(contextWidth, surface.width), height <= surface.allocatedHeight else { throw .invalidParameter }

        var accessUnit: [NALUnit] = []
        let sequence = [rebuilder.videoParameterSet(picture), rebuilder.sequenceParameterSet(picture)]
        if sequence != sentSequence {
            sentSequence = sequence
            sentPPS = [:]
            accessUnit += sequence.map { NALUnit($0) }
        }
        var rewritten: [[UInt8]] = []
        for (parameters, nalUnit) in zip(rendered.sliceParameters, rendered.nalUnits) {
            // slice_pic_parameter_set_id: after first_slice_segment_in_pic_flag and, in IRAP pictures, no_output_of_prior_pics_flag.
            let id = Self.pictureParameterSetID(nalUnit)
            guard let id else { throw .invalidParameter }
            let pps = rebuilder.pictureParameterSet(picture, scaling: matrix, id: id)
            if sentPPS[id] != pps {
                sentPPS[id] = pps
                accessUnit.append(NALUnit(pps))
            }
            do { rewritten.append(try H265SliceHeaderRewriter.rewrite(nalUnit, slice: parameters, picture: picture)) } catch {
                throw .invalidParameter
            }
        }
        accessUnit += rewritten.map { NALUnit($0) }
        return PreparedAccessUnit(nalUnits: accessUnit, width: width, height: height)
    }

    /// The worker's part: libavcodec decodes the access unit into `surface` (P010 for 10-bit surfaces).
    func decode(_ unit: PreparedAccessUnit, into surface: Surface) throws(VAError) {
        let tenBit = surface.format == .p010
        // An 8-bit picture's luma may go straight into an NV12 surface (libavcodec allocates the current
        // picture first, before any it generates for missing references: 8.3.3).
        let target = tenBit ? nil
            : SurfaceFrameAllocator.Target(surface: surface, width: min(unit.width, surface.width), height: min(unit.height, surface.allocatedHeight))
        let outcome = decoder.decode(unit.nalUnits, target: target) { decoded in
            let copyWidth = min(decoded.width, unit.width, surface.width), copyHeight = min(decoded.height, unit.height, surface.allocatedHeight)
            if decoded.bitDepth == 8 && !tenBit && decoded.planes.0 == surface.luma {
                PictureStructure.frame.writeNV12Chroma(decoded, into: surface, width: copyWidth, height: copyHeight)
                return
            }
            surface.releaseFromDecoder()  // The surface may still hold one of libavcodec's pictures.
            if decoded.bitDepth == 10 && tenBit {
                Self.writeP010(decoded, into: surface, width: copyWidth, height: copyHeight)
            } else if decoded.bitDepth == 8 && !tenBit {
                I420ToNV12(decoded.planes.0, decoded.strides.0, decoded.planes.1, decoded.strides.1, decoded.planes.2, decoded.strides.2,
                           surface.luma, Int32(surface.pitch), surface.chroma, Int32(surface.pitch), Int32(copyWidth), Int32(copyHeight))
            }
        }
        try surface.record(outcome, width: unit.width, height: unit.height)
    }

    /// slice_pic_parameter_set_id of a slice segment NAL unit (7.3.6.1), or nil when unreadable.
    static func pictureParameterSetID(_ nalUnit: ArraySlice<UInt8>) -> Int? {
        let type = (nalUnit[nalUnit.startIndex] >> 1) & 0x3F
        var r = BitReader(EmulationPrevention.remove(nalUnit.dropFirst(2).prefix(8)))
        guard (try? r.skip((16...23).contains(type) ? 2 : 1)) != nil, let id = try? r.ue(), id < 64 else { return nil }
        return Int(id)
    }

    /// yuv420p10le planes -> P010 (each 10-bit sample in the high bits of a little-endian 16-bit word).
    private static func writeP010(_ decoded: DecodedPicture, into surface: Surface, width: Int, height: Int) {
        let luma = UnsafeMutableRawPointer(surface.luma), chroma = UnsafeMutableRawPointer(surface.chroma)
        for y in 0..<height {
            let source = UnsafeRawPointer(decoded.planes.0 + y * Int(decoded.strides.0)).assumingMemoryBound(to: UInt16.self)
            let row = (luma + y * surface.pitch).assumingMemoryBound(to: UInt16.self)
            for x in 0..<width { row[x] = (UInt16(littleEndian: source[x]) << 6).littleEndian }
        }
        for y in 0..<(height + 1) / 2 {
            let u = UnsafeRawPointer(decoded.planes.1 + y * Int(decoded.strides.1)).assumingMemoryBound(to: UInt16.self)
            let v = UnsafeRawPointer(decoded.planes.2 + y * Int(decoded.strides.2)).assumingMemoryBound(to: UInt16.self)
            let row = (chroma + y * surface.pitch).assumingMemoryBound(to: UInt16.self)
            for x in 0..<(width + 1) / 2 {
                row[2 * x] = (UInt16(littleEndian: u[x]) << 6).littleEndian
                row[2 * x + 1] = (UInt16(littleEndian: v[x]) << 6).littleEndian
            }
        }
    }
}
