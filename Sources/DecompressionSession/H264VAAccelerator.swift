import CLibVA
import H264Bitstream
import H264Decoding
import PixelConversion
import VideoAcceleration
import VTKMedia

/// The VA half of the decoder: it only turns the decoding process's requests into VA buffers, owns the
/// surfaces, and reads decoded pictures back. It knows nothing of the H.264 decoding process.
final class H264VAAccelerator: VADecodingAccelerator {
    typealias Codec = H264Codec
    let connection: VADisplayConnection
    private var configuration: VAConfiguration?
    private var context: VAContext?
    private var pool: VASurfacePool?
    private var surfaceOf: [PictureID: VASurfaceID] = [:]
    private var codedWidth = 0
    /// Pictures whose vaSyncSurface answered VA_STATUS_ERROR_DECODING_ERROR (read back and flagged, not dropped).
    private var syncReportedErrors = Set<PictureID>()
    private var codedHeight = 0

    init(connection: VADisplayConnection) {
        self.connection = connection
    }

    /// The VA profile for a stream: Constrained Baseline streams decode with the ConstrainedBaseline
    /// profile, Baseline ones (which may use FMO/ASO) need Main or High support in practice as VA has no
    /// plain Baseline decode; Extended is not offered.
    static func profile(for sps: SequenceParameterSet) throws(DecompressionError) -> VAProfile {
        switch sps.profileIdc {
        case 66: return sps.constraintSet1Flag ? VAProfileH264ConstrainedBaseline : VAProfileH264Main
        case 77: return VAProfileH264Main
        case 100: return VAProfileH264High
        default: throw .unsupportedFormat("H.264 profile_idc \(sps.profileIdc) (\(H264Profile(sps: sps).name))")
        }
    }

    /// A plain Baseline picture goes to the driver as Main (VA has no Baseline profile), which is right only
    /// without the Baseline tools Main lacks (A.2.1, A.2.2): slice groups (FMO), arbitrary slice order (ASO)
    /// and redundant slices. Such a picture is refused by name rather than decoded wrong.
    static func checkBaselineAsMain(_ request: PictureDecodeRequest) throws(DecompressionError) {
        guard request.sps.profileIdc == 66 && !request.sps.constraintSet1Flag else { return }
        var tools: [String] = []
        if request.pps.numSliceGroupsMinus1 > 0 { tools.append("slice groups (FMO)") }
        if request.pps.redundantPicCntPresentFlag && request.slices.contains(where: { $0.slice.header.redundantPicCnt > 0 }) {
            tools.append("redundant slices")
        }
        let starts = request.slices.map(\.slice.header.firstMbInSlice)
        if zip(starts, starts.dropFirst()).contains(where: { $0 >= $1 }) { tools.append("arbitrary slice order (ASO)") }
        guard tools.isEmpty else {
            throw .unsupportedFormat("a Baseline picture (\(request.picture.decodeIndex)) uses \(tools.joined(separator: ", ")), which VA's Main decoding cannot do")
        }
    }

    /// (Re)creates the configuration, surfaces and context for a sequence. `surfaceCount` covers the DPB,
    /// the picture being decoded and one waiting for output.
    func configure(format: H264FormatDescription, surfaceCount: Int) throws {
        releaseAll()
        context = nil
        pool = nil
        configuration = nil
        let profile = try Self.profile(for: format.sps)
        let available = connection.profiles()
        var chosen = profile
        if !available.contains(profile) {
            // A Constrained Baseline stream decodes with Main or High, which are supersets of it.
            if profile == VAProfileH264ConstrainedBaseline, let superset = [VAProfileH264Main, VAProfileH264High].first(where: available.contains) {
                chosen = superset
            } else if profile == VAProfileH264Main && available.contains(VAProfileH264High) {
                chosen = VAProfileH264High
            } else {
                throw DecompressionError.unsupportedFormat("the driver (\(connection.vendor)) has no \(String(cString: vaProfileStr(profile))) decoder")
            }
        }
        let config = try VAConfiguration(connection, profile: chosen, entrypoint: VAEntrypointVLD)
        codedWidth = format.codedWidth
        codedHeight = format.codedHeight
        let surfaces = try VASurfaceSet(connection, width: codedWidth, height: codedHeight, count: surfaceCount)
        context = try VAContext(connection, configuration: config, surfaces: surfaces, width: codedWidth, height: codedHeight)
        pool = VASurfacePool(surfaces)
        configuration = config
    }

