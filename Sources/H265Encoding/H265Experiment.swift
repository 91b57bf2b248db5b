import Foundation
// TEMPORARY: experiment switches, removed before the final commit.
enum H265Experiment {
    static func value(_ name: String, _ fallback: Double) -> Double { ProcessInfo.processInfo.environment[name].flatMap(Double.init) ?? fallback }
    static let frac4 = value("H265_FRAC4", 0) != 0
    static let early = value("H265_EARLY", 0)
    static let mergeTop = Int(value("H265_MERGETOP", 2))
    static let ms1 = value("H265_MS1", 0) != 0
    static let qpelOff = value("H265_QPELOFF", 0) != 0
}
