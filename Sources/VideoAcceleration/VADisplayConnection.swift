import CLibVA
#if canImport(Glibc)
import Glibc
#endif

/// Which VA device to use.
public enum VADeviceChoice: Hashable, Sendable, CustomStringConvertible {
    /// The first /dev/dri/renderD* (or `VTK_DEVICES` entry) whose driver initialises, else vtksoft.
    case automatic
    /// vtksoft, the software driver, even where hardware exists.
    case software
    /// vtksoft behaving as a real driver (`soft:NAME`, e.g. ihd-gen12, nvidia): that display only, set through
    /// vtksoft's per-display hook; VTKSOFT_PERSONA, which vtksoft reads at vaInitialize, is not touched.
    case softwarePersona(String)
    /// A DRM render node or card, e.g. /dev/dri/renderD128.
    case path(String)

    /// Parses the CLI's `--device auto|soft|PATH`.
    public init(_ text: String) {
        switch text {
        case "auto", "": self = .automatic
        case "soft", "software", "vtksoft": self = .software
        case let text where text.hasPrefix("soft:"): self = .softwarePersona(String(text.dropFirst(5)))
        default: self = .path(text)
        }
    }

    public var description: String {
        switch self {
        case .automatic: return "auto"
        case .software: return "soft"
        case .softwarePersona(let name): return "soft:\(name)"
        case .path(let p): return p
        }
    }
}

/// An initialised VA display: the device, its driver, and the display handle every VA call needs.
/// Terminated (and the device closed) when the last reference goes away.
public final class VADisplayConnection: @unchecked Sendable {
    public let display: VADisplay
    /// "/dev/dri/renderD128", or "vtksoft" for the software driver.
    public let devicePath: String
    public let vendor: String
    public let version: (major: Int32, minor: Int32)
    /// vtksoft, on a display with no device or on an X11 connection.
    public let isSoftware: Bool
    private let fd: Int32
    /// The X connection of a display opened with ``openX11(_:displayName:for:)``, closed after vaTerminate.
    let x11: X11Connection?

    /// Initialises `display`; a vtksoft display given a `persona` behaves as that persona from then on
    /// (its vendor string included).
    init(display: VADisplay, devicePath: String, fd: Int32, software: Bool, x11: X11Connection? = nil,
         persona: String? = nil) throws(VAError) {
        self.display = display
        self.devicePath = devicePath
        self.fd = fd
        self.isSoftware = software
        self.x11 = x11
        var major: Int32 = 0, minor: Int32 = 0
        let status = vaInitialize(display, &major, &minor)
        if status != VA_STATUS_SUCCESS {
            vaTerminate(display)
            if fd >= 0 { close(fd) }
            throw VAError("vaInitialize(\(devicePath))", status)
        }
        if let persona {
            do { try Self.adoptPersona(persona, display: display) } catch {
                vaTerminate(display)
                if fd >= 0 { close(fd) }
                throw error
            }
        }
        version = (major, minor)
        vendor = vaQueryVendorString(display).map { String(cString: $0) } ?? "unknown"
    }

    deinit {
        vaTerminate(display)
        if fd >= 0 { close(fd) }
    }

    /// Opens the device the user chose; `automatic` prefers hardware.
    public static func open(_ choice: VADeviceChoice) throws -> VADisplayConnection {
        switch choice {
        case .path(let path):
            return try openDRM(path)
        case .software:
            return try openSoftware()
        case .softwarePersona(let name):
            return try openSoftware(persona: name)
        case .automatic:
            var tried: [String] = []
            for node in candidateDevices() {
                do { return try openCandidate(node) } catch { tried.append("\(node): \(error)") }
            }
            do { return try openSoftware() } catch { tried.append("vtksoft: \(error)"); throw VADeviceError.noDriver(tried) }
        }
    }

