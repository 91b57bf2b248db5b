import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// Damaged interlaced streams through FFmpeg's VA hwaccel on vtksoft: missing second fields, lone second
/// fields, fields of the wrong parity, and damaged or cut field slices. vtksoft must never crash: FFmpeg
/// ends, and a damaged picture is at most flagged (vaSyncSurface's DECODING_ERROR, on which FFmpeg's
/// hwdownload gives up with exit 1); when FFmpeg ends normally no VA object is left at vaTerminate.
@Suite("Damaged field pictures through vtksoft")
struct DamagedFieldTests {
    /// One field or frame of the stream: its NAL units' indices, and what its first slice header says.
    struct Picture {
        var units: [Int]
        let field: Bool
        let bottom: Bool
        let frameNum: Int
        /// The second field of the picture before it (opposite parity, same frame_num).
        var isSecondField = false
    }

    /// The stream's pictures in decoding order (a new one at each first_mb_in_slice 0).
    static func pictures(_ units: [NALUnit]) throws -> [Picture] {
        var sets = ParameterSets()
        var pictures: [Picture] = []
        for (index, unit) in units.enumerated() {
            switch unit.type {
            case .sequenceParameterSet, .pictureParameterSet:
                try sets.store(unit)
            case .nonIDRSlice, .idrSlice:
                let header = try SliceHeader(nalUnit: unit, parameterSets: sets)
                if header.firstMbInSlice == 0 || pictures.isEmpty {
                    var picture = Picture(units: [], field: header.fieldPicFlag, bottom: header.bottomFieldFlag, frameNum: header.frameNum)
                    if let last = pictures.last, last.field, !last.isSecondField, picture.field, last.bottom != picture.bottom,
                       last.frameNum == picture.frameNum {
                        picture.isSecondField = true
                    }
                    pictures.append(picture)
                }
                pictures[pictures.count - 1].units.append(index)
            default:
                break
            }
        }
        return pictures
    }

    enum Damage: String, CaseIterable, CustomStringConvertible {
        case missingSecondFields = "every third second field dropped"
        case loneSecondFields = "every third first field dropped"
        case wrongParity = "every third second field given its first field's parity"
        case damagedFieldSlices = "bytes of field slices flipped"
        case cutMidField = "stream cut in the middle of a field"
        var description: String { rawValue }
    }

    static func damaged(_ bytes: [UInt8], _ damage: Damage) throws -> [UInt8] {
        let units = AnnexBScanner.nalUnits(in: bytes)
        let pictures = try Self.pictures(units)
        let pairs = pictures.indices.filter { pictures[$0].isSecondField }
        let chosen = pairs.enumerated().filter { $0.offset % 3 == 1 }.map(\.element)
        switch damage {
        case .missingSecondFields, .loneSecondFields:
            let dropped = Set(chosen.flatMap { pictures[damage == .missingSecondFields ? $0 : $0 - 1].units })
            return AnnexBScanner.byteStream(units.enumerated().filter { !dropped.contains($0.offset) }.map(\.element))
        case .wrongParity:
            let flipped = Set(chosen)
            return try SliceRewriter.rewrite(bytes) { slice in
                if flipped.contains(slice.pictureIndex) { slice.header.bottomFieldFlag.toggle() }
            }
        case .damagedFieldSlices:
            var out = units
            for p in chosen {
                for u in pictures[p].units {
                    var b = Array(out[u].bytes)
                    for i in stride(from: min(12, b.count - 1), to: b.count, by: 13) { b[i] ^= 0xA5 }
                    out[u] = NALUnit(b, offset: out[u].offset)
                }
            }
            return AnnexBScanner.byteStream(out)
        case .cutMidField:
            let p = try #require(chosen.first)
            let unit = units[pictures[p].units[0]]
            return Array(bytes[..<(unit.offset + unit.bytes.count / 2)])
        }
    }

    static var fieldStreams: [ConformanceStream] {
        ConformanceStream.interlaced.filter { ["HCAFF1_HHI.264", "freh4.264", "Freh7_B.264"].contains($0.file) }
    }

    @Test("FFmpeg through vtksoft ends on every damaged field stream: clean, or on a flagged picture",
          .enabled(if: VTKSoftFFmpeg.isAvailable, "\(VTKSoftFFmpeg.unavailableReason ?? "")"),
          .enabled(if: !ConformanceStream.interlaced.isEmpty, "\(TestPaths.sharedMissingMessage)"),
          arguments: Damage.allCases)
    func damaged(_ damage: Damage) throws {
        for stream in Self.fieldStreams {
            let bytes = try Self.damaged([UInt8](try Data(contentsOf: stream.url)), damage)
            let url = TestPaths.scratch.appendingPathComponent("damaged-\(UUID().uuidString).264")
            defer { try? FileManager.default.removeItem(at: url) }
            try Data(bytes).write(to: url)
            // FFmpeg's own messages (the one looked for here) reach its standard error: vtksoft quiets only its
            // own libavcodec context, not the client's log level.
            let run = try VTKSoftFFmpeg.hardwareDecode(url, muxer: "md5")
            let md5 = run.result.stdoutText.contains("MD5=") ? run.result.stdoutText : nil
            let tail = run.result.stderrText.suffix(300)
            // 0, or FFmpeg's own 1 when it gives up on a flagged picture (hwdownload refuses a surface whose
            // vaSyncSurface said DECODING_ERROR); a signal (SIGSEGV 11, SIGABRT 6) would be a crash.
            #expect([0, 1].contains(run.result.status), "\(stream.file), \(damage): FFmpeg ended with \(run.result.status): \(tail)")
            if run.result.status == 0 {
                #expect(run.leakedObjects == 0, "\(stream.file), \(damage): VA objects left at vaTerminate")
            } else {
                #expect(run.result.stderrText.contains("(internal decoding error)"), "\(stream.file), \(damage): FFmpeg failed otherwise: \(tail)")
            }
            print("\(stream.file), \(damage): exit \(run.result.status), \(md5 == nil ? "no output" : "decoded")")
        }
    }
}
