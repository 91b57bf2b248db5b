import CLibVA
import Glibc

/// Which engine codes H.264 in vtksoft: its own (H264Encoding) or openh264, the fast one.
/// `VTKSOFT_ENCODER=native|openh264` chooses, once per process (the vendor string says which).
enum EncoderEngine: String {
    case native
    case openh264

    static let defaultEngine = EncoderEngine.native

    static let selected: EncoderEngine = {
        guard let value = getenv("VTKSOFT_ENCODER"), let engine = EncoderEngine(rawValue: String(cString: value)) else { return defaultEngine }
        return engine
    }()
}

/// Sets the encoder engine of one display (a VADisplay) for the contexts it creates from now on, so that a
/// test can use both engines in one process without touching the environment. `name`: "native" or
/// "openh264". Returns 0, or -1 for a display that is not vtksoft's or an unknown name.
@_cdecl("vtksoft_display_set_encoder")
public func vtksoftDisplaySetEncoder(_ display: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guard let name, let engine = EncoderEngine(rawValue: String(cString: name)),
          let dctx = display?.assumingMemoryBound(to: VADisplayContext.self),
          let ctx = dctx.pointee.pDriverContext, let raw = ctx.pointee.pDriverData else { return -1 }
    let driver = Unmanaged<Driver>.fromOpaque(raw).takeUnretainedValue()
    driver.lock.withLock { driver.encoderEngine = engine }
    return 0
}
