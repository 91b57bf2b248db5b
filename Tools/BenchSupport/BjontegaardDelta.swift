#if canImport(Glibc)
import Glibc
#endif

/// One point of a rate-distortion curve: a bit rate (any unit, the same for both curves) and a PSNR in dB.
public struct RatePoint: Sendable, Equatable {
    public var rate: Double
    public var psnr: Double
    public init(rate: Double, psnr: Double) {
        self.rate = rate
        self.psnr = psnr
    }
}

/// The Bjøntegaard delta rate (VCEG-M33): the average bit-rate difference of `test` against `reference`
/// at equal quality.
public enum BjontegaardDelta {
    /// Percent more bits `test` spends than `reference` over the PSNR range both cover: log-rate fitted as
    /// a cubic in PSNR for each curve (least squares; through the points with 4 of them), each fit
    /// integrated over the overlapping PSNR interval, the mean difference turned back into a ratio.
    /// nil with fewer than 4 points on a curve, or when the curves do not overlap in PSNR.
    public static func rate(reference: [RatePoint], test: [RatePoint]) -> Double? {
        guard reference.count >= 4, test.count >= 4,
              reference.allSatisfy({ $0.rate > 0 && $0.psnr.isFinite }), test.allSatisfy({ $0.rate > 0 && $0.psnr.isFinite }),
              let fitReference = cubicFit(x: reference.map(\.psnr), y: reference.map { log($0.rate) }),
              let fitTest = cubicFit(x: test.map(\.psnr), y: test.map { log($0.rate) }) else { return nil }
        let low = max(reference.map(\.psnr).min() ?? 0, test.map(\.psnr).min() ?? 0)
        let high = min(reference.map(\.psnr).max() ?? 0, test.map(\.psnr).max() ?? 0)
        guard high > low else { return nil }
        let meanDifference = (integral(fitTest, low, high) - integral(fitReference, low, high)) / (high - low)
        return (exp(meanDifference) - 1) * 100
    }

    /// Coefficients c0...c3 of y ≈ c0 + c1·x + c2·x² + c3·x³ by least squares (normal equations, with x
    /// centred and scaled for conditioning, then mapped back); nil when singular.
    static func cubicFit(x: [Double], y: [Double]) -> [Double]? {
        let mean = x.reduce(0, +) / Double(x.count)
        let scale = max(x.map { abs($0 - mean) }.max() ?? 1, 1e-9)
        let u = x.map { ($0 - mean) / scale }
        // A · c = b, A[i][j] = Σ u^(i+j), b[i] = Σ y·u^i
        var a = [[Double]](repeating: [Double](repeating: 0, count: 5), count: 4)
        for (ui, yi) in zip(u, y) {
            for i in 0..<4 {
                for j in 0..<4 { a[i][j] += pow(ui, Double(i + j)) }
                a[i][4] += yi * pow(ui, Double(i))
            }
        }
        // Gaussian elimination with partial pivoting
        for col in 0..<4 {
            guard let pivot = (col..<4).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-12 else { return nil }
            a.swapAt(col, pivot)
            for row in 0..<4 where row != col {
                let f = a[row][col] / a[col][col]
                for k in col..<5 { a[row][k] -= f * a[col][k] }
            }
        }
        let c = (0..<4).map { a[$0][4] / a[$0][$0] }  // in u
        // Back to x: u = (x − mean) / scale; expand Σ c_k ((x − m)/s)^k
        var out = [Double](repeating: 0, count: 4)
        for k in 0..<4 {
            let ck = c[k] / pow(scale, Double(k))
            for j in 0...k {  // (x − m)^k = Σ C(k, j) x^j (−m)^(k−j)
                out[j] += ck * Double(binomial(k, j)) * pow(-mean, Double(k - j))
            }
        }
        return out
    }

    private static func binomial(_ n: Int, _ k: Int) -> Int { k == 0 || k == n ? 1 : binomial(n - 1, k - 1) + binomial(n - 1, k) }

    /// ∫ from a to b of the cubic with coefficients `c`.
    static func integral(_ c: [Double], _ a: Double, _ b: Double) -> Double {
        func primitive(_ x: Double) -> Double { c[0] * x + c[1] * x * x / 2 + c[2] * x * x * x / 3 + c[3] * x * x * x * x / 4 }
        return primitive(b) - primitive(a)
    }
}
