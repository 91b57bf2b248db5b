#if canImport(Glibc)
import Glibc
#endif
import H264Bitstream
import H265Bitstream
import NALStream
import VTKMedia

/// Reads the first video track of an MP4 (ISO BMFF) file, sample by sample in decoding order, from disk:
/// the boxes are read by offset and each sample's bytes when it is asked for, so a large file is never
/// held in memory. Plain files (`stbl` sample tables) and fragmented ones (`moof`/`traf`/`trun`) both work.
///
/// ```swift
/// let reader = try MP4Reader(url: url)
/// while let sample = try reader.nextSample() { ... }
/// ```
public final class MP4Reader {
    public let path: String
    public let fileSize: UInt64
    public let fileType: FileType?
    public let movieTimescale: UInt32
    /// From `mvhd`, in the movie timescale.
    public let movieDuration: UInt64
    /// The track being read: the first video track.
    public let track: MP4Track
    /// The track's codec, by its sample entry (`avc1`/`avc3`, `hvc1`/`hev1`).
    public let codec: VideoCodec
    /// From the track's configuration record (avcC, hvcC); nil only for an `avc3` or `hev1` track whose record
    /// has no parameter sets (they are in the samples).
    public let format: FormatDescription?
    /// Bytes of the length before each NAL unit in a sample.
    public let nalUnitLengthSize: Int
    /// True when the movie has `mvex`: samples also come from movie fragments.
    public let isFragmented: Bool

    private let source: FileByteSource
    private var tableCursor: SampleTableCursor
    private var fragment: FragmentCursor?
    /// Where the scan for the next `moof` resumes.
    private var scanOffset: UInt64 = 0
    private var nextDecodeTime: Int64 = 0
    private var samplesRead = 0

    public init(path: String) throws(MP4Error) {
        self.path = path
        source = try FileByteSource(path: path)
        fileSize = source.size
        var fileType: FileType?
        var moov: Box?
        var offset: UInt64 = 0
        while offset < fileSize, moov == nil {
            let header = try Self.topLevelHeader(source, at: offset)
            switch header.type {
            case "ftyp":
                let payload = try source.read(at: header.payloadOffset, count: Int(header.payloadSize), box: "ftyp")
                fileType = try FileType(Box(header: header, payload: payload[...]))
            case "moov":
                let payload = try source.read(at: header.payloadOffset, count: Int(header.payloadSize), box: "moov")
                moov = try Box(header: header, payload: payload[...])
            default:
                break
            }
            offset = header.end
        }
        guard let moov else { throw .missingBox(box: "moov", parent: "file", offset: 0) }
        self.fileType = fileType
        let mvhd = try MovieHeader(try moov.required("mvhd"))
        movieTimescale = mvhd.timescale
        movieDuration = mvhd.duration

        let traks = moov.all("trak")
        guard !traks.isEmpty else { throw .noTracks(offset: moov.header.offset) }
        let video = traks.first { trak in
            (try? trak.required("mdia").required("hdlr")).flatMap { try? HandlerReference($0) }?.handlerType == "vide"
        }
        guard let video else {
            // Name the codec of the first track, so the user knows what the file holds.
            let entry = (try? traks[0].required("mdia").required("minf").required("stbl").required("stsd"))
                .flatMap { try? SampleDescription($0) }
            let id = (try? traks[0].required("tkhd")).flatMap { try? TrackHeader($0) }?.trackID ?? 0
            throw .unsupportedCodec(fourcc: entry?.format.description ?? "unknown", trackID: id, offset: entry?.offset ?? traks[0].header.offset)
        }
        var track = try MP4Track(video, movieTimescale: mvhd.timescale, fileSize: fileSize)
        guard MP4Track.decodableFormats.contains(track.sampleDescription.format) else {
            throw .unsupportedCodec(fourcc: track.sampleDescription.format.description, trackID: track.trackID,
                                    offset: track.sampleDescription.offset)
        }
        let entry = track.sampleDescription
        codec = VideoCodec.h265.sampleEntryNames.contains(entry.format.description) ? .h265 : .h264
        if codec == .h265 {
            guard let hvcC = entry.hvcC else { throw .missingBox(box: "hvcC", parent: entry.format.description, offset: entry.offset) }
            nalUnitLengthSize = hvcC.nalUnitLengthSize
            if entry.format == "hev1" && [.vps, .sps, .pps].contains(where: { hvcC.nalUnits(ofType: $0).isEmpty }) {
                format = nil
            } else {
                do { format = .h265(try H265FormatDescription(hvcC: hvcC)) } catch {
                    throw .malformed(box: "hvcC", offset: entry.offset, reason: error.description)
                }
            }
        } else {
            guard let avcC = entry.avcC else { throw .missingBox(box: "avcC", parent: entry.format.description, offset: entry.offset) }
            nalUnitLengthSize = avcC.nalUnitLengthSize
            if entry.format == "avc3" && (avcC.sequenceParameterSets.isEmpty || avcC.pictureParameterSets.isEmpty) {
                format = nil
            } else {
                do { format = .h264(try H264FormatDescription(avcC: avcC)) } catch {
                    throw .malformed(box: "avcC", offset: entry.offset, reason: error.description)
                }
            }
        }
        if let mvex = moov.first("mvex") {
            isFragmented = true
            for trex in mvex.all("trex") {
                let defaults = try TrackExtends(trex)
                if defaults.trackID == track.trackID { track.trackExtends = defaults }
            }
        } else {
            isFragmented = false
        }
        self.track = track
        tableCursor = SampleTableCursor(track.sampleTable)
    }

