import H264Bitstream
import H265Bitstream
import MP4

/// An input file that is an MP4: recognised by its `ftyp` box, not its name.
struct MP4Input {
    let reader: MP4Reader
    /// The track's codec, from its sample entry.
    var codec: VideoCodec { reader.codec }
    /// The track's format description from its configuration record (avcC, hvcC); nil when the record has no
    /// parameter sets (avc3, hev1: they come in the samples).
    var format: FormatDescription? { reader.format }
    /// Bits per luma sample, from the record's parameter sets, else (hvcC) its own field.
    var bitDepth: Int {
        reader.format?.avc?.sps.bitDepthLuma ?? reader.format?.hevc?.bitDepth
            ?? Int(reader.track.sampleDescription.hvcC?.bitDepthLumaMinus8 ?? 0) + 8
    }

    /// The MP4 reader for `input` when it is an MP4 file, nil when it is something else (or a pipe).
    static func open(_ input: InputFile, command: String) throws(CommandFailure) -> MP4Input? {
        guard input.signature == .mp4 else { return nil }
        do {
            return MP4Input(reader: try MP4Reader(path: input.path))
        } catch {
            throw CommandFailure(.input, "vtk \(command): \(input.path): \(error)")
        }
    }

    /// Reads the samples in decoding order while `more()` holds. Each sample is one access unit whose NAL units,
    /// length-prefixed, go to `unit` with their file offsets; `parameterSets` (the avcC's or hvcC's) go first,
    /// at the first sample's offset; `endOfSample` follows each sample. What cannot be read goes to `problem`.
    /// Returns the container's frame rate (the timescale over the first sample's duration).
    func readSamples(parameterSets: [NALUnit], while more: () -> Bool, problem: (String) -> Void,
                     unit: (NALUnit) -> Void, endOfSample: () -> Void) -> (Int, Int)? {
        var pending = parameterSets
        var rate: (Int, Int)?
        var index = 0
        while more() {
            let sample: MP4Sample?
            do { sample = try reader.nextSample() } catch { problem("sample \(index): \(error)"); break }
            guard let sample else { break }
            if rate == nil { rate = FrameRate.ofSamples(duration: sample.duration.value, timescale: sample.duration.timescale) }
            for set in pending { unit(NALUnit(bytes: set.bytes, offset: Int(sample.fileOffset))) }
            pending = []
            do {
                for nal in try LengthPrefixedSample.nalUnits(in: sample.data, lengthSize: reader.nalUnitLengthSize) {
                    unit(NALUnit(bytes: nal.bytes, offset: Int(sample.fileOffset) + nal.offset))
                }
            } catch {
                problem("sample \(index) at byte \(sample.fileOffset): \(error)")
            }
            endOfSample()
            index += 1
        }
        return rate
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension InputFile {
    /// What the file is by its first bytes (pread, so the read position is unchanged); nil for a pipe.
    var signature: InputSignature? {
        guard path != "-" else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: InputSignature.headLength)
        let got = pread(fd, &head, head.count, 0)
        return InputSignature(head: head.prefix(max(got, 0)))
    }
}
