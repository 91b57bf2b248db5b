/// One picture as vaEndPicture hands it to the worker: its buffers already checked, the work left to do
/// (what a GPU runs later), and what that work writes, so the calls that read it know to wait.
struct PictureJob {
    /// The coded buffer an encode writes: vaMapBuffer waits for it.
    var coded: Buffer? = nil
    /// The surface an encode writes its reconstruction to (CurrPic): Rendering until it is done.
    var reconstruction: Surface? = nil
    /// Runs on the worker with the driver lock held; what it throws is vaSyncSurface's status.
    let run: () throws(VAError) -> Void
    /// Work on what the job alone touches (an engine's own state, a source surface nobody writes while it
    /// renders), run on the worker before ``run`` without the driver lock, so that the client's calls (the
    /// next picture's upload) go on meanwhile, as they do while a GPU works. It hands ``run`` its result
    /// through what both capture.
    var unlocked: (() -> Void)? = nil
}
