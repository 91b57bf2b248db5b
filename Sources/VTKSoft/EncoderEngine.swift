import Glibc

/// Which engine codes H.264 in vtksoft: its own (H264Encoding) or openh264, the fast one.
/// `VTKSOFT_ENCODER=native|openh264` chooses, once per process (the vendor string says which).
enum EncoderEngine: String {
    case native
    case openh264

    static let defaultEngine = EncoderEngine.openh264

    static let selected: EncoderEngine = {
        guard let value = getenv("VTKSOFT_ENCODER"), let engine = EncoderEngine(rawValue: String(cString: value)) else { return defaultEngine }
        return engine
    }()
}
