#if canImport(Glibc)
import Glibc
#endif
import NALStream
import VTKMedia

/// Writes one H.264 or H.265 track to an MP4 file. Sample bytes go to disk as they are appended (nothing but the
/// sample table is kept in memory); ``finish()`` writes the `moov`.
///
/// With `faststart`, `moov` comes before `mdat` so that players can start before the whole file has
/// arrived: ``finish()`` then writes a second file (ftyp, moov, mdat copied over) and renames it over the
/// first.
///
/// Samples are appended in decoding order as length-prefixed NAL units (the format description's length
/// size). Presentation times may differ from decode times (B-frames): they go to `ctts`, and an edit list
/// makes the presentation start at the first presentation time. Samples whose decode times are not known
/// (a stream recorded as it came) go through ``appendInDecodeOrder(_:presentationTicks:isSync:)``.
public final class MP4Writer {
    public let path: String
    /// The track's format description (its parameter sets go to the sample entry's avcC or hvcC).
    public let format: FormatDescription
    public let sampleEntry: VideoSampleEntry
    /// Units per second of the track's times.
    public let timescale: Int32
    public let faststart: Bool

    private let sink: FileSink
    /// Offset of the `free` + `mdat` headers (16 bytes, patched at finish).
    private let mdatHeaderOffset: UInt64
    private let ftyp: [UInt8]
    private var dataSize: UInt64 = 0
    private var samples: [WrittenSample] = []
    private var chunks: [WrittenChunk] = []
    private var chunkBytes: UInt64 = 0
    private var lastDuration: Int64?
    private var finished = false
    /// Samples came through appendInDecodeOrder: their decode times are made at finish().
    private var decodeTimesToDerive = false
    private var presentationTicksSeen: Set<Int64> = []

    /// Samples per chunk and bytes per chunk before a new chunk starts.
    static let chunkSampleLimit: UInt32 = 64
    static let chunkByteLimit: UInt64 = 1 << 20

    /// A track of `format`'s codec: `avc1` (H.264) or `hvc1` (H.265), whose parameter sets are in its record.
    public init(path: String, format: FormatDescription, timescale: Int32, faststart: Bool = false) throws(MP4Error) {
        let sampleEntry = try VideoSampleEntry(format)
        guard timescale > 0 else { throw .invalidWriterInput("timescale \(timescale) must be positive") }
        self.path = path
        self.format = format
        self.sampleEntry = sampleEntry
        self.timescale = timescale
        self.faststart = faststart
        sink = try FileSink(path: path)
        var w = BoxWriter()
        w.box("ftyp") { w in
            w.fourCC("isom")
            w.u32(0x200)
            for brand: FourCC in ["isom", "iso2", sampleEntry.format, "mp41"] { w.fourCC(brand) }
        }
        ftyp = w.bytes
        try sink.write(ftyp)
        mdatHeaderOffset = sink.position
        // `free` (8 bytes) then a 32-bit `mdat` header; finish() turns both into a 64-bit mdat header
        // when the data passes 4 GiB.
        try sink.write([0, 0, 0, 8] + FourCC("free").bytes + [0, 0, 0, 0] + FourCC("mdat").bytes)
    }

    /// Samples appended so far.
    public var sampleCount: Int { samples.count }

    /// Appends one sample. Times are converted to the writer's timescale; an invalid decode time means
    /// "same as the presentation time" (no reordering), an invalid duration is taken from the next sample.
    /// `dependsOnOthers` and `isDependedOnByOthers` (the sample's VideoToolbox attachments) go to `sdtp` when given.
    public func append(_ data: [UInt8], presentationTime: MediaTime, decodeTime: MediaTime = .invalid,
                       duration: MediaTime = .invalid, isSync: Bool, dependsOnOthers: Bool? = nil, isDependedOnByOthers: Bool? = nil) throws(MP4Error) {
        func ticks(_ t: MediaTime) -> Int64? { t.isNumeric ? t.converted(to: timescale).value : nil }
        let previous = samples.last
        let dts = ticks(decodeTime) ?? ticks(presentationTime) ?? previous.map { $0.decodeTime + (lastDuration ?? 0) } ?? 0
        let pts = ticks(presentationTime) ?? dts
        try append(data, presentationTicks: pts, decodeTicks: dts, durationTicks: ticks(duration), isSync: isSync,
                   dependsOnOthers: dependsOnOthers, isDependedOnByOthers: isDependedOnByOthers)
    }

