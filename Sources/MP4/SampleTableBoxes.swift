/// `stts` (8.6.1.2): runs of decode-time deltas.
struct TimeToSample {
    var entries: [(count: UInt32, delta: UInt32)] = []
    var offset: UInt64 = 0

    init() {}

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        offset = box.header.offset
        _ = try r.fullBoxHeader()
        let count = try r.u32()
        try r.checkCount(UInt64(count), entrySize: 8, what: "entries")
        entries.reserveCapacity(Int(count))
        for _ in 0..<count { entries.append((try r.u32(), try r.u32())) }
    }

    var sampleCount: UInt64 { entries.reduce(0) { $0 + UInt64($1.count) } }
}

/// `ctts` (8.6.1.3): runs of composition offsets (signed in version 1; version 0 is read as signed too,
/// as writers put negative offsets there).
struct CompositionOffsets {
    var entries: [(count: UInt32, offset: Int32)] = []

    init() {}

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        _ = try r.fullBoxHeader()
        let count = try r.u32()
        try r.checkCount(UInt64(count), entrySize: 8, what: "entries")
        entries.reserveCapacity(Int(count))
        for _ in 0..<count { entries.append((try r.u32(), try r.i32())) }
    }
}

/// `stss` (8.6.2): the 1-based numbers of the sync samples, ascending. Absent: every sample is sync.
struct SyncSamples {
    var numbers: [UInt32] = []

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        _ = try r.fullBoxHeader()
        let count = try r.u32()
        try r.checkCount(UInt64(count), entrySize: 4, what: "entries")
        numbers.reserveCapacity(Int(count))
        var previous: UInt32 = 0
        for _ in 0..<count {
            let n = try r.u32()
            guard n > previous else { throw r.malformed("sync sample numbers not ascending (\(n) after \(previous))") }
            numbers.append(n)
            previous = n
        }
    }
}

/// `stsc` (8.7.4): runs of chunks with the same number of samples.
struct SampleToChunk {
    var entries: [(firstChunk: UInt32, samplesPerChunk: UInt32, descriptionIndex: UInt32)] = []
    var offset: UInt64

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        offset = box.header.offset
        _ = try r.fullBoxHeader()
        let count = try r.u32()
        try r.checkCount(UInt64(count), entrySize: 12, what: "entries")
        entries.reserveCapacity(Int(count))
        var previous: UInt32 = 0
        for _ in 0..<count {
            let entry = (try r.u32(), try r.u32(), try r.u32())
            guard entry.0 > previous else { throw r.malformed("first_chunk \(entry.0) not after \(previous)") }
            previous = entry.0
            entries.append(entry)
        }
    }
}

/// `stsz` or `stz2` (8.7.3): sample sizes, one for all or one each.
struct SampleSizes {
    var constantSize: UInt32 = 0
    var sizes: [UInt32] = []
    var count: UInt32 = 0
    var offset: UInt64

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        offset = box.header.offset
        _ = try r.fullBoxHeader()
        if box.type == "stz2" {
            try r.skip(3)
            let fieldSize = Int(try r.u8())
            count = try r.u32()
            guard [4, 8, 16].contains(fieldSize) else { throw r.malformed("field_size \(fieldSize), expected 4, 8 or 16") }
            let bytesNeeded = (UInt64(count) * UInt64(fieldSize) + 7) / 8
            try r.checkCount(bytesNeeded, entrySize: 1, what: "bytes of \(count) \(fieldSize)-bit sizes")
            sizes.reserveCapacity(Int(count))
            var i: UInt32 = 0
            while i < count {
                switch fieldSize {
                case 4:
                    let b = try r.u8()
                    sizes.append(UInt32(b >> 4))
                    if i + 1 < count { sizes.append(UInt32(b & 0xF)) }
                    i += 2
                case 8: sizes.append(UInt32(try r.u8())); i += 1
                default: sizes.append(UInt32(try r.u16())); i += 1
                }
            }
        } else {
            constantSize = try r.u32()
            count = try r.u32()
            if constantSize == 0 {
                try r.checkCount(UInt64(count), entrySize: 4, what: "sample sizes")
                sizes.reserveCapacity(Int(count))
                for _ in 0..<count { sizes.append(try r.u32()) }
            }
        }
    }

    func size(of index: Int) -> UInt32 { constantSize != 0 ? constantSize : sizes[index] }
}

/// `stco` or `co64` (8.7.5): chunk offsets in the file.
struct ChunkOffsets {
    var offsets: [UInt64] = []

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        _ = try r.fullBoxHeader()
        let count = try r.u32()
        let wide = box.type == "co64"
        try r.checkCount(UInt64(count), entrySize: wide ? 8 : 4, what: "chunk offsets")
        offsets.reserveCapacity(Int(count))
        for _ in 0..<count { offsets.append(wide ? try r.u64() : UInt64(try r.u32())) }
    }
}

/// `elst` (8.6.6): the edit list. vtk uses it for the presentation offset: the leading empty edit
/// (a delay) and the media time where the first real edit starts.
public struct EditList: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        /// In the movie timescale.
        public var segmentDuration: UInt64
        /// In the media timescale; -1 for an empty edit.
        public var mediaTime: Int64
        public var rate: Int32
    }

    public var entries: [Entry] = []

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        let (version, _) = try r.fullBoxHeader()
        let count = try r.u32()
        try r.checkCount(UInt64(count), entrySize: version == 1 ? 20 : 12, what: "entries")
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            if version == 1 {
                entries.append(Entry(segmentDuration: try r.u64(), mediaTime: try r.i64(), rate: try r.i32()))
            } else {
                let duration = UInt64(try r.u32())
                let time = try r.i32()
                entries.append(Entry(segmentDuration: duration, mediaTime: Int64(time), rate: try r.i32()))
            }
        }
    }

    /// Ticks (media timescale) to add to composition times so that the presentation starts where the
    /// edit list says: the empty edits' duration minus the media time of the first real edit.
    func presentationOffset(movieTimescale: UInt32, mediaTimescale: UInt32) -> Int64 {
        var delay: Int64 = 0
        for entry in entries {
            if entry.mediaTime == -1 {
                // Movie timescale -> media timescale, in 128 bits so that no field can overflow it.
                let ticks = Int128(entry.segmentDuration) * Int128(mediaTimescale) / Int128(max(movieTimescale, 1))
                delay = Int64(clamping: Int128(delay) + ticks)
                continue
            }
            return delay &- entry.mediaTime
        }
        return delay
    }
}

extension Int64 {
    init(clamping value: Int128) {
        self = value > Int128(Int64.max) ? .max : value < Int128(Int64.min) ? .min : Int64(value)
    }
}
