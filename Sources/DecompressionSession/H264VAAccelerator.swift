import CLibVA
import H264Bitstream
import H264Decoding
import PixelConversion
import VideoAcceleration
import VideoDecoding
import VTKMedia

/// The H.264 half of the VA decoder: it picks the profile and turns the decoding process's requests into VA
/// buffers; ``VADecoder`` owns the surfaces, renders and reads pictures back. It knows nothing of the H.264
/// decoding process.
final class H264VAAccelerator: VADecodingAccelerator {
    typealias Codec = H264Codec
    let decoder: VADecoder

    init(connection: VADisplayConnection) {
        decoder = VADecoder(connection: connection)
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

    /// (Re)creates the configuration, surfaces and context for a sequence: the stream's profile, or a superset
    /// of it the driver has.
    func configure(format: H264FormatDescription, surfaceCount: Int) throws {
        try decoder.configure(width: format.codedWidth, height: format.codedHeight, surfaceCount: surfaceCount,
                              rtFormat: UInt32(VA_RT_FORMAT_YUV420), fourcc: UInt32(VA_FOURCC_NV12)) { [decoder] available in
            let profile = try Self.profile(for: format.sps)
            if available.contains(profile) { return profile }
            // A Constrained Baseline stream decodes with Main or High, which are supersets of it.
            if profile == VAProfileH264ConstrainedBaseline, let superset = [VAProfileH264Main, VAProfileH264High].first(where: available.contains) {
                return superset
            }
            if profile == VAProfileH264Main && available.contains(VAProfileH264High) { return VAProfileH264High }
            throw DecompressionError.unsupportedFormat("the driver (\(decoder.connection.vendor)) has no \(VADecoder.name(of: profile)) decoder")
        }
    }

    /// Sends one picture to the hardware. The second field of a pair goes into its first field's surface, in
    /// its own vaBeginPicture/vaEndPicture round (as FFmpeg and GStreamer do).
    func decode(_ request: PictureDecodeRequest) throws {
        try Self.checkBaselineAsMain(request)
        let target = try decoder.target(for: request.picture.id, sharing: request.isSecondField)
        let lookup: (PictureID) -> VASurfaceID? = { [decoder] in decoder.surface(of: $0) }
        try decoder.render(into: target) { context, buffers in
            var picture = H264VAParameters.pictureParameters(request, surface: lookup)
            buffers.append(try context.buffer(VAPictureParameterBufferType, &picture))
            var matrix = H264VAParameters.iqMatrix(sps: request.sps, pps: request.pps)
            buffers.append(try context.buffer(VAIQMatrixBufferType, &matrix))
            for slice in request.slices {
                var parameters = H264VAParameters.sliceParameters(slice, pps: request.pps, surface: lookup)
                buffers.append(try context.buffer(VASliceParameterBufferType, &parameters))
                buffers.append(try slice.slice.nalUnit.bytes.withUnsafeBytes { bytes throws(VAError) in
                    try context.buffer(VASliceDataBufferType, bytes: bytes)
                })
            }
        }
    }

    /// A decoded picture's surface, read back NV12 as it is and any other format as I420 (an 8-bit stream
    /// read as 10 bits goes through I420).
    func picture(_ picture: PictureID, crop: (x: Int, y: Int, width: Int, height: Int)) throws -> SurfacePicture {
        try decoder.picture(picture, crop: crop, tenBit: false, convertsToAnyFormat: false)
    }
}
