import Testing
import VTKTestSupport

@Suite("vainfo through vtksoft")
struct VainfoTests {
    @Test("vainfo --display x11 lists H.264 CB/Main/High with VLD and EncSlice",
          .enabled(if: VTKSoftFFmpeg.vainfoUnavailableReason == nil, "\(VTKSoftFFmpeg.vainfoUnavailableReason ?? "")"))
    func listsProfiles() throws {
        let run = try VTKSoftFFmpeg.run("vainfo", ["--display", "x11"])
        let text = run.result.stdoutText + run.result.stderrText
        #expect(run.result.status == 0, "\(text)")
        #expect(text.contains("Driver version: vtksoft"), "libva loaded another driver:\n\(text)")
        for profile in ["VAProfileH264ConstrainedBaseline", "VAProfileH264Main", "VAProfileH264High"] {
            for entrypoint in ["VAEntrypointVLD", "VAEntrypointEncSlice"] {
                let listed = text.split(separator: "\n").contains { $0.contains(profile + " ") && $0.contains(entrypoint) || $0.contains(profile + ":") && $0.contains(entrypoint) }
                #expect(listed, "\(profile) / \(entrypoint) missing:\n\(text)")
            }
        }
        #expect(run.leakedObjects == 0)
    }
}
