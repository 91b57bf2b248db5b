// swift-tools-version:6.0
// vtk: VideoToolbox-shaped H.264 encode and decode on Linux through VA-API.
import PackageDescription

let package = Package(
    name: "vtk",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "vtk", targets: ["vtk"]),
        .library(name: "VTKMedia", targets: ["VTKMedia"]),
        .library(name: "H264Bitstream", targets: ["H264Bitstream"]),
        // libva loads this as driver "libvtksoft" (LIBVA_DRIVER_NAME=libvtksoft) from LIBVA_DRIVERS_PATH.
        .library(name: "vtksoft_drv_video", type: .dynamic, targets: ["VTKSoft"]),
    ],
    targets: [
        // MARK: C libraries (Debian packages; `make deps` installs them)
        .systemLibrary(
            name: "CLibVA", pkgConfig: "libva-drm",
            providers: [.apt(["libva-dev", "libdrm-dev"])]),
        .systemLibrary(
            name: "CX11", pkgConfig: "x11",  // Xlib and MIT-SHM: VA presentation on X11, vtksoft's vaPutSurface, vtk play's window
            providers: [.apt(["libx11-dev", "libxext-dev"])]),
        .systemLibrary(
            name: "CLibYUV",  // Debian's libyuv-dev has no .pc file: the module map links `yuv` directly.
            providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(
            name: "COpenH264", pkgConfig: "openh264",
            providers: [.apt(["libopenh264-dev"])]),
        .systemLibrary(
            name: "CLibAVCodec", pkgConfig: "libavcodec",
            providers: [.apt(["libavcodec-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",  // PNG compression, for VTKCommandLine
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CLibAVUtil", pkgConfig: "libavutil",  // MD5 (av_md5), for VTKMedia
            providers: [.apt(["libavutil-dev"])]),

        // MARK: Pure Swift layers
        .target(name: "VTKMedia", dependencies: ["CLibAVUtil"]),
        .target(name: "JSONText"),
        .target(name: "ProcessTools", dependencies: ["VTKMedia"]),  // child processes with time limits, PATH lookup, a private Xvfb
        // The codec-neutral bitstream: NAL units, Annex B and length-prefix framing, emulation prevention, bit I/O.
        .target(name: "NALStream", dependencies: ["VTKMedia"]),
        .target(name: "H264Bitstream", dependencies: ["NALStream", "VTKMedia"]),
        // The codec-neutral parts of a decoding process: the DPB and its output process, picture identity, events.
        .target(name: "VideoDecoding", dependencies: ["VTKMedia"]),
        .target(name: "H264Decoding", dependencies: ["H264Bitstream", "VideoDecoding", "VTKMedia"]),
        .target(name: "H265Bitstream", dependencies: ["NALStream", "VTKMedia"]),
        .target(name: "H265Decoding", dependencies: ["H265Bitstream", "NALStream", "VideoDecoding", "VTKMedia"]),
        // vtksoft's own H.264 encoder engine: pure Swift, no VA (see Sources/H264Encoding).
        // Optimised in debug builds too: unoptimised, it codes 720p at under 1 fps, too slow for the tests that encode.
        // The CABAC arithmetic engine, the same in H.264 and H.265 (each codec numbers its own contexts).
        .target(name: "CABACCoding", swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "H264Encoding", dependencies: ["H264Bitstream", "CABACCoding", "VTKMedia"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // vtksoft's own H.265 encoder engine: pure Swift, no VA (see Sources/H265Encoding); optimised in debug too.
        .target(name: "H265Encoding", dependencies: ["H265Bitstream", "NALStream", "CABACCoding", "VTKMedia"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // MARK: Containers (pure Swift)
        .target(name: "MP4", dependencies: ["H264Bitstream", "H265Bitstream", "VTKMedia"]),
        .target(name: "Y4M", dependencies: ["VTKMedia"]),
        // RTP/RTCP and the H.264 payload format (RFC 3550, 4585, 6184); sockets wrapped once at the C boundary.
        .target(name: "RTP"),

        // MARK: The VA layer
        .target(name: "VideoAcceleration", dependencies: ["CLibVA", "CX11", "VTKMedia"]),

        .target(name: "PixelConversion", dependencies: ["CLibYUV", "VTKMedia"]),

        // MARK: Sessions
        .target(name: "DecompressionSession",
                dependencies: ["H264Bitstream", "H264Decoding", "H265Bitstream", "H265Decoding", "VideoDecoding", "VideoAcceleration", "PixelConversion", "VTKMedia", "CLibVA"]),
        .target(name: "CompressionSession",
                dependencies: ["H264Bitstream", "H265Bitstream", "VideoAcceleration", "PixelConversion", "VTKMedia", "CLibVA"]),

        // MARK: vtksoft, the software VA-API driver
        .target(
            name: "VTKSoft",
            dependencies: ["CLibVA", "CX11", "CLibAVCodec", "COpenH264", "CLibYUV", "H264Bitstream", "H264Encoding", "H265Bitstream", "H265Encoding", "JSONText", "VTKMedia"],
            linkerSettings: [
                // libva dlopens the driver from a process that may not carry the Swift runtime's path.
                .unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "/opt/swift/usr/lib/swift/linux"]),
                // libva dlcloses the driver at vaTerminate; Swift images must not be unloaded and reloaded.
                .unsafeFlags(["-Xlinker", "-z", "-Xlinker", "nodelete"]),
            ]),

        // MARK: RTP sessions: the receiver (I/O, assembly, RTCP/PLI policy, statistics), the sender, the live feed for a player
        .target(name: "RTPSession",
                dependencies: ["RTP", "NALStream", "H264Bitstream", "H265Bitstream", "DecompressionSession", "VideoAcceleration", "VideoDisplay", "VTKMedia"]),

        // MARK: Display: a timebase and a layer that shows frames at their times; an X11 window to show them on
        .target(name: "VideoDisplay", dependencies: ["DecompressionSession", "H264Bitstream", "VTKMedia"]),
        .target(name: "X11Display", dependencies: ["VideoDisplay", "CX11", "CLibYUV", "PixelConversion", "VTKMedia"]),
        // A player: sources that stream a file (MP4, Annex B) and the render loop that feeds a display layer.
        .target(name: "Playback",
                dependencies: ["VideoDisplay", "X11Display", "DecompressionSession", "MP4", "NALStream", "H264Bitstream", "H265Bitstream",
                               "H264Decoding", "H265Decoding", "JSONText", "VTKMedia"]),

        // MARK: The command
        .target(name: "VTKCommandLine",
                dependencies: ["DecompressionSession", "CompressionSession", "H264Bitstream", "H264Decoding", "VideoDecoding", "VideoAcceleration",
                               "PixelConversion", "MP4", "Y4M", "VTKMedia", "JSONText", "CLibVA", "CLibYUV", "ProcessTools", "CZlib", "RTP",
                               "VideoDisplay", "X11Display", "H265Bitstream", "RTPSession", "Playback"]),
        .executableTarget(name: "vtk", dependencies: ["VTKCommandLine", "VideoAcceleration"]),

        // MARK: Tools (benchmarks)
        .executableTarget(name: "bitstream-bench", dependencies: ["H264Bitstream"], path: "Tools/BitstreamBench"),
        .target(name: "BenchSupport", dependencies: ["COpenH264"], path: "Tools/BenchSupport"),
        .executableTarget(name: "vtk-bench", dependencies: ["BenchSupport", "VTKTestSupport", "VTKMedia", "CLibAVCodec", "COpenH264", "CLibYUV"],
                          path: "Tools/Bench"),
        // The floor vtk-bench measures against: libavcodec and openh264 called directly, without Foundation.
        .executableTarget(name: "codec-floor", dependencies: ["BenchSupport", "CLibAVCodec", "COpenH264"], path: "Tools/CodecFloor"),
        .executableTarget(name: "encode-bench", dependencies: ["BenchSupport", "CompressionSession", "H264Bitstream", "VTKTestSupport", "VideoAcceleration", "VTKMedia"],
                          path: "Tools/EncodeBench"),
        .executableTarget(name: "h265-engine-bench", dependencies: ["H265Encoding", "H265Bitstream"], path: "Tools/H265EngineBench"),
        .executableTarget(name: "engine-bench", dependencies: ["BenchSupport", "H264Encoding", "H264Bitstream"], path: "Tools/EngineBench"),

        // MARK: Tests
        // Sets LIBVA_DRIVERS_PATH at load, before any test thread: library code never touches the environment.
        .target(name: "VTKTestEnvironment", path: "Tests/VTKTestEnvironment"),
        .target(name: "VTKTestSupport", dependencies: ["H264Bitstream", "ProcessTools", "VTKTestEnvironment"], path: "Tests/VTKTestSupport"),
        .testTarget(name: "VTKMediaTests", dependencies: ["VTKMedia"]),
        .testTarget(name: "H264EncodingTests", dependencies: ["H264Encoding", "H264Bitstream", "CABACCoding", "VTKMedia", "VTKTestSupport"]),
        .testTarget(name: "H265EncodingTests", dependencies: ["H265Encoding", "H265Bitstream", "NALStream", "CABACCoding", "VTKTestSupport"]),
        .testTarget(name: "H264BitstreamTests", dependencies: ["H264Bitstream", "VTKTestSupport"]),
        .testTarget(name: "H264DecodingTests", dependencies: ["H264Decoding", "VideoDecoding", "VTKTestSupport"]),
        .testTarget(name: "H265BitstreamTests", dependencies: ["H265Bitstream", "NALStream", "VTKTestSupport"]),
        .testTarget(name: "VideoDecodingTests", dependencies: ["VideoDecoding"]),
        .testTarget(name: "H265DecodingTests", dependencies: ["H265Decoding", "H265Bitstream", "H264Bitstream", "VideoDecoding", "VTKTestSupport"]),
        .testTarget(name: "VTKCommandLineTests", dependencies: ["VTKCommandLine", "VTKTestSupport", "H264Bitstream", "H265Bitstream", "H265Decoding", "RTP", "PixelConversion", "VTKMedia", "JSONText"]),
        .testTarget(name: "DecompressionSessionTests", dependencies: ["DecompressionSession", "VTKTestSupport", "NALStream", "H264Bitstream", "H264Decoding", "H265Bitstream"]),
        .testTarget(name: "CompressionSessionTests",
                    dependencies: ["CompressionSession", "VTKTestSupport", "H264Bitstream", "H264Decoding", "H265Bitstream", "H265Decoding",
                                   "VideoDecoding", "DecompressionSession", "VideoAcceleration", "VTKMedia"]),
        .testTarget(name: "MP4Tests", dependencies: ["MP4", "H264Bitstream", "H265Bitstream", "VTKMedia", "DecompressionSession", "VTKTestSupport"]),
        .testTarget(name: "VideoDisplayTests", dependencies: ["VideoDisplay", "H264Bitstream", "VTKMedia"]),
        .testTarget(name: "PlaybackTests", dependencies: ["Playback", "DecompressionSession", "VideoDisplay", "NALStream", "H264Bitstream", "H265Bitstream", "VTKTestSupport", "VTKMedia"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "VTKTestSupport"]),
        .testTarget(name: "RTPSessionTests", dependencies: ["RTPSession", "RTP", "NALStream", "H264Bitstream", "H265Bitstream", "DecompressionSession", "VTKTestSupport"]),
        .testTarget(name: "Y4MTests", dependencies: ["Y4M", "VTKMedia", "VTKTestSupport"]),
        .testTarget(name: "VideoAccelerationTests", dependencies: ["VideoAcceleration", "VTKTestSupport", "VTKMedia", "CLibVA"]),
        .testTarget(name: "PixelConversionTests", dependencies: ["PixelConversion", "VTKMedia"]),
        .testTarget(name: "JSONTextTests", dependencies: ["JSONText"]),
        .testTarget(name: "BenchSupportTests", dependencies: ["BenchSupport"]),
        .testTarget(name: "ProcessToolsTests", dependencies: ["ProcessTools"]),
        .testTarget(name: "VTKSoftTests", dependencies: ["VTKTestSupport", "CLibVA", "CX11", "H264Bitstream", "H265Bitstream", "VideoAcceleration", "VTKMedia"]),
    ]
)
