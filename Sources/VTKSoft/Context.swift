import CLibVA

/// One parameter buffer handed to vaRenderPicture, copied so the client may reuse its buffer at once.
struct RenderedBuffer {
    let type: VABufferType
    let elementSize: Int
    let elementCount: Int
    let bytes: [UInt8]

    /// Element `index` as the C struct `T`; the size was checked when the buffer was created.
    func element<T>(_ index: Int = 0, as: T.Type) -> T {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * elementSize, as: T.self) }
    }
}

/// A VA context: a decode or encode session and the picture being assembled between vaBeginPicture
/// and vaEndPicture.
final class Context {
    let config: Config
    let width: Int
    let height: Int
    let renderTargets: [VASurfaceID]
    let backend: CodecBackend

    /// Set by vaBeginPicture, cleared by vaEndPicture.
    var renderTarget: VASurfaceID?
    var rendered: [RenderedBuffer] = []

    init(config: Config, width: Int, height: Int, renderTargets: [VASurfaceID], backend: CodecBackend) {
        self.config = config
        self.width = width
        self.height = height
        self.renderTargets = renderTargets
        self.backend = backend
    }
}

enum CodecBackend {
    case decode(any PictureDecoding)
    case encode(OpenH264EncodeSession)
    case nativeEncode(NativeEncodeSession)
    case hevcEncode(HEVCEncodeSession)
}
