import CLibVA
import H264Bitstream
import H265Bitstream
import H265Decoding
import PixelConversion
import VideoAcceleration
import VideoDecoding
import VTKMedia

/// The H.265 half of the VA decoder: it picks the profile and surface format (NV12, or P010 for Main 10)
/// and turns the decoding process's requests into VA buffers; ``VADecoder`` owns the surfaces, renders and
/// reads pictures back.
final class H265VAAccelerator: VADecodingAccelerator {
    typealias Codec = H265Codec
    let decoder: VADecoder
    private(set) var tenBit = false

    init(connection: VADisplayConnection) {
        decoder = VADecoder(connection: connection)
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
        let tenBit = format.bitDepth > 8
        try decoder.configure(width: format.codedWidth, height: format.codedHeight, surfaceCount: surfaceCount,
                              rtFormat: UInt32(tenBit ? VA_RT_FORMAT_YUV420_10 : VA_RT_FORMAT_YUV420),
                              fourcc: UInt32(tenBit ? VA_FOURCC_P010 : VA_FOURCC_NV12)) { [decoder] available in
            var profile = try Self.profile(for: format.sps)
            if profile == VAProfileHEVCMain && !available.contains(profile) && available.contains(VAProfileHEVCMain10) { profile = VAProfileHEVCMain10 }
            guard available.contains(profile) else {
                throw DecompressionError.unsupportedFormat("the driver (\(decoder.connection.vendor)) has no \(VADecoder.name(of: profile)) decoder")
            }
            return profile
        }
        self.tenBit = tenBit
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
        let target = try decoder.target(for: request.picture.id)
        var (picture, matrix, slices) = Self.buffers(request, current: target) { [decoder] in decoder.surface(of: $0) }
        try decoder.render(into: target) { context, ids in
            ids.append(try context.buffer(VAPictureParameterBufferType, &picture))
            if var matrix { ids.append(try context.buffer(VAIQMatrixBufferType, &matrix)) }
            for (i, slice) in request.slices.enumerated() {
                ids.append(try context.buffer(VASliceParameterBufferType, &slices[i]))
                ids.append(try slice.segment.nalUnit.bytes.withUnsafeBytes { bytes throws(VAError) in
                    try context.buffer(VASliceDataBufferType, bytes: bytes)
                })
            }
        }
    }

    /// A decoded picture's surface, read back in any format: NV12 or I420 for 8-bit streams, P010 or
    /// yuv420p10 (or 8-bit I420, shifted) for 10-bit ones.
    func picture(_ picture: PictureID, crop: (x: Int, y: Int, width: Int, height: Int)) throws -> SurfacePicture {
        try decoder.picture(picture, crop: crop, tenBit: tenBit, convertsToAnyFormat: true)
    }
}
