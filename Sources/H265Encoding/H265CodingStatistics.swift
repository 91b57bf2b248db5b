/// How the engine coded a picture's coding units, for tests, benchmarks and traces.
public struct H265CodingStatistics: Sendable, Equatable {
    public var intraCUs = 0
    /// Inter CUs by how they were signalled (skipped CUs are merge CUs without residual).
    public var skippedCUs = 0
    public var mergeCUs = 0
    public var amvpCUs = 0
    /// Inter CUs predicted from both lists.
    public var biPredictedCUs = 0
    /// SAO: colour components of CTBs given band or edge offsets of their own, and CTBs that merged theirs
    /// from the CTB to the left or above.
    public var saoBandComponents = 0
    public var saoEdgeComponents = 0
    public var saoMergedCTBs = 0
    public init() {}
}
