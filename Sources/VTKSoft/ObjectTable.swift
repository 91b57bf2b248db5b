/// The objects of one kind (surfaces, buffers, ...) of a display, by VA id.
///
/// All tables of a display draw their ids from one ``IDSource``, so an id of one kind is never a valid id
/// of another: a surface id passed as a buffer id fails the lookup instead of hitting a stranger.
struct ObjectTable<Object> {
    private var objects: [UInt32: Object] = [:]
    let notFound: VAError

    init(notFound: VAError) { self.notFound = notFound }

    var count: Int { objects.count }
    var ids: [UInt32] { Array(objects.keys) }

    func get(_ id: UInt32) throws(VAError) -> Object {
        guard let object = objects[id] else { throw notFound }
        return object
    }

    func contains(_ id: UInt32) -> Bool { objects[id] != nil }

    mutating func insert(_ object: Object, ids: inout IDSource) -> UInt32 {
        insert(ids: &ids) { _ in object }
    }

    /// Inserts an object that has to know its own id (a VAImage carries its image_id).
    mutating func insert(ids: inout IDSource, _ make: (UInt32) -> Object) -> UInt32 {
        let id = ids.next()
        objects[id] = make(id)
        LiveObjectCounter.created()
        return id
    }

    @discardableResult
    mutating func remove(_ id: UInt32) throws(VAError) -> Object {
        guard let object = objects.removeValue(forKey: id) else { throw notFound }
        LiveObjectCounter.destroyed()
        return object
    }

    /// Drops everything (vaTerminate); returns how many were left.
    mutating func removeAll() -> Int {
        let left = objects.count
        objects.removeAll()
        LiveObjectCounter.destroyed(left)
        return left
    }
}

/// Hands out VA ids. Starts away from 0 and never reaches VA_INVALID_ID (0xffffffff).
struct IDSource {
    private var last: UInt32 = 0x100

    mutating func next() -> UInt32 {
        last = last >= 0x7fff_fff0 ? 0x101 : last + 1
        return last
    }
}
