import CLibVA
import Testing
import VideoAcceleration

/// Entrypoint negotiation and device choice against fake capability sets, modelled on the drivers in
/// ../shared/personas/README.md (iHD Gen12: EncSliceLP only; i965: both; nvidia: decode only).
@Suite("Entrypoint negotiation and capability-aware device choice")
struct NegotiationTests {
    static func caps(_ entrypoint: VAEntrypoint, l1: Int) -> VAEncodeCapabilities {
        VAEncodeCapabilities(profile: VAProfileH264High, entrypoint: entrypoint, rateControlModes: UInt32(VA_RC_CQP), packedHeaders: 0x1F,
                             maxReferencesL0: 3, maxReferencesL1: l1, maxSlices: 1, maxWidth: nil, maxHeight: nil)
    }

    @Test("EncSlice first, as FFmpeg; EncSliceLP when it is all there is, or first with --low-power")
    func entrypoints() {
        let i965: [VAEntrypoint: VAEncodeCapabilities] = [VAEntrypointEncSlice: Self.caps(VAEntrypointEncSlice, l1: 1),
                                                         VAEntrypointEncSliceLP: Self.caps(VAEntrypointEncSliceLP, l1: 0)]
        let ihdGen12: [VAEntrypoint: VAEncodeCapabilities] = [VAEntrypointEncSliceLP: Self.caps(VAEntrypointEncSliceLP, l1: 0)]
        #expect(VAEncodeCapabilities.negotiate(lowPower: false) { i965[$0] }?.entrypointName == "EncSlice")
        #expect(VAEncodeCapabilities.negotiate(lowPower: true) { i965[$0] }?.entrypointName == "EncSliceLP")
        #expect(VAEncodeCapabilities.negotiate(lowPower: false) { ihdGen12[$0] }?.entrypointName == "EncSliceLP")
        #expect(VAEncodeCapabilities.negotiate(lowPower: true) { _ in nil } == nil)
    }

    @Test("--device auto passes over a decode-only device when encoding, and one that fails to open")
    func deviceChoice() {
        struct Fake { let name: String; let entrypoints: [VAEntrypoint] }
        let devices = ["/dev/dri/renderD128": Fake(name: "nvidia", entrypoints: [VAEntrypointVLD]),
                       "/dev/dri/renderD129": Fake(name: "ihd", entrypoints: [VAEntrypointVLD, VAEntrypointEncSliceLP])]
        func capable(_ job: VADeviceJob) -> (Fake) -> Bool {
            { fake in job.isSatisfied(profiles: [VAProfileH264High]) { _ in fake.entrypoints } }
        }
        var tried: [String] = []
        let order = ["/dev/dri/renderD127", "/dev/dri/renderD128", "/dev/dri/renderD129"]
        struct Missing: Error {}
        let open: (String) throws -> Fake = { path in
            guard let fake = devices[path] else { throw Missing() }
            return fake
        }
        let encoder = VADisplayConnection.firstCapable(order, open: open, capable: capable(.encode), tried: &tried, job: .encode)
        #expect(encoder?.name == "ihd")
        #expect(tried.count == 2 && tried[1].contains("renderD128") && tried[1].contains("encoding"))
        tried = []
        let decoder = VADisplayConnection.firstCapable(order, open: open, capable: capable(.decode(VAProfileH264High)), tried: &tried, job: .decode(nil))
        #expect(decoder?.name == "nvidia")
        #expect(VADeviceJob.decode(VAProfileH264Main).isSatisfied(profiles: [VAProfileH264High]) { _ in [VAEntrypointVLD] } == false)
    }
}
