import H264Bitstream
import H265Bitstream

/// The VUI syntax that H.264 (E.1.1) and H.265 (E.2.1) share to the letter: sample aspect ratio, video
/// signal type, colour description and timing, so both encoders describe their output with one rule.
protocol VUIVideoSignal {
    associatedtype Code: BinaryInteger
    associatedtype Tick: BinaryInteger
    var aspectRatioInfoPresentFlag: Bool { get set }
    var aspectRatioIdc: Code { get set }
    var videoSignalTypePresentFlag: Bool { get set }
    var videoFormat: Code { get set }
    var colourDescriptionPresentFlag: Bool { get set }
    var colourPrimaries: Code { get set }
    var transferCharacteristics: Code { get set }
    var matrixCoefficients: Code { get set }
    var timingInfoPresentFlag: Bool { get set }
    var numUnitsInTick: Tick { get set }
    var timeScale: Tick { get set }
}

extension VUIVideoSignal {
    /// Square samples (Table E-1, aspect_ratio_idc 1), as FFmpeg writes for an unscaled source; limited
    /// range, video_format 5 (unspecified), and the colour described so players need not guess by size.
    mutating func describeSquareLimitedRange(_ colour: (primaries: UInt8, transfer: UInt8, matrix: UInt8)) {
        aspectRatioInfoPresentFlag = true
        aspectRatioIdc = 1
        videoSignalTypePresentFlag = true
        videoFormat = 5
        colourDescriptionPresentFlag = true
        (colourPrimaries, transferCharacteristics, matrixCoefficients) = (Code(colour.primaries), Code(colour.transfer), Code(colour.matrix))
    }

    /// A frame lasts `ticksPerFrame` ticks of num_units_in_tick / time_scale: two in H.264 (E.2.1, a tick
    /// per field), one in H.265 (E.3.1).
    mutating func describeFrameRate(_ frameRate: (numerator: Int, denominator: Int), ticksPerFrame: Int) {
        timingInfoPresentFlag = true
        numUnitsInTick = Tick(frameRate.denominator)
        timeScale = Tick(ticksPerFrame * frameRate.numerator)
    }
}

extension VUIParameters: VUIVideoSignal {}
extension H265VUIParameters: VUIVideoSignal {}
