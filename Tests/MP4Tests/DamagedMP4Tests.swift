import Foundation
import Testing
import MP4
import VTKTestSupport

/// Finds boxes in a file's bytes by path, for the damage tests.
struct BoxLocator {
    let bytes: [UInt8]
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex", "moof", "traf"]

    func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }

    /// Offset of the first box at `path` (e.g. ["moov", "trak", "mdia"]).
    func offset(_ path: [String]) -> Int? {
        var start = 0, end = bytes.count
        var found: Int?
        for name in path {
            found = nil
            var at = start
            while at + 8 <= end {
                let size = u32(at)
                let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
                if type == name { found = at; break }
                guard size >= 8 else { return nil }
                at += size
            }
            guard let f = found else { return nil }
            start = f + 8
            end = f + u32(f)
        }
        return found
    }

    static func put32(_ bytes: inout [UInt8], _ at: Int, _ v: UInt32) {
        for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32(i))) }
    }
}

@Suite("Damaged MP4 files give typed errors naming the box and offset")
struct DamagedMP4Tests {
    /// Reads the whole file; returns the error, or nil when it reads.
    func readError(_ bytes: [UInt8], _ name: String) -> MP4Error? {
        let url = TestPaths.scratch.appendingPathComponent("damaged-\(name).mp4")
        _ = FileManager.default.createFile(atPath: url.path, contents: Data(bytes))
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let reader = try MP4Reader(url: url)
            _ = try reader.readAll()
            return nil
        } catch {
            return error
        }
    }

    static func fixture(_ muxing: MP4Fixtures.Muxing) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: try MP4Fixtures.x264BFrames(muxing)))
    }

    @Test("Truncated at many offsets: always an MP4Error, never a crash",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage),
          arguments: MP4Fixtures.Muxing.allCases)
    func truncated(muxing: MP4Fixtures.Muxing) throws {
        let bytes = try Self.fixture(muxing)
        let moov = try #require(BoxLocator(bytes: bytes).offset(["moov"]))
        // Every offset in the first 64 bytes and through moov's first 400, then a stride through the rest.
        var cuts = Set(0..<64)
        cuts.formUnion(moov..<min(bytes.count, moov + 400))
        cuts.formUnion(stride(from: 0, to: bytes.count, by: 97))
        var kinds: [String: Int] = [:]
        for cut in cuts.sorted() where cut < bytes.count {
            let error = readError(Array(bytes[..<cut]), "\(muxing)-cut")
            // A fragmented file cut between fragments is still a valid (shorter) file.
            if muxing != .fragmented { #expect(error != nil, "cut at \(cut) of \(bytes.count) read without error") }
            if let error {
                let kind = "\(error)".split(separator: "(").first.map(String.init) ?? "?"
                kinds[kind, default: 0] += 1
                #expect(error.offset != nil || error.box != nil, "\(error)")
            }
        }
        print("truncated \(muxing) (\(bytes.count) bytes, \(cuts.count) cuts): \(kinds.sorted { $0.key < $1.key })")
    }

    @Test("Box sizes that overflow, are too small, or run past the end",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func boxSizes() throws {
        let bytes = try Self.fixture(.plain)
        let locator = BoxLocator(bytes: bytes)
        let stbl = try #require(locator.offset(["moov", "trak", "mdia", "minf", "stbl"]))
        let trak = try #require(locator.offset(["moov", "trak"]))
        var cases: [(String, [UInt8], (MP4Error) -> Bool)] = []
        var b = bytes
        BoxLocator.put32(&b, stbl, 0xFFFF_FFFF)
        cases.append(("stbl size 0xFFFFFFFF", b, { if case .badBoxSize("stbl", UInt64(stbl), _, _) = $0 { true } else { false } }))
        b = bytes
        BoxLocator.put32(&b, stbl, 4)
        cases.append(("stbl size 4", b, { if case .badBoxSize("stbl", UInt64(stbl), 4, _) = $0 { true } else { false } }))
        b = bytes
        BoxLocator.put32(&b, trak, 0)
        cases.append(("trak size 0 inside moov", b, { if case .badBoxSize("trak", UInt64(trak), 0, _) = $0 { true } else { false } }))
        // 64-bit size of 2^64-1 on the top-level mdat.
        b = bytes
        let mdat = try #require(locator.offset(["mdat"]))
        BoxLocator.put32(&b, mdat, 1)
        for i in 0..<8 { b[mdat + 8 + i] = 0xFF }
        cases.append(("mdat largesize 2^64-1", b, { if case .badBoxSize("mdat", UInt64(mdat), UInt64.max, _) = $0 { true } else { false } }))
        b = bytes
        let moov = try #require(locator.offset(["moov"]))
        BoxLocator.put32(&b, moov, UInt32(bytes.count - moov + 1000))
        cases.append(("moov past the end of the file", b, { if case .badBoxSize("moov", UInt64(moov), _, _) = $0 { true } else { false } }))
        for (name, data, matches) in cases {
            let error = readError(data, "size")
            #expect(error.map(matches) == true, "\(name): \(error.map { "\($0)" } ?? "no error")")
            print("\(name): \(error.map { "\($0)" } ?? "none")")
        }
    }

    @Test("Boxes nested too deep", .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func tooDeep() throws {
        let bytes = try Self.fixture(.plain)
        let moov = try #require(BoxLocator(bytes: bytes).offset(["moov"]))
        // A moov holding 40 nested 'trak' boxes, then the real content is dropped.
        let depth = 40
        var nested: [UInt8] = []
        for level in 0..<depth {
            let size = UInt32(8 * (depth - level))
            nested += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("trak".utf8)
        }
        let moovSize = UInt32(8 + nested.count)
        let file = Array(bytes[..<moov]) + [UInt8(moovSize >> 24), UInt8(moovSize >> 16 & 0xFF), UInt8(moovSize >> 8 & 0xFF), UInt8(moovSize & 0xFF)]
            + Array("moov".utf8) + nested
        let error = readError(file, "deep")
        guard case .nestingTooDeep("trak", _, _)? = error else { Issue.record("expected nestingTooDeep, got \(String(describing: error))"); return }
        print("nested: \(error!)")
    }

    @Test("Sample tables that disagree, and huge entry counts",
          .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func tables() throws {
        let bytes = try Self.fixture(.plain)
        let locator = BoxLocator(bytes: bytes)
        let stbl = ["moov", "trak", "mdia", "minf", "stbl"]
        func patched(_ box: String, _ fieldOffset: Int, _ value: UInt32) throws -> [UInt8] {
            var b = bytes
            BoxLocator.put32(&b, try #require(locator.offset(stbl + [box])) + fieldOffset, value)
            return b
        }
        // stts: 1 entry after the full box header: count at +16, delta at +20; stsz: size at +12, count at +16.
        let cases: [(String, [UInt8], (MP4Error) -> Bool)] = [
            ("stts covers 41 samples", try patched("stts", 16, 41), { if case .inconsistentSampleTables("stts", _, _) = $0 { true } else { false } }),
            ("stsz count 0x7FFFFFFF", try patched("stsz", 16, 0x7FFF_FFFF), { if case .malformed("stsz", _, _) = $0 { true } else { false } }),
            ("stsz constant size 2^31", try patched("stsz", 12, 0x8000_0000), { if case .inconsistentSampleTables("stsz", _, _) = $0 { true } else { false } }),
            ("stts entry count 2^32-1", try patched("stts", 12, 0xFFFF_FFFF), { if case .malformed("stts", _, _) = $0 { true } else { false } }),
            ("ctts entry count 2^32-1", try patched("ctts", 12, 0xFFFF_FFFF), { if case .malformed("ctts", _, _) = $0 { true } else { false } }),
            ("stss entry count 2^32-1", try patched("stss", 12, 0xFFFF_FFFF), { if case .malformed("stss", _, _) = $0 { true } else { false } }),
            ("stsc entry count 2^32-1", try patched("stsc", 12, 0xFFFF_FFFF), { if case .malformed("stsc", _, _) = $0 { true } else { false } }),
            ("stco entry count 2^32-1", try patched("stco", 12, 0xFFFF_FFFF), { if case .malformed("stco", _, _) = $0 { true } else { false } }),
            ("stsc 1 sample per chunk", try patched("stsc", 20, 1), { if case .inconsistentSampleTables("stsc", _, _) = $0 { true } else { false } }),
            ("stco chunk past the end", try patched("stco", 16, 0x7FFF_0000), { if case .sampleOutsideFile(0, _, _, _) = $0 { true } else { false } }),
            ("avc1 renamed hvc1 (an H.265 entry without hvcC)", {
                var b = bytes
                let stsd = locator.offset(stbl + ["stsd"]) ?? 0
                b.replaceSubrange((stsd + 20)..<(stsd + 24), with: Array("hvc1".utf8))
                return b
            }(), { if case .missingBox("hvcC", "hvc1", _) = $0 { true } else { false } }),
        ]
        for (name, data, matches) in cases {
            let error = readError(data, "table")
            #expect(error.map(matches) == true, "\(name): \(error.map { "\($0)" } ?? "no error")")
            print("\(name): \(error.map { "\($0)" } ?? "none")")
        }
    }

    @Test("A fragment's trun with a huge sample count and no sizes", .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func hugeTrun() throws {
        var bytes = try Self.fixture(.fragmented)
        let trun = try #require(BoxLocator(bytes: bytes).offset(["moof", "traf", "trun"]))
        // Keep only the data-offset flag, so that no per-sample field backs the count.
        BoxLocator.put32(&bytes, trun + 8, 0x0000_0001)
        BoxLocator.put32(&bytes, trun + 12, 0xFFFF_FFFF)
        let error = readError(bytes, "trun")
        #expect(error?.box == "trun", "\(String(describing: error))")
        print("huge trun: \(error.map { "\($0)" } ?? "none")")
        BoxLocator.put32(&bytes, trun + 8, 0x0000_0301)  // per-sample duration and size: the count must fit the box
        let error2 = readError(bytes, "trun2")
        if case .malformed("trun", _, _)? = error2 {} else { Issue.record("expected malformed trun, got \(String(describing: error2))") }
    }

    @Test("Random byte damage in moov never crashes", .enabled(if: Availability.ffmpeg, Availability.ffmpegMessage))
    func randomDamage() throws {
        let bytes = try Self.fixture(.plain)
        let moov = try #require(BoxLocator(bytes: bytes).offset(["moov"]))
        var generator = SeededRandom(seed: 2026)
        var errors = 0
        for round in 0..<300 {
            var b = bytes
            for _ in 0..<(1 + round % 4) {
                let at = Int.random(in: moov..<bytes.count, using: &generator)
                b[at] = UInt8.random(in: 0...255, using: &generator)
            }
            if readError(b, "random") != nil { errors += 1 }
        }
        print("random damage: \(errors) of 300 damaged files gave an error, the rest read")
    }
}
