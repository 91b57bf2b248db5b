import CLibVA
import Testing
import VTKTestSupport

/// Found by fuzz-h264encode: a SliceQPY outside 0...51 (pic_init_qp 200, or slice_qp_delta far off) trapped in
/// the native H.264 engine and took the client down. Now it is an error status, as are chroma QP offsets
/// outside -12...12 (7.4.2.2), and the driver encodes on.
@Suite("vtksoft H.264 native encode: QPs the spec forbids", .serialized,
       .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct NativeEncodeBadParameterTests {
    typealias Edit = @Sendable (inout VAEncPictureParameterBufferH264, inout VAEncSliceParameterBufferH264) -> Void
    static let edits: [(String, Edit)] = [
        ("pic_init_qp 200", { p, _ in p.pic_init_qp = 200 }),
        ("slice_qp_delta to QP -74", { _, s in s.slice_qp_delta = -100 }),
        ("slice_qp_delta to QP 126", { _, s in s.slice_qp_delta = 100 }),
        ("chroma_qp_index_offset -100", { p, _ in p.chroma_qp_index_offset = -100 }),
    ]

    @Test("A QP outside 0...51 or a chroma QP offset outside -12...12 gets an error status, never a crash; the driver encodes after")
    func qpOutOfRange() throws {
        let client = try EncodeTestClient(profile: VAProfileH264ConstrainedBaseline, packed: nil, reconstructions: 0) { display in
            try #require(VTKSoftCounters.setEncoder("native", in: display))
        }
        for (what, edit) in Self.edits {
            let (sequence, cleanPicture, cleanSlice) = VTKSoftVAClient.idrParameters(source: client.source, coded: client.coded, qp: 26)
            var (picture, slice) = (cleanPicture, cleanSlice)
            edit(&picture, &slice)
            let result = try client.encode(sequence, picture, slice)
            #expect(result.end != VA_STATUS_SUCCESS || result.sync != VA_STATUS_SUCCESS, "\(what): coded (vaEndPicture and vaSyncSurface succeeded)")
        }
        try BrokenClientTests.expectStillUsable(client)
    }
}
