import Foundation
import Testing
import VTKTestSupport
import VTKMedia
import H264Bitstream
@testable import DecompressionSession

/// Damaged field streams through vtk's session on vtksoft: a missing second field, a lone second field, a field
/// of the wrong parity, flipped bytes in a field slice, a stream cut inside a field. The stream is a PAFF
/// conformance stream twice over, so that an IDR follows the damage: nothing may crash, frames before the
/// damage are exact, every frame that is not flagged is exact, and the whole second copy is exact and unflagged.
@Suite("H264DecompressionSession on damaged field streams", .serialized)
struct InterlacedRobustnessTests {
    enum Damage: String, CaseIterable, CustomStringConvertible {
        case missingSecondField = "second field of a reference pair dropped"
        case loneSecondField = "first field of a reference pair dropped"
        case wrongParity = "second field given its first field's parity"
        case flippedBytes = "bytes of a field slice flipped"
        case cutMidField = "stream cut in the middle of a field"
        var description: String { rawValue }
    }

    /// HCAFF1_HHI: fields and frames (PAFF), one IDR. Its access units 2 and 3 are the top and bottom fields
    /// of a reference P frame that later pictures predict from.
    static var source: ConformanceStream? { ConformanceStream.interlaced.first { $0.file == "HCAFF1_HHI.264" } }
    static let damagedUnit = 3

    /// The damaged first copy followed by the pristine stream (which begins with its IDR).
    static func damaged(_ bytes: [UInt8], _ damage: Damage) throws -> [UInt8] {
        let units = AccessUnitAssembler.accessUnits(in: bytes)
        let target = damage == .loneSecondField ? damagedUnit - 1 : damagedUnit
        var first: [UInt8]
        switch damage {
        case .missingSecondField, .loneSecondField:
            first = AnnexBScanner.byteStream(units.enumerated().filter { $0.offset != target }.flatMap(\.element.nalUnits))
        case .wrongParity:
            first = try SliceRewriter.rewrite(bytes) { slice in
                if slice.pictureIndex == target { slice.header.bottomFieldFlag.toggle() }
            }
        case .flippedBytes:
            let nal = try #require(units[target].slices.first).nalUnit
            first = bytes
            for i in stride(from: nal.offset + 12, to: nal.offset + nal.bytes.count, by: 17) { first[i] ^= 0x5A }
        case .cutMidField:
            let nal = try #require(units[target].slices.first).nalUnit
            first = Array(bytes[..<(nal.offset + nal.bytes.count / 2)])
        }
        return first + bytes
    }

    @Test("No crash; frames before the damage exact; unflagged frames exact; exact and unflagged again from the next IDR",
          .enabled(if: source != nil, Comment(rawValue: TestPaths.sharedMissingMessage)),
          .enabled(if: VTKSoftAvailability.driverFound, VTKSoftAvailability.message),
          arguments: Damage.allCases)
    func damaged(_ damage: Damage) throws {
        let stream = try #require(Self.source)
        let bytes = [UInt8](try Data(contentsOf: stream.url))
        let url = TestPaths.scratch.appendingPathComponent("interlaced-\(damage).264")
        try Data(try Self.damaged(bytes, damage)).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try StreamDecode(url: url)
        let reference = stream.frameMD5s
        let n = reference.count
        // The second copy: its frames come last, exact and not flagged.
        #expect(result.frameMD5s.count >= n + 1)
        #expect(Array(result.frameMD5s.suffix(n)) == reference, "\(damage): the copy after the IDR is not exact")
        #expect(!result.damaged.suffix(n).contains(true), "\(damage): frames after the IDR are flagged")
        let firstCopy = Array(result.frameMD5s.dropLast(n)), flags = Array(result.damaged.dropLast(n))
        // Frame 0 (the IDR pair) comes before the damage in display order and in decoding order.
        #expect(firstCopy.first == reference.first, "\(damage): the first frame, before the damage, is not exact")
        #expect(firstCopy.count == n || damage == .wrongParity || damage == .cutMidField)
        // Where frames keep their positions (a field lost inside a pair: still one frame per pair), every frame
        // not flagged must be exact. Damage only the driver sees (flipped bytes) is flagged on the picture when it
        // is read back, as for frames, and pictures decoded from it before then are not.
        if damage == .missingSecondField || damage == .loneSecondField {
            #expect(firstCopy.count == n)
            for (k, md5) in firstCopy.enumerated() where !flags[k] {
                #expect(md5 == reference[k], "\(damage): frame \(k) is not flagged but differs from the reference")
            }
        }
        #expect(flags.contains(true), "\(damage): nothing was flagged")
        #expect(!result.statistics.problems.isEmpty, "\(damage): no problem reported")
        #expect(result.liveObjectsAfterInvalidate == 0)
        print("InterlacedRobustness \(damage): \(firstCopy.count) frames before the IDR, \(flags.filter { $0 }.count) flagged; "
              + "problems: \(result.statistics.problems.prefix(2))")
    }
}
