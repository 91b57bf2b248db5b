import Dispatch

/// A display's worker thread, as a GPU's command queue: pictures run one at a time in submission order.
/// Each job takes the driver lock itself, so the worker and the client's calls never touch state at once.
final class PictureWorker: Sendable {
    private let queue = DispatchQueue(label: "vtksoft.picture-worker")

    func submit(_ work: @escaping () -> Void) {
        let job = Job(run: work)
        queue.async { job.run() }
    }
}

/// A job's closure crosses to the worker thread once; everything it touches is behind the driver lock.
private struct Job: @unchecked Sendable {
    let run: () -> Void
}
