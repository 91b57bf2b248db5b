/// VA's fixed-size C arrays, which Swift imports as tuples of one element type: the one place their
/// memory is bound to fill them from Swift arrays.
public enum VAFixedArray {
    /// Stores `values` into the array's elements in order (values past its end are dropped), then
    /// `padding`, when given, into the elements after them.
    /// Inlinable so that each caller fills its tuple specialised to the element type (a picture's reference lists
    /// are 64 entries of 36 bytes each: copied through value witnesses otherwise).
    @inlinable
    public static func store<Tuple, Element>(_ values: [Element], into array: inout Tuple, padding: Element? = nil) {
        withUnsafeMutableBytes(of: &array) { raw in
            let elements = raw.bindMemory(to: Element.self)
            for i in 0..<elements.count {
                if i < values.count { elements[i] = values[i] } else if let padding { elements[i] = padding }
            }
        }
    }
}
