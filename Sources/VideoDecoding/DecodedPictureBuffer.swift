/// The decoded picture buffer of Annex C for any codec: pictures held while they are references or wait for
/// output, and the output ("bumping") process that sends the waiting picture with the smallest PicOrderCnt
/// (H.264 C.4.5.3, H.265 C.5.2.4). The codec's ``DecodedPictureBufferRules`` say when output is due before
/// the buffer is full and which picture a damaged stream's full buffer drops; its decoding process does the
/// marking, through ``update(_:_:)``.
public struct DecodedPictureBuffer<Rules: DecodedPictureBufferRules>: Sendable {
    public typealias Picture = Rules.Picture
    public typealias Event = DecodedPictureBufferEvent<Picture>

    /// Pictures (H.264: frame stores) held, in the order they were stored.
    public private(set) var pictures: [Picture] = []
    /// Pictures the buffer holds at most (H.264: frame buffers).
    public let capacity: Int
    /// The codec's rules, with the state they keep.
    public var rules: Rules

    public init(capacity: Int, rules: Rules) {
        self.capacity = max(1, capacity)
        self.rules = rules
    }

    public var isEmpty: Bool { pictures.isEmpty }
    public var isFull: Bool { pictures.count >= capacity }
    public var referencePictures: [Picture] { pictures.filter { $0.isReference } }  // A closure, not a key path: no key path made per call in generic code
    /// Pictures waiting for output, held back ones included.
    public var waitingForOutput: [Picture] { pictures.filter { $0.neededForOutput } }
    /// Pictures waiting for output that may be output now.
    public var readyForOutput: [Picture] { pictures.filter { $0.neededForOutput && !rules.holdsBack($0) } }

    public func picture(_ id: PictureID) -> Picture? { pictures.first { $0.id == id } }

    public mutating func update(_ id: PictureID, _ change: (inout Picture) -> Void) {
        if let i = pictures.firstIndex(where: { $0.id == id }) { change(&pictures[i]) }
    }

    public mutating func updateAll(_ change: (inout Picture) -> Void) {
        for i in pictures.indices { change(&pictures[i]) }
    }

    /// Puts `picture` in the buffer that holds its id (H.264: a second field joining its store), else in a
    /// new one: the caller made room (``makeRoom()``).
    public mutating func insert(_ picture: Picture) {
        if let i = pictures.firstIndex(where: { $0.id == picture.id }) { pictures[i] = picture } else { pictures.append(picture) }
    }

    /// Empties the buffers of pictures that are neither references nor waiting for output.
    public mutating func removeUnused() -> [Event] {
        let gone = pictures.filter { !$0.isReference && !$0.neededForOutput }
        pictures.removeAll { !$0.isReference && !$0.neededForOutput }
        return gone.map { .removed($0.id) }
    }

    /// One step of the bumping process (C.4.5.3, C.5.2.4): outputs the ready picture with the smallest
    /// PicOrderCnt and removes it when it is no reference. Returns nil when none is ready.
    public mutating func bump() -> [Event]? {
        let ready = pictures.indices.filter { pictures[$0].neededForOutput && !rules.holdsBack(pictures[$0]) }
        guard let i = ready.min(by: { pictures[$0].picOrderCnt < pictures[$1].picOrderCnt }) else { return nil }
        pictures[i].neededForOutput = false
        let picture = pictures[i]
        var events: [Event] = [.output(picture)]
        if !picture.isReference {
            pictures.remove(at: i)
            events.append(.removed(picture.id))
        }
        return events
    }

    /// Bumps while `condition` holds and a picture is ready.
    public mutating func bump(while condition: (Self) -> Bool) -> [Event] {
        var events: [Event] = []
        while condition(self), let more = bump() { events += more }
        return events
    }

    /// Output the codec's rules require before the buffer is full ("additional bumping", C.5.2.3; C.4.5.3
    /// with max_num_reorder_frames).
    public mutating func additionalBumping() -> [Event] {
        bump(while: { $0.rules.requiresOutput($0) })
    }

    /// Frees a buffer for a new picture (C.4.5.3, C.5.2.2): removes unused pictures, then bumps while output
    /// is due or the buffer is full. A buffer full of references (a damaged stream) drops the one the rules
    /// name rather than fail.
    public mutating func makeRoom() -> [Event] {
        var events = removeUnused()
        events += bump(while: { $0.rules.requiresOutput($0) || $0.isFull })
        if isFull, let victim = rules.evictionCandidate(self) {
            pictures.removeAll { $0.id == victim }
            events.append(.removed(victim))
        }
        return events
    }

    /// Outputs every waiting picture in PicOrderCnt order, or with `output` false drops them, and empties the
    /// buffer (end of stream; H.264 C.4.4 for an IDR or MMCO 5 picture; H.265 C.5.2.2 for an IRAP picture
    /// with NoRaslOutputFlag 1).
    public mutating func flush(output: Bool = true) -> [Event] {
        rules.bufferEmptied()
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
}
