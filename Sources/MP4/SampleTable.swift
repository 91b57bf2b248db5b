/// The sample tables of a track's `stbl` (8.5), checked against each other, and a cursor that walks the
/// samples in decoding order without expanding the tables (counts in the file cannot make it allocate).
struct SampleTable {
    var timeToSample = TimeToSample()
    var compositionOffsets = CompositionOffsets()
    var syncSamples: SyncSamples?
    var sampleToChunk: SampleToChunk?
    var sampleSizes: SampleSizes?
    var chunkOffsets: ChunkOffsets?
    var sampleCount: Int = 0

    init() {}

    init(_ stbl: Box, fileSize: UInt64) throws(MP4Error) {
        let stsz = stbl.first("stsz") ?? stbl.first("stz2")
        guard let stsz else { throw .missingBox(box: "stsz", parent: "stbl", offset: stbl.header.offset) }
        let sizes = try SampleSizes(stsz)
        sampleSizes = sizes
        sampleCount = Int(sizes.count)
        timeToSample = try TimeToSample(try stbl.required("stts"))
        if let ctts = stbl.first("ctts") { compositionOffsets = try CompositionOffsets(ctts) }
        if let stss = stbl.first("stss") { syncSamples = try SyncSamples(stss) }
        let stsc = try SampleToChunk(try stbl.required("stsc"))
        sampleToChunk = stsc
        guard let stco = stbl.first("stco") ?? stbl.first("co64") else {
            throw .missingBox(box: "stco", parent: "stbl", offset: stbl.header.offset)
        }
        let chunks = try ChunkOffsets(stco)
        chunkOffsets = chunks

        // The tables must describe the same samples.
        if sizes.constantSize != 0 {
            let (total, overflow) = UInt64(sizes.count).multipliedReportingOverflow(by: UInt64(sizes.constantSize))
            guard !overflow, total <= fileSize else {
                throw .inconsistentSampleTables(box: stsz.type.description, offset: sizes.offset,
                                                reason: "\(sizes.count) samples of \(sizes.constantSize) bytes do not fit in the \(fileSize)-byte file")
            }
        }
        let timed = timeToSample.sampleCount
        guard timed == UInt64(sampleCount) else {
            throw .inconsistentSampleTables(box: "stts", offset: timeToSample.offset,
                                            reason: "'stts' times \(timed) samples, '\(stsz.type)' has \(sampleCount)")
        }
        guard sampleCount > 0 else { return }
        guard let first = stsc.entries.first, first.firstChunk == 1 else {
            throw .inconsistentSampleTables(box: "stsc", offset: stsc.offset, reason: "the first entry must start at chunk 1")
        }
        var covered: UInt64 = 0
        for (i, entry) in stsc.entries.enumerated() {
            guard entry.firstChunk <= chunks.offsets.count else {
                throw .inconsistentSampleTables(box: "stsc", offset: stsc.offset,
                                                reason: "entry \(i) starts at chunk \(entry.firstChunk), there are \(chunks.offsets.count) chunks")
            }
            let next = i + 1 < stsc.entries.count ? UInt64(stsc.entries[i + 1].firstChunk) : UInt64(chunks.offsets.count) + 1
            let (samples, overflow) = (next - UInt64(entry.firstChunk)).multipliedReportingOverflow(by: UInt64(entry.samplesPerChunk))
            covered = overflow ? .max : covered.addingReportingOverflow(samples).overflow ? .max : covered + samples
        }
        guard covered >= UInt64(sampleCount) else {
            throw .inconsistentSampleTables(box: "stsc", offset: stsc.offset,
                                            reason: "\(chunks.offsets.count) chunks hold \(covered) samples, '\(stsz.type)' has \(sampleCount)")
        }
    }
}

/// One sample's place and timing, before the edit list is applied (media timescale).
struct SampleRecord {
    var offset: UInt64
    var size: UInt32
    var decodeTime: Int64
    var compositionOffset: Int64
    var duration: UInt32
    var isSync: Bool
}

/// Walks a ``SampleTable`` one sample at a time.
struct SampleTableCursor {
    let table: SampleTable
    private(set) var index = 0
    private var chunk = -1
    private var stscEntry = 0
    private var samplesLeftInChunk: UInt32 = 0
    private var offset: UInt64 = 0
    private var sttsEntry = 0
    private var sttsLeft: UInt32 = 0
    private var cttsEntry = 0
    private var cttsLeft: UInt32 = 0
    private var syncIndex = 0
    private(set) var decodeTime: Int64 = 0

    init(_ table: SampleTable) {
        self.table = table
    }

    mutating func next() -> SampleRecord? {
        guard index < table.sampleCount, let stsc = table.sampleToChunk, let chunks = table.chunkOffsets,
              let sizes = table.sampleSizes else { return nil }
        // The table was checked to cover every sample, so the chunk index stays in range.
        while samplesLeftInChunk == 0 {
            chunk += 1
            guard chunk < chunks.offsets.count else { return nil }
            while stscEntry + 1 < stsc.entries.count && Int(stsc.entries[stscEntry + 1].firstChunk) - 1 <= chunk { stscEntry += 1 }
            samplesLeftInChunk = stsc.entries[stscEntry].samplesPerChunk
            offset = chunks.offsets[chunk]
        }
        let size = sizes.size(of: index)
        let tts = table.timeToSample.entries
        while sttsLeft == 0 && sttsEntry < tts.count {
            sttsLeft = tts[sttsEntry].count
            sttsEntry += 1
        }
        let duration = sttsLeft > 0 ? tts[sttsEntry - 1].delta : 0
        sttsLeft = sttsLeft > 0 ? sttsLeft - 1 : 0

        let ctts = table.compositionOffsets.entries
        while cttsLeft == 0 && cttsEntry < ctts.count {
            cttsLeft = ctts[cttsEntry].count
            cttsEntry += 1
        }
        let compositionOffset = cttsLeft > 0 ? Int64(ctts[cttsEntry - 1].offset) : 0
        cttsLeft = cttsLeft > 0 ? cttsLeft - 1 : 0

        var isSync = true
        if let sync = table.syncSamples {
            let number = UInt32(index + 1)
            while syncIndex < sync.numbers.count && sync.numbers[syncIndex] < number { syncIndex += 1 }
            isSync = syncIndex < sync.numbers.count && sync.numbers[syncIndex] == number
        }
        let record = SampleRecord(offset: offset, size: size, decodeTime: decodeTime, compositionOffset: compositionOffset,
                                  duration: duration, isSync: isSync)
        offset &+= UInt64(size)
        decodeTime &+= Int64(duration)
        samplesLeftInChunk -= 1
        index += 1
        return record
    }
}
