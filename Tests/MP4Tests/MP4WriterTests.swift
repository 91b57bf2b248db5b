import Foundation
import Testing
import H264Bitstream
import MP4
import VTKMedia
import VTKTestSupport
@testable import MP4

@Suite("MP4 files written by MP4Writer")
struct MP4WriterTests {
    /// Copies every sample of `source` into a new file through MP4Writer.
    func rewrite(_ source: URL, faststart: Bool, name: String) throws -> URL {
        let reader = try MP4Reader(url: source)
        let format = try #require(reader.format)
        let out = TestPaths.scratch.appendingPathComponent("vtk-\(name)-\(faststart ? "faststart" : "plain").mp4")
        let writer = try MP4Writer(url: out, format: format, timescale: Int32(reader.track.mediaTimescale), faststart: faststart)
        while let sample = try reader.nextSample() {
            try writer.append(sample.data, presentationTime: sample.presentationTime, decodeTime: sample.decodeTime,
                              duration: sample.duration, isSync: sample.isSync)
        }
        try writer.finish()
        return out
    }

    /// Copies `source` (which FFmpeg decodes without a message) through MP4Reader and MP4Writer, with and
    /// without faststart, and compares the copies with it.
    func checkCopy(of source: URL, name: String) throws {
        let sourceCheck = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", source.path, "-f", "null", "-"])
        try #require(sourceCheck.stderrText.isEmpty, "the source itself: \(sourceCheck.stderrText)")
        let sourceSamples = try MP4Reader(url: source).readAll()
        let sourcePackets = try FFprobe.packets(source)
        let sourceMD5 = try ffmpegMD5(source)
        let sourceInfo = try FFprobe.streamEntries(source, ["width", "height", "r_frame_rate", "sample_aspect_ratio"])
        for faststart in [false, true] {
            let out = try rewrite(source, faststart: faststart, name: name)
            let check = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"])
            #expect(check.status == 0 && check.stderrText.isEmpty, "ffmpeg on \(out.lastPathComponent): \(check.stderrText)")
            #expect(try FFprobe.packets(out) == sourcePackets, "\(out.lastPathComponent): ffprobe's packets differ from the source's")
            try compareWithFFprobe(try MP4Reader(url: out).readAll(), out)
            let back = try MP4Reader(url: out).readAll()
            #expect(back.map(\.data) == sourceSamples.map(\.data))
            #expect(back.map(\.probed) == sourceSamples.map(\.probed))
            #expect(try ffmpegMD5(out) == sourceMD5)
            let info = try FFprobe.streamEntries(out, ["width", "height", "r_frame_rate", "sample_aspect_ratio", "nb_read_packets", "duration"])
            for key in ["width", "height", "r_frame_rate", "sample_aspect_ratio"] {
                #expect(info[key] == sourceInfo[key], "\(key): \(info[key] ?? "-") vs the source's \(sourceInfo[key] ?? "-")")
            }
            #expect(info["nb_read_packets"] == "\(sourcePackets.count)")
            let boxes = try FFprobe.topLevelBoxes(out)
            let moov = try #require(boxes.firstIndex(of: "moov")), mdat = try #require(boxes.firstIndex(of: "mdat"))
            #expect((moov < mdat) == faststart, "\(boxes)")
        }
    }

