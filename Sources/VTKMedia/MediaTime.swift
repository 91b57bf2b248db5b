/// A point or span on a media timeline: `value / timescale` seconds, exact, like Core Media's CMTime.
///
/// Arithmetic and comparison are exact rational arithmetic (no floating point), with the result on the
/// least common multiple of the two timescales. Besides numeric times there are ``invalid`` (no time at
/// all, e.g. a sample without a timestamp) and the indefinite ``positiveInfinity`` and ``negativeInfinity``.
public struct MediaTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public enum Kind: UInt8, Sendable { case invalid, numeric, positiveInfinity, negativeInfinity }

    public let value: Int64
    /// Units per second; positive for numeric times.
    public let timescale: Int32
    public let kind: Kind

    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be positive")
        self.value = value
        self.timescale = timescale
        self.kind = .numeric
    }

    private init(kind: Kind) {
        self.value = 0
        self.timescale = 0
        self.kind = kind
    }

    public static let invalid = MediaTime(kind: .invalid)
    public static let positiveInfinity = MediaTime(kind: .positiveInfinity)
    public static let negativeInfinity = MediaTime(kind: .negativeInfinity)
    public static let zero = MediaTime(value: 0, timescale: 1)

    public var isValid: Bool { kind != .invalid }
    public var isNumeric: Bool { kind == .numeric }
    public var isIndefinite: Bool { kind == .positiveInfinity || kind == .negativeInfinity }

    /// Seconds as a Double (for display only; NaN when invalid).
    public var seconds: Double {
        switch kind {
        case .numeric: return Double(value) / Double(timescale)
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .invalid: return .nan
        }
    }

    /// The same time on another timescale, rounded toward negative infinity when not exact.
    public func converted(to newTimescale: Int32) -> MediaTime {
        guard kind == .numeric else { return self }
        let (q, r) = (Int64(value).multipliedFullWidth(by: Int64(newTimescale)), Int64(timescale))
        let wide = Int128Arithmetic.divideFloor(q, by: r)
        return MediaTime(value: wide, timescale: newTimescale)
    }

    public var description: String {
        switch kind {
        case .invalid: return "invalid"
        case .positiveInfinity: return "+inf"
        case .negativeInfinity: return "-inf"
        case .numeric: return "\(value)/\(timescale)"
        }
    }

    // MARK: Exact arithmetic

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// Both times on a common timescale (their LCM), or nil on overflow.
    private static func common(_ a: MediaTime, _ b: MediaTime) -> (Int64, Int64, Int32)? {
        let g = gcd(Int64(a.timescale), Int64(b.timescale))
        let lcm = Int64(a.timescale) / g * Int64(b.timescale)
        guard lcm <= Int64(Int32.max) else { return nil }
        let (x, o1) = a.value.multipliedReportingOverflow(by: lcm / Int64(a.timescale))
        let (y, o2) = b.value.multipliedReportingOverflow(by: lcm / Int64(b.timescale))
        guard !o1, !o2 else { return nil }
        return (x, y, Int32(lcm))
    }

    public static func + (a: MediaTime, b: MediaTime) -> MediaTime {
        switch (a.kind, b.kind) {
        case (.invalid, _), (_, .invalid): return .invalid
        case (.positiveInfinity, .negativeInfinity), (.negativeInfinity, .positiveInfinity): return .invalid
        case (.positiveInfinity, _), (_, .positiveInfinity): return .positiveInfinity
        case (.negativeInfinity, _), (_, .negativeInfinity): return .negativeInfinity
        case (.numeric, .numeric):
            guard let (x, y, scale) = common(a, b) else { return .invalid }
            let (sum, overflow) = x.addingReportingOverflow(y)
            return overflow ? (x > 0 ? .positiveInfinity : .negativeInfinity) : MediaTime(value: sum, timescale: scale)
        }
    }

    public static prefix func - (a: MediaTime) -> MediaTime {
        switch a.kind {
        case .invalid: return .invalid
        case .positiveInfinity: return .negativeInfinity
        case .negativeInfinity: return .positiveInfinity
        case .numeric: return MediaTime(value: -a.value, timescale: a.timescale)
        }
    }

    public static func - (a: MediaTime, b: MediaTime) -> MediaTime { a + (-b) }

    /// Multiplies by an integer (e.g. frame index x frame duration).
    public static func * (a: MediaTime, n: Int64) -> MediaTime {
        guard a.kind == .numeric else { return n == 0 && a.isIndefinite ? .invalid : (n < 0 ? -a : a) }
        let (product, overflow) = a.value.multipliedReportingOverflow(by: n)
        if overflow { return (a.value > 0) == (n > 0) ? .positiveInfinity : .negativeInfinity }
        return MediaTime(value: product, timescale: a.timescale)
    }

    /// Divides by a positive integer (half a frame duration: a field's), exactly: on a timescale `n` times finer
    /// when the value does not divide, else (no such timescale fits in 32 bits) rounded toward negative infinity.
    public static func / (a: MediaTime, n: Int64) -> MediaTime {
        precondition(n > 0, "MediaTime divisor must be positive")
        guard a.kind == .numeric else { return a }
        if a.value % n == 0 { return MediaTime(value: a.value / n, timescale: a.timescale) }
        let (finer, overflow) = Int64(a.timescale).multipliedReportingOverflow(by: n)
        if !overflow, finer <= Int64(Int32.max) { return MediaTime(value: a.value, timescale: Int32(finer)) }
        let quotient = a.value / n
        return MediaTime(value: a.value % n < 0 ? quotient - 1 : quotient, timescale: a.timescale)
    }

    /// Ordering: negativeInfinity < numeric < positiveInfinity < invalid (invalid sorts last, as in Core Media).
    public static func < (a: MediaTime, b: MediaTime) -> Bool {
        func rank(_ k: Kind) -> Int {
            switch k { case .negativeInfinity: 0; case .numeric: 1; case .positiveInfinity: 2; case .invalid: 3 }
        }
        if a.kind != b.kind || a.kind != .numeric { return rank(a.kind) < rank(b.kind) }
        // Exact cross-multiplication in 128 bits.
        let left = a.value.multipliedFullWidth(by: Int64(b.timescale))
        let right = b.value.multipliedFullWidth(by: Int64(a.timescale))
        return left.high < right.high || (left.high == right.high && left.low < right.low)
    }

    /// Equality is by value: 1/2 == 2/4.
    public static func == (a: MediaTime, b: MediaTime) -> Bool {
        if a.kind != b.kind { return false }
        if a.kind != .numeric { return true }
        let left = a.value.multipliedFullWidth(by: Int64(b.timescale))
        let right = b.value.multipliedFullWidth(by: Int64(a.timescale))
        return left.high == right.high && left.low == right.low
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        guard kind == .numeric else { return }
        let g = Self.gcd(value, Int64(timescale))
        hasher.combine(value / max(g, 1))
        hasher.combine(Int64(timescale) / max(g, 1))
    }
}

enum Int128Arithmetic {
    /// floor((high, low) / d) for a 128-bit signed numerator and a positive divisor, clamped to Int64.
    static func divideFloor(_ n: (high: Int64, low: UInt64), by d: Int64) -> Int64 {
        let value = Int128(_low: n.low, _high: n.high)
        let divisor = Int128(d)
        var q = value / divisor
        if value % divisor != 0 && value < 0 { q -= 1 }
        if q > Int128(Int64.max) { return Int64.max }
        if q < Int128(Int64.min) { return Int64.min }
        return Int64(q)
    }
}
