#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// A number with one decimal.
    init(format1 value: Double) {
        guard value.isFinite else { self = "\(value)"; return }
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// A number with two decimals.
    init(format2 value: Double) {
        guard value.isFinite else { self = value > 0 ? "inf" : "\(value)"; return }
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        self = "\(sign)\(magnitude / 100).\(magnitude % 100 < 10 ? "0" : "")\(magnitude % 100)"
    }

    /// A number with three decimals (seconds to the millisecond).
    init(format3 value: Double) {
        guard value.isFinite else { self = "\(value)"; return }
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(abs(thousandths % 1000))
        self = "\(thousandths < 0 ? "-" : "")\(abs(thousandths) / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// `value` with `digits` decimals, exactly as C's printf("%.*f") writes it (rounding the binary value
    /// exactly, ties to even; "inf", "-inf", "nan", "-nan"): the text `String(format: "%.Nf")` gave.
    init(decimals digits: Int, _ value: Double) {
        var buffer = [CChar](repeating: 0, count: 32)
        let needed = withVaList([Int32(digits), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
        if needed >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(needed) + 1)
            _ = withVaList([Int32(digits), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
        }
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension StringProtocol where SubSequence == Substring {
    /// The text without the leading and trailing characters `drop` picks (`trimmingCharacters(in:)` without Foundation).
    func trimming(_ drop: (Character) -> Bool) -> Substring {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return self[endIndex...] }
        return self[first...last]
    }
}
