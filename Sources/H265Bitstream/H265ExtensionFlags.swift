import NALStream

/// The flags that end an SPS or a PPS and say which extensions follow (7.3.2.2.1, 7.3.2.3.1): the same
/// syntax in both, under the prefix `sps_` or `pps_`.
public struct H265ExtensionFlags: Hashable, Sendable {
    /// *_extension_present_flag.
    public var present = false
    public var range = false
    public var multilayer = false
    public var threeD = false
    /// Screen content coding.
    public var scc = false
    public var fourBits = 0

    public init() {}

    /// Reads `<prefix>_extension_present_flag` and, when it is set, the flags after it.
    init(_ r: inout SyntaxReader, prefix: String) throws(BitstreamError) {
        present = try r.flag("\(prefix)_extension_present_flag")
        guard present else { return }
        range = try r.flag("\(prefix)_range_extension_flag")
        multilayer = try r.flag("\(prefix)_multilayer_extension_flag")
        threeD = try r.flag("\(prefix)_3d_extension_flag")
        scc = try r.flag("\(prefix)_scc_extension_flag")
        fourBits = try r.u(4, "\(prefix)_extension_4bits")
    }
}
