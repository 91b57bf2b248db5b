import H264Bitstream

/// One sample as the writer recorded it: where its bytes went and its times (track timescale).
struct WrittenSample {
    var size: UInt32
    var decodeTime: Int64
    var presentationTime: Int64
    var isSync: Bool
    /// sample_depends_on and sample_is_depended_on (8.6.4.3): nil when unknown.
    var dependsOnOthers: Bool? = nil
    var isDependedOnByOthers: Bool? = nil
}

/// A run of samples stored back to back in `mdat`.
struct WrittenChunk {
    /// Offset from the first byte of mdat's payload.
    var dataOffset: UInt64
    var sampleCount: UInt32
}

/// Builds the `moov` box of a one-track H.264 or H.265 movie from the recorded samples (8.2 to 8.7).
struct MovieBoxBuilder {
    let entry: VideoSampleEntry
    let timescale: UInt32
    let samples: [WrittenSample]
    let chunks: [WrittenChunk]
    /// Duration of the last sample (the others run to the next decode time).
    let lastDuration: UInt32

    /// Decode-time deltas, one per sample.
    var durations: [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(samples.count)
        for i in samples.indices {
            out.append(i + 1 < samples.count ? UInt32(clamping: samples[i + 1].decodeTime - samples[i].decodeTime) : lastDuration)
        }
        return out
    }

    /// Composition offsets (presentation minus decode time).
    var compositionOffsets: [Int64] { samples.map { $0.presentationTime - $0.decodeTime } }

    var mediaDuration: UInt64 { durations.reduce(0) { $0 + UInt64($1) } }

    /// The edit list: presentation starts at time max(0, first presentation time). A positive start is an
    /// empty edit (a delay); samples presented before time 0 are left out of the presentation by starting
    /// the media there. nil when neither is needed. Read back through the edit, every presentation and
    /// decode time is the one appended.
    var edit: (delay: UInt64, mediaTime: Int64, duration: UInt64)? {
        guard let first = samples.first else { return nil }
        let d = durations
        var maxEnd = Int64.min, minPresentation = Int64.max
        for (i, s) in samples.enumerated() {
            maxEnd = max(maxEnd, s.presentationTime + Int64(d[i]))
            minPresentation = min(minPresentation, s.presentationTime)
        }
        let start = max(0, minPresentation)
        let mediaTime = max(0, start - first.decodeTime)
        guard mediaTime != 0 || start != 0 else { return nil }
        return (UInt64(start), mediaTime, UInt64(max(0, maxEnd - start)))
    }

    /// Movie and track duration: the edits' total, else the media duration.
    var presentationDuration: UInt64 { edit.map { $0.delay + $0.duration } ?? mediaDuration }

    /// The moov box with chunk offsets `dataStart + chunk.dataOffset`.
    func moov(dataStart: UInt64) -> [UInt8] {
        var w = BoxWriter()
        let duration = presentationDuration
        let wideDuration = duration > UInt64(UInt32.max) || mediaDuration > UInt64(UInt32.max)
        let version: UInt8 = wideDuration ? 1 : 0
        let sar = entry.sampleAspectRatio
        let width = entry.width, height = entry.height
        let presentationWidth = sar.width > 0 && sar.height > 0 ? width * sar.width / sar.height : width

        w.box("moov") { w in
            w.fullBox("mvhd", version: version) { w in
                Self.times(&w, version: version, timescale: timescale, duration: duration)
                w.u32(0x0001_0000)  // rate 1.0
                w.u16(0x0100)  // volume 1.0
                w.zeros(2 + 8)
                w.unityMatrix()
                w.zeros(24)
                w.u32(2)  // next_track_ID
            }
            w.box("trak") { w in
                w.fullBox("tkhd", version: version, flags: 0x3) { w in  // enabled, in movie
                    if version == 1 { w.u64(0); w.u64(0) } else { w.u32(0); w.u32(0) }
                    w.u32(1)  // track_ID
                    w.u32(0)
                    if version == 1 { w.u64(duration) } else { w.u32(UInt32(duration)) }
                    w.zeros(8)
                    w.u16(0); w.u16(0); w.u16(0); w.u16(0)  // layer, alternate_group, volume, reserved
                    w.unityMatrix()
                    w.u32(UInt32(clamping: presentationWidth) << 16)
                    w.u32(UInt32(clamping: height) << 16)
                }
                if let edit {
                    w.box("edts") { w in
                        let wide = edit.delay > UInt64(UInt32.max) || edit.duration > UInt64(UInt32.max) || edit.mediaTime > Int64(Int32.max)
                        w.fullBox("elst", version: wide ? 1 : 0) { w in
                            w.u32(edit.delay > 0 ? 2 : 1)
                            func entry(_ w: inout BoxWriter, _ duration: UInt64, _ time: Int64) {
                                if wide { w.u64(duration); w.i64(time) } else { w.u32(UInt32(duration)); w.i32(Int32(time)) }
                                w.u32(0x0001_0000)  // media_rate 1.0
                            }
                            if edit.delay > 0 { entry(&w, edit.delay, -1) }
                            entry(&w, edit.duration, edit.mediaTime)
                        }
                    }
                }
                w.box("mdia") { w in
                    let mediaVersion: UInt8 = mediaDuration > UInt64(UInt32.max) ? 1 : 0
                    w.fullBox("mdhd", version: mediaVersion) { w in
                        Self.times(&w, version: mediaVersion, timescale: timescale, duration: mediaDuration)
                        w.u16(0x55C4)  // language "und"
                        w.u16(0)
                    }
                    w.fullBox("hdlr") { w in
                        w.u32(0)
                        w.fourCC("vide")
                        w.zeros(12)
                        w.append(Array("VideoHandler".utf8) + [0])
                    }
                    w.box("minf") { w in
                        w.fullBox("vmhd", flags: 1) { w in w.zeros(8) }
                        w.box("dinf") { w in
                            w.fullBox("dref") { w in
                                w.u32(1)
                                w.fullBox("url ", flags: 1) { _ in }  // media in this file
                            }
                        }
                        sampleTable(&w, dataStart: dataStart, width: width, height: height)
                    }
                }
            }
        }
        return w.bytes
    }

