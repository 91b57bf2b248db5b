import Foundation
import Testing
import VTKTestSupport
import VTKMedia
import H264Bitstream
@testable import DecompressionSession

/// Deterministically damaged copies of every conformance stream (or, without ../shared, of the libx264
/// streams every machine makes), decoded end to end through an H264DecompressionSession on vtksoft.
///
/// For each damaged copy: the decode ends (no crash, no hang), no more frames come out than there are
/// access units, vtksoft's live object count stays bounded while decoding and is 0 after invalidate(),
/// damage that changes the output is reported (problems, damaged frames, or a thrown error), and every
/// frame decoded from access units wholly before the first damaged byte is bit-exact.
/// Times are printed, never asserted.
@Suite("H264DecompressionSession on mutated streams", .serialized)
struct MutationDecodeTests {
    /// Damaged copies made of each stream.
    static let mutantsPerStream = 4

    enum Kind: Int, CaseIterable, CustomStringConvertible {
        case sliceDataBitFlips, headerBitFlips, truncation, droppedNALUnits, duplicatedNALUnit, reorderedNALUnits, zeroRun
        var description: String {
            ["slice-data bit flips", "header bit flips", "truncation", "dropped NAL units", "duplicated NAL unit",
             "reordered NAL units", "run of zero bytes"][rawValue]
        }
    }

    struct Source: CustomStringConvertible, Sendable {
        let name: String
        let url: URL
        /// Reference MD5s in display order.
        let reference: @Sendable () throws -> [String]
        /// Field pictures: a frame's two fields are two access units, so a frame is before the damage when
        /// the access unit after its first one is clean too.
        var interlaced = false
        var description: String { name }
    }

    /// $VTK_MUTATION_ONLY=a.264,b.264 limits the run to those streams; $VTK_MUTATION_DEBUG prints each
    /// mutant's output order with wrong pictures starred.
    static let sources: [Source] = all.filter { s in ProcessInfo.processInfo.environment["VTK_MUTATION_ONLY"].map { $0.split(separator: ",").contains(Substring(s.name)) } ?? true }
    static let all: [Source] = {
        if !ConformanceStream.all.isEmpty {
            return ConformanceStream.all.map { stream in
                Source(name: stream.file, url: stream.url) { stream.frameMD5s }
            } + ConformanceStream.interlaced.map { stream in
                Source(name: stream.file, url: stream.url, reference: { stream.frameMD5s }, interlaced: true)
            }
        }
        guard ProcessRunner.hasFFmpeg else { return [] }
        return GeneratedStream.standard.compactMap { stream in
            guard let url = try? stream.url() else { return nil }
            return Source(name: stream.name, url: url) { try ffmpegFrameMD5s(url) }
        }
    }()

    /// What one decode of a (damaged) stream gave.
    struct Outcome {
        var frames: [(md5: String, decodeIndex: Int, damaged: Bool, unit: Int)] = []
        var accessUnits = 0
        /// Pictures decoded from access units that end before `cleanBefore` bytes.
        var cleanPictures = 0
        /// Access units wholly before the damage.
        var cleanUnits = 0
        var errors: [String] = []
        var statistics = DecodeStatistics()
        var maxLiveObjects = 0
        var liveAfterInvalidate: Int?
        var seconds = 0.0
        var reported: Bool { !errors.isEmpty || statistics.problemCount > 0 || statistics.damagedFrames > 0 }
    }

