import CLibVA
#if canImport(Glibc)
import Glibc
#endif

/// What a device is wanted for, so `--device auto` can pass over devices that cannot do it (a decode-only
/// driver such as nvidia-vaapi-driver when encoding).
public enum VADeviceJob: Hashable, Sendable, CustomStringConvertible {
    /// Any device whose driver initialises.
    case any
    /// VLD for this profile (any H.264 profile when nil).
    case decode(VAProfile?)
    /// EncSlice or EncSliceLP for any H.264 profile.
    case encode

    public var description: String {
        switch self {
        case .any: return "any job"
        case .decode(let profile?): return "decoding (VLD for profile \(profile.rawValue))"
        case .decode(nil): return "H.264 decoding (VLD)"
        case .encode: return "H.264 encoding (EncSlice or EncSliceLP)"
        }
    }

    static let h264Profiles: [VAProfile] = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]

    /// Whether a driver offering `entrypoints(profile)` for its `profiles` can do this job.
    public func isSatisfied(profiles: [VAProfile], entrypoints: (VAProfile) -> [VAEntrypoint]) -> Bool {
        switch self {
        case .any: return true
        case .decode(let wanted):
            let candidates = wanted.map { [$0] } ?? Self.h264Profiles
            return candidates.contains { profiles.contains($0) && entrypoints($0).contains(VAEntrypointVLD) }
        case .encode:
            return Self.h264Profiles.contains { profile in
                profiles.contains(profile) && entrypoints(profile).contains { $0 == VAEntrypointEncSlice || $0 == VAEntrypointEncSliceLP }
            }
        }
    }
}

extension VADisplayConnection {
    /// Whether this device's driver can do `job`.
    public func canDo(_ job: VADeviceJob) -> Bool {
        job.isSatisfied(profiles: profiles(), entrypoints: entrypoints(for:))
    }

    /// Opens the device the user chose. With `automatic`, the first render node whose driver initialises
    /// and can do `job`, then the next, then vtksoft; a named device is taken as it is.
    public static func open(_ choice: VADeviceChoice, for job: VADeviceJob) throws -> VADisplayConnection {
        guard choice == .automatic, job != .any else { return try open(choice) }
        var tried: [String] = []
        let found = firstCapable(candidateDevices(), open: { try openCandidate($0) }, capable: { $0.canDo(job) }, tried: &tried, job: job)
        if let found { return found }
        do { return try openSoftware() } catch { tried.append("vtksoft: \(error)"); throw VADeviceError.noDriver(tried) }
    }

    /// The first of `candidates` that opens and is `capable`; what was passed over, and why, goes to `tried`.
    public static func firstCapable<Device>(_ candidates: [String], open: (String) throws -> Device, capable: (Device) -> Bool,
                                     tried: inout [String], job: VADeviceJob) -> Device? {
        for candidate in candidates {
            do {
                let device = try open(candidate)
                if capable(device) { return device }
                tried.append("\(candidate): its driver cannot do \(job)")
            } catch { tried.append("\(candidate): \(error)") }
        }
        return nil
    }

    /// Every candidate device and vtksoft, each opened or with the reason it could not be (for `vtk info`).
    public static func allDevices() -> [(path: String, result: Result<VADisplayConnection, Error>)] {
        var out: [(String, Result<VADisplayConnection, Error>)] = candidateDevices().map { node in (node, Result { try openCandidate(node) }) }
        out.append(("vtksoft", Result { try openSoftware() }))
        return out
    }
}

extension VADisplayConnection {
    /// The devices `--device auto` tries, in order: `VTK_DEVICES` when set (comma-separated render nodes or
    /// `soft:NAME`, vtksoft as persona NAME, so personas can stand in for a machine's GPUs), else
    /// /dev/dri/renderD*. vtksoft itself comes after them all.
    public static func candidateDevices() -> [String] {
        guard let value = getenv("VTK_DEVICES") else { return renderNodes() }
        return String(cString: value).split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty }
    }

    /// Opens one candidate device: `soft:NAME` is vtksoft as persona NAME (its path is that name, so what
    /// `--device auto` chose is visible), anything else a DRM node.
    public static func openCandidate(_ candidate: String) throws -> VADisplayConnection {
        guard case .softwarePersona(let name) = VADeviceChoice(candidate) else { return try openDRM(candidate) }
        return try openSoftware(devicePath: candidate, persona: name)
    }
}