    /// /dev/dri/renderD* in order.
    public static func renderNodes() -> [String] {
        guard let dir = opendir("/dev/dri") else { return [] }
        defer { closedir(dir) }
        var nodes: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("renderD") { nodes.append("/dev/dri/" + name) }
        }
        return nodes.sorted()
    }

    public static func openDRM(_ path: String) throws -> VADisplayConnection {
        guard access(path, F_OK) == 0 else { throw VADeviceError.deviceNotFound(path) }
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw VADeviceError.cannotOpen(path, errno: errno) }
        guard let display = vaGetDisplayDRM(fd) else {
            close(fd)
            throw VAError("vaGetDisplayDRM(\(path))", VAStatus(VA_STATUS_ERROR_INVALID_DISPLAY))
        }
        return try VADisplayConnection(display: display, devicePath: path, fd: fd, software: false)
    }

    /// A display with no device for vtksoft: what libva's DRM back end builds, without the file descriptor
    /// (vtksoft never uses one). libva loads the driver named by the callbacks from LIBVA_DRIVERS_PATH, which
    /// must lead to vtksoft (``SoftwareDriverLocation/searchPathLeadingToSoftware()``, set by the program's main).
    /// With `persona`, the display is vtksoft as that persona (`soft:NAME`); other displays are not touched.
    public static func openSoftware(devicePath: String = "vtksoft", persona: String? = nil) throws -> VADisplayConnection {
        try SoftwareDriverLocation.checkSearchPath()
        _ = SoftwareDriverLocation.loadedLazily
        return try VADisplayConnection(display: softwareDisplay(), devicePath: devicePath, fd: -1, software: true, persona: persona)
    }

    /// Makes an initialised vtksoft display behave as persona `name`, through the driver's per-display hook
    /// `vtksoft_display_set_persona` (found in the display's driver with vaGetLibFunc).
    static func adoptPersona(_ name: String, display: VADisplay) throws(VAError) {
        typealias SetPersona = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32
        guard let function = vaGetLibFunc(display, "vtksoft_display_set_persona") else {
            throw VAError("vaGetLibFunc(vtksoft_display_set_persona)", VAStatus(VA_STATUS_ERROR_UNIMPLEMENTED),
                          detail: "the display's driver is not vtksoft, so it has no persona \(name)")
        }
        let setPersona = unsafeBitCast(function, to: SetPersona.self)
        guard name.withCString({ setPersona(display, $0) }) == 0 else {
            throw VAError("vtksoft_display_set_persona(\(name))", VAStatus(VA_STATUS_ERROR_INVALID_VALUE),
                          detail: "vtksoft has no persona '\(name)'")
        }
    }

    /// A display handle with no device behind it whose driver is vtksoft, not yet initialised (vaInitialize
    /// loads the driver from LIBVA_DRIVERS_PATH). For clients that manage vaInitialize and vaTerminate
    /// themselves, like the driver's own tests.
    public static func softwareDisplay() throws(VAError) -> VADisplay {
        guard let dctx = va_newDisplayContext() else { throw VAError("va_newDisplayContext", VAStatus(VA_STATUS_ERROR_ALLOCATION_FAILED)) }
        guard let ctx = va_newDriverContext(dctx) else {
            free(dctx)
            throw VAError("va_newDriverContext", VAStatus(VA_STATUS_ERROR_ALLOCATION_FAILED))
        }
        ctx.pointee.native_dpy = nil
        ctx.pointee.display_type = UInt(VA_DISPLAY_DRM)
        ctx.pointee.drm_state = nil
        dctx.pointee.vaIsValid = { dctx in dctx?.pointee.pDriverContext != nil ? 1 : 0 }
        dctx.pointee.vaDestroy = { dctx in
            guard let dctx else { return }
            free(dctx.pointee.pDriverContext)
            free(dctx)
        }
        nameSoftwareDriver(in: dctx)
        return VADisplay(dctx)
    }

    /// Makes libva load vtksoft, whatever driver the display's back end would have named.
    static func nameSoftwareDriver(in dctx: VADisplayContextP) {
        dctx.pointee.vaGetNumCandidates = { _, count in
            count?.pointee = 1
            return VAStatus(VA_STATUS_SUCCESS)
        }
        dctx.pointee.vaGetDriverNameByIndex = { _, name, _ in
            name?.pointee = strdup(SoftwareDriverLocation.driverName)
            return VAStatus(VA_STATUS_SUCCESS)
        }
    }

    // MARK: Capabilities

    public func profiles() -> [VAProfile] {
        var list = [VAProfile](repeating: VAProfileNone, count: Int(vaMaxNumProfiles(display)))
        var count: Int32 = 0
        guard vaQueryConfigProfiles(display, &list, &count) == VA_STATUS_SUCCESS else { return [] }
        return Array(list.prefix(Int(count)))
    }

    public func entrypoints(for profile: VAProfile) -> [VAEntrypoint] {
        var list = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(vaMaxNumEntrypoints(display)))
        var count: Int32 = 0
        guard vaQueryConfigEntrypoints(display, profile, &list, &count) == VA_STATUS_SUCCESS else { return [] }
        return Array(list.prefix(Int(count)))
    }

    /// Attribute values (VA_ATTRIB_NOT_SUPPORTED where the driver has none).
    public func attributes(_ types: [VAConfigAttribType], profile: VAProfile, entrypoint: VAEntrypoint) -> [VAConfigAttribType: UInt32] {
        var list = types.map { VAConfigAttrib(type: $0, value: 0) }
        guard vaGetConfigAttributes(display, profile, entrypoint, &list, Int32(list.count)) == VA_STATUS_SUCCESS else { return [:] }
        var out: [VAConfigAttribType: UInt32] = [:]
        for attribute in list { out[attribute.type] = attribute.value }
        return out
    }
}

