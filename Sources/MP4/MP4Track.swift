import H264Bitstream

/// A track of an MP4 movie: its ids, times and sample description, with its sample tables.
public struct MP4Track: Sendable {
    public var trackID: UInt32
    /// `vide`, `soun`, ...
    public var handlerType: FourCC
    /// Units per second of sample times.
    public var mediaTimescale: UInt32
    /// Media duration from `mdhd` (media timescale).
    public var mediaDuration: UInt64
    public var sampleDescription: SampleDescription
    public var editList: EditList?
    /// Samples in `stbl` (not counting movie fragments).
    public var sampleCount: Int { sampleTable.sampleCount }

    var sampleTable: SampleTable
    var trackExtends: TrackExtends
    /// Ticks added to decode and composition times, from the edit list.
    var presentationOffset: Int64

    init(_ trak: Box, movieTimescale: UInt32, fileSize: UInt64) throws(MP4Error) {
        let tkhd = try TrackHeader(try trak.required("tkhd"))
        trackID = tkhd.trackID
        let mdia = try trak.required("mdia")
        let mdhd = try MediaHeader(try mdia.required("mdhd"))
        mediaTimescale = mdhd.timescale
        mediaDuration = mdhd.duration
        handlerType = try HandlerReference(try mdia.required("hdlr")).handlerType
        let stbl = try (try mdia.required("minf")).required("stbl")
        sampleDescription = try SampleDescription(try stbl.required("stsd"))
        if let elst = trak.first("edts")?.first("elst") {
            let list = try EditList(elst)
            editList = list
            presentationOffset = list.presentationOffset(movieTimescale: movieTimescale, mediaTimescale: mdhd.timescale)
        } else {
            presentationOffset = 0
        }
        sampleTable = SampleTable()
        trackExtends = TrackExtends(trackID: tkhd.trackID)
        if Self.decodableFormats.contains(sampleDescription.format) {
            sampleTable = try SampleTable(stbl, fileSize: fileSize)
        }
    }

    static let decodableFormats: Set<FourCC> = ["avc1", "avc3", "hvc1", "hev1"]
}
