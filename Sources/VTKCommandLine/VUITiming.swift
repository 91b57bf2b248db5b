import H264Bitstream

extension H264FormatDescription {
    /// The same parameter sets with VUI timing (E.1.1) for `frameRate` in each SPS that has none: a driver
    /// may leave out the timing the sequence parameters asked for, and without it players assume 25 fps.
    /// A frame lasts two ticks (E.2.1), so time_scale is twice the rate's numerator.
    func addingTiming(_ frameRate: (Int, Int)) -> H264FormatDescription {
        guard self.frameRate == nil else { return self }
        let sequenceParameterSets = sequenceParameterSets.map { unit -> NALUnit in
            guard var sps = try? SequenceParameterSet(nalUnit: unit) else { return unit }
            if !sps.vuiParametersPresentFlag {
                sps.vuiParametersPresentFlag = true
                sps.vui = VUIParameters()
            }
            guard !sps.vui.timingInfoPresentFlag, !sps.vui.isTruncated else { return unit }
            sps.vui.timingInfoPresentFlag = true
            sps.vui.numUnitsInTick = UInt32(frameRate.1)
            sps.vui.timeScale = UInt32(2 * frameRate.0)
            sps.vui.fixedFrameRateFlag = true
            return sps.nalUnit(nalRefIdc: unit.header.nalRefIdc)
        }
        return (try? H264FormatDescription(sequenceParameterSets: sequenceParameterSets, pictureParameterSets: pictureParameterSets,
                                       nalUnitLengthSize: nalUnitLengthSize)) ?? self
    }
}
