import CLibVA
import H264Bitstream
import H265Bitstream
import H265Decoding
import PixelConversion
import VideoAcceleration
import VideoDecoding
import VTKMedia

/// The VA half of the H.265 decoder: turns the decoding process's requests into VA buffers, owns the
/// surfaces (NV12, or P010 for Main 10), and reads decoded pictures back.
final class H265VAAccelerator: VADecodingAccelerator {
    typealias Codec = H265Codec
    let connection: VADisplayConnection
    private var configuration: VAConfiguration?
    private var context: VAContext?
    private var pool: VASurfacePool?
    private var surfaceOf: [PictureID: VASurfaceID] = [:]
    private var codedWidth = 0
    private var codedHeight = 0
    private(set) var tenBit = false

    init(connection: VADisplayConnection) {
        self.connection = connection
    }

    /// The VA profile of a stream (A.3.2, A.3.3): Main, or Main 10 (which also decodes 8-bit Main 10 streams);
    /// general_profile_idc 0 is inferred as FFmpeg and libde265 do (``H265ProfileInference``).
    static func profile(for sps: H265SequenceParameterSet) throws(DecompressionError) -> VAProfile {
        switch (H265ProfileInference.profile(of: sps), sps.bitDepthLuma) {
        case (1, 8): return VAProfileHEVCMain
        case (2, 8), (2, 10), (1, 10): return VAProfileHEVCMain10
        default:
            throw .unsupportedFormat("H.265 \(sps.profileTierLevel.profileName) (general_profile_idc \(sps.profileTierLevel.generalProfileIdc)), \(sps.bitDepthLuma)-bit")
        }
    }

    /// (Re)creates the configuration, surfaces and context for a sequence.
    func configure(format: H265FormatDescription, surfaceCount: Int) throws {
        releaseAll()
        context = nil
        pool = nil
        configuration = nil
        var profile = try Self.profile(for: format.sps)
        let available = connection.profiles()
        if profile == VAProfileHEVCMain && !available.contains(profile) && available.contains(VAProfileHEVCMain10) { profile = VAProfileHEVCMain10 }
        guard available.contains(profile) else {
            throw DecompressionError.unsupportedFormat("the driver (\(connection.vendor)) has no \(String(cString: vaProfileStr(profile))) decoder")
        }
        tenBit = format.bitDepth > 8
        let rtFormat = UInt32(tenBit ? VA_RT_FORMAT_YUV420_10 : VA_RT_FORMAT_YUV420)
        let config = try VAConfiguration(connection, profile: profile, entrypoint: VAEntrypointVLD,
                                         attributes: [VAConfigAttrib(type: VAConfigAttribRTFormat, value: rtFormat)])
        codedWidth = format.codedWidth
        codedHeight = format.codedHeight
        let surfaces = try VASurfaceSet(connection, width: codedWidth, height: codedHeight, count: surfaceCount, rtFormat: rtFormat,
                                        fourcc: UInt32(tenBit ? VA_FOURCC_P010 : VA_FOURCC_NV12))
        context = try VAContext(connection, configuration: config, surfaces: surfaces, width: codedWidth, height: codedHeight)
        pool = VASurfacePool(surfaces)
        configuration = config
    }

    /// The buffers of one picture, without VA calls (what ``decode(_:)`` sends; the comparison tests read them).
    static func buffers(_ request: H265PictureDecodeRequest, current: VASurfaceID, surface: (PictureID) -> VASurfaceID?)
        -> (picture: VAPictureParameterBufferHEVC, matrix: VAIQMatrixBufferHEVC?, slices: [VASliceParameterBufferHEVC]) {
        let references = H265VAParameters.referenceFrames(request, surface: surface)
        let picture = H265VAParameters.pictureParameters(request, references: references, currentSurface: current)
        let slices = request.slices.enumerated().map { i, slice in
            H265VAParameters.sliceParameters(slice, isLast: i == request.slices.count - 1, references: references, pps: request.pps)
        }
        return (picture, H265VAParameters.iqMatrix(sps: request.sps, pps: request.pps), slices)
    }

