/// `trex` (8.8.3): per-track defaults for the samples of movie fragments.
struct TrackExtends {
    var trackID: UInt32
    var defaultDescriptionIndex: UInt32
    var defaultDuration: UInt32
    var defaultSize: UInt32
    var defaultFlags: UInt32

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        _ = try r.fullBoxHeader()
        trackID = try r.u32()
        defaultDescriptionIndex = try r.u32()
        defaultDuration = try r.u32()
        defaultSize = try r.u32()
        defaultFlags = try r.u32()
    }

    init(trackID: UInt32) {
        self.trackID = trackID
        defaultDescriptionIndex = 1
        defaultDuration = 0
        defaultSize = 0
        defaultFlags = 0
    }
}

/// `tfhd` (8.8.7): where a track fragment's data is and its sample defaults.
struct TrackFragmentHeader {
    var trackID: UInt32
    var baseDataOffset: UInt64?
    var defaultDuration: UInt32?
    var defaultSize: UInt32?
    var defaultFlags: UInt32?
    var defaultBaseIsMoof: Bool

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        let (_, flags) = try r.fullBoxHeader()
        trackID = try r.u32()
        baseDataOffset = flags & 0x1 != 0 ? try r.u64() : nil
        if flags & 0x2 != 0 { _ = try r.u32() }  // sample_description_index: vtk uses the first entry
        defaultDuration = flags & 0x8 != 0 ? try r.u32() : nil
        defaultSize = flags & 0x10 != 0 ? try r.u32() : nil
        defaultFlags = flags & 0x20 != 0 ? try r.u32() : nil
        defaultBaseIsMoof = flags & 0x20000 != 0
    }
}

/// `trun` (8.8.8): a run of contiguous samples, each field either per sample or from the defaults.
struct TrackRun {
    var offset: UInt64
    var sampleCount: UInt32
    var dataOffset: Int32?
    var firstSampleFlags: UInt32?
    var durations: [UInt32]?
    var sizes: [UInt32]?
    var flags: [UInt32]?
    var compositionOffsets: [Int32]?

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        offset = box.header.offset
        let (_, f) = try r.fullBoxHeader()
        sampleCount = try r.u32()
        dataOffset = f & 0x1 != 0 ? try r.i32() : nil
        firstSampleFlags = f & 0x4 != 0 ? try r.u32() : nil
        let perSample = [0x100, 0x200, 0x400, 0x800].filter { f & UInt32($0) != 0 }.count * 4
        if perSample > 0 {
            try r.checkCount(UInt64(sampleCount), entrySize: perSample, what: "samples")
            var d: [UInt32] = [], s: [UInt32] = [], fl: [UInt32] = [], c: [Int32] = []
            let n = Int(sampleCount)
            if f & 0x100 != 0 { d.reserveCapacity(n) }
            if f & 0x200 != 0 { s.reserveCapacity(n) }
            if f & 0x400 != 0 { fl.reserveCapacity(n) }
            if f & 0x800 != 0 { c.reserveCapacity(n) }
            for _ in 0..<n {
                if f & 0x100 != 0 { d.append(try r.u32()) }
                if f & 0x200 != 0 { s.append(try r.u32()) }
                if f & 0x400 != 0 { fl.append(try r.u32()) }
                if f & 0x800 != 0 { c.append(try r.i32()) }
            }
            durations = f & 0x100 != 0 ? d : nil
            sizes = f & 0x200 != 0 ? s : nil
            flags = f & 0x400 != 0 ? fl : nil
            compositionOffsets = f & 0x800 != 0 ? c : nil
        }
    }
}

/// `traf` (8.8.6): one track's part of a movie fragment.
struct TrackFragment {
    var header: TrackFragmentHeader
    /// `tfdt` (8.8.12), in the media timescale.
    var baseMediaDecodeTime: UInt64?
    var runs: [TrackRun]

    init(_ box: Box) throws(MP4Error) {
        header = try TrackFragmentHeader(try box.required("tfhd"))
        if let tfdt = box.first("tfdt") {
            var r = tfdt.reader
            let (version, _) = try r.fullBoxHeader()
            baseMediaDecodeTime = version == 1 ? try r.u64() : UInt64(try r.u32())
        }
        var runs: [TrackRun] = []
        for trun in box.all("trun") { runs.append(try TrackRun(trun)) }
        self.runs = runs
    }
}

/// `moof` (8.8.4): a movie fragment, the sample tables of the data that follows it.
struct MovieFragment {
    var header: BoxHeader
    var trackFragments: [TrackFragment]

    init(_ box: Box) throws(MP4Error) {
        header = box.header
        var trafs: [TrackFragment] = []
        for traf in box.all("traf") { trafs.append(try TrackFragment(traf)) }
        trackFragments = trafs
    }
}
