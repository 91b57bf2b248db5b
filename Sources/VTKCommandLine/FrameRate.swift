/// Frame rates as (numerator, denominator) frames per second, always in lowest terms, as ffmpeg
/// prints them (60/2 is 30/1).
enum FrameRate {
    static func reduced(_ numerator: Int, _ denominator: Int) -> (Int, Int) {
        var a = abs(numerator), b = abs(denominator)
        while b != 0 { (a, b) = (b, a % b) }
        return a > 1 ? (numerator / a, denominator / a) : (numerator, denominator)
    }

    /// "30", "30000/1001" (each part up to 2^31-1), or a decimal like "29.97". A decimal that is some
    /// N*1000/1001 to its last digit is taken as that (29.97 = 30000/1001, 23.976 = 24000/1001), as
    /// ffmpeg's NTSC rates are; other decimals are exact (12.5 = 25/2).
    static func parse(_ text: String) -> (Int, Int)? {
        let limit = Int(Int32.max)
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let n = Int(parts[0]), let d = Int(parts[1]), (1...limit).contains(n), (1...limit).contains(d) else { return nil }
            return reduced(n, d)
        }
        guard parts.count == 1 else { return nil }
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), pieces.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              !pieces[0].isEmpty || pieces.count == 2 && !pieces[1].isEmpty else { return nil }
        let fraction = pieces.count == 2 ? pieces[1] : ""
        guard fraction.count <= 9, let whole = Int(pieces[0].isEmpty ? "0" : pieces[0]), whole <= limit else { return nil }
        var scale = 1
        for _ in fraction { scale *= 10 }
        let exact = whole * scale + (Int(fraction) ?? 0)
        guard exact > 0, exact <= limit else { return nil }
        if exact % scale != 0 {
            let n = (Double(exact) / Double(scale) * 1.001).rounded()
            if n >= 1, n * 1000 <= Double(limit), (n / 1.001 * Double(scale)).rounded() == Double(exact) { return (Int(n) * 1000, 1001) }
        }
        return reduced(exact, scale)
    }

    /// The rate of samples lasting `duration` ticks of `timescale`, taken as the nearest whole or NTSC
    /// (N*1000/1001) rate when within 0.1% of one, as muxers round durations (1200000/39999 is 30).
    static func ofSamples(duration: Int64, timescale: Int32) -> (Int, Int)? {
        guard duration > 0, timescale > 0 else { return nil }
        let fps = Double(timescale) / Double(duration)
        for candidate in [(fps.rounded(), 1.0), ((fps * 1.001).rounded() * 1000, 1001)] where candidate.0 >= 1 {
            if abs(candidate.0 / candidate.1 - fps) <= fps * 0.001 { return reduced(Int(candidate.0), Int(candidate.1)) }
        }
        return Int64(timescale) <= Int64(Int32.max) ? reduced(Int(timescale), Int(duration)) : nil
    }

    /// "30" or "30000/1001".
    static func text(_ rate: (Int, Int)) -> String { rate.1 == 1 ? "\(rate.0)" : "\(rate.0)/\(rate.1)" }
}