    /// Appends one sample with times already in the writer's timescale.
    public func append(_ data: [UInt8], presentationTicks: Int64, decodeTicks: Int64, durationTicks: Int64? = nil,
                       isSync: Bool, dependsOnOthers: Bool? = nil, isDependedOnByOthers: Bool? = nil) throws(MP4Error) {
        guard !decodeTimesToDerive else { throw .invalidWriterInput("sample \(samples.count): decode times are derived at finish (appendInDecodeOrder)") }
        try checkAppendable(data)
        if let previous = samples.last {
            guard decodeTicks > previous.decodeTime else {
                throw .invalidWriterInput("sample \(samples.count): decode time \(decodeTicks) is not after \(previous.decodeTime)")
            }
            guard decodeTicks - previous.decodeTime <= Int64(UInt32.max) else {
                throw .invalidWriterInput("sample \(samples.count): decode time jumps by more than 2^32 ticks")
            }
        }
        if let d = durationTicks, d < 0 || d > Int64(UInt32.max) {
            throw .invalidWriterInput("sample \(samples.count): duration \(d) out of range")
        }
        if let d = durationTicks, d > 0 { lastDuration = d } else if let previous = samples.last {
            lastDuration = decodeTicks - previous.decodeTime
        }
        try store(data, WrittenSample(size: UInt32(data.count), decodeTime: decodeTicks, presentationTime: presentationTicks, isSync: isSync,
                                      dependsOnOthers: dependsOnOthers, isDependedOnByOthers: isDependedOnByOthers))
    }

    /// Appends one sample of a stream recorded as it came (RTP, `ffmpeg -c copy`): samples arrive in decode
    /// order with only their presentation times. At ``finish()`` the n-th decode time becomes the n-th
    /// smallest presentation time, all moved back by the largest reordering so that no sample is presented
    /// before it is decoded (composition offsets >= 0, 8.6.1.3). Presentation times must not repeat.
    public func appendInDecodeOrder(_ data: [UInt8], presentationTicks: Int64, isSync: Bool) throws(MP4Error) {
        guard decodeTimesToDerive || samples.isEmpty else {
            throw .invalidWriterInput("sample \(samples.count): appendInDecodeOrder after samples with decode times")
        }
        try checkAppendable(data)
        guard presentationTicksSeen.insert(presentationTicks).inserted else {
            throw .invalidWriterInput("sample \(samples.count): presentation time \(presentationTicks) repeats an earlier sample's")
        }
        decodeTimesToDerive = true
        try store(data, WrittenSample(size: UInt32(data.count), decodeTime: 0, presentationTime: presentationTicks, isSync: isSync))
    }

    private func checkAppendable(_ data: [UInt8]) throws(MP4Error) {
        guard !finished else { throw .invalidWriterInput("append after finish()") }
        guard !data.isEmpty, data.count <= Int(UInt32.max) else { throw .invalidWriterInput("sample \(samples.count) has \(data.count) bytes") }
    }

    /// The decode times of appendInDecodeOrder's samples, and the last one's duration (the smallest step
    /// between presentation times at the end).
    private func deriveDecodeTimes() {
        let sorted = samples.map(\.presentationTime).sorted()
        var shift: Int64 = 0
        for (i, sample) in samples.enumerated() { shift = max(shift, sorted[i] - sample.presentationTime) }
        for i in samples.indices { samples[i].decodeTime = sorted[i] - shift }
        if sorted.count >= 2 { lastDuration = sorted[sorted.count - 1] - sorted[sorted.count - 2] }
    }

