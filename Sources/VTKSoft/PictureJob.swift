/// One picture as vaEndPicture hands it to the worker: its buffers already checked, the work left to do
/// (what a GPU runs later), and what that work writes, so the calls that read it know to wait.
struct PictureJob {
    /// The coded buffer an encode writes: vaMapBuffer waits for it.
    var coded: Buffer? = nil
    /// The surface an encode writes its reconstruction to (CurrPic): Rendering until it is done.
    var reconstruction: Surface? = nil
    /// Runs on the worker with the driver lock held; what it throws is vaSyncSurface's status.
    let run: () throws(VAError) -> Void
}
