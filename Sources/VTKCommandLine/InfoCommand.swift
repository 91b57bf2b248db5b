import CLibVA
import Glibc
import JSONText
import VideoAcceleration

/// `vtk info`: what the VA device can do, as vainfo shows it but readable, or as JSON.
enum InfoCommand {
    static let name = "info"
    static let summary = "the VA device, its driver, and what it can decode and encode"
    static let usage = "vtk info [--device auto|soft|PATH] [--json]"
    static let examples = [
        "vtk info",
        "vtk info --device soft --json",
    ]
    static let exitCodes: [ExitCode] = [.success, .usage, .device]
    static let options: [OptionSpec] = [
        .value("--device", valueName: "auto|soft|PATH", help: "VA device: auto (hardware, else vtksoft), soft, or a DRM node"),
        .flag("--json", help: "print one JSON object"),
        .flag("-h", "--help", help: "show this help"),
    ]
    static let details = "Lists profiles x entrypoints, RT formats, rate-control modes, packed headers, the reference and slice limits "
        + "of each encode entrypoint, and the maximum size; then the other devices --device auto would consider."

    struct Capability {
        var profile: String
        var entrypoint: String
        var rtFormats: [String]
        var rateControl: [String]
        var packedHeaders: [String]
        var maxSize: (Int, Int)?
        /// An encode entrypoint's own limits (each entrypoint has its own: EncSliceLP's are often not EncSlice's).
        var encodeLimits: EncodeLimits?
    }

    /// Reference and slice limits of one encode entrypoint (VAConfigAttribEncMaxRefFrames, VAConfigAttribEncMaxSlices).
    struct EncodeLimits {
        var l0: Int
        var l1: Int
        var slices: Int

        init(_ caps: VAEncodeCapabilities) {
            l0 = caps.maxReferencesL0
            l1 = caps.maxReferencesL1
            slices = caps.maxSlices
        }

        var text: String { "L0 \(l0), L1 \(l1)\(l1 == 0 ? " (no B-frames)" : ""), \(slices) slice(s)" }
    }

    /// The VA_ENC_PACKED_HEADER_* names of `mask`, as VAEncodeCapabilities spells them (RAW_DATA included).
    static func packedHeaderList(_ mask: UInt32) -> [String] {
        mask == 0 ? [] : VAEncodeCapabilities.packedHeaderNames(mask).split(separator: "|").map(String.init)
    }

