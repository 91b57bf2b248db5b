import CLibVA

/// A VA config: the profile and entrypoint a context will run, and the attributes chosen for it.
struct Config {
    let profile: VAProfile
    let entrypoint: VAEntrypoint
    let rateControl: UInt32
    /// VA_ENC_PACKED_HEADER_* the client said it will send (encode only).
    var packedHeaders: UInt32 = 0

    var isDecode: Bool { entrypoint == VAEntrypointVLD }
}
