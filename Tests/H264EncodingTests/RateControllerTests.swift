import H264Encoding
import Testing
import Glibc
import VTKTestSupport

/// The rate controller against a simulated encoder whose pictures cost complexity · 2^(-QP/6) bits, with
/// scene changes and per-picture noise (the oracle is the arithmetic of the simulation).
@Suite("RateController")
struct RateControllerTests {
    /// One GOP pattern: I every 30, else P; `complexity` jumps at scene changes.
    struct SimulatedEncoder {
        var random = SeededRandom(seed: 7)
        var frame = 0

        mutating func next() -> (kind: RateController.PictureKind, complexity: Double) {
            defer { frame += 1 }
            let scene = (frame / 100) % 3  // three scenes of different difficulty
            let base: Double = [2.0e6, 6.0e6, 1.0e6][scene]
            let noise = 0.8 + 0.4 * Double(random.next() % 1000) / 1000
            return frame % 30 == 0 ? (.intra, base * 5 * noise) : (.predicted, base * noise)
        }

        static func bits(_ complexity: Double, qp: Int) -> Int { Int(complexity * pow2(-Double(qp) / 6)) }
        static func pow2(_ x: Double) -> Double { exp2(x) }
    }

    /// Codes `count` pictures as a driver would (retrying at the QP the controller asks for).
    static func run(_ parameters: RateController.Parameters, count: Int = 300) -> (bits: [Int], qps: [Int]) {
        var rc = RateController(parameters)
        var encoder = SimulatedEncoder()
        var bits: [Int] = [], qps: [Int] = []
        for _ in 0..<count {
            let (kind, complexity) = encoder.next()
            var qp = rc.qp(for: kind)
            var size = SimulatedEncoder.bits(complexity, qp: qp)
            var passes = 1
            while passes < 4, let retry = rc.retryQP(bits: size, qp: qp) {
                qp = retry
                size = SimulatedEncoder.bits(complexity, qp: qp)
                passes += 1
            }
            rc.record(bits: size, qp: qp, kind: kind)
            bits.append(size)
            qps.append(qp)
        }
        return (bits, qps)
    }

    static let fps = 30.0
    static func parameters(_ mode: RateController.Mode, _ bps: Int, percentage: Int = 100, window: Int = 1000,
                           minQP: Int = 0, maxQP: Int = 0, initialQP: Int = 0) -> RateController.Parameters {
        .init(mode: mode, bitsPerSecond: bps, targetPercentage: percentage, windowSize: window, initialQP: initialQP,
              minQP: minQP, maxQP: maxQP, bufferSize: bps, initialBufferFullness: bps / 2, framesPerSecond: fps,
              lumaSamples: 1280 * 720)
    }

    @Test("CBR lands within 5% of the rate over 300 pictures, and its buffer never underflows")
    func cbrHitsTheRate() {
        let (bits, _) = Self.run(Self.parameters(.cbr, 2_000_000))
        let rate = Double(bits.reduce(0, +)) / (Double(bits.count) / Self.fps)
        #expect(abs(rate / 2_000_000 - 1) < 0.05, "CBR rate \(rate)")
        // Annex C: fullness + arrivals - removals stays >= 0.
        var fullness = 1_000_000.0
        for b in bits {
            fullness = min(fullness + 2_000_000 / Self.fps - Double(b), 2_000_000)
            #expect(fullness >= -1)
        }
    }

    @Test("VBR averages target_percentage of the peak and no one-second window exceeds the peak")
    func vbrKeepsToThePeak() {
        let (bits, _) = Self.run(Self.parameters(.vbr, 4_000_000, percentage: 50))
        let rate = Double(bits.reduce(0, +)) / (Double(bits.count) / Self.fps)
        #expect(abs(rate / 2_000_000 - 1) < 0.10, "VBR average \(rate)")
        let window = Int(Self.fps)
        for start in 0...(bits.count - window) {
            let sum = bits[start..<(start + window)].reduce(0, +)
            #expect(sum <= 4_000_000, "window at \(start): \(sum) bits")
        }
    }

    @Test("CBR and VBR at the same rate choose different QPs")
    func cbrAndVBRDiffer() {
        let cbr = Self.run(Self.parameters(.cbr, 2_000_000)).qps
        let vbr = Self.run(Self.parameters(.vbr, 2_000_000, percentage: 60)).qps
        #expect(cbr != vbr)
    }

    @Test("initial_qp starts the stream; min_qp and max_qp bound every picture")
    func qpBounds() {
        let (_, qps) = Self.run(Self.parameters(.cbr, 2_000_000, minQP: 20, maxQP: 40, initialQP: 33), count: 60)
        #expect(qps.first == 33)
        let (_, poor) = Self.run(Self.parameters(.cbr, 200_000, minQP: 20, maxQP: 40), count: 60)
        #expect(poor.allSatisfy { (20...40).contains($0) })
        #expect(poor.contains(40))
        let (_, rich) = Self.run(Self.parameters(.cbr, 500_000_000, minQP: 18), count: 30)
        #expect(rich.allSatisfy { $0 >= 18 })
        #expect(rich.contains(18))
    }

    @Test("A picture over MaxFrameSize is coded again at a higher QP")
    func maxFrameSize() {
        let rc = RateController(Self.parameters(.cbr, 2_000_000))
        #expect(rc.retryQP(bits: 50_000, qp: 30) == nil)
        let retry = rc.retryQP(bits: 50_000, qp: 30, maxFrameSize: 20_000)
        #expect(retry.map { $0 > 30 } == true)
    }
}