extension VAConfigAttribType: @retroactive Hashable {}

/// Where vtk finds libvtksoft_drv_video.so: $LIBVA_DRIVERS_PATH, beside the running executable, its
/// ../lib, or the build directory it was built in.
public enum SoftwareDriverLocation {
    public static let driverName = "libvtksoft"
    public static let fileName = "libvtksoft_drv_video.so"

    public static func directory() throws -> String {
        var candidates: [String] = []
        if let path = getenv("VTKSOFT_DRIVERS_PATH").map({ String(cString: $0) }) { candidates.append(path) }
        if let path = getenv("LIBVA_DRIVERS_PATH").map({ String(cString: $0) }) {
            candidates += path.split(separator: ":").map(String.init)
        }
        if let exe = executableDirectory() {
            candidates += [exe, exe + "/../lib", exe + "/../lib/vtk"]
        }
        for dir in candidates where access(dir + "/" + fileName, R_OK) == 0 { return dir }
        throw VADeviceError.driverNotFound(candidates.isEmpty ? "(no candidate directory)" : candidates.joined(separator: ", "))
    }

    /// The LIBVA_DRIVERS_PATH under which libva loads vtksoft from ``directory()``, or nil when the present
    /// value already does. libva reads the variable at every vaInitialize, so a program sets it once in its
    /// main, before any thread starts (setenv is not thread-safe): library code never changes the environment.
    public static func searchPathLeadingToSoftware() throws -> String? {
        searchPath(leadingTo: try directory(), current: getenv("LIBVA_DRIVERS_PATH").map { String(cString: $0) },
                   libvaDefault: libvaDefaultDriversDirectory(), holdsDriver: { access($0 + "/" + fileName, R_OK) == 0 })
    }

    /// The search path that makes libva load vtksoft from `directory`: nil when `current` already does (its
    /// first entry holding the driver is `directory`), else `directory` first, then `current`'s entries (or,
    /// when it is unset, libva's default directory, so hardware drivers are still found).
    public static func searchPath(leadingTo directory: String, current: String?, libvaDefault: String?,
                                  holdsDriver: (String) -> Bool) -> String? {
        let entries = (current ?? "").split(separator: ":").map(String.init)
        if entries.first(where: holdsDriver) == directory { return nil }
        let rest = entries.isEmpty ? [libvaDefault].compactMap { $0 } : entries
        return ([directory] + rest.filter { $0 != directory }).joined(separator: ":")
    }