    @Test("libx264 -bf 3 (ctts and edit list) copied through MP4Writer: ffmpeg finds no error, same packets and frames",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func bFrames() throws {
        let source = try MP4Fixtures.x264BFrames(.plain)
        try checkCopy(of: source, name: "x264-bf3")
        let info = try FFprobe.streamEntries(try rewrite(source, faststart: true, name: "x264-bf3"), ["duration", "r_frame_rate"])
        #expect(info["r_frame_rate"] == "25/1")
        #expect(info["duration"] == "1.600000")
    }

    @Test("Generated libx264 streams written from their access units with FFmpeg's timestamps: ffmpeg finds no error, same packets and frames",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage),
          arguments: GeneratedStream.standard)
    func generated(stream: GeneratedStream) throws {
        // FFmpeg encodes the recipe to MP4 (true presentation times); its elementary stream gives the
        // access units, ffprobe the times.
        let encoded = TestPaths.scratch.appendingPathComponent("encoded-\(stream.name).mp4")
        let es = TestPaths.scratch.appendingPathComponent("encoded-\(stream.name).264")
        for arguments in [["-f", "lavfi", "-i", "testsrc2=size=\(stream.width)x\(stream.height):rate=25", "-frames:v", "\(stream.frames)",
                           "-pix_fmt", "yuv420p"] + stream.encoderOptions + [encoded.path],
                          ["-i", encoded.path, "-c", "copy", "-f", "h264", es.path]] {
            let made = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y"] + arguments)
            try #require(made.status == 0, "\(made.stderrText)")
        }
        let timescale = Int32(try MP4Reader(url: encoded).track.mediaTimescale)
        let packets = try FFprobe.packets(encoded)
        let units = AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: es)))
        try #require(units.count == packets.count)
        let format = try H264FormatDescription(parameterSets: try #require(units.first).parameterSets)
        let expectedMD5 = try ffmpegMD5(encoded)
        for faststart in [false, true] {
            let out = TestPaths.scratch.appendingPathComponent("vtk-es-\(stream.name)-\(faststart).mp4")
            let writer = try MP4Writer(url: out, format: .h264(format), timescale: timescale, faststart: faststart)
            var samples: [[UInt8]] = []
            for (unit, packet) in zip(units, packets) {
                let data = try LengthPrefixedSample.sample(unit.nalUnits)
                samples.append(data)
                try writer.append(data, presentationTicks: packet.pts, decodeTicks: packet.dts, isSync: packet.isKey)
            }
            try writer.finish()
            let check = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"])
            #expect(check.status == 0 && check.stderrText.isEmpty, "ffmpeg on \(out.lastPathComponent): \(check.stderrText)")
            let written = try FFprobe.packets(out)
            #expect(written.map { [$0.pts, $0.dts] } == packets.map { [$0.pts, $0.dts] })
            #expect(written.map(\.isKey) == packets.map(\.isKey))
            #expect(written.map(\.size) == samples.map(\.count))
            let back = try MP4Reader(url: out).readAll()
            #expect(back.map(\.data) == samples)
            #expect(back.map { [$0.presentationTime.value, $0.decodeTime.value] } == packets.map { [$0.pts, $0.dts] })
            #expect(try ffmpegMD5(out) == expectedMD5)
            let info = try FFprobe.streamEntries(out, ["nb_read_packets", "r_frame_rate", "duration"])
            #expect(info["nb_read_packets"] == "\(stream.frames)")
            #expect(info["r_frame_rate"] == "25/1")
            #expect(info["duration"] == String(format: "%.6f", Double(stream.frames) / 25))
            let boxes = try FFprobe.topLevelBoxes(out)
            #expect((try #require(boxes.firstIndex(of: "moov")) < (try #require(boxes.firstIndex(of: "mdat")))) == faststart, "\(boxes)")
        }
    }

    @Test("Conformance B-frame and SAR streams copied through MP4Writer",
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage),
          arguments: ["Cisco_Men_whisper_640x320_CABAC_Bframe_9.264", "SarVui.264", "CVFC1_Sony_C.jsv"])
    func conformance(file: String) throws {
        let stream = try #require(ConformanceStream.all.first { $0.file == file })
        try checkCopy(of: try MP4Fixtures.remux(stream.url, .plain), name: file)
    }

    @Test("An elementary stream's access units written at 25 fps: frame count, rate, duration, and a bit-exact decode through vtk",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage),
          .enabled(if: Availability.driver, Availability.driverMessage))
    func fromElementaryStream() throws {
        let stream = GeneratedStream.standard[0]  // baseline: decode order is display order
        let url = try stream.url()
        let units = AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: url)))
        let format = try H264FormatDescription(parameterSets: try #require(units.last).parameterSets)
        let out = TestPaths.scratch.appendingPathComponent("vtk-from-es.mp4")
        let writer = try MP4Writer(url: out, format: .h264(format), timescale: 25, faststart: true)
        for (i, unit) in units.enumerated() {
            let t = MediaTime(value: Int64(i), timescale: 25)
            try writer.append(try LengthPrefixedSample.sample(unit.nalUnits), presentationTime: t, decodeTime: t,
                              duration: MediaTime(value: 1, timescale: 25), isSync: unit.isIDR)
        }
        try writer.finish()
        let info = try FFprobe.streamEntries(out, ["nb_read_packets", "r_frame_rate", "duration", "width", "height"])
        #expect(info["nb_read_packets"] == "\(stream.frames)")
        #expect(info["r_frame_rate"] == "25/1")
        #expect(info["duration"] == "1.200000")
        #expect(info["width"] == "\(stream.width)" && info["height"] == "\(stream.height)")
        let packets = try FFprobe.packets(out)
        #expect(packets.map(\.pts) == (0..<Int64(stream.frames)).map { $0 })
        #expect(packets.filter(\.isKey).count == units.filter(\.isIDR).count)
        let check = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"])
        #expect(check.stderrText.isEmpty, "\(check.stderrText)")
        let decoded = try decodeThroughVTK(try MP4Reader(url: out))
        #expect(decoded.frames == stream.frames)
        #expect(decoded.md5 == (try ffmpegMD5(url)))
    }

    @Test("Chunk offsets past 4 GiB switch stco to co64",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func co64() throws {
        let format = try #require(try MP4Reader(url: try MP4Fixtures.x264BFrames(.plain)).format)
        let samples = (0..<3).map { WrittenSample(size: 100, decodeTime: Int64($0), presentationTime: Int64($0), isSync: $0 == 0) }
        let builder = MovieBoxBuilder(entry: try VideoSampleEntry(format), timescale: 25, samples: samples,
                                      chunks: [WrittenChunk(dataOffset: 0, sampleCount: 3)], lastDuration: 1)
        let small = builder.moov(dataStart: 48)
        let large = builder.moov(dataStart: 5 << 30)
        func contains(_ bytes: [UInt8], _ type: String) -> Bool {
            let t = Array(type.utf8)
            return bytes.indices.dropLast(3).contains { Array(bytes[$0..<($0 + 4)]) == t }
        }
        #expect(contains(small, "stco") && !contains(small, "co64"))
        #expect(contains(large, "co64") && !contains(large, "stco"))
        #expect(large.count == small.count + 4)
    }

    @Test("A stream with a 16:11 SAR gets a pasp box and ffprobe reports the SAR",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func pixelAspect() throws {
        let source = TestPaths.scratch.appendingPathComponent("x264-sar.mp4")
        let made = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=30000/1001",
                                                    "-frames:v", "10", "-vf", "setsar=16/11", "-pix_fmt", "yuv420p", "-c:v", "libx264", source.path])
        try #require(made.status == 0, "\(made.stderrText)")
        let reader = try MP4Reader(url: source)
        #expect(reader.format?.sampleAspectRatio.width == 16)
        try checkCopy(of: source, name: "x264-sar")
        let out = try rewrite(source, faststart: false, name: "x264-sar")
        let info = try FFprobe.streamEntries(out, ["sample_aspect_ratio", "r_frame_rate"])
        #expect(info["sample_aspect_ratio"] == "16:11")
        #expect(info["r_frame_rate"] == "30000/1001")
        let bytes = [UInt8](try Data(contentsOf: out))
        #expect(bytes.indices.dropLast(3).contains { Array(bytes[$0..<($0 + 4)]) == Array("pasp".utf8) })
    }
}

