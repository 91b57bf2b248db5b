import CLibVA
import Foundation
import Testing
import VTKTestSupport

/// vtksoft is strict like hardware: bad calls get the VA error code libva's headers name, never a crash,
/// and the driver stays usable. These tests talk to the driver in-process through a display with no
/// device (``VTKSoftDisplay``), so they run without Xvfb or ffmpeg.
@Suite("Bad VA calls", .serialized, .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct BadCallTests {
    @Test("A clean client leaves no live objects; the counters are exported")
    func cleanClientLeavesNothing() throws {
        let display = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let leakedBefore = try #require(VTKSoftCounters.leaked)
        let client = VTKSoftVAClient(display: display.display)
        let stream = try client.encodeOnePicture()
        #expect(stream.starts(with: [0, 0, 0, 1, 0x67]), "SPS first")
        #expect(VTKSoftCounters.live(in: display.display) == 0, "everything the client made was destroyed")
        display.terminate()
        #expect(VTKSoftCounters.leaked == leakedBefore)
    }

    @Test("A client that leaks is reported at vaTerminate")
    func leakIsReported() throws {
        let display = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let leakedBefore = try #require(VTKSoftCounters.leaked)
        var surfaces = [VASurfaceID](repeating: 0, count: 2)
        expectStatus(vaCreateSurfaces(display.display, UInt32(VA_RT_FORMAT_YUV420), 64, 64, &surfaces, 2, nil, 0), VA_STATUS_SUCCESS, "create")
        #expect(VTKSoftCounters.live(in: display.display) == 2)
        display.terminate()
        #expect(VTKSoftCounters.leaked == leakedBefore + 2)
    }

    /// What one encoder engine advertises on EncSlice, and a request just beyond each limit.
    struct EngineCapabilities: Sendable, CustomStringConvertible {
        let engine: String
        let packedHeaders: UInt32
        let refusedPackedHeaders: UInt32
        /// L0 in the low 16 bits, L1 in the high 16.
        let maxRefFrames: UInt32
        var description: String { engine }
    }

    static let engines = [
        // The default: packed headers inserted verbatim, L0 4 / L1 1 as i965's EncSlice. 0x20 is a bit libva does not define.
        EngineCapabilities(engine: "native",
                           packedHeaders: UInt32(VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_PICTURE | VA_ENC_PACKED_HEADER_SLICE
                                                 | VA_ENC_PACKED_HEADER_MISC | VA_ENC_PACKED_HEADER_RAW_DATA),
                           refusedPackedHeaders: 0x20, maxRefFrames: 4 | 1 << 16),
        // openh264 (VTKSOFT_ENCODER=openh264) writes its own headers and predicts from one picture.
        EngineCapabilities(engine: "openh264", packedHeaders: UInt32(VA_ENC_PACKED_HEADER_NONE),
                           refusedPackedHeaders: UInt32(VA_ENC_PACKED_HEADER_SEQUENCE), maxRefFrames: 1),
    ]

    @Test("Each encoder engine advertises its packed headers, references and RC modes, refuses configs beyond them and encodes",
          arguments: engines)
    func engineCapabilities(_ expected: EngineCapabilities) throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let dpy = owner.display
        try #require(VTKSoftCounters.setEncoder(expected.engine, in: dpy))
        var queried = [VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: 0), VAConfigAttrib(type: VAConfigAttribEncMaxRefFrames, value: 0),
                       VAConfigAttrib(type: VAConfigAttribRateControl, value: 0)]
        expectStatus(vaGetConfigAttributes(dpy, VAProfileH264High, VAEntrypointEncSlice, &queried, 3), VA_STATUS_SUCCESS, "query")
        #expect(queried[0].value == expected.packedHeaders, "packed headers 0x\(String(queried[0].value, radix: 16))")
        #expect(queried[1].value == expected.maxRefFrames, "L0 \(queried[1].value & 0xffff), L1 \(queried[1].value >> 16)")
        #expect(queried[2].value == UInt32(VA_RC_CQP | VA_RC_CBR | VA_RC_VBR), "RC modes 0x\(String(queried[2].value, radix: 16))")

        /// Creates (and destroys) an EncSlice config with one attribute; returns the status.
        func config(_ type: VAConfigAttribType, _ value: UInt32) -> VAStatus {
            var attribute = VAConfigAttrib(type: type, value: value)
            var id = VAConfigID(VA_INVALID_ID)
            let status = vaCreateConfig(dpy, VAProfileH264High, VAEntrypointEncSlice, &attribute, 1, &id)
            if status == VA_STATUS_SUCCESS { vaDestroyConfig(dpy, id) }
            return status
        }
        expectStatus(config(VAConfigAttribEncPackedHeaders, expected.packedHeaders), VA_STATUS_SUCCESS, "every advertised packed header")
        expectStatus(config(VAConfigAttribEncPackedHeaders, expected.refusedPackedHeaders), VA_STATUS_ERROR_INVALID_VALUE, "a packed header not advertised")
        expectStatus(config(VAConfigAttribEncMaxRefFrames, expected.maxRefFrames), VA_STATUS_SUCCESS, "the advertised reference counts")
        expectStatus(config(VAConfigAttribEncMaxRefFrames, expected.maxRefFrames + (1 << 16)), VA_STATUS_ERROR_INVALID_VALUE, "one more L1 reference")
        expectStatus(config(VAConfigAttribEncMaxRefFrames, expected.maxRefFrames + 1), VA_STATUS_ERROR_INVALID_VALUE, "one more L0 reference")
        for mode in [VA_RC_CQP, VA_RC_CBR, VA_RC_VBR] {
            expectStatus(config(VAConfigAttribRateControl, UInt32(mode)), VA_STATUS_SUCCESS, "RC mode 0x\(String(mode, radix: 16))")
        }
        expectStatus(config(VAConfigAttribRateControl, UInt32(VA_RC_VCM)), VA_STATUS_ERROR_INVALID_VALUE, "RC mode VCM")

        let stream = try VTKSoftVAClient(display: dpy).encodeOnePicture()
        #expect(stream.starts(with: [0, 0, 0, 1, 0x67]), "SPS first")
        let luma = try VTKSoftVAClient(display: dpy).decodeOnePicture(stream)
        #expect(VTKSoftVAClient.error(luma) < 3, "decoded picture differs from the source by \(VTKSoftVAClient.error(luma)) on average")
    }

    @Test("Bad ids, wrong buffers, calls out of order and sizes are refused; encode and decode still work after")
    func badCallsAreRefused() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let dpy = owner.display
        let client = VTKSoftVAClient(display: dpy)
        let bogus: UInt32 = 0xdead

        // Configs
        var config = VAConfigID(VA_INVALID_ID)
        expectStatus(vaCreateConfig(dpy, VAProfileVP9Profile0, VAEntrypointVLD, nil, 0, &config), VA_STATUS_ERROR_UNSUPPORTED_PROFILE, "VP9 config")
        expectStatus(vaCreateConfig(dpy, VAProfileH264High, VAEntrypointEncPicture, nil, 0, &config), VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT, "EncPicture config")
        var rt422 = VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV422))
        expectStatus(vaCreateConfig(dpy, VAProfileH264High, VAEntrypointVLD, &rt422, 1, &config), VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT, "4:2:2 config")
        var twoModes = VAConfigAttrib(type: VAConfigAttribRateControl, value: UInt32(VA_RC_CBR | VA_RC_VBR))
        expectStatus(vaCreateConfig(dpy, VAProfileH264High, VAEntrypointEncSlice, &twoModes, 1, &config), VA_STATUS_ERROR_INVALID_VALUE, "two RC modes")
        expectStatus(vaDestroyConfig(dpy, bogus), VA_STATUS_ERROR_INVALID_CONFIG, "destroy bogus config")
        var profile = VAProfileNone, entrypoint = VAEntrypointVLD, count: Int32 = 0
        var attributes = [VAConfigAttrib](repeating: VAConfigAttrib(), count: 8)
        expectStatus(vaQueryConfigAttributes(dpy, bogus, &profile, &entrypoint, &attributes, &count), VA_STATUS_ERROR_INVALID_CONFIG, "query bogus config")

        var decodeConfig = VAConfigID(VA_INVALID_ID)
        expectStatus(vaCreateConfig(dpy, VAProfileH264Main, VAEntrypointVLD, nil, 0, &decodeConfig), VA_STATUS_SUCCESS, "decode config")
        defer { vaDestroyConfig(dpy, decodeConfig) }

        // Surfaces
        var surface = VASurfaceID(VA_INVALID_ID)
        expectStatus(vaCreateSurfaces(dpy, UInt32(VA_RT_FORMAT_YUV422), 64, 64, &surface, 1, nil, 0), VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT, "4:2:2 surface")
        var yuy2 = VASurfaceAttrib()
        yuy2.type = VASurfaceAttribPixelFormat
        yuy2.flags = UInt32(VA_SURFACE_ATTRIB_SETTABLE)
        yuy2.value.type = VAGenericValueTypeInteger
        yuy2.value.value.i = Int32(bitPattern: UInt32(VA_FOURCC_YUY2))
        expectStatus(vaCreateSurfaces(dpy, UInt32(VA_RT_FORMAT_YUV420), 64, 64, &surface, 1, &yuy2, 1), VA_STATUS_ERROR_INVALID_IMAGE_FORMAT, "YUY2 surface")
        var small = try client.createSurface(width: 32, height: 32)
        var big = try client.createSurface(width: 64, height: 64)
        var doomed = try client.createSurface()
        expectStatus(vaDestroySurfaces(dpy, &doomed, 1), VA_STATUS_SUCCESS, "destroy")
        expectStatus(vaDestroySurfaces(dpy, &doomed, 1), VA_STATUS_ERROR_INVALID_SURFACE, "double destroy surface")
        expectStatus(vaSyncSurface(dpy, doomed), VA_STATUS_ERROR_INVALID_SURFACE, "sync destroyed surface")
        var status = VASurfaceStatus(0)
        expectStatus(vaQuerySurfaceStatus(dpy, bogus, &status), VA_STATUS_ERROR_INVALID_SURFACE, "status of bogus surface")

        // Contexts
        var context = VAContextID(VA_INVALID_ID)
        expectStatus(vaCreateContext(dpy, bogus, 64, 64, VA_PROGRESSIVE, &big, 1, &context), VA_STATUS_ERROR_INVALID_CONFIG, "context on bogus config")
        expectStatus(vaCreateContext(dpy, decodeConfig, 64, 64, VA_PROGRESSIVE, &small, 1, &context), VA_STATUS_ERROR_INVALID_SURFACE, "render target smaller than context")
        expectStatus(vaCreateContext(dpy, decodeConfig, 64, 64, VA_PROGRESSIVE, &big, 1, &context), VA_STATUS_SUCCESS, "decode context")
        defer { vaDestroyContext(dpy, context) }

        // Buffers
        var buffer = VABufferID(VA_INVALID_ID)
        var picture = VAPictureParameterBufferH264()
        expectStatus(vaCreateBuffer(dpy, bogus, VAPictureParameterBufferType, UInt32(MemoryLayout<VAPictureParameterBufferH264>.size), 1, &picture, &buffer),
                     VA_STATUS_ERROR_INVALID_CONTEXT, "buffer on bogus context")
        expectStatus(vaCreateBuffer(dpy, context, VAPictureParameterBufferType, 12, 1, &picture, &buffer), VA_STATUS_ERROR_INVALID_PARAMETER, "picture parameters of the wrong size")
        var sequence = VAEncSequenceParameterBufferH264()
        expectStatus(vaCreateBuffer(dpy, context, VAEncSequenceParameterBufferType, UInt32(MemoryLayout<VAEncSequenceParameterBufferH264>.size), 1, &sequence, &buffer),
                     VA_STATUS_ERROR_UNSUPPORTED_BUFFERTYPE, "encode buffer on a decode context")
        var pointer: UnsafeMutableRawPointer?
        expectStatus(vaMapBuffer(dpy, bogus, &pointer), VA_STATUS_ERROR_INVALID_BUFFER, "map bogus buffer")
        expectStatus(vaMapBuffer(dpy, big, &pointer), VA_STATUS_ERROR_INVALID_BUFFER, "map a surface id as a buffer")
        let pictureBuffer = try client.createBuffer(context, VAPictureParameterBufferType, picture)
        expectStatus(vaBufferSetNumElements(dpy, pictureBuffer, 2), VA_STATUS_ERROR_INVALID_PARAMETER, "grow a buffer")
        var sliceData: [UInt8] = [0x65, 0x88, 0x84, 0x00]
        var dataBuffer = VABufferID(VA_INVALID_ID)
        expectStatus(vaCreateBuffer(dpy, context, VASliceDataBufferType, UInt32(sliceData.count), 1, &sliceData, &dataBuffer), VA_STATUS_SUCCESS, "slice data")

        // Pictures out of order
        var list = [dataBuffer]
        expectStatus(vaRenderPicture(dpy, context, &list, 1), VA_STATUS_ERROR_OPERATION_FAILED, "render without begin")
        expectStatus(vaEndPicture(dpy, context), VA_STATUS_ERROR_OPERATION_FAILED, "end without begin")
        expectStatus(vaBeginPicture(dpy, context, bogus), VA_STATUS_ERROR_INVALID_SURFACE, "begin on bogus surface")
        expectStatus(vaBeginPicture(dpy, context, small), VA_STATUS_ERROR_INVALID_SURFACE, "begin on a surface smaller than the context")
        expectStatus(vaBeginPicture(dpy, bogus, big), VA_STATUS_ERROR_INVALID_CONTEXT, "begin on bogus context")
        expectStatus(vaBeginPicture(dpy, context, big), VA_STATUS_SUCCESS, "begin")
        expectStatus(vaBeginPicture(dpy, context, big), VA_STATUS_ERROR_OPERATION_FAILED, "begin twice")
        var withBogus = [dataBuffer, bogus]
        expectStatus(vaRenderPicture(dpy, context, &withBogus, 2), VA_STATUS_ERROR_INVALID_BUFFER, "render a bogus buffer")
        expectStatus(vaRenderPicture(dpy, context, &list, 1), VA_STATUS_SUCCESS, "render slice data")
        expectStatus(vaEndPicture(dpy, context), VA_STATUS_ERROR_INVALID_PARAMETER, "end without picture parameters")
        expectStatus(vaBeginPicture(dpy, context, big), VA_STATUS_SUCCESS, "begin after a failed picture")
        var garbage = [pictureBuffer, dataBuffer]
        expectStatus(vaRenderPicture(dpy, context, &garbage, 2), VA_STATUS_SUCCESS, "render")
        expectStatus(vaEndPicture(dpy, context), VA_STATUS_ERROR_INVALID_PARAMETER, "slice data without slice parameters")

        // Images
        var image = VAImage()
        expectStatus(vaDeriveImage(dpy, bogus, &image), VA_STATUS_ERROR_INVALID_SURFACE, "derive from bogus surface")
        var format = VAImageFormat()
        format.fourcc = UInt32(VA_FOURCC_RGBA)
        expectStatus(vaCreateImage(dpy, &format, 64, 64, &image), VA_STATUS_ERROR_INVALID_IMAGE_FORMAT, "RGBA image")
        format.fourcc = UInt32(VA_FOURCC_NV12)
        expectStatus(vaCreateImage(dpy, &format, 64, 64, &image), VA_STATUS_SUCCESS, "NV12 image")
        expectStatus(vaGetImage(dpy, big, 32, 32, 64, 64, image.image_id), VA_STATUS_ERROR_INVALID_PARAMETER, "get a rectangle outside the surface")
        expectStatus(vaPutImage(dpy, big, image.image_id, 0, 0, 64, 64, 0, 0, 32, 32), VA_STATUS_ERROR_INVALID_PARAMETER, "put with scaling")
        expectStatus(vaDestroyBuffer(dpy, image.buf), VA_STATUS_ERROR_INVALID_BUFFER, "destroy an image's buffer directly")
        expectStatus(vaDestroyImage(dpy, image.image_id), VA_STATUS_SUCCESS, "destroy image")
        expectStatus(vaDestroyImage(dpy, image.image_id), VA_STATUS_ERROR_INVALID_IMAGE, "double destroy image")
        expectStatus(vaGetImage(dpy, big, 0, 0, 64, 64, image.image_id), VA_STATUS_ERROR_INVALID_IMAGE, "get into destroyed image")

        // What vtksoft does not do
        var subpicture = VASubpictureID(0)
        expectStatus(vaCreateSubpicture(dpy, image.image_id, &subpicture), VA_STATUS_ERROR_UNIMPLEMENTED, "subpicture")
        var attribute = VADisplayAttribute()
        var attributeCount: Int32 = 0
        expectStatus(vaQueryDisplayAttributes(dpy, &attribute, &attributeCount), VA_STATUS_ERROR_UNIMPLEMENTED, "display attributes")

        // Double destroys
        expectStatus(vaDestroyBuffer(dpy, pictureBuffer), VA_STATUS_SUCCESS, "destroy buffer")
        expectStatus(vaDestroyBuffer(dpy, pictureBuffer), VA_STATUS_ERROR_INVALID_BUFFER, "double destroy buffer")
        expectStatus(vaDestroyBuffer(dpy, dataBuffer), VA_STATUS_SUCCESS, "destroy buffer")
        expectStatus(vaDestroyContext(dpy, bogus), VA_STATUS_ERROR_INVALID_CONTEXT, "destroy bogus context")

        // Still usable: a real encode, and its picture decoded back.
        let stream = try client.encodeOnePicture()
        #expect(stream.starts(with: [0, 0, 0, 1, 0x67]))
        let luma = try client.decodeOnePicture(stream)
        #expect(VTKSoftVAClient.error(luma) < 3, "decoded picture differs from the source by \(VTKSoftVAClient.error(luma)) on average")

        vaDestroySurfaces(dpy, &small, 1)
        vaDestroySurfaces(dpy, &big, 1)
    }
}
