import Testing
import H264Bitstream
import VTKTestSupport
@testable import H264Encoding

/// CABAC slice data checked end to end by FFmpeg's software decoder: pictures whose pixels are known
/// without the engine (I_PCM, flat Intra16x16, P_Skip copies), and random syntax of every kind that must
/// decode to the same pixels as the same syntax written with CAVLC.
@Suite("CABAC slice writer", .enabled(if: ProcessRunner.hasFFmpeg, "needs ffmpeg"))
struct CABACSliceWriterTests {
    static func pcmPicture(_ random: inout RandomMacroblocks, count: Int) -> [MacroblockSyntax] {
        (0..<count).map { _ in
            var mb = MacroblockSyntax()
            mb.reset(kind: .pcm)
            for i in 0..<384 { mb.pcmSamples[i] = UInt8(random.int(0...255)) }
            return mb
        }
    }

    @Test("I_PCM macroblocks with random samples decode exactly, in I, P and B slices")
    func pcm() throws {
        var random = RandomMacroblocks(seed: 7, widthInMbs: 5, heightInMbs: 3)
        var stream = SyntaxStream(widthInMbs: 5, heightInMbs: 3)
        for type in [SliceType.i, .p, .b] {
            stream.pictures.append(.init(sliceType: type, sliceQP: 30, macroblocks: Self.pcmPicture(&random, count: 15)))
        }
        let decoded = try stream.decode(.cabac)
        #expect(decoded.errors.isEmpty, "\(decoded.errors)")
        #expect(decoded.frames.count == 3)
        #expect(stream.pcmMismatches(decoded.frames).isEmpty, "\(stream.pcmMismatches(decoded.frames))")
    }

    @Test("Intra16x16 DC without residual gives flat 128; P_Skip copies the reference; B_Skip too")
    func flatAndSkip() throws {
        var random = RandomMacroblocks(seed: 8, widthInMbs: 4, heightInMbs: 3)
        var stream = SyntaxStream(widthInMbs: 4, heightInMbs: 3)
        var flat = MacroblockSyntax()
        flat.reset(kind: .intra16x16)
        flat.intra16x16PredMode = 2
        stream.pictures.append(.init(sliceType: .i, sliceQP: 26, macroblocks: Array(repeating: flat, count: 12)))
        stream.pictures.append(.init(sliceType: .i, sliceQP: 26, macroblocks: Self.pcmPicture(&random, count: 12)))
        var skip = MacroblockSyntax()
        skip.reset(kind: .pSkip)
        stream.pictures.append(.init(sliceType: .p, sliceQP: 26, macroblocks: Array(repeating: skip, count: 12)))
        skip.reset(kind: .bSkip)
        stream.pictures.append(.init(sliceType: .b, sliceQP: 26, macroblocks: Array(repeating: skip, count: 12)))
        let decoded = try stream.decode(.cabac)
        #expect(decoded.errors.isEmpty, "\(decoded.errors)")
        try #require(decoded.frames.count == 4)
        #expect(decoded.frames[0].allSatisfy { $0 == 128 })
        #expect(decoded.frames[2] == decoded.frames[1])
        #expect(decoded.frames[3] == decoded.frames[1])
    }

    /// A stream of random syntax: an I picture, then P and B pictures with several references, every
    /// cabac_init_idc and a spread of slice QPs.
    /// `transform8x8Mode`: High profile with the PPS's transform_8x8_mode_flag, so transform_size_8x8_flag
    /// is present (and 0).
    static func randomStream(seed: UInt64, widthInMbs: Int = 11, heightInMbs: Int = 9, types: [SliceType],
                             transform8x8Mode: Bool = false, partitions: Bool = false) -> SyntaxStream {
        var random = RandomMacroblocks(seed: seed, widthInMbs: widthInMbs, heightInMbs: heightInMbs)
        var stream = SyntaxStream(widthInMbs: widthInMbs, heightInMbs: heightInMbs, high: transform8x8Mode, transform8x8Mode: transform8x8Mode)
        for (index, type) in types.enumerated() {
            let refs = min(index, 4)
            let numL0 = type == .i ? 1 : random.int(1...min(refs, 3))
            let numL1 = type == .b ? random.int(1...min(refs, 2)) : 1
            let qp = [0, 12, 22, 27, 32, 40, 51][random.int(0...6)]
            let macroblocks = random.picture(type, numRefL0: numL0, numRefL1: numL1, partitions: partitions)
            stream.pictures.append(.init(sliceType: type, sliceQP: qp, cabacInitIdc: index % 3,
                                         numRefIdxL0ActiveMinus1: numL0 - 1, numRefIdxL1ActiveMinus1: numL1 - 1,
                                         macroblocks: macroblocks))
        }
        return stream
    }

    static func checkAgainstCAVLC(_ stream: SyntaxStream) throws {
        let cabac = try stream.decode(.cabac)
        let cavlc = try stream.decode(.cavlc)
        #expect(cavlc.errors.isEmpty, "CAVLC: \(cavlc.errors)")
        #expect(cabac.errors.isEmpty, "CABAC: \(cabac.errors)")
        #expect(cabac.frames.count == stream.pictures.count)
        #expect(stream.pcmMismatches(cabac.frames).isEmpty, "I_PCM sentinels: \(stream.pcmMismatches(cabac.frames))")
        let difference = stream.firstDifference(cavlc.frames, cabac.frames)
        #expect(difference == nil, "\(difference ?? "")")
    }

    @Test("Random I slices decode as their CAVLC twins", arguments: [1, 2, 3] as [UInt64])
    func randomIntra(seed: UInt64) throws {
        try Self.checkAgainstCAVLC(Self.randomStream(seed: seed, types: [.i, .i, .i]))
    }

    @Test("Random I, P and B slices decode as their CAVLC twins", arguments: [11, 12, 13] as [UInt64])
    func randomInter(seed: UInt64) throws {
        try Self.checkAgainstCAVLC(Self.randomStream(seed: seed, types: [.i, .p, .p, .b, .p, .b, .b]))
    }

    @Test("Random P and B slices with 16x8 and 8x16 partitions (every B_X_Y_16x8 / 8x16, ref_idx and mvd contexts per partition) decode as their CAVLC twins",
          arguments: [31, 32, 33] as [UInt64])
    func randomPartitions(seed: UInt64) throws {
        try Self.checkAgainstCAVLC(Self.randomStream(seed: seed, types: [.i, .p, .p, .b, .p, .b, .b], partitions: true))
    }

    @Test("Random High profile slices with transform_8x8_mode_flag (transform_size_8x8_flag 0) decode as their CAVLC twins",
          arguments: [21, 22] as [UInt64])
    func randomTransform8x8Mode(seed: UInt64) throws {
        try Self.checkAgainstCAVLC(Self.randomStream(seed: seed, types: [.i, .p, .b, .p, .b, .p], transform8x8Mode: true))
    }
}
