import Testing
import VTKTestSupport

/// vtksoft's H.265 encode entrypoints as `vainfo --display x11` lists them, per persona: each as its
/// driver's table says (../shared/personas/README.md).
@Suite("vainfo lists H.265 encode per persona",
       .enabled(if: VTKSoftFFmpeg.vainfoUnavailableReason == nil, "\(VTKSoftFFmpeg.vainfoUnavailableReason ?? "")"))
struct HEVCEncodeVainfoTests {
    struct Case: Sendable, CustomStringConvertible {
        let persona: String
        /// (profile, entrypoint) pairs that must be listed.
        let listed: [(String, String)]
        /// Pairs that must not be.
        let absent: [(String, String)]
        var description: String { persona }
    }

    static let cases: [Case] = [
        Case(persona: "vtksoft", listed: [("VAProfileHEVCMain", "VAEntrypointEncSlice"), ("VAProfileHEVCMain10", "VAEntrypointEncSlice")],
             absent: [("VAProfileHEVCMain", "VAEntrypointEncSliceLP")]),
        // iHD Gen12, free build: VDEnc only (EncSliceLP), no EncSlice.
        Case(persona: "ihd-gen12", listed: [("VAProfileHEVCMain", "VAEntrypointEncSliceLP"), ("VAProfileHEVCMain10", "VAEntrypointEncSliceLP")],
             absent: [("VAProfileHEVCMain", "VAEntrypointEncSlice"), ("VAProfileHEVCMain10", "VAEntrypointEncSlice")]),
        // i965 Skylake: Main on EncSlice; Main 10 is Kaby Lake's.
        Case(persona: "i965-gen9", listed: [("VAProfileHEVCMain", "VAEntrypointEncSlice")],
             absent: [("VAProfileHEVCMain10", "VAEntrypointEncSlice")]),
        Case(persona: "radeonsi-26", listed: [("VAProfileHEVCMain", "VAEntrypointEncSlice"), ("VAProfileHEVCMain10", "VAEntrypointEncSlice")],
             absent: [("VAProfileHEVCMain", "VAEntrypointEncSliceLP")]),
        // nvidia-vaapi-driver decodes only.
        Case(persona: "nvidia", listed: [("VAProfileHEVCMain", "VAEntrypointVLD")],
             absent: [("VAProfileHEVCMain", "VAEntrypointEncSlice"), ("VAProfileHEVCMain", "VAEntrypointEncSliceLP")]),
    ]

    @Test("HEVC encode entrypoints as the persona's table says", arguments: cases)
    func entrypoints(_ c: Case) throws {
        let run = try VTKSoftFFmpeg.run("vainfo", ["--display", "x11"], extraEnvironment: ["VTKSOFT_PERSONA": c.persona])
        let text = run.result.stdoutText + run.result.stderrText
        #expect(run.result.status == 0, "\(text)")
        let lines = text.split(separator: "\n").map { $0.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\t", with: "") }
        func listed(_ pair: (String, String)) -> Bool { lines.contains("\(pair.0):\(pair.1)") }
        for pair in c.listed { #expect(listed(pair), "\(c.persona): \(pair.0) / \(pair.1) missing:\n\(text)") }
        for pair in c.absent { #expect(!listed(pair), "\(c.persona): \(pair.0) / \(pair.1) listed:\n\(text)") }
    }
}
