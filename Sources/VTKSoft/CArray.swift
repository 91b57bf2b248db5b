/// C fixed-size arrays, which Swift imports as tuples (VA's reference lists, scaling lists, tile sizes).
enum CArray {
    /// The first `count` elements of the array, all of them when nil.
    static func elements<Tuple, Element>(_ tuple: Tuple, as _: Element.Type, count: Int? = nil) -> [Element] {
        withUnsafeBytes(of: tuple) { bytes in
            let all = bytes.bindMemory(to: Element.self)
            return Array(all.prefix(count ?? all.count))
        }
    }
}