    /// Sends one picture to the hardware.
    func decode(_ request: PictureDecodeRequest) throws {
        guard let context, var pool else { throw DecompressionError.invalidated }
        try Self.checkBaselineAsMain(request)
        let target: VASurfaceID
        if request.isSecondField, let first = surfaceOf[request.picture.id] {
            // The second field of a pair goes into its first field's surface, in its own
            // vaBeginPicture/vaEndPicture round (as FFmpeg and GStreamer do).
            target = first
        } else {
            guard let free = pool.acquire() else {
                // Cannot happen when the pool is sized from the DPB; fail loudly rather than overwrite a reference.
                throw DecompressionError.internalInconsistency("no free surface for \(request.picture.id)")
            }
            target = free
            self.pool = pool
            surfaceOf[request.picture.id] = target
        }
        let lookup: (PictureID) -> VASurfaceID? = { [surfaceOf] in surfaceOf[$0] }
        var buffers: [VABufferID] = []
        do {
            var picture = H264VAParameters.pictureParameters(request, surface: lookup)
            buffers.append(try context.buffer(VAPictureParameterBufferType, &picture))
            var matrix = H264VAParameters.iqMatrix(sps: request.sps, pps: request.pps)
            buffers.append(try context.buffer(VAIQMatrixBufferType, &matrix))
            for slice in request.slices {
                var parameters = H264VAParameters.sliceParameters(slice, pps: request.pps, surface: lookup)
                buffers.append(try context.buffer(VASliceParameterBufferType, &parameters))
                let id = try slice.slice.nalUnit.bytes.withUnsafeBytes { bytes throws(VAError) in
                    try context.buffer(VASliceDataBufferType, bytes: bytes)
                }
                buffers.append(id)
            }
        } catch {
            context.destroy(buffers: buffers)
            throw error
        }
        try context.render(target: target, buffers: buffers)
    }

    /// Reads a decoded picture back, cropped to the display rectangle.
    /// NV12 is copied out as it is; I420 is converted while it is copied out (one pass over the pixels).
    func read(_ picture: PictureID, crop: (x: Int, y: Int, width: Int, height: Int), format: PixelFormat = .nv12) throws -> PixelBuffer {
        guard let surface = surfaceOf[picture] else { throw DecompressionError.internalInconsistency("no surface for \(picture)") }
        if try VASurfaceErrors.sync(connection, surface: surface) { syncReportedErrors.insert(picture) }
        switch format {
        case .nv12:
            return try VASurfaceReader.readNV12(connection, surface: surface, surfaceWidth: codedWidth, surfaceHeight: codedHeight, crop: crop)
        case .i420, .p010, .yuv420p10:  // an 8-bit stream read as 10 bits goes through I420
            return try VASurfaceReader.withMappedNV12(connection, surface: surface, surfaceWidth: codedWidth, surfaceHeight: codedHeight) { mapped in
                // Crop offsets are even for 4:2:0 (7.4.2.1.1).
                PixelConverter.i420(nv12Luma: mapped.luma + crop.y * mapped.lumaPitch + crop.x, lumaPitch: mapped.lumaPitch,
                                    chroma: mapped.chroma + (crop.y / 2) * mapped.chromaPitch + crop.x, chromaPitch: mapped.chromaPitch,
                                    width: crop.width, height: crop.height)
            }
        }
    }

    /// Macroblocks the driver reports in error for a decoded picture (0 when clean; nil when it does not say).
    /// A picture whose sync reported VA_STATUS_ERROR_DECODING_ERROR counts at least one.
    func macroblocksInError(_ picture: PictureID) -> Int? {
        let reported = surfaceOf[picture].flatMap { VASurfaceErrors.macroblocksInError(connection, surface: $0) }
        guard syncReportedErrors.remove(picture) != nil else { return reported }
        return max(1, reported ?? 1)
    }

    /// The picture left the DPB and has been output (or never will be): its surface is free again.
    func release(_ picture: PictureID) {
        guard let surface = surfaceOf.removeValue(forKey: picture) else { return }
        pool?.release(surface)
    }

    func releaseAll() {
        for picture in Array(surfaceOf.keys) { release(picture) }
    }

    var surfacesInUse: Int { surfaceOf.count }

    /// Destroys the context, surfaces and configuration (in that order).
    func shutdown() {
        surfaceOf.removeAll()
        context = nil
        pool = nil
        configuration = nil
    }
}
