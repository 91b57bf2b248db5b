import Dispatch
import VTKMedia

/// Writes `vtk play --screenshot` PNGs off the render loop: the window's pixels are read at once, the PNG is
/// made and written on a queue of its own, so that taking a screenshot does not make the next frames late.
final class ScreenshotWriter: Sendable {
    private let queue = DispatchQueue(label: "vtk.play.screenshots")
    private let firstFailure = Locked<CommandFailure?>(nil)
    private let command: String

    init(command: String) { self.command = command }

    func write(rgb: [UInt8], width: Int, height: Int, to path: String) {
        queue.async { [self] in
            do throws(CommandFailure) {
                let file = try OutputFile(path, command: command)
                try file.write(PNGWriter.png(rgb: rgb, width: width, height: height))
            } catch {
                firstFailure.withLock { $0 = $0 ?? error }
            }
        }
    }

    /// Waits until every screenshot is written; throws the first failure.
    func finish() throws(CommandFailure) {
        queue.sync {}
        if let failure = firstFailure.withLock({ $0 }) { throw failure }
    }
}
