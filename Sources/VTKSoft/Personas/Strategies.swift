import CLibVA

/// Who writes SPS/PPS and what becomes of the client's packed headers: the way real drivers differ most.
enum PackedHeaderPolicy: String, Sendable {
    /// iHD, Mesa 25+: packed headers inserted as sent; SPS/PPS written by the driver unless the client
    /// sends packed sequence headers (codechal_vdenc_avc.cpp).
    case driverUnlessClient
    /// i965: SPS/PPS/SEI only from the client's packed headers, none written by the driver
    /// (gen9_mfc_avc_inset_headers has no else-branch); slice headers built by the driver when none is packed.
    case clientOnly
    /// radeonsi 24.x: packed SEQUENCE accepted and not inserted (Mesa reads a few VUI fields from it; vtksoft
    /// takes nothing from it), other packed types ignored (the frontend returns UNIMPLEMENTED internally and
    /// carries on); the driver writes its own SPS/PPS and slice headers.
    case driverOnly

    /// Whether a packed header of `kind` goes into the stream.
    func inserts(_ kind: PackedHeader.Kind) -> Bool { self != .driverOnly }

    /// Whether the driver writes its own SPS/PPS on IDRs, given the packed headers the client said it sends.
    func writesParameterSets(configPackedHeaders: UInt32) -> Bool {
        switch self {
        case .driverUnlessClient: return configPackedHeaders & UInt32(VA_ENC_PACKED_HEADER_SEQUENCE) == 0
        case .clientOnly: return false
        case .driverOnly: return true
        }
    }
}

/// Whether vaDeriveImage maps a surface (most drivers) or is refused (nvidia-vaapi-driver: clients must use
/// vaGetImage).
enum ImageAccess: Sendable {
    case derive
    case copyOnly

    func checkDerive() throws(VAError) {
        if self == .copyOnly { throw .operationFailed }
    }
}

/// When a picture's work runs: on the display's worker thread as hardware does (vaEndPicture returns at once,
/// errors come from vaSyncSurface), or inside vaEndPicture (vtksoft's strict default, whose tests check the
/// status vaEndPicture gives).
enum WorkTiming: Sendable {
    case worker
    case inline
}

/// Whether vaPutSurface draws on an X11 drawable (iHD, i965, Mesa) or is refused as unimplemented
/// (nvidia-vaapi-driver: nvPutSurface returns VA_STATUS_ERROR_UNIMPLEMENTED; clients present otherwise).
enum Presentation: Sendable {
    case x11
    case unavailable
}
