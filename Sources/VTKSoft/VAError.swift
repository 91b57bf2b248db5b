import CLibVA

/// A VA status code carried as a Swift error, so that validation reads as a chain of `try`s and the
/// C boundary turns it back into the VAStatus the client sees.
struct VAError: Error {
    let status: VAStatus
    /// Why, in words, for the capture and the log (the client only sees the status).
    var reason: String?
    init(_ status: Int32) { self.status = VAStatus(status) }

    /// The same status with the reason it was returned.
    func because(_ reason: String) -> VAError {
        var error = self
        error.reason = reason
        return error
    }

    static let invalidConfig = VAError(VA_STATUS_ERROR_INVALID_CONFIG)
    static let invalidContext = VAError(VA_STATUS_ERROR_INVALID_CONTEXT)
    static let invalidSurface = VAError(VA_STATUS_ERROR_INVALID_SURFACE)
    static let invalidBuffer = VAError(VA_STATUS_ERROR_INVALID_BUFFER)
    static let invalidImage = VAError(VA_STATUS_ERROR_INVALID_IMAGE)
    static let invalidParameter = VAError(VA_STATUS_ERROR_INVALID_PARAMETER)
    static let operationFailed = VAError(VA_STATUS_ERROR_OPERATION_FAILED)
    static let allocationFailed = VAError(VA_STATUS_ERROR_ALLOCATION_FAILED)
    static let unsupportedProfile = VAError(VA_STATUS_ERROR_UNSUPPORTED_PROFILE)
    static let unsupportedEntrypoint = VAError(VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT)
    static let unsupportedRTFormat = VAError(VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT)
    static let unsupportedBufferType = VAError(VA_STATUS_ERROR_UNSUPPORTED_BUFFERTYPE)
    static let invalidImageFormat = VAError(VA_STATUS_ERROR_INVALID_IMAGE_FORMAT)
    static let unimplemented = VAError(VA_STATUS_ERROR_UNIMPLEMENTED)
    static let attributeNotSupported = VAError(VA_STATUS_ERROR_ATTR_NOT_SUPPORTED)
    static let surfaceBusy = VAError(VA_STATUS_ERROR_SURFACE_BUSY)
    static let notEnoughBuffer = VAError(VA_STATUS_ERROR_NOT_ENOUGH_BUFFER)
    static let invalidValue = VAError(VA_STATUS_ERROR_INVALID_VALUE)
    static let resolutionNotSupported = VAError(VA_STATUS_ERROR_RESOLUTION_NOT_SUPPORTED)
    static let decodingError = VAError(VA_STATUS_ERROR_DECODING_ERROR)
    static let encodingError = VAError(VA_STATUS_ERROR_ENCODING_ERROR)
}
