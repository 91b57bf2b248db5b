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
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let display = owner.display
        try #require(VTKSoftCounters.setEncoder("native", in: display))
        let client = VTKSoftVAClient(display: display)
        var attributes = [VAConfigAttrib(type: VAConfigAttribRateControl, value: UInt32(VA_RC_CQP))]
        var config = VAConfigID(VA_INVALID_ID)
        try client.check(vaCreateConfig(display, VAProfileH264ConstrainedBaseline, VAEntrypointEncSlice, &attributes, 1, &config), "config")
        var source = try client.createSurface()
        try client.fill(source)
        var context = VAContextID(VA_INVALID_ID)
        try client.check(vaCreateContext(display, config, Int32(VTKSoftVAClient.size), Int32(VTKSoftVAClient.size), VA_PROGRESSIVE, &source, 1, &context), "context")
        var coded = VABufferID(VA_INVALID_ID)
        try client.check(vaCreateBuffer(display, context, VAEncCodedBufferType, 1 << 20, 1, nil, &coded), "coded buffer")
        for (what, edit) in Self.edits {
            let (sequence, cleanPicture, cleanSlice) = VTKSoftVAClient.idrParameters(source: source, coded: coded, qp: 26)
            var (picture, slice) = (cleanPicture, cleanSlice)
            edit(&picture, &slice)
            var buffers = [try client.createBuffer(context, VAEncSequenceParameterBufferType, sequence),
                           try client.createBuffer(context, VAEncPictureParameterBufferType, picture),
                           try client.createBuffer(context, VAEncSliceParameterBufferType, slice)]
            try client.check(vaBeginPicture(display, context, source), "begin")
            try client.check(vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "render")
            let end = vaEndPicture(display, context)
            let sync = end == VA_STATUS_SUCCESS ? vaSyncSurface(display, source) : VA_STATUS_SUCCESS
            #expect(end != VA_STATUS_SUCCESS || sync != VA_STATUS_SUCCESS, "\(what): coded (vaEndPicture and vaSyncSurface succeeded)")
            for b in buffers { vaDestroyBuffer(display, b) }
        }
        vaDestroyBuffer(display, coded)
        vaDestroyContext(display, context)
        vaDestroySurfaces(display, &source, 1)
        vaDestroyConfig(display, config)
        // Still usable; nothing alive.
        #expect(try client.encodeOnePicture().starts(with: [0, 0, 0, 1, 0x67]))
        #expect(VTKSoftCounters.live(in: display) == 0)
        owner.terminate()
    }
}
