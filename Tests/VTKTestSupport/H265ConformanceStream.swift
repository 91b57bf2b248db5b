/// The rows of ../shared/conformance/h265/reference.tsv (same layout as the H.264 one, read by ``ConformanceStream``).
public enum H265ConformanceStream {
    /// All rows; empty when ../shared is absent.
    public static let all = ConformanceStream.rows(of: "h265")

    /// Stands in for the stream list when ../shared is absent, so parameterized tests still run (and skip).
    public static let absent = "<../shared absent>"
    public static let names: [String] = all.isEmpty ? [absent] : all.map(\.file)

    /// The row named `name`, nil when ../shared is absent.
    public static func named(_ name: String) -> ConformanceStream? { all.first { $0.file == name } }
}
