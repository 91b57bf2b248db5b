import Dispatch
import Glibc

/// A display's worker thread, as a GPU's command queue: pictures run one at a time in submission order.
/// Each job takes the driver lock itself, so the worker and the client's calls never touch state at once.
final class PictureWorker: Sendable {
    private let queue = DispatchQueue(label: "vtksoft.picture-worker")

    /// `VTKSOFT_PICTURE_DELAY_MS=N`: every picture waits N ms on the worker before it runs, as on a slow
    /// engine. For tests of speed figures: a wait is a lower bound on any honest time, however loaded the machine.
    static let delayMicroseconds: UInt32 = {
        guard let text = getenv("VTKSOFT_PICTURE_DELAY_MS"), let ms = UInt32(String(cString: text)), ms <= 10_000 else { return 0 }
        return ms * 1000
    }()

    func submit(_ work: @escaping () -> Void) {
        let job = Job(run: work)
        let delay = Self.delayMicroseconds
        queue.async {
            if delay > 0 { usleep(delay) }
            job.run()
        }
    }
}

/// A job's closure crosses to the worker thread once; everything it touches is behind the driver lock.
private struct Job: @unchecked Sendable {
    let run: () -> Void
}