    static func run(_ parsed: ParsedArguments) throws(CommandFailure) -> ExitCode {
        guard parsed.positionals.isEmpty else { throw CommandFailure(.usage, "vtk info: unexpected argument '\(parsed.positionals[0])'") }
        let device = VADeviceChoice(parsed["device"] ?? "auto")
        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(device) } catch {
            throw CommandFailure(.device, "vtk info: cannot open VA device '\(device)': \(error)")
        }
        var capabilities: [Capability] = []
        for profile in connection.profiles() {
            for entrypoint in connection.entrypoints(for: profile) {
                let types = [VAConfigAttribRTFormat, VAConfigAttribRateControl, VAConfigAttribEncPackedHeaders,
                             VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight]
                let attributes = connection.attributes(types, profile: profile, entrypoint: entrypoint)
                func supported(_ type: VAConfigAttribType) -> UInt32? {
                    guard let v = attributes[type], v != UInt32(VA_ATTRIB_NOT_SUPPORTED) else { return nil }
                    return v
                }
                let rt = supported(VAConfigAttribRTFormat) ?? 0
                let rc = supported(VAConfigAttribRateControl) ?? 0
                let packed = supported(VAConfigAttribEncPackedHeaders) ?? 0
                var size: (Int, Int)?
                if let w = supported(VAConfigAttribMaxPictureWidth), let h = supported(VAConfigAttribMaxPictureHeight) { size = (Int(w), Int(h)) }
                let encodes = [VAEntrypointEncSlice, VAEntrypointEncSliceLP, VAEntrypointEncPicture].contains(entrypoint)
                capabilities.append(Capability(
                    profile: String(cString: vaProfileStr(profile)), entrypoint: String(cString: vaEntrypointStr(entrypoint)),
                    rtFormats: names(rt, [(UInt32(VA_RT_FORMAT_YUV420), "YUV420"), (UInt32(VA_RT_FORMAT_YUV422), "YUV422"),
                                          (UInt32(VA_RT_FORMAT_YUV444), "YUV444"), (UInt32(VA_RT_FORMAT_YUV420_10), "YUV420_10"),
                                          (UInt32(VA_RT_FORMAT_YUV400), "YUV400")]),
                    rateControl: names(rc, [(UInt32(VA_RC_CQP), "CQP"), (UInt32(VA_RC_CBR), "CBR"), (UInt32(VA_RC_VBR), "VBR"),
                                            (UInt32(VA_RC_ICQ), "ICQ"), (UInt32(VA_RC_QVBR), "QVBR"), (UInt32(VA_RC_AVBR), "AVBR")]),
                    packedHeaders: packedHeaderList(packed),
                    maxSize: size,
                    encodeLimits: encodes ? EncodeLimits(VAEncodeCapabilities.query(connection, profile: profile, entrypoint: entrypoint)) : nil))
            }
        }
        let encoders = encodeChoices(connection)
        let devices = deviceSummaries(current: connection)
        if parsed.has("json") {
            let json = JSONValue.object([
                ("encode", .array(encoders.map { e in
                    .object([("codec", .string(e.codec)), ("profile", .string(e.profile)), ("entrypoint", .string(e.entrypoint)),
                             ("low_power_entrypoint", .string(e.lowPowerEntrypoint)),
                             ("l0", .int(e.l0)), ("l1", .int(e.l1)), ("packed_headers", .string(e.packed)),
                             ("entrypoints", .array(e.entrypoints.map { choice in
                                 .object([("entrypoint", .string(choice.entrypoint)), ("chosen_by", .array(choice.chosenBy.map(JSONValue.string))),
                                          ("l0", .int(choice.limits.l0)), ("l1", .int(choice.limits.l1)), ("max_slices", .int(choice.limits.slices)),
                                          ("packed_headers", .string(choice.packed))])
                             }))])
                })),
                ("devices", .array(devices.map { d in
                    .object([("device", .string(d.path)), ("vendor", d.vendor.map(JSONValue.string) ?? .null),
                             ("jobs", .string(d.jobs))])
                })),
                ("device", .string(connection.devicePath)),
                ("vendor", .string(connection.vendor)),
                ("va_version", .string("\(connection.version.major).\(connection.version.minor)")),
                ("software", .bool(connection.isSoftware)),
                ("capabilities", .array(capabilities.map { c in
                    .object([
                        ("profile", .string(c.profile)), ("entrypoint", .string(c.entrypoint)),
                        ("rt_formats", .array(c.rtFormats.map(JSONValue.string))),
                        ("rate_control", .array(c.rateControl.map(JSONValue.string))),
                        ("packed_headers", .array(c.packedHeaders.map(JSONValue.string))),
                        ("max_width", c.maxSize.map { .int($0.0) } ?? .null),
                        ("max_height", c.maxSize.map { .int($0.1) } ?? .null),
                        ("max_ref_l0", c.encodeLimits.map { .int($0.l0) } ?? .null),
                        ("max_ref_l1", c.encodeLimits.map { .int($0.l1) } ?? .null),
                        ("max_slices", c.encodeLimits.map { .int($0.slices) } ?? .null),
                    ])
                })),
            ])
            StandardStreams.out(json.text + "\n")
            return .success
        }
        var text = "device:     \(connection.devicePath)\(connection.isSoftware ? " (vtksoft, software)" : "")\n"
        text += "driver:     \(connection.vendor)\n"
        text += "VA-API:     \(connection.version.major).\(connection.version.minor)\n"
        for e in encoders {
            // Every entrypoint vtk may use, each with its own limits.
            for choice in e.entrypoints {
                text += "encode:     \(e.codec) \(e.profile) on \(choice.entrypoint) (\(choice.chosenBy.joined(separator: ", ")))"
                    + ", \(choice.limits.text), packed headers \(choice.packed)\(choice.lowDelayB ? ", low-delay B (list 1 = list 0)" : "")\n"
            }
        }
        if encoders.isEmpty { text += "encode:     none (no VAEntrypointEncSlice or VAEntrypointEncSliceLP for H.264)\n" }
        for d in devices { text += "candidate:  \(d.line)\n" }
        text += "\n"
        for c in capabilities {
            var line = "  \(c.profile.padding(28)) \(c.entrypoint.padding(22))"
            line += " " + c.rtFormats.joined(separator: ",")
            if !c.rateControl.isEmpty { line += "  rc: " + c.rateControl.joined(separator: ",") }
            if let limits = c.encodeLimits {
                line += "  packed: " + (c.packedHeaders.isEmpty ? "none" : c.packedHeaders.joined(separator: ","))
                line += "  refs: L0 \(limits.l0), L1 \(limits.l1)  slices: \(limits.slices)"
            }
            if let size = c.maxSize { line += "  max \(size.0)x\(size.1)" }
            text += line + "\n"
        }
        StandardStreams.out(text)
        return .success
    }

    /// One encode entrypoint of a profile: what picks it (the default, --low-power) and its own limits.
    struct EncodeEntrypoint {
        var entrypoint: String
        var chosenBy: [String]
        var limits: EncodeLimits
        var packed: String
        /// H.265 with list 1 but no FUTURE prediction direction: B pictures predict from past pictures only.
        var lowDelayB = false
    }

    /// The encode entrypoint vtk negotiates for each H.264 and H.265 profile (EncSlice, then EncSliceLP; LP
    /// first with --low-power), and every entrypoint either choice lands on, each with its own limits.
    static func encodeChoices(_ connection: VADisplayConnection)
        -> [(codec: String, profile: String, entrypoint: String, lowPowerEntrypoint: String, l0: Int, l1: Int, packed: String, entrypoints: [EncodeEntrypoint])] {
        let profiles: [(VAProfile, String, String)] = [(VAProfileH264ConstrainedBaseline, "H.264", "Constrained Baseline"), (VAProfileH264Main, "H.264", "Main"),
                                                       (VAProfileH264High, "H.264", "High"), (VAProfileHEVCMain, "H.265", "Main"),
                                                       (VAProfileHEVCMain10, "H.265", "Main 10")]
        return profiles.compactMap { profile, codec, name in
            guard let caps = VAEncodeCapabilities.query(connection, profile: profile),
                  let lowPower = VAEncodeCapabilities.query(connection, profile: profile, lowPower: true) else { return nil }
            var entrypoints: [EncodeEntrypoint] = []
            for (choice, role) in [(caps, "default"), (lowPower, "--low-power")] {
                if let i = entrypoints.firstIndex(where: { $0.entrypoint == choice.entrypointName }) {
                    entrypoints[i].chosenBy.append(role)
                } else {
                    entrypoints.append(EncodeEntrypoint(entrypoint: choice.entrypointName, chosenBy: [role], limits: EncodeLimits(choice),
                                                        packed: VAEncodeCapabilities.packedHeaderNames(choice.packedHeaders),
                                                        lowDelayB: codec == "H.265" && choice.maxReferencesL1 > 0 && !choice.predictsFromFuture))
                }
            }
            return (codec, name, caps.entrypointName, lowPower.entrypointName, caps.maxReferencesL0, caps.maxReferencesL1,
                    VAEncodeCapabilities.packedHeaderNames(caps.packedHeaders), entrypoints)
        }
    }

    /// One device `--device auto` would consider: its path, its driver's vendor string, what vtk can do with it.
    struct DeviceSummary {
        var path: String
        var vendor: String?
        /// "decode, encode", "nothing vtk uses", or why the device is unavailable.
        var jobs: String

        /// "PATH: VENDOR; can JOBS", without saying the name twice when the vendor string starts with the path
        /// (vtksoft's is "vtksoft: software VA-API driver ...").
        var line: String {
            guard let vendor else { return "\(path): \(jobs)" }
            var described = vendor
            if described.hasPrefix(path) {
                described = String(described.dropFirst(path.count).trimming { $0 == ":" || $0 == " " })
            }
            return "\(path): \(described.isEmpty ? "" : described + "; ")\(jobs == "nothing vtk uses" ? jobs : "can " + jobs)"
        }
    }

    /// Every device `--device auto` would consider, in its order, and what each can do.
    static func deviceSummaries(current: VADisplayConnection) -> [DeviceSummary] {
        VADisplayConnection.allDevices().map { path, result in
            switch result {
            case .success(let device):
                let jobs = [("decode", VADeviceJob.decode(nil)), ("encode", VADeviceJob.encode)].filter { device.canDo($0.1) }.map(\.0)
                return DeviceSummary(path: path, vendor: device.vendor, jobs: jobs.isEmpty ? "nothing vtk uses" : jobs.joined(separator: ", "))
            case .failure(let error):
                return DeviceSummary(path: path, vendor: nil, jobs: "unavailable (\(error))")
            }
        }
    }

    static func names(_ mask: UInt32, _ table: [(UInt32, String)]) -> [String] {
        table.filter { mask & $0.0 != 0 }.map(\.1)
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