@Suite("MP4Writer: samples in decode order with only presentation times (a stream recorded as it came)")
struct MP4WriterDecodeOrderTests {
    /// Rules: the presentation times read back are the ones appended; decode times increase and never come
    /// after their presentation time; FFmpeg decodes the copy to the source's frames.
    @Test("appendInDecodeOrder of an x264 B-frame MP4: presentation times kept, decode times derived, FFmpeg's MD5 unchanged",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func derivedDecodeTimes() throws {
        let source = try MP4Fixtures.x264BFrames(.plain)
        let reader = try MP4Reader(url: source)
        let format = try #require(reader.format)
        let timescale = Int32(reader.track.mediaTimescale)
        let out = TestPaths.scratch.appendingPathComponent("vtk-decode-order-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: out) }
        let writer = try MP4Writer(path: out.path, format: format, timescale: timescale)
        var appended: [Int64] = []
        while let sample = try reader.nextSample() {
            let ticks = sample.presentationTime.converted(to: timescale).value
            appended.append(ticks)
            try writer.appendInDecodeOrder(sample.data, presentationTicks: ticks, isSync: sample.isSync)
        }
        #expect(appended != appended.sorted(), "the fixture has no reordering")
        #expect(throws: MP4Error.self) { try writer.appendInDecodeOrder([0, 0, 0, 1, 9], presentationTicks: appended[0], isSync: false) }
        #expect(throws: MP4Error.self) { try writer.append([0, 0, 0, 1, 9], presentationTicks: 1 << 40, decodeTicks: 1 << 40, isSync: false) }
        try writer.finish()
        let back = try MP4Reader(url: out).readAll()
        let origin = try #require(back.first).presentationTime.converted(to: timescale).value - appended[0]
        #expect(back.map { $0.presentationTime.converted(to: timescale).value - origin } == appended)
        let decode = back.map { $0.decodeTime.converted(to: timescale).value }
        #expect(zip(decode, decode.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(back, decode).allSatisfy { $1 <= $0.presentationTime.converted(to: timescale).value })
        #expect(try ffmpegMD5(out) == (try ffmpegMD5(source)))
    }
}