    /// Sends one picture to the hardware.
    func decode(_ request: H265PictureDecodeRequest) throws {
        guard let context, var pool else { throw DecompressionError.invalidated }
        guard let target = pool.acquire() else {
            throw DecompressionError.internalInconsistency("no free surface for \(request.picture.id)")
        }
        self.pool = pool
        surfaceOf[request.picture.id] = target
        var (picture, matrix, slices) = Self.buffers(request, current: target) { [surfaceOf] in surfaceOf[$0] }
        var ids: [VABufferID] = []
        do {
            ids.append(try context.buffer(VAPictureParameterBufferType, &picture))
            if var matrix { ids.append(try context.buffer(VAIQMatrixBufferType, &matrix)) }
            for (i, slice) in request.slices.enumerated() {
                ids.append(try context.buffer(VASliceParameterBufferType, &slices[i]))
                ids.append(try slice.segment.nalUnit.bytes.withUnsafeBytes { bytes throws(VAError) in
                    try context.buffer(VASliceDataBufferType, bytes: bytes)
                })
            }
        } catch {
            context.destroy(buffers: ids)
            throw error
        }
        try context.render(target: target, buffers: ids)
    }

    /// Reads a decoded picture back, cropped, in `format`: NV12 or I420 for 8-bit streams, P010 or
    /// yuv420p10 (or 8-bit I420, shifted) for 10-bit ones.
    func read(_ picture: PictureID, crop: (x: Int, y: Int, width: Int, height: Int), format: PixelFormat) throws -> PixelBuffer {
        guard let surface = surfaceOf[picture] else { throw DecompressionError.internalInconsistency("no surface for \(picture)") }
        if !tenBit {
            switch format {
            case .nv12:
                return try VASurfaceReader.readNV12(connection, surface: surface, surfaceWidth: codedWidth, surfaceHeight: codedHeight, crop: crop)
            default:
                let i420 = try VASurfaceReader.withMappedNV12(connection, surface: surface, surfaceWidth: codedWidth, surfaceHeight: codedHeight) { m in
                    PixelConverter.i420(nv12Luma: m.luma + crop.y * m.lumaPitch + crop.x, lumaPitch: m.lumaPitch,
                                        chroma: m.chroma + (crop.y / 2) * m.chromaPitch + crop.x, chromaPitch: m.chromaPitch,
                                        width: crop.width, height: crop.height)
                }
                return PixelConverter.convert(i420, to: format)
            }
        }
        let p010 = try VASurfaceReader.withMapped(connection, surface: surface, surfaceWidth: codedWidth, surfaceHeight: codedHeight,
                                                  fourcc: UInt32(VA_FOURCC_P010)) { m in
            var out = PixelBuffer(uninitializedFormat: .p010, width: crop.width, height: crop.height)
            let rows = [crop.height, out.chromaHeight]
            let sources = [m.luma + crop.y * m.lumaPitch + 2 * crop.x, m.chroma + (crop.y / 2) * m.chromaPitch + 2 * crop.x]
            let pitches = [m.lumaPitch, m.chromaPitch]
            for p in 0..<2 {
                let length = out.planes[p].rowLength
                out.planes[p].bytes.withUnsafeMutableBytes { dst in
                    guard let to = dst.baseAddress else { return }
                    for row in 0..<rows[p] { (to + row * length).copyMemory(from: sources[p] + row * pitches[p], byteCount: length) }
                }
            }
            return out
        }
        return PixelConverter.convert(p010, to: format)
    }

    func macroblocksInError(_ picture: PictureID) -> Int? {
        surfaceOf[picture].flatMap { VASurfaceErrors.macroblocksInError(connection, surface: $0) }
    }

    func release(_ picture: PictureID) {
        guard let surface = surfaceOf.removeValue(forKey: picture) else { return }
        pool?.release(surface)
    }

    func releaseAll() {
        for picture in Array(surfaceOf.keys) { release(picture) }
    }

    func shutdown() {
        surfaceOf.removeAll()
        context = nil
        pool = nil
        configuration = nil
    }
}
