import CLibVA
import Glibc

/// A driver vtksoft behaves as: what it advertises (profiles, entrypoints, every config attribute, surface
/// and image formats, limits) as data, and where real drivers differ in behaviour, the strategies it uses.
/// `VTKSOFT_PERSONA=NAME` chooses one per display at vaInitialize; `vtksoft` is the default.
struct Persona: Sendable {
    /// One config attribute as the real driver reports it for a (profile, entrypoint).
    struct Attribute: Sendable {
        let type: VAConfigAttribType
        let value: UInt32
        init(_ type: VAConfigAttribType, _ value: UInt32) {
            self.type = type
            self.value = value
        }
        init(_ type: VAConfigAttribType, _ value: Int32) { self.init(type, UInt32(bitPattern: value)) }
    }

    /// An entrypoint of some profiles with its attributes.
    struct Entry: Sendable {
        let profiles: [VAProfile]
        let entrypoint: VAEntrypoint
        let attributes: [Attribute]
    }

    let name: String
    let vendor: String
    /// Every (profiles, entrypoint) the real driver lists, in its order; those vtksoft cannot run
    /// (``VTKSoftAbilities``) are kept in the table and not advertised.
    let entries: [Entry]
    let imageFormats: [UInt32]
    let maxWidth: Int
    let maxHeight: Int
    let packedHeaders: PackedHeaderPolicy
    let imageAccess: ImageAccess
    /// The encoder engine: personas that take packed headers from the client need the native one.
    let encoder: EncoderEngine?
    /// What vaPutSurface does.
    var presentation: Presentation = .x11
    /// Decodes H.264 field pictures, PAFF and MBAFF. VA has no attribute for it (only EncInterlaced, for
    /// encode): a driver shows it by decoding them, and one without refuses such pictures at vaEndPicture
    /// (UNIMPLEMENTED). Every driver modelled has it: iHD and i965 (Intel's MFX AVC decode takes field and
    /// MBAFF pictures), radeonsi (Mesa's VA frontend passes field_pic_flag and bottom_field_flag to UVD/VCN),
    /// and nvidia-vaapi-driver (src/h264.c: field_pic_flag, bottom_field_flag from CurrPic's flags,
    /// MbaffFrameFlag to NVDEC). ../shared/personas/README.md lists only EncInterlaced NONE.
    var interlacedDecode = true

    // MARK: What is advertised

    /// Entries vtksoft can run, with the attribute values narrowed to what it implements.
    var advertised: [Entry] {
        entries.compactMap { entry in
            let profiles = entry.profiles.filter { VTKSoftAbilities.runs($0, entry.entrypoint) }
            guard !profiles.isEmpty else { return nil }
            return Entry(profiles: profiles, entrypoint: entry.entrypoint,
                         attributes: entry.attributes.map { Attribute($0.type, VTKSoftAbilities.narrow($0.type, $0.value)) })
        }
    }

    var profiles: [VAProfile] {
        var list: [VAProfile] = []
        for entry in advertised { for p in entry.profiles where !list.contains(p) { list.append(p) } }
        return list
    }

    func entrypoints(_ profile: VAProfile) -> [VAEntrypoint] {
        advertised.filter { $0.profiles.contains(profile) }.map(\.entrypoint)
    }

    static let notSupported: UInt32 = 0x8000_0000  // VA_ATTRIB_NOT_SUPPORTED

    func check(_ profile: VAProfile, _ entrypoint: VAEntrypoint) throws(VAError) {
        guard profiles.contains(profile) else { throw .unsupportedProfile }
        guard entrypoints(profile).contains(entrypoint) else { throw .unsupportedEntrypoint }
    }

    /// The value of one config attribute, or VA_ATTRIB_NOT_SUPPORTED.
    func attribute(_ type: VAConfigAttribType, profile: VAProfile, entrypoint: VAEntrypoint) -> UInt32 {
        guard let entry = advertised.first(where: { $0.entrypoint == entrypoint && $0.profiles.contains(profile) }),
              let attribute = entry.attributes.first(where: { $0.type == type }) else { return Self.notSupported }
        return attribute.value
    }

    var maxEntrypointCount: Int { profiles.map { entrypoints($0).count }.max() ?? 1 }

    var vaImageFormats: [VAImageFormat] {
        imageFormats.map(ImageLayout.vaFormat)
    }

    // MARK: Choice

    static let all: [Persona] = [.vtksoft, .ihdGen12, .ihdGen12NoHuC, .ihdDG2, .i965Gen9, .radeonsi24, .radeonsi26, .nvidia]

    static func named(_ name: String) -> Persona? { all.first { $0.name == name } }

    /// `VTKSOFT_PERSONA`, or the default; nil (and a message on stderr) for an unknown name.
    static func fromEnvironment() -> Persona? {
        guard let value = getenv("VTKSOFT_PERSONA"), value.pointee != 0 else { return .vtksoft }
        let name = String(cString: value)
        if let persona = named(name) { return persona }
        let message = "vtksoft: unknown VTKSOFT_PERSONA '\(name)'; known: \(all.map(\.name).joined(separator: ", "))\n"
        _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        return nil
    }

    /// Vendor strings live as long as the process: libva keeps the pointer.
    nonisolated(unsafe) static let vendorStrings: [String: UnsafeMutablePointer<CChar>] =
        Dictionary(uniqueKeysWithValues: all.compactMap { persona in strdup(persona.vendor).map { (persona.name, $0) } })
}
