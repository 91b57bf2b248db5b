/// Names one reconstruction the engine returned while its samples stay as the engine left them, so the
/// engine prepares a reference picture (padded copy, half-sample planes of 8.4.2.2.1) once however many
/// pictures predict from it (a P picture's, then the B pictures' around it).
public final class ReconstructionToken: Sendable {
    init() {}
}

/// Which slot of the engine's reference storage holds which reconstruction, prepared. A reference
/// found by its token is used as it stands; the others go to the slots least recently used.
struct ReferenceSlots {
    private var tokens: [ReconstructionToken?] = []
    private var lastUse: [Int] = []
    private var clock = 0
    /// Bytes of one slot: another picture size empties the table.
    private(set) var slotBytes = 0

    var count: Int { tokens.count }

    mutating func reset(slotBytes bytes: Int) {
        tokens = []
        lastUse = []
        slotBytes = bytes
    }

    /// A slot for each reference (by its token, nil: not from this engine) and whether it already
    /// holds that reference prepared; the table grows where the references outnumber its slots.
    mutating func assign(_ references: [ReconstructionToken?]) -> [(slot: Int, prepared: Bool)] {
        clock += 1
        let found: [Int?] = references.map { token in token.flatMap { t in tokens.firstIndex { $0 === t } } }
        var taken = Set(found.compactMap { $0 })
        var assigned: [(slot: Int, prepared: Bool)] = []
        for (i, token) in references.enumerated() {
            if let slot = found[i] {
                assigned.append((slot, true))
            } else {
                let slot = tokens.indices.filter { !taken.contains($0) }.min { lastUse[$0] < lastUse[$1] } ?? tokens.count
                if slot == tokens.count { tokens.append(nil); lastUse.append(0) }
                tokens[slot] = token
                taken.insert(slot)
                assigned.append((slot, false))
            }
        }
        for (slot, _) in assigned { lastUse[slot] = clock }
        return assigned
    }
}
