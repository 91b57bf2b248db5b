import CLibVA
import H264Bitstream

/// H.264 streams vtk refuses before decoding, each with its reason: what VA cannot take (High 10, 4:2:2,
/// 4:4:4) and the multi-layer extensions (SVC, Annex G; MVC, Annex H) whose layers vtk does not decode.
/// Monochrome (4:0:0) High streams are decoded, into 4:2:0 with chroma at 128.
public enum H264StreamSupport {
    /// The libva vtk was built against, as its va_version.h says.
    static let libva = "libva \(VA_MAJOR_VERSION).\(VA_MINOR_VERSION)"

    /// Why vtk does not decode an access unit, or nil: an SVC or MVC NAL unit in it (prefix 14, subset SPS 15,
    /// coded slice extension 20, 3D-AVC 21), or a picture whose SPS vtk cannot decode.
    public static func refusal(for unit: AccessUnit) -> String? {
        for nal in unit.nalUnits {
            if let why = refusal(extension: nal) { return why }
        }
        guard let slice = unit.slices.first, let pps = unit.parameterSets.pps[slice.header.picParameterSetId],
              let sps = unit.parameterSets.sps[pps.seqParameterSetId] else { return nil }
        return refusal(for: sps)
    }

    /// Why vtk does not decode pictures of `sps`, or nil (A.2: the profile, and the chroma format and bit
    /// depth whatever profile_idc says).
    public static func refusal(for sps: SequenceParameterSet) -> String? {
        let idc = Int(sps.profileIdc)
        if let multiLayer = multiLayerName(profileIdc: idc) { return multiLayerReason(multiLayer, profileIdc: idc) }
        let depth = max(sps.bitDepthLuma, sps.bitDepthChroma)
        // The name is written only for a refusal: this runs for every access unit.
        var what: String { "H.264 \(H264Profile(sps: sps).name) (profile_idc \(idc), \(chromaName(sps.chromaFormatIdc)), \(depth)-bit)" }
        if sps.chromaFormatIdc == 3 || idc == 244 || idc == 44 {
            return "\(what): VA-API (\(libva)) has no H.264 4:4:4 decode profile"
        }
        if sps.chromaFormatIdc == 2 || idc == 122 {
            return "\(what): VA-API (\(libva)) has no H.264 4:2:2 decode profile"
        }
        if depth > 8 || idc == 110 {
            return "\(what): \(libva) has no H.264 High 10 profile"
        }
        return nil
    }

    /// An SVC or MVC NAL unit (7.4.1: types 14, 15, 20 and 21 belong to Annexes G, H and J).
    static func refusal(extension nal: NALUnit) -> String? {
        let type = nal.type.rawValue
        guard [14, 15, 20, 21].contains(type) else { return nil }
        let payload = nal.bytes.dropFirst()
        if type == 15, let idc = payload.first {
            // subset_seq_parameter_set_rbsp() starts with profile_idc (7.3.2.1.3).
            let name = multiLayerName(profileIdc: Int(idc)) ?? "SVC or MVC"
            return multiLayerReason(name, profileIdc: Int(idc))
        }
        if type == 21 { return multiLayerReason("3D-AVC", profileIdc: nil) }
        // nal_unit_header_svc_extension or _mvc_extension: svc_extension_flag first (7.3.1).
        let svc = (payload.first ?? 0) & 0x80 != 0
        return multiLayerReason(svc ? "SVC" : "MVC", profileIdc: nil)
    }

    /// A.2 / G.10 / H.10: the multi-layer profiles by profile_idc.
    static func multiLayerName(profileIdc idc: Int) -> String? {
        switch idc {
        case 83: return "SVC (Scalable Baseline)"
        case 86: return "SVC (Scalable High)"
        case 118: return "MVC (Multiview High)"
        case 128: return "MVC (Stereo High)"
        case 134, 135, 138, 139: return "MVC (profile_idc \(idc))"
        default: return nil
        }
    }

    static func multiLayerReason(_ name: String, profileIdc: Int?) -> String {
        let idc = profileIdc.map { name.contains("profile_idc") ? "" : ", profile_idc \($0)" } ?? ""
        return "H.264 \(name)\(idc): vtk decodes single-layer streams only (no SVC or MVC layers beyond the base)"
    }

    static func chromaName(_ idc: Int) -> String {
        ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][min(max(idc, 0), 3)]
    }
}