    /// Decodes `bytes` as the `vtk decode` loop does, but keeps going after a thrown error (to show the
    /// session survives it). `cleanBefore`: the offset of the first damaged byte.
    static func decode(_ bytes: [UInt8], cleanBefore: Int = .max, pristine: [AccessUnit] = []) throws -> Outcome {
        var outcome = Outcome()
        let started = Date()
        let session = try H264DecompressionSession(formatDescription: nil, device: .software, outputFormat: .i420)
        func take(_ frames: [DecodedFrame]) {
            for frame in frames {
                outcome.frames.append((MD5.hex(frame.pixelBuffer.packedBytes), frame.decodeIndex, frame.isDamaged, Int(frame.presentationTime.value)))
            }
        }
        let units = AccessUnitAssembler.accessUnits(in: bytes)
        outcome.accessUnits = units.count
        // Access units are clean while they equal the pristine stream's, one for one, and end before the
        // damage (a damaged slice can also cut the access unit before it short, by starting a new one).
        var clean = true
        for (index, unit) in units.enumerated() {
            let before = session.statistics.picturesDecoded
            do {
                take(try session.decode(accessUnit: unit, presentationTime: MediaTime(value: Int64(index), timescale: 25)))
            } catch {
                outcome.errors.append("access unit \(index) at byte \(unit.offset): \(error)")
            }
            let end = unit.nalUnits.map { $0.offset + $0.bytes.count }.max() ?? unit.offset
            clean = clean && end < cleanBefore && index < pristine.count && pristine[index].nalUnits == unit.nalUnits
            if clean { outcome.cleanPictures += session.statistics.picturesDecoded - before; outcome.cleanUnits += 1 }
            outcome.maxLiveObjects = max(outcome.maxLiveObjects, VTKSoftCounters.live(in: session.connection.display) ?? 0)
        }
        do { take(try session.finishDelayedFrames()) } catch { outcome.errors.append("finishDelayedFrames: \(error)") }
        outcome.statistics = session.statistics
        session.invalidate()
        outcome.liveAfterInvalidate = VTKSoftCounters.live(in: session.connection.display)
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }

    /// A stream as NAL units rewritten with 4-byte start codes, so damage can be placed by NAL unit.
    struct Layout {
        var units: [[UInt8]]
        var bytes: [UInt8] { units.flatMap { [0, 0, 0, 1] + $0 } }
        /// Offset of unit i's first byte (after its start code) in `bytes`.
        var offsets: [Int] {
            var result: [Int] = []
            var at = 0
            for unit in units { result.append(at + 4); at += 4 + unit.count }
            return result
        }
    }

    /// A damaged copy of `pristine` and the offset of its first byte that differs.
    static func mutate(_ pristine: Layout, kind: Kind, random: inout SeededRandom) -> (bytes: [UInt8], firstDamaged: Int) {
        var layout = pristine
        var bytes = pristine.bytes
        let offsets = pristine.offsets
        let count = pristine.units.count
        func isSlice(_ i: Int) -> Bool { [1, 5].contains(pristine.units[i][0] & 0x1F) }
        func pick(_ where_: (Int) -> Bool) -> Int {
            let candidates = (0..<count).filter(where_)
            return candidates.isEmpty ? Int.random(in: 0..<count, using: &random) : candidates.randomElement(using: &random)!
        }
        switch kind {
        case .sliceDataBitFlips, .headerBitFlips:
            // Slice data: past the first 8 bytes of a slice (its header is shorter in these streams);
            // headers: an SPS, PPS or a slice's first bytes.
            let data = kind == .sliceDataBitFlips
            let i = pick { data ? isSlice($0) && pristine.units[$0].count > 24 : true }
            let unit = pristine.units[i]
            let range = data ? 8..<unit.count : 1..<max(2, min(unit.count, isSlice(i) ? 6 : unit.count))
            for _ in 0..<Int.random(in: 1...(data ? 8 : 3), using: &random) {
                let byte = offsets[i] + Int.random(in: range, using: &random)
                bytes[byte] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
            }
        case .truncation:
            bytes = Array(bytes.prefix(Int.random(in: 1..<bytes.count, using: &random)))
        case .droppedNALUnits:
            for _ in 0..<Int.random(in: 1...3, using: &random) where layout.units.count > 1 {
                layout.units.remove(at: Int.random(in: 0..<layout.units.count, using: &random))
            }
            bytes = layout.bytes
        case .duplicatedNALUnit:
            let i = Int.random(in: 0..<count, using: &random)
            let to = min(count, i + Int.random(in: 1...4, using: &random))
            layout.units.insert(pristine.units[i], at: to)
            bytes = layout.bytes
        case .reorderedNALUnits:
            let i = Int.random(in: 0..<max(1, count - 1), using: &random)
            let j = min(count - 1, i + Int.random(in: 1...5, using: &random))
            layout.units.swapAt(i, j)
            bytes = layout.bytes
        case .zeroRun:
            let start = Int.random(in: 0..<bytes.count, using: &random)
            let end = min(bytes.count, start + Int.random(in: 16...2048, using: &random))
            for k in start..<end { bytes[k] = 0 }
        }
        let original = pristine.bytes
        let firstDamaged = (0..<min(original.count, bytes.count)).first { original[$0] != bytes[$0] } ?? min(original.count, bytes.count)
        return (bytes, firstDamaged)
    }

