/// The fields in which two statements of one header disagree (a client's packed header against its
/// parameters), each as "name a vs b", in the order compared.
struct FieldDifferences {
    private(set) var items: [String] = []

    var isEmpty: Bool { items.isEmpty }

    mutating func compare<T: Equatable>(_ name: String, _ a: T, _ b: T) {
        if a != b { items.append("\(name) \(a) vs \(b)") }
    }

    /// "name a vs b, name a vs b, ...".
    var list: String { items.joined(separator: ", ") }
}
