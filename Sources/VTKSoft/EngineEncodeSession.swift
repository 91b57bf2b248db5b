import CLibVA
import JSONText

/// What one picture coded by one of vtksoft's own engines gives: the access unit's bytes for the coded buffer,
/// and what the capture line says of it (engine, QP, passes, violations…).
struct EngineEncodeOutput {
    var stream: [UInt8]
    var captured: [(String, JSONValue)]
}

/// An encode context on one of vtksoft's own engines (H.264: ``NativeEncodeSession``, H.265:
/// ``HEVCEncodeSession``), as the driver drives it: vaEndPicture checks the buffers and resolves the surfaces
/// (``prepare(_:source:surface:)``), the worker codes the picture and writes the reconstruction into the
/// prepared target surface (``encode(_:hashReconstruction:)``).
protocol EngineEncodeSession: AnyObject {
    associatedtype Prepared: PreparedEnginePicture
    func codedBufferID(in buffers: [RenderedBuffer]) throws(VAError) -> VABufferID
    func prepare(_ rendered: [RenderedBuffer], source: Surface,
                 surface: (VASurfaceID) throws(VAError) -> Surface) throws(VAError) -> Prepared
    func encode(_ prepared: Prepared, hashReconstruction: Bool) throws(VAError) -> EngineEncodeOutput
}

/// A picture checked at vaEndPicture: its codec-neutral part, with the surface its reconstruction goes to.
protocol PreparedEnginePicture {
    var coding: PreparedPicture { get }
}

extension PreparedEnginePicture {
    var target: Surface { coding.target }
}

extension NativeEncodeSession: EngineEncodeSession {}
extension NativeEncodeSession.Prepared: PreparedEnginePicture {}
extension HEVCEncodeSession: EngineEncodeSession {}
extension HEVCEncodeSession.Prepared: PreparedEnginePicture {}