    private func store(_ data: [UInt8], _ sample: WrittenSample) throws(MP4Error) {
        let size = UInt64(data.count)
        if chunks.isEmpty || chunks[chunks.count - 1].sampleCount >= Self.chunkSampleLimit || chunkBytes + size > Self.chunkByteLimit {
            chunks.append(WrittenChunk(dataOffset: dataSize, sampleCount: 0))
            chunkBytes = 0
        }
        try sink.write(data)
        chunks[chunks.count - 1].sampleCount += 1
        chunkBytes += size
        dataSize += size
        samples.append(sample)
    }

    /// Writes the movie box and closes the file.
    public func finish() throws(MP4Error) {
        guard !finished else { return }
        finished = true
        guard !samples.isEmpty else { throw .invalidWriterInput("no samples were appended") }
        if decodeTimesToDerive { deriveDecodeTimes() }
        let builder = MovieBoxBuilder(entry: sampleEntry, timescale: UInt32(timescale), samples: samples, chunks: chunks,
                                      lastDuration: UInt32(clamping: max(1, lastDuration ?? 1)))
        let mdatSize = dataSize + 8
        if faststart {
            try writeFaststart(builder)
            return
        }
        if mdatSize <= UInt64(UInt32.max) {
            try sink.write(BoxWriterBytes.u32(UInt32(mdatSize)), at: mdatHeaderOffset + 8)
        } else {
            try sink.write(BoxWriterBytes.u32(1) + FourCC("mdat").bytes + BoxWriterBytes.u64(dataSize + 16), at: mdatHeaderOffset)
        }
        try sink.write(builder.moov(dataStart: mdatHeaderOffset + 16))
        try sink.close()
    }

    /// ftyp, moov, mdat in a new file, renamed over the one written so far.
    private func writeFaststart(_ builder: MovieBoxBuilder) throws(MP4Error) {
        let mdatHeader: [UInt8] = dataSize + 8 <= UInt64(UInt32.max)
            ? BoxWriterBytes.u32(UInt32(dataSize + 8)) + FourCC("mdat").bytes
            : BoxWriterBytes.u32(1) + FourCC("mdat").bytes + BoxWriterBytes.u64(dataSize + 16)
        // The moov's size depends on stco vs co64, which depends on where the data lands: settle it.
        var moov = builder.moov(dataStart: 0)
        for _ in 0..<3 {
            let next = builder.moov(dataStart: UInt64(ftyp.count + moov.count + mdatHeader.count))
            if next.count == moov.count { moov = next; break }
            moov = next
        }
        let temporary = path + ".faststart-\(getpid())"
        let out = try FileSink(path: temporary)
        do throws(MP4Error) {
            try out.write(ftyp)
            try out.write(moov)
            try out.write(mdatHeader)
            var copied: UInt64 = 0
            let dataStart = mdatHeaderOffset + 16
            while copied < dataSize {
                let count = Int(min(dataSize - copied, 4 << 20))
                let block = try sink.read(at: dataStart + copied, count: count)
                guard block.count == count else { throw MP4Error.truncated(box: "mdat", offset: dataStart + copied, needed: UInt64(count), available: UInt64(block.count)) }
                try out.write(block)
                copied += UInt64(count)
            }
            try out.close()
            try sink.close()
            guard rename(temporary, path) == 0 else { throw MP4Error.io(path: path, operation: "rename", errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
    }
}

/// Big-endian bytes of single fields, for patching headers in place.
enum BoxWriterBytes {
    static func u32(_ v: UInt32) -> [UInt8] { var w = BoxWriter(); w.u32(v); return w.bytes }
    static func u64(_ v: UInt64) -> [UInt8] { var w = BoxWriter(); w.u64(v); return w.bytes }
}
