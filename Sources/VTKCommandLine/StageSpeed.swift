/// The speed of one stage of a run (encode, decode), from the wall time of the calls that did its work.
///
/// True by construction only when each call returns with its pictures' data back from the driver (one
/// picture in flight) and no other stage's work runs on the same engine meanwhile: `vtk roundtrip` sets
/// both up (its stages overlap, each on a thread and a VA display of its own). When the stage cannot be timed so (a decoder holding pictures it decoded for reordering, whose
/// work then finishes out of sight), the figure is not given, and ``unmeasured`` says why.
struct StageSpeed {
    private(set) var seconds = 0.0
    var frames = 0
    /// Why there is no figure; nil when it was measured.
    var unmeasured: String?

    /// How `vtk roundtrip` measures both stages, as the report names it.
    static let roundtripMethod = "wall time from submitting each picture until its data is back from the driver "
        + "(coded data for encode, the decoded frame for decode), one picture in flight, stages overlapping on VA displays of their own"

    /// The same in a few words, for the text report.
    static let roundtripShortMethod = "wall time from submit until the data is back, one picture in flight"

    /// Runs `body`, adding its wall time to the stage.
    mutating func time<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let start = Clock.now()
        defer { seconds += Clock.now() - start }
        return try body()
    }

    /// Frames per second, or nil when not measured.
    var fps: Double? {
        guard unmeasured == nil, frames > 0, seconds > 0 else { return nil }
        return Double(frames) / seconds
    }
}
