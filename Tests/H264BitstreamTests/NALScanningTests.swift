import Foundation
import VTKTestSupport
import Testing
@testable import H264Bitstream

@Suite("NAL unit scanning and length-prefixed samples")
struct NALScanningTests {
    @Test("3- and 4-byte start codes and trailing zero bytes")
    func startCodes() {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 0, 0, 1, 0x65, 9, 9, 0, 0]
        let units = AnnexBScanner.nalUnits(in: stream)
        #expect(units.map { Array($0.bytes) } == [[0x67, 1, 2], [0x68, 3], [0x65, 9, 9]])
        #expect(units.map(\.offset) == [4, 10, 18])
        #expect(units.map(\.type) == [.sequenceParameterSet, .pictureParameterSet, .idrSlice])
    }

    @Test("No start code, only zeros, or an empty NAL unit between two start codes give no units")
    func degenerate() {
        #expect(AnnexBScanner.nalUnits(in: []).isEmpty)
        #expect(AnnexBScanner.nalUnits(in: [1, 2, 3, 4]).isEmpty)
        #expect(AnnexBScanner.nalUnits(in: [0, 0, 0, 0, 0]).isEmpty)
        #expect(AnnexBScanner.nalUnits(in: [0, 0, 1, 0, 0, 1, 0x09, 0xF0]).map { Array($0.bytes) } == [[0x09, 0xF0]])
    }

    @Test("A stream fed in chunks of any size gives the same NAL units as the whole stream")
    func chunked() throws {
        let streams = try TestStreams.available().prefix(6)
        #expect(!streams.isEmpty)
        for url in streams {
            let bytes = [UInt8](try Data(contentsOf: url))
            let whole = AnnexBScanner.nalUnits(in: bytes)
            for chunkSize in [1, 2, 3, 5, 188, 1400, 65536] {
                var reader = AnnexBStreamReader()
                var units: [NALUnit] = []
                var i = 0
                while i < bytes.count {
                    units += reader.append(bytes[i..<min(i + chunkSize, bytes.count)])
                    i += chunkSize
                }
                units += reader.finish()
                #expect(units == whole, "\(url.lastPathComponent) in chunks of \(chunkSize)")
                #expect(units.map(\.offset) == whole.map(\.offset))
            }
        }
    }

    @Test("Annex B -> length-prefixed -> Annex B gives identical NAL units, for every length size")
    func lengthPrefixedRoundTrip() throws {
        for url in try TestStreams.available() {
            let bytes = [UInt8](try Data(contentsOf: url))
            let units = AnnexBScanner.nalUnits(in: bytes)
            #expect(!units.isEmpty)
            let largest = units.map(\.bytes.count).max() ?? 0
            for lengthSize in [1, 2, 4] where largest < (1 << (8 * lengthSize)) || lengthSize == 4 {
                let sample = try LengthPrefixedSample.sample(units, lengthSize: lengthSize)
                let back = try LengthPrefixedSample.nalUnits(in: sample, lengthSize: lengthSize)
                #expect(back == units, "\(url.lastPathComponent), \(lengthSize)-byte lengths")
                let annexB = try LengthPrefixedSample.toAnnexB(sample, lengthSize: lengthSize)
                #expect(AnnexBScanner.nalUnits(in: annexB) == units)
            }
        }
    }

    @Test("Bad length-prefixed samples give typed errors with the byte offset")
    func badSamples() {
        #expect(throws: BitstreamError.truncatedSample(byteOffset: 0, declaredLength: 10, available: 2)) {
            _ = try LengthPrefixedSample.nalUnits(in: [0, 0, 0, 10, 0x65, 1])
        }
        #expect(throws: BitstreamError.malformedNALUnit(byteOffset: 6, reason: "zero-length NAL unit")) {
            _ = try LengthPrefixedSample.nalUnits(in: [0, 0, 0, 2, 0x65, 1, 0, 0, 0, 0])
        }
        #expect(throws: BitstreamError.malformedNALUnit(byteOffset: 5, reason: "length field cut short: 2 of 4 bytes")) {
            _ = try LengthPrefixedSample.nalUnits(in: [0, 0, 0, 0x01, 0x09, 0, 0], lengthSize: 4)
        }
        #expect(throws: BitstreamError.self) { _ = try LengthPrefixedSample.nalUnits(in: [1, 2], lengthSize: 3) }
        #expect(throws: BitstreamError.self) {
            _ = try LengthPrefixedSample.sample([NALUnit([UInt8](repeating: 0x41, count: 300))], lengthSize: 1)
        }
    }
}

/// The streams a test can use here: the conformance streams when ../shared is present, and the streams
/// made with libx264 when ffmpeg is installed.
enum TestStreams {
    static func available() throws -> [URL] {
        var urls = ConformanceStream.all.map(\.url)
        if ProcessRunner.hasFFmpeg { urls += try GeneratedStream.standard.map { try $0.url() } }
        return urls
    }
}
