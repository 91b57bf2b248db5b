import BenchSupport
import Testing

/// The BD-rate against values computed independently with NumPy (`polyfit` of ln(rate) on PSNR, degree 3,
/// `polyint` over the overlapping PSNR range: the usual VCEG-M33 script), and against cases whose answer is exact.
@Suite("Bjøntegaard delta rate")
struct BjontegaardDeltaTests {
    private static func curve(_ rates: [Double], _ psnrs: [Double]) -> [RatePoint] { zip(rates, psnrs).map { RatePoint(rate: $0, psnr: $1) } }

    @Test("Four points each: +31.397% as NumPy computes it")
    func fourPoints() throws {
        let reference = Self.curve([686.76, 309.58, 157.11, 85.95], [40.28, 37.18, 34.24, 31.42])
        let test = Self.curve([893.34, 407.8, 204.93, 112.75], [40.39, 37.21, 34.17, 31.24])
        let bd = try #require(BjontegaardDelta.rate(reference: reference, test: test))
        #expect(abs(bd - 31.39737405490941) < 1e-6)
    }

    @Test("Five points each (a least-squares fit, not an interpolation): −12.638% as NumPy computes it")
    func fivePoints() throws {
        let reference = Self.curve([9487.76, 4593.60, 2486.44, 1358.55, 785.83], [40.5, 38.2, 36.0, 33.9, 31.8])
        let test = Self.curve([8000, 4000, 2100, 1200, 700], [40.3, 38.4, 36.1, 33.7, 31.0])
        let bd = try #require(BjontegaardDelta.rate(reference: reference, test: test))
        #expect(abs(bd - -12.638078234205462) < 1e-6)
    }

    @Test("The same PSNRs at 0.9 times the rates: exactly −10%; a curve against itself: 0")
    func exact() throws {
        let psnrs = [31.0, 34.5, 37.0, 41.0]
        let reference = Self.curve([100, 230, 480, 1200], psnrs)
        let test = Self.curve([90, 207, 432, 1080], psnrs)
        #expect(abs(try #require(BjontegaardDelta.rate(reference: reference, test: test)) - -10) < 1e-9)
        #expect(abs(try #require(BjontegaardDelta.rate(reference: reference, test: reference))) < 1e-9)
    }

    @Test("No answer without 4 points or without overlapping PSNRs")
    func undefined() {
        let reference = Self.curve([100, 200, 400, 800], [30, 33, 36, 39])
        #expect(BjontegaardDelta.rate(reference: reference, test: Array(reference.prefix(3))) == nil)
        #expect(BjontegaardDelta.rate(reference: reference, test: Self.curve([100, 200, 400, 800], [40, 43, 46, 49])) == nil)
    }
}
