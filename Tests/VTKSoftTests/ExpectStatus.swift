import CLibVA
import Testing

/// Expects a VA call to have answered `expected`, naming both statuses as libva spells them.
func expectStatus(_ status: VAStatus, _ expected: Int32, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(status == expected, "\(what): got \(String(cString: vaErrorStr(status))), want \(String(cString: vaErrorStr(expected)))",
            sourceLocation: sourceLocation)
}
