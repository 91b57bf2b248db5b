/// Walks the samples of one track fragment (its `trun` boxes in order), filling absent fields from the
/// `tfhd` and `trex` defaults.
struct FragmentCursor {
    private let fragment: TrackFragment
    private let defaults: TrackExtends
    private let base: UInt64
    private var run = 0
    private var sample = 0
    private var position: UInt64
    private(set) var decodeTime: Int64

    init(_ fragment: TrackFragment, moofOffset: UInt64, defaults: TrackExtends, decodeTime: Int64, fileSize: UInt64) throws(MP4Error) {
        self.fragment = fragment
        self.defaults = defaults
        self.decodeTime = decodeTime
        // Without an explicit base, data offsets count from the moof (default-base-is-moof, and the rule
        // for the first track fragment of a moof).
        base = fragment.header.baseDataOffset ?? moofOffset
        position = base
        // Runs without per-sample sizes: the count is only trusted when the samples fit in the file.
        for trun in fragment.runs where trun.sizes == nil && trun.sampleCount > 0 {
            let size = UInt64(fragment.header.defaultSize ?? defaults.defaultSize)
            guard size > 0 else {
                throw .malformed(box: "trun", offset: trun.offset, reason: "\(trun.sampleCount) samples with no size (no per-sample or default size)")
            }
            let (total, overflow) = UInt64(trun.sampleCount).multipliedReportingOverflow(by: size)
            guard !overflow, total <= fileSize else {
                throw .malformed(box: "trun", offset: trun.offset, reason: "\(trun.sampleCount) samples of \(size) bytes do not fit in the \(fileSize)-byte file")
            }
        }
        if let first = fragment.runs.first { position = Self.start(of: first, base: base, previousEnd: base) }
    }

    private static func start(of run: TrackRun, base: UInt64, previousEnd: UInt64) -> UInt64 {
        guard let offset = run.dataOffset else { return previousEnd }
        return offset >= 0 ? base &+ UInt64(offset) : base &- UInt64(-Int64(offset))
    }

    mutating func next() -> SampleRecord? {
        while run < fragment.runs.count && sample >= Int(fragment.runs[run].sampleCount) {
            run += 1
            sample = 0
            if run < fragment.runs.count { position = Self.start(of: fragment.runs[run], base: base, previousEnd: position) }
        }
        guard run < fragment.runs.count else { return nil }
        let trun = fragment.runs[run]
        let header = fragment.header
        let duration = trun.durations?[sample] ?? header.defaultDuration ?? defaults.defaultDuration
        let size = trun.sizes?[sample] ?? header.defaultSize ?? defaults.defaultSize
        let flags = trun.flags?[sample] ?? (sample == 0 ? trun.firstSampleFlags : nil) ?? header.defaultFlags ?? defaults.defaultFlags
        let composition = Int64(trun.compositionOffsets?[sample] ?? 0)
        // sample_is_non_sync_sample (8.8.3.1).
        let record = SampleRecord(offset: position, size: size, decodeTime: decodeTime, compositionOffset: composition,
                                  duration: duration, isSync: flags & 0x1_0000 == 0)
        position &+= UInt64(size)
        decodeTime &+= Int64(duration)
        sample += 1
        return record
    }
}
