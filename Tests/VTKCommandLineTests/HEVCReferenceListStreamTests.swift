import Foundation
import H265Bitstream
import H265Decoding
import Testing
import VTKTestSupport

/// The GOP planner's reference lists, as the session sent them to the driver, equal those vtk's own H.265
/// decoding process rebuilds from the stream vtk wrote (issue 29, parity). `vtk encode --codec h265` runs
/// CompressionSession over vtksoft with VTKSOFT_CAPTURE; for every picture, in coding order:
/// - the capture's VAEncSliceParameterBufferHEVC ref_pic_list0/1 (the lists vtksoft codes with), as POCs;
/// - H265DecodingProcess fed the access units of the written Annex B stream: its RPS (8.3.2) and
///   RefPicList0/1 (8.3.4), named by the POC of the DPB picture each entry points to.
/// The two must be equal picture by picture, as must the current POC and the slice type. This checks the
/// written VPS/SPS/PPS/slice headers end to end, where H265ParameterTests checks the header values alone.
@Suite("H.265: the session's VA reference lists equal those the decoding process rebuilds from the written stream",
       .enabled(if: VTKBinary.available, VTKBinary.missing),
       .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"))
struct HEVCReferenceListStreamTests {
    struct Configuration: Sendable, CustomStringConvertible {
        let arguments: [String]
        var persona: String? = nil
        /// Pictures must predict from later ones (list 1 after the current POC) somewhere in the stream.
        var expectsFuture = false
        /// Some list 0 must hold more than one picture.
        var expectsSeveral = false
        /// Low-delay B: every inter slice is B with list 1 equal to list 0.
        var lowDelayB = false
        /// CRA pictures with RASL pictures before them.
        var openGOP = false
        var description: String { (persona.map { "\($0): " } ?? "") + arguments.joined(separator: " ") }
    }

    static let frames = 20

    /// B-frames 0/2/3 (pyramid), refs 1/3, open (CRA) and closed GOP, forced IDRs mid-stream, iHD Gen12's
    /// low-delay B, and i965 Gen9's HEVC list sizes (L0 3, L1 1).
    static let configurations: [Configuration] = [
        .init(arguments: ["--keyint", "0"]),
        .init(arguments: ["--refs", "3", "--force-idr", "7"], expectsSeveral: true),
        .init(arguments: ["--bframes", "2"], expectsFuture: true),
        .init(arguments: ["--bframes", "3", "--b-pyramid", "--refs", "3"], expectsFuture: true, expectsSeveral: true),
        .init(arguments: ["--bframes", "2", "--keyint", "8", "--open-gop"], expectsFuture: true, openGOP: true),
        .init(arguments: ["--bframes", "2", "--keyint", "8", "--force-idr", "11"], expectsFuture: true),
        .init(arguments: ["--refs", "3", "--bframes", "2", "--low-power", "--force-idr", "13"], persona: "ihd-gen12", expectsSeveral: true,
              lowDelayB: true),
        .init(arguments: ["--refs", "3", "--bframes", "2"], persona: "i965-gen9", expectsFuture: true, expectsSeveral: true),
    ]

    static func input() throws -> URL {
        let url = TestPaths.scratch.appendingPathComponent("hevc-lists-testsrc2-160x96-\(frames).y4m")
        if !FileManager.default.fileExists(atPath: url.path) {
            let partial = url.appendingPathExtension("part-\(getpid())")
            let r = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=30",
                                                     "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", partial.path])
            guard r.status == 0 else { throw TraceHeadersError.ffmpegFailed("testsrc2", r.stderrText) }
            if rename(partial.path, url.path) != 0 { try? FileManager.default.removeItem(at: partial) }
        }
        return url
    }

    /// One picture's lists as POCs, with its POC and slice type (7.4.7.1: 0 B, 1 P, 2 I).
    struct Lists: Equatable, CustomStringConvertible {
        var poc: Int
        var sliceType: Int
        var list0: [Int?]
        var list1: [Int?]
        var description: String { "POC \(poc) type \(sliceType) L0 \(list0.map { $0.map(String.init) ?? "-" }) L1 \(list1.map { $0.map(String.init) ?? "-" })" }
    }

    /// What the session asked vtksoft to use: the capture's picture and slice parameters, per picture.
    static func sent(_ capture: URL) throws -> [Lists] {
        try EncodeParityTests.pictures(capture).map { buffers in
            let picture = try #require(buffers.first { $0.key == "PictureParameter#0" }?.fields)
            let slice = try #require(buffers.first { $0.key == "SliceParameter#0" }?.fields)
            let type = try #require(slice["[0].slice_type"].flatMap { Int($0) })
            func list(_ name: String, active: String) throws -> [Int?] {
                let count = try #require(slice["[0].\(active)"].flatMap { Int($0) }) + 1
                // The first `count` entries; an invalid one (VA_INVALID_SURFACE) is a missing reference, nil.
                return (0..<count).map { i in
                    slice["[0].\(name)[\(i)].picture_id"] == "4294967295" ? nil : slice["[0].\(name)[\(i)].pic_order_cnt"].flatMap { Int($0) }
                }
            }
            return Lists(poc: try #require(picture["decoded_curr_pic.pic_order_cnt"].flatMap { Int($0) }), sliceType: type,
                         list0: type == 2 ? [] : try list("ref_pic_list0", active: "num_ref_idx_l0_active_minus1"),
                         list1: type == 0 ? try list("ref_pic_list1", active: "num_ref_idx_l1_active_minus1") : [])
        }
    }

    /// What vtk's H.265 decoding process rebuilds from the written stream, per picture in decoding order.
    static func rebuilt(_ stream: [UInt8], _ c: Configuration) -> [Lists] {
        var process = H265DecodingProcess()
        var out: [Lists] = []
        for unit in H265AccessUnitAssembler.accessUnits(in: stream) {
            for event in process.decode(unit) {
                switch event {
                case .decode(let request):
                    let pocs = Dictionary(request.referencePictures.map { ($0.id, $0.poc) }, uniquingKeysWith: { a, _ in a })
                    let slice = request.slices[0]
                    out.append(Lists(poc: request.picture.poc, sliceType: Int(slice.segment.header.sliceType.rawValue),
                                     list0: slice.lists.list0.map { $0.flatMap { pocs[$0] } },
                                     list1: slice.lists.list1.map { $0.flatMap { pocs[$0] } }))
                case .problem(let problem): Issue.record("\(c): decoding process: \(problem)")
                default: break
                }
            }
        }
        return out
    }

    @Test("Picture by picture, RefPicList0/1 as POCs: the capture's slice parameters equal the decoding process's",
          arguments: configurations)
    func listsAgree(_ c: Configuration) throws {
        let input = try Self.input()
        let name = (c.persona.map { [$0] } ?? []) + c.arguments
        let tag = name.joined(separator: "_").replacingOccurrences(of: "-", with: "") + "-\(UUID().uuidString)"
        let capture = TestPaths.scratch.appendingPathComponent("hevc-lists-\(tag).jsonl")
        let output = TestPaths.scratch.appendingPathComponent("hevc-lists-\(tag).hevc")
        defer { try? FileManager.default.removeItem(at: capture); try? FileManager.default.removeItem(at: output) }
        var environment = ["VTKSOFT_CAPTURE": capture.path]
        if let persona = c.persona { environment["VTKSOFT_PERSONA"] = persona }
        let run = try VTKBinary.run(["encode", input.path, "-o", output.path, "-q", "--device", "soft", "--codec", "h265", "--qp", "30"] + c.arguments,
                                    extraEnvironment: environment)
        try #require(run.status == 0, "\(c): \(run.stderrText)")

        let sent = try Self.sent(capture)
        let rebuilt = Self.rebuilt(Array(try Data(contentsOf: output)), c)
        #expect(sent.count == Self.frames && rebuilt.count == Self.frames, "\(c): \(sent.count) pictures sent, \(rebuilt.count) decoded")
        for (k, (a, b)) in zip(sent, rebuilt).enumerated() {
            #expect(a == b, "\(c) picture \(k) (coding order): session sent \(a), decoding process rebuilt \(b)")
            #expect(!a.list0.contains(nil) && !a.list1.contains(nil), "\(c) picture \(k): \(a) names an invalid surface")
        }

        // The configuration really exercised what it is here for.
        #expect(sent.first?.sliceType == 2)
        #expect(sent.contains { $0.list0.count > 0 }, "\(c): no inter picture")
        if c.expectsFuture { #expect(sent.contains { l in l.list1.contains { ($0 ?? .min) > l.poc } }, "\(c): no picture predicts from a later one") }
        if c.expectsSeveral { #expect(sent.contains { $0.list0.count > 1 }, "\(c): no list 0 with more than one picture") }
        if c.lowDelayB {
            let inter = sent.filter { $0.sliceType != 2 }
            #expect(!inter.isEmpty && inter.allSatisfy { l in l.sliceType == 0 && l.list1 == l.list0 && l.list0.allSatisfy { ($0 ?? .max) < l.poc } },
                    "\(c): not low-delay B: \(inter)")
        }
        if c.openGOP {
            let types = H265AccessUnitAssembler.accessUnits(in: Array(try Data(contentsOf: output))).compactMap { $0.slices.first?.header.nalUnitType }
            #expect(types.contains(.cra) && types.contains { $0 == .raslN || $0 == .raslR }, "\(c): no CRA with RASL pictures")
        }
    }
}
