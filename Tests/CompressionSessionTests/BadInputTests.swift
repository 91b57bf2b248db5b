import CompressionSession
import Foundation
import Testing
import VideoAcceleration
import VTKMedia
import VTKTestSupport

@Suite("Bad settings and bad frames give clear errors and lose nothing already encoded")
struct BadInputTests {
    static let width = 64, height = 48

    func session(_ configure: (inout CompressionProperties) -> Void = { _ in }) throws -> CompressionSession {
        var p = CompressionProperties()
        p.expectedFrameRate = 25
        configure(&p)
        return try CompressionSession(width: Self.width, height: Self.height, properties: p, device: .software)
    }

    func frame(_ index: Int, width: Int = width, height: Int = height, format: PixelFormat = .nv12) -> PixelBuffer {
        var buffer = PixelBuffer(format: format, width: width, height: height)
        for i in buffer.planes[0].bytes.indices { buffer.planes[0].bytes[i] = UInt8(truncatingIfNeeded: i &* 7 &+ index &* 13) }
        buffer.presentationTime = MediaTime(value: Int64(index), timescale: 25)
        return buffer
    }

    func refusal(_ body: () throws -> Void) -> CompressionError? {
        do { try body(); return nil } catch let error as CompressionError { return error } catch { Issue.record("\(error)"); return nil }
    }

    @Test func settingsRefused() {
        let cases: [(String, () throws -> Void, (CompressionError) -> Bool)] = [
            ("width 0", { _ = try CompressionSession(width: 0, height: 48, device: .software) }, { if case .invalidDimensions = $0 { true } else { false } }),
            ("odd width", { _ = try CompressionSession(width: 151, height: 100, device: .software) }, { if case .invalidDimensions = $0 { true } else { false } }),
            ("CBR at 0 bit/s", { _ = try self.session { $0.rateControl = .constantBitRate; $0.averageBitRate = 0 } },
             { if case .invalidBitRate(0) = $0 { true } else { false } }),
            ("CBR without a bit rate", { _ = try self.session { $0.rateControl = .constantBitRate } },
             { if case .invalidBitRate = $0 { true } else { false } }),
            ("QP 60", { _ = try self.session { $0.quantizer = 60 } }, { if case .invalidQuantizer(60) = $0 { true } else { false } }),
            ("17 B-frames", { _ = try self.session { $0.allowFrameReordering = true; $0.maxConsecutiveBFrames = 17 } },
             { if case .frameReorderingUnsupported = $0 { true } else { false } }),
            ("0 references", { _ = try self.session { $0.referenceFrameCount = 0 } },
             { if case .invalidReferenceCount(0) = $0 { true } else { false } }),
            ("CABAC in Constrained Baseline", { _ = try self.session { $0.profile = .constrainedBaseline; $0.entropyMode = .cabac } },
             { if case .unsupportedEntropyMode = $0 { true } else { false } }),
            ("frame rate 0", { _ = try self.session { $0.expectedFrameRate = 0 } }, { if case .invalidFrameRate = $0 { true } else { false } }),
            ("negative key frame interval", { _ = try self.session { $0.maxKeyFrameInterval = -1 } },
             { if case .invalidKeyFrameInterval = $0 { true } else { false } }),
            ("level 1 for 64x48 at 25 fps is fine, level 9 does not exist", { _ = try self.session { $0.level = 9 } },
             { if case .invalidLevel(9) = $0 { true } else { false } }),
        ]
        for (name, body, matches) in cases {
            let error = refusal(body)
            #expect(error.map(matches) == true, "\(name): \(error.map { "\($0)" } ?? "accepted")")
            if let error { print("refused \(name): \(error)") }
        }
    }

    @Test("Wrong size, broken buffer, backwards and repeated times: refused, the frames before are still delivered")
    func badFrames() throws {
        let session = try session()
        var samples = try session.encodeFrame(frame(0))
        samples += try session.encodeFrame(frame(1))
        guard case .frameSizeMismatch(64, 48, 32, 48)? = refusal({ try session.encodeFrame(frame(2, width: 32)) }) else {
            Issue.record("wrong size accepted"); return
        }
        var broken = frame(2)
        broken.planes[1].bytes.removeLast(100)
        guard case .invalidPixelBuffer? = refusal({ try session.encodeFrame(broken) }) else { Issue.record("broken buffer accepted"); return }
        var backwards = frame(0)
        backwards.presentationTime = MediaTime(value: 1, timescale: 50)
        guard case .timestampNotIncreasing? = refusal({ try session.encodeFrame(backwards) }) else { Issue.record("backwards time accepted"); return }
        guard case .timestampNotIncreasing? = refusal({ try session.encodeFrame(frame(1)) }) else { Issue.record("repeated time accepted"); return }
        var untimed = frame(2)
        untimed.presentationTime = .invalid
        guard case .invalidTimestamp? = refusal({ try session.encodeFrame(untimed) }) else { Issue.record("untimed frame accepted"); return }
        // An I420 frame is fine and goes on from where the stream was.
        samples += try session.encodeFrame(frame(2, format: .i420))
        samples += try session.completeFrames()
        #expect(samples.map(\.presentationTime) == [0, 1, 2].map { MediaTime(value: $0, timescale: 25) })
        #expect(samples.map(\.isSync) == [true, false, false])
        let file = Sources.directory.appendingPathComponent("bad-input.h264")
        try Data(try samples.annexBStream()).write(to: file)
        if !Sources.ffmpegMissing {
            #expect(try FFprobe.decodeErrors(file) == "")
            #expect(try FFprobe.sizeAndFrames(file) == "64,48,3")
        }
    }

    @Test("Zero frames: completing gives nothing, and a format description only where vtk packs the SPS/PPS; an invalidated session refuses",
          arguments: ["native", "openh264"])
    func zeroFramesAndInvalidate(engine: String) throws {
        let connection = try VADisplayConnection.open(.software)
        try #require(VTKSoftCounters.setEncoder(engine, in: connection.display), "vtksoft_display_set_encoder")
        var p = CompressionProperties()
        p.expectedFrameRate = 25
        let session = try CompressionSession(width: Self.width, height: Self.height, properties: p, connection: connection)
        #expect(try session.completeFrames().isEmpty)
        // The native engine takes packed headers, so the SPS/PPS are vtk's own from the start; openh264 writes its own.
        #expect(session.packedHeadersDescription.contains("SEQUENCE") == (engine == "native"), "\(session.packedHeadersDescription)")
        #expect((session.formatDescription != nil) == (engine == "native"))
        try session.prepareToEncodeFrames()
        #expect(try session.completeFrames().isEmpty)
        session.invalidate()
        guard case .invalidated? = refusal({ try session.encodeFrame(frame(0)) }) else { Issue.record("encode after invalidate"); return }
        guard case .invalidated? = refusal({ _ = try session.completeFrames() }) else { Issue.record("complete after invalidate"); return }
    }

    @Test("Pool buffers are the session's size and NV12, and come back after encoding")
    func pool() throws {
        let session = try session()
        var buffer = session.pixelBufferPool.makePixelBuffer()
        #expect(buffer.format == .nv12 && buffer.width == Self.width && buffer.height == Self.height)
        buffer.presentationTime = .zero
        try session.encodeFrame(buffer)
        #expect(try session.completeFrames().count == 1)
    }
}
