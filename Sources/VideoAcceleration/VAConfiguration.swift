import CLibVA

/// A VA configuration (profile + entrypoint + attributes), destroyed with the object.
public final class VAConfiguration: @unchecked Sendable {
    public let id: VAConfigID
    public let profile: VAProfile
    public let entrypoint: VAEntrypoint
    let connection: VADisplayConnection

    public init(_ connection: VADisplayConnection, profile: VAProfile, entrypoint: VAEntrypoint,
                attributes: [VAConfigAttrib] = [VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420))]) throws(VAError) {
        var list = attributes
        var id = VAConfigID(VA_INVALID_ID)
        try VAError.check(vaCreateConfig(connection.display, profile, entrypoint, &list, Int32(list.count), &id),
                          "vaCreateConfig(\(String(cString: vaProfileStr(profile))), \(String(cString: vaEntrypointStr(entrypoint))))")
        self.id = id
        self.profile = profile
        self.entrypoint = entrypoint
        self.connection = connection
    }

    deinit { vaDestroyConfig(connection.display, id) }
}