    /// The next sample in decoding order, or nil at the end.
    public func nextSample() throws(MP4Error) -> MP4Sample? {
        if let record = tableCursor.next() {
            nextDecodeTime = tableCursor.decodeTime
            return try sample(record)
        }
        guard isFragmented else { return nil }
        while true {
            if var cursor = fragment, let record = cursor.next() {
                fragment = cursor
                nextDecodeTime = cursor.decodeTime
                return try sample(record)
            }
            guard let next = try nextFragment() else { return nil }
            fragment = next
        }
    }

    /// All remaining samples (for small files and tests).
    public func readAll() throws(MP4Error) -> [MP4Sample] {
        var out: [MP4Sample] = []
        while let sample = try nextSample() { out.append(sample) }
        return out
    }

    private func sample(_ record: SampleRecord) throws(MP4Error) -> MP4Sample {
        let index = samplesRead
        guard record.offset <= fileSize, UInt64(record.size) <= fileSize - record.offset else {
            throw .sampleOutsideFile(sampleIndex: index, offset: record.offset, size: UInt64(record.size), fileSize: fileSize)
        }
        let data = try source.read(at: record.offset, count: Int(record.size), box: "mdat")
        samplesRead += 1
        let scale = Int32(track.mediaTimescale)
        let decode = record.decodeTime &+ track.presentationOffset
        return MP4Sample(data: data,
                         presentationTime: MediaTime(value: decode &+ record.compositionOffset, timescale: scale),
                         decodeTime: MediaTime(value: decode, timescale: scale),
                         duration: MediaTime(value: Int64(record.duration), timescale: scale),
                         isSync: record.isSync, index: index, fileOffset: record.offset)
    }

    /// Scans the top-level boxes for the next `moof` with a fragment of the track.
    private func nextFragment() throws(MP4Error) -> FragmentCursor? {
        while scanOffset < fileSize {
            let header = try Self.topLevelHeader(source, at: scanOffset)
            scanOffset = header.end
            guard header.type == "moof" else { continue }
            let payload = try source.read(at: header.payloadOffset, count: Int(header.payloadSize), box: "moof")
            let moof = try MovieFragment(Box(header: header, payload: payload[...]))
            guard let traf = moof.trackFragments.first(where: { $0.header.trackID == track.trackID }) else { continue }
            let start = traf.baseMediaDecodeTime.map { Int64(clamping: Int128($0)) } ?? nextDecodeTime
            return try FragmentCursor(traf, moofOffset: header.offset, defaults: track.trackExtends, decodeTime: start, fileSize: fileSize)
        }
        return nil
    }

    private static func topLevelHeader(_ source: FileByteSource, at offset: UInt64) throws(MP4Error) -> BoxHeader {
        let left = source.size - offset
        let bytes = try source.read(at: offset, count: Int(min(left, 32)), box: "header in file")
        return try BoxHeader.parse(bytes[...], offset: offset, spaceLeft: left, parent: nil)
    }
}
