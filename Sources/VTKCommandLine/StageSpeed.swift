/// The speed of one stage of a run (encode, decode), from the wall time the stage's driver had its pictures.
///
/// True by construction only when the time counted is time a picture was with the driver, from its submission
/// until its data is back, and no other stage's work runs on the same engine meanwhile: `vtk roundtrip` sets
/// that up (its stages overlap, each on a thread and a VA display of its own). A stage with one picture in
/// flight adds the wall time of each call (``time(_:)``); one with several adds the wall time during which at
/// least one picture was in flight (``BusyClock``), the union of the pictures' own times, so overlapping
/// pictures are not counted twice. When the stage cannot be timed so (a decoder holding pictures it decoded
/// for reordering, whose work then finishes out of sight), the figure is not given, and ``unmeasured`` says why.
struct StageSpeed {
    private(set) var seconds = 0.0
    var frames = 0
    /// Why there is no figure; nil when it was measured.
    var unmeasured: String?

    /// How `vtk roundtrip` measures both stages, as the report names it.
    static let roundtripMethod = "wall time while the stage had a picture with the driver, from submitting it until its data is back "
        + "(coded data for encode, up to two pictures in flight, each counted until vtk collects it; the decoded frame for decode, "
        + "one picture in flight), "
        + "stages overlapping on VA displays of their own"

    /// The same in a few words, for the text report.
    static let roundtripShortMethod = "wall time from submit until the data is back; encode 2 pictures in flight, decode 1"

    /// Runs `body`, adding its wall time to the stage.
    mutating func time<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let start = Clock.now()
        defer { seconds += Clock.now() - start }
        return try body()
    }

    /// Adds wall time measured elsewhere (``BusyClock``).
    mutating func add(seconds: Double) { self.seconds += seconds }

    /// Frames per second, or nil when not measured.
    var fps: Double? {
        guard unmeasured == nil, frames > 0, seconds > 0 else { return nil }
        return Double(frames) / seconds
    }
}

/// The wall time during which a stage had at least one picture with the driver: started when a picture is
/// submitted with none in flight, stopped when the last one in flight is back. A picture that waits with the
/// driver while the client does other work (reading the next frame, or waiting for a slower later stage to
/// take the last picture's data) counts: the figure is never less than the driver's own time, and when a later
/// stage holds the client back it is a floor of the encoder's speed, not its speed.
struct BusyClock {
    private var since: Double?

    /// Before a call that may submit a picture: starts the clock unless it runs (pictures are in flight).
    mutating func willSubmit() {
        if since == nil { since = Clock.now() }
    }

    /// After pictures came back: stops the clock, adding its time to `speed`, when none is left in flight.
    mutating func collected(inFlight: Int, into speed: inout StageSpeed) {
        guard inFlight == 0, let start = since else { return }
        speed.add(seconds: Clock.now() - start)
        since = nil
    }
}