    /// Loads the vtksoft that libva will load (the first LIBVA_DRIVERS_PATH entry holding it), once, with lazy
    /// binding, before vaInitialize: libva's own dlopen (RTLD_NOW) then finds it loaded and binds nothing more,
    /// so functions of the driver's libraries that are never called (most of libavcodec's dependencies') are
    /// never looked up: about 8M instructions, 1 ms, of every run's start. False when it could not be loaded
    /// (vaInitialize then loads it, and says why it fails).
    ///
    /// The driver's own libraries (libavcodec's ~70) are searched first for the symbols they bind
    /// (RTLD_DEEPBIND), rather than after the ~40 of the program's, none of which holds them: ~15M
    /// instructions of ld.so's lookups at start. Not when something interposes on the process's symbols
    /// (``symbolsInterposed``), which the driver's libraries must then bind to.
    static let loadedLazily: Bool = {
        guard let path = getenv("LIBVA_DRIVERS_PATH").map({ String(cString: $0) }),
              let directory = path.split(separator: ":").map(String.init).first(where: { access($0 + "/" + fileName, R_OK) == 0 }) else { return false }
        return dlopen(directory + "/" + fileName, RTLD_LAZY | RTLD_GLOBAL | (symbolsInterposed ? 0 : RTLD_DEEPBIND)) != nil
    }()

    /// Libraries preloaded (LD_PRELOAD: a sanitizer's runtime, another allocator) or a sanitizer runtime in the
    /// program: their definitions (malloc, ...) must win over the driver libraries' own, as without RTLD_DEEPBIND.
    /// Valgrind's preloads (vgpreload_*) do not count: valgrind redirects the functions it replaces itself,
    /// whatever the binding.
    static var symbolsInterposed: Bool {
        let preloads = getenv("LD_PRELOAD").map { String(cString: $0) }?.split(whereSeparator: { $0 == ":" || $0 == " " }) ?? []
        if preloads.contains(where: { !($0.split(separator: "/").last ?? "").hasPrefix("vgpreload_") }) { return true }
        let process = dlopen(nil, RTLD_LAZY)
        defer { if let process { dlclose(process) } }
        let runtimes: [String] = ["__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"]
        return runtimes.contains { dlsym(process, $0) != nil }
    }

    /// Throws unless libva will load vtksoft: ``VADeviceError/driverNotFound(_:)`` when there is none,
    /// ``VADeviceError/driverNotOnSearchPath(directory:current:needed:)`` when LIBVA_DRIVERS_PATH misses it.
    static func checkSearchPath() throws {
        guard let needed = try searchPathLeadingToSoftware() else { return }
        throw VADeviceError.driverNotOnSearchPath(directory: try directory(), current: getenv("LIBVA_DRIVERS_PATH").map { String(cString: $0) },
                                                  needed: needed)
    }

    /// Where libva looks for drivers when LIBVA_DRIVERS_PATH is unset: `dri` beside the libva this process
    /// loaded (its build's default, `${libdir}/dri`; found in /proc/self/maps), or nil when it is not known.
    static func libvaDefaultDriversDirectory() -> String? {
        guard let maps = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(maps) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, maps) > 0, let line {
            // strstr first: most lines are other libraries, and String.contains costs more than the whole scan.
            guard strstr(line, "/libva.so") != nil else { continue }
            let text = String(cString: line)
            guard let start = text.firstIndex(of: "/") else { continue }
            let path = text[start...]  // the directory is all that is kept: the newline goes with the file name
            guard let slash = path.lastIndex(of: "/") else { continue }
            return String(path[..<slash]) + "/dri"
        }
        return nil
    }

    static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let path = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }
}
