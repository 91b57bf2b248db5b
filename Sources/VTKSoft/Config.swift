import CLibVA

/// A VA config: the profile and entrypoint a context will run, and the attributes chosen for it.
struct Config {
    let profile: VAProfile
    let entrypoint: VAEntrypoint
    let rateControl: UInt32

    var isDecode: Bool { entrypoint == VAEntrypointVLD }
}
