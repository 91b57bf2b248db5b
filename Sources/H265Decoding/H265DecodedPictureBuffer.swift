/// The DPB of H.265 and its output ("bumping") process, C.5.2: pictures wait in it while they are
/// references or not yet output; output is in POC order, as the reorder, latency and size limits force it.
public struct H265DecodedPictureBuffer: Sendable {
    public private(set) var pictures: [H265DecodedPicture] = []
    /// sps_max_dec_pic_buffering_minus1 + 1 of the highest sub-layer: pictures held, the current included.
    public private(set) var capacity: Int
    /// sps_max_num_reorder_pics of the highest sub-layer.
    public private(set) var maxNumReorder: Int
    /// SpsMaxLatencyPictures, when the stream limits latency.
    public private(set) var maxLatency: Int?

    public init(capacity: Int, maxNumReorder: Int, maxLatency: Int?) {
        self.capacity = max(1, capacity)
        self.maxNumReorder = maxNumReorder
        self.maxLatency = maxLatency
    }

    public enum Event: Hashable, Sendable {
        case output(H265DecodedPicture)
        case discarded(H265DecodedPicture)
        /// The picture left the DPB: its surface can be reused once any output of it is done.
        case removed(H265PictureID)
    }

    public func picture(_ id: H265PictureID) -> H265DecodedPicture? { pictures.first { $0.id == id } }
    public var referencePictures: [H265DecodedPicture] { pictures.filter(\.isReference) }

    mutating func markAll(_ change: (inout H265DecodedPicture) -> Void) {
        for i in pictures.indices { change(&pictures[i]) }
    }

    mutating func update(_ id: H265PictureID, _ change: (inout H265DecodedPicture) -> Void) {
        if let i = pictures.firstIndex(where: { $0.id == id }) { change(&pictures[i]) }
    }

    /// Empties pictures that are neither references nor waiting for output.
    mutating func removeUnused() -> [Event] {
        let gone = pictures.filter { !$0.isReference && !$0.neededForOutput }
        pictures.removeAll { !$0.isReference && !$0.neededForOutput }
        return gone.map { .removed($0.id) }
    }

    /// The "bumping" process (C.5.2.4): output the waiting picture with the smallest POC, and remove it
    /// when it is no reference.
    mutating func bump() -> [Event]? {
        guard let i = pictures.indices.filter({ pictures[$0].neededForOutput }).min(by: { pictures[$0].poc < pictures[$1].poc }) else { return nil }
        pictures[i].neededForOutput = false
        let picture = pictures[i]
        var events: [Event] = [.output(picture)]
        if !picture.isReference {
            pictures.remove(at: i)
            events.append(.removed(picture.id))
        }
        return events
    }

    private var waiting: Int { pictures.filter(\.neededForOutput).count }
    private var latencyExceeded: Bool {
        guard let maxLatency else { return false }
        return pictures.contains { $0.neededForOutput && $0.latencyCount >= maxLatency }
    }

    /// C.5.2.2 for an IRAP picture with NoRaslOutputFlag 1: every prior picture is output (or, with
    /// NoOutputOfPriorPicsFlag, dropped) and the DPB emptied.
    mutating func flush(output: Bool) -> [Event] {
        var events: [Event] = []
        if output {
            while let more = bump() { events += more }
        } else {
            events += pictures.filter(\.neededForOutput).map { .discarded($0) }
        }
        events += pictures.map { .removed($0.id) }
        pictures.removeAll()
        return events
    }

    /// C.5.2.2 for any other picture: free what is unused, then bump while the reorder, latency or size
    /// limit is reached.
    mutating func makeRoom() -> [Event] {
        var events = removeUnused()
        while waiting > maxNumReorder || latencyExceeded || pictures.count >= capacity {
            guard let more = bump() else { break }
            events += more
        }
        if pictures.count >= capacity, let oldest = pictures.filter({ $0.isReference }).min(by: { $0.decodeIndex < $1.decodeIndex }) {
            // Full of references: only a damaged stream does that. The oldest goes rather than fail.
            pictures.removeAll { $0.id == oldest.id }
            events.append(.removed(oldest.id))
        }
        return events
    }

    /// C.5.2.3: stores the decoded current picture and bumps while the reorder or latency limit is exceeded.
    mutating func store(_ picture: H265DecodedPicture) -> [Event] {
        for i in pictures.indices where pictures[i].neededForOutput { pictures[i].latencyCount += 1 }
        var current = picture
        current.latencyCount = 0
        pictures.append(current)
        var events: [Event] = []
        while waiting > maxNumReorder || latencyExceeded {
            guard let more = bump() else { break }
            events += more
        }
        return events
    }
}
