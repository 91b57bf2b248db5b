/// The decoded picture buffer of Annex C for any codec: pictures held while they are references or wait for
/// output, and the output ("bumping") process that sends the waiting picture with the smallest PicOrderCnt
/// (H.264 C.4.5.3, H.265 C.5.2.4). The codec's ``DecodedPictureBufferRules`` say when output is due before
/// the buffer is full and which picture a damaged stream's full buffer drops; its decoding process does the
/// marking, through ``update(_:_:)``.
public struct DecodedPictureBuffer<Rules: DecodedPictureBufferRules>: Sendable {
    public typealias Picture = Rules.Picture
    public typealias Event = DecodedPictureBufferEvent<Picture>

    /// Pictures (H.264: frame stores) held, in the order they were stored.
    @inlinable public var pictures: [Picture] { stored }
    /// The storage of ``pictures``, visible to the inlinable methods below: they are inlinable so that each
    /// codec's module specialises them for its picture type rather than running generic code per picture.
    @usableFromInline var stored: [Picture] = []
    /// Pictures the buffer holds at most (H.264: frame buffers).
    public let capacity: Int
    /// The codec's rules, with the state they keep.
    public var rules: Rules

    public init(capacity: Int, rules: Rules) {
        self.capacity = max(1, capacity)
        self.rules = rules
    }

    @inlinable public var isEmpty: Bool { stored.isEmpty }
    @inlinable public var isFull: Bool { stored.count >= capacity }
    @inlinable public var referencePictures: [Picture] { stored.filter { $0.isReference } }  // A closure, not a key path: no key path made per call in generic code
    /// Pictures waiting for output, held back ones included.
    @inlinable public var waitingForOutput: [Picture] { stored.filter { $0.neededForOutput } }
    /// Pictures waiting for output that may be output now.
    @inlinable public var readyForOutput: [Picture] { stored.filter { $0.neededForOutput && !rules.holdsBack($0) } }
    /// How many pictures ``readyForOutput`` holds, counted without making the array (rules ask it for every picture).
    @inlinable public var readyForOutputCount: Int {
        var count = 0
        for picture in stored where picture.neededForOutput && !rules.holdsBack(picture) { count += 1 }
        return count
    }
    /// How many pictures are references, counted without making the array.
    @inlinable public var referencePictureCount: Int {
        var count = 0
        for picture in stored where picture.isReference { count += 1 }
        return count
    }

    @inlinable public func picture(_ id: PictureID) -> Picture? { stored.first { $0.id == id } }

    @inlinable public mutating func update(_ id: PictureID, _ change: (inout Picture) -> Void) {
        if let i = stored.firstIndex(where: { $0.id == id }) { change(&stored[i]) }
    }

    @inlinable public mutating func updateAll(_ change: (inout Picture) -> Void) {
        for i in stored.indices { change(&stored[i]) }
    }

    /// Puts `picture` in the buffer that holds its id (H.264: a second field joining its store), else in a
    /// new one: the caller made room (``makeRoom()``).
    @inlinable public mutating func insert(_ picture: Picture) {
        if let i = stored.firstIndex(where: { $0.id == picture.id }) { stored[i] = picture } else { stored.append(picture) }
    }

    /// Empties the buffers of pictures that are neither references nor waiting for output.
    @inlinable public mutating func removeUnused() -> [Event] {
        // Usually none: then no array is made.
        guard stored.contains(where: { !$0.isReference && !$0.neededForOutput }) else { return [] }
        let gone = stored.filter { !$0.isReference && !$0.neededForOutput }
        stored.removeAll { !$0.isReference && !$0.neededForOutput }
        return gone.map { .removed($0.id) }
    }

    /// One step of the bumping process (C.4.5.3, C.5.2.4): outputs the ready picture with the smallest
    /// PicOrderCnt and removes it when it is no reference. Returns nil when none is ready.
    @inlinable public mutating func bump() -> [Event]? {
        // The first ready picture of smallest PicOrderCnt, found without making an array of the ready ones.
        var smallest: Int?
        for index in stored.indices where stored[index].neededForOutput && !rules.holdsBack(stored[index]) {
            if let best = smallest, stored[best].picOrderCnt <= stored[index].picOrderCnt { continue }
            smallest = index
        }
        guard let i = smallest else { return nil }
        stored[i].neededForOutput = false
        let picture = stored[i]
        var events: [Event] = [.output(picture)]
        if !picture.isReference {
            stored.remove(at: i)
            events.append(.removed(picture.id))
        }
        return events
    }

    /// Bumps while `condition` holds and a picture is ready.
    @inlinable public mutating func bump(while condition: (Self) -> Bool) -> [Event] {
        var events: [Event] = []
        while condition(self), let more = bump() { events += more }
        return events
    }

    /// Output the codec's rules require before the buffer is full ("additional bumping", C.5.2.3; C.4.5.3
    /// with max_num_reorder_frames).
    @inlinable public mutating func additionalBumping() -> [Event] {
        bump(while: { $0.rules.requiresOutput($0) })
    }

    /// Frees a buffer for a new picture (C.4.5.3, C.5.2.2): removes unused pictures, then bumps while output
    /// is due or the buffer is full. A buffer full of references (a damaged stream) drops the one the rules
    /// name rather than fail.
    @inlinable public mutating func makeRoom() -> [Event] {
        var events = removeUnused()
        events += bump(while: { $0.rules.requiresOutput($0) || $0.isFull })
        if isFull, let victim = rules.evictionCandidate(self) {
            stored.removeAll { $0.id == victim }
            events.append(.removed(victim))
        }
        return events
    }

    /// Outputs every waiting picture in PicOrderCnt order, or with `output` false drops them, and empties the
    /// buffer (end of stream; H.264 C.4.4 for an IDR or MMCO 5 picture; H.265 C.5.2.2 for an IRAP picture
    /// with NoRaslOutputFlag 1).
    @inlinable public mutating func flush(output: Bool = true) -> [Event] {
        rules.bufferEmptied()
        var events: [Event] = []
        if output {
            while let more = bump() { events += more }
        } else {
            events += stored.filter(\.neededForOutput).map { .discarded($0) }
        }
        events += stored.map { .removed($0.id) }
        stored.removeAll()
        return events
    }
}