    private static func times(_ w: inout BoxWriter, version: UInt8, timescale: UInt32, duration: UInt64) {
        if version == 1 { w.u64(0); w.u64(0); w.u32(timescale); w.u64(duration) }
        else { w.u32(0); w.u32(0); w.u32(timescale); w.u32(UInt32(duration)) }
    }

    private func sampleTable(_ w: inout BoxWriter, dataStart: UInt64, width: Int, height: Int) {
        w.box("stbl") { w in
            w.fullBox("stsd") { w in
                w.u32(1)
                w.box(entry.format) { w in
                    w.zeros(6)
                    w.u16(1)  // data_reference_index
                    w.zeros(16)
                    w.u16(UInt16(clamping: width))
                    w.u16(UInt16(clamping: height))
                    w.u32(0x0048_0000); w.u32(0x0048_0000)  // 72 dpi
                    w.u32(0)
                    w.u16(1)  // frame_count
                    let name = Array(entry.compressorName.utf8.prefix(31))
                    w.u8(UInt8(name.count)); w.append(name); w.zeros(31 - name.count)
                    w.u16(0x0018)  // depth
                    w.u16(0xFFFF)  // pre_defined -1
                    w.box(entry.configurationType) { w in w.append(entry.configuration) }
                    let sar = entry.sampleAspectRatio
                    if sar.width != sar.height, sar.width > 0, sar.height > 0 {
                        w.box("pasp") { w in w.u32(UInt32(sar.width)); w.u32(UInt32(sar.height)) }
                    }
                }
            }
            // stts: runs of equal deltas.
            let runs = Self.runs(durations)
            w.fullBox("stts") { w in
                w.u32(UInt32(runs.count))
                for run in runs { w.u32(run.count); w.u32(run.value) }
            }
            let offsets = compositionOffsets
            if offsets.contains(where: { $0 != 0 }) {
                let negative = offsets.contains { $0 < 0 }
                let offsetRuns = Self.runs(offsets)
                w.fullBox("ctts", version: negative ? 1 : 0) { w in
                    w.u32(UInt32(offsetRuns.count))
                    for run in offsetRuns { w.u32(run.count); w.i32(Int32(clamping: run.value)) }
                }
            }
            if samples.contains(where: { !$0.isSync }) {
                let sync = samples.indices.filter { samples[$0].isSync }
                w.fullBox("stss") { w in
                    w.u32(UInt32(sync.count))
                    for i in sync { w.u32(UInt32(i + 1)) }
                }
            }
            // sdtp (8.6.4): per sample, whether it is predicted and whether others are predicted from it, so a
            // player can drop the non-reference B pictures first.
            if samples.contains(where: { $0.dependsOnOthers != nil || $0.isDependedOnByOthers != nil }) {
                w.fullBox("sdtp") { w in
                    for s in samples {
                        let dependsOn: UInt8 = s.dependsOnOthers.map { $0 ? 1 : 2 } ?? 0
                        let dependedOn: UInt8 = s.isDependedOnByOthers.map { $0 ? 1 : 2 } ?? 0
                        w.u8(dependsOn << 4 | dependedOn << 2)
                    }
                }
            }
            // stsc: runs of chunks with the same sample count.
            var stsc: [(first: UInt32, count: UInt32)] = []
            for (i, chunk) in chunks.enumerated() where stsc.last?.count != chunk.sampleCount {
                stsc.append((UInt32(i + 1), chunk.sampleCount))
            }
            w.fullBox("stsc") { w in
                w.u32(UInt32(stsc.count))
                for entry in stsc { w.u32(entry.first); w.u32(entry.count); w.u32(1) }
            }
            w.fullBox("stsz") { w in
                w.u32(0)
                w.u32(UInt32(samples.count))
                for s in samples { w.u32(s.size) }
            }
            let last = chunks.last.map { dataStart + $0.dataOffset } ?? 0
            if last > UInt64(UInt32.max) {
                w.fullBox("co64") { w in
                    w.u32(UInt32(chunks.count))
                    for c in chunks { w.u64(dataStart + c.dataOffset) }
                }
            } else {
                w.fullBox("stco") { w in
                    w.u32(UInt32(chunks.count))
                    for c in chunks { w.u32(UInt32(dataStart + c.dataOffset)) }
                }
            }
        }
    }

    private static func runs<T: Equatable>(_ values: [T]) -> [(count: UInt32, value: T)] {
        var out: [(count: UInt32, value: T)] = []
        for v in values {
            if let last = out.last, last.value == v { out[out.count - 1].count += 1 } else { out.append((1, v)) }
        }
        return out
    }
}