    @Test("Damaged copies of each stream decode without crash or hang; frames before the damage are exact",
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          .enabled(if: !sources.isEmpty, "neither ../shared nor ffmpeg (for the libx264 streams): nothing to mutate"),
          arguments: Array(zip(sources.indices, sources)))
    func mutants(_ index: Int, _ source: Source) throws {
        let original = [UInt8](try Data(contentsOf: source.url))
        let pristine = Layout(units: AnnexBScanner.nalUnits(in: original).map { Array($0.bytes) })
        // The pristine stream, as rewritten, decodes to the reference: this ties each picture (by decode
        // index) to its reference MD5.
        let clean = try Self.decode(pristine.bytes)
        let reference = try source.reference()
        #expect(clean.frames.map(\.md5) == reference, "\(source.name): the rewritten stream does not decode to the reference")
        var expected: [Int: String] = [:]
        for (frame, md5) in zip(clean.frames, reference) { expected[frame.decodeIndex] = md5 }

        let pristineUnits = AccessUnitAssembler.accessUnits(in: pristine.bytes)
        var random = SeededRandom(seed: 0x9E37_79B9 &+ UInt64(index) &* 7919)
        for m in 0..<Self.mutantsPerStream {
            let kind = Kind(rawValue: (index * Self.mutantsPerStream + m) % Kind.allCases.count)!
            let (bytes, firstDamaged) = Self.mutate(pristine, kind: kind, random: &random)
            let label = "\(source.name) mutant \(m) (\(kind), first damaged byte \(firstDamaged) of \(bytes.count))"
            let outcome = try Self.decode(bytes, cleanBefore: firstDamaged, pristine: pristineUnits)
            Self.record(label, outcome)
            if ProcessInfo.processInfo.environment["VTK_MUTATION_DEBUG"] != nil {
                print("DEBUG \(label) order: \(outcome.frames.map { "\($0.decodeIndex)\($0.md5 == expected[$0.decodeIndex] ? "" : "*")" }.joined(separator: " "))")
            }

            #expect(outcome.frames.count <= outcome.accessUnits, "\(label): more frames than access units")
            #expect(outcome.liveAfterInvalidate == 0, "\(label): VA objects left after invalidate()")
            // The DPB holds at most 16 frames; with the picture being decoded and one being read back, and a
            // configuration and a context, a session never needs more than 20 objects between access units.
            #expect(outcome.maxLiveObjects <= 20, "\(label): \(outcome.maxLiveObjects) VA objects alive at once")
            // The statistics account for every frame delivered and every damaged flag.
            #expect(outcome.statistics.framesOutput == outcome.frames.count, "\(label): statistics miscount the frames")
            #expect(outcome.statistics.damagedFrames == outcome.frames.filter(\.damaged).count, "\(label): statistics miscount damaged frames")
            // Damage that changes the output is not always detectable (a flipped bit in slice data or in
            // slice_qp_delta decodes to other valid values; a dropped non-reference picture leaves a valid
            // stream), so this is counted, not asserted.
            if outcome.frames.map(\.md5) != clean.frames.map(\.md5) && !outcome.reported {
                print("mutation: \(label): output changed, nothing reported")
            }
            // Frames of pictures decoded wholly from bytes before the damage are exact.
            for frame in outcome.frames where source.interlaced ? frame.unit + 1 < outcome.cleanUnits : frame.decodeIndex < outcome.cleanPictures {
                #expect(frame.md5 == expected[frame.decodeIndex], "\(label): picture \(frame.decodeIndex), before the damage, differs; problems \(outcome.statistics.problems.prefix(5))")
                #expect(!frame.damaged, "\(label): picture \(frame.decodeIndex), before the damage, is flagged damaged")
            }
        }
    }

    static func record(_ label: String, _ outcome: Outcome) {
        let line = String(format: "mutation: %@: %d AU, %d frames (%d damaged), %d before damage, %d problem(s), %d error(s), max %d VA objects, %.2f s",
                          label, outcome.accessUnits, outcome.frames.count, outcome.frames.filter(\.damaged).count,
                          outcome.cleanPictures, outcome.statistics.problemCount, outcome.errors.count, outcome.maxLiveObjects, outcome.seconds)
        print(line + (outcome.errors.first.map { "; first error: \($0)" } ?? ""))
    }
}
