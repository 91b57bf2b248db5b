import CLibVA
import Testing
import VideoAcceleration

@Suite("VADeviceChoice and VADeviceJob")
struct DeviceChoiceTests {
    @Test("--device text parses to a choice whose description parses back to it",
          arguments: ["auto", "soft", "soft:nvidia", "/dev/dri/renderD129"])
    func roundTrip(text: String) {
        let choice = VADeviceChoice(text)
        #expect(choice.description == text)
        #expect(VADeviceChoice(choice.description) == choice)
    }

    @Test("Aliases: empty is auto; software and vtksoft are soft; soft:NAME names a persona")
    func aliases() {
        #expect(VADeviceChoice("") == .automatic)
        #expect(VADeviceChoice("software") == .software && VADeviceChoice("vtksoft") == .software)
        #expect(VADeviceChoice("soft:ihd-gen12") == .softwarePersona("ihd-gen12"))
    }

    @Test("A decode-only driver satisfies decoding but not encoding; any job takes anything")
    func jobs() {
        let profiles = [VAProfileH264High]
        let decodeOnly: (VAProfile) -> [VAEntrypoint] = { _ in [VAEntrypointVLD] }
        let lowPower: (VAProfile) -> [VAEntrypoint] = { _ in [VAEntrypointEncSliceLP] }
        #expect(VADeviceJob.decode(nil).isSatisfied(profiles: profiles, entrypoints: decodeOnly))
        #expect(VADeviceJob.decode(VAProfileH264High).isSatisfied(profiles: profiles, entrypoints: decodeOnly))
        #expect(!VADeviceJob.decode(VAProfileHEVCMain).isSatisfied(profiles: profiles, entrypoints: decodeOnly))
        #expect(!VADeviceJob.encode.isSatisfied(profiles: profiles, entrypoints: decodeOnly))
        #expect(VADeviceJob.encode.isSatisfied(profiles: profiles, entrypoints: lowPower))
        #expect(VADeviceJob.any.isSatisfied(profiles: [], entrypoints: { _ in [] }))
    }

    @Test("firstCapable passes over devices that fail or cannot do the job, saying why, in order")
    func firstCapable() {
        struct Broken: Error, CustomStringConvertible { var description: String { "broken" } }
        var tried: [String] = []
        let found = VADisplayConnection.firstCapable(["a", "b", "c", "d"], open: { name -> String in
            if name == "a" { throw Broken() }
            return name
        }, capable: { $0 == "c" }, tried: &tried, job: .encode)
        #expect(found == "c")
        #expect(tried == ["a: broken", "b: its driver cannot do \(VADeviceJob.encode)"])
    }
}
