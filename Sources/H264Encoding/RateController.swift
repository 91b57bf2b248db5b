import Glibc

/// Frame-level rate control as a hardware encoder's BRC does it from VA's misc parameters: it picks each
/// picture's QP, and says whether a coded picture must be coded again at a higher QP (a "multiple pass",
/// as iHD's MaxFrameSize reports).
///
/// The bit model is R(QP) = complexity · 2^(-QP/6) per picture type (the quantiser step doubles every 6 QP,
/// 8.5.9), with complexity re-estimated from every coded picture.
/// - CBR spends `bitsPerSecond` and steers a decoder buffer (Annex C leaky bucket, `bufferSize` bits,
///   starting at `initialBufferFullness`) back to its starting fullness.
/// - VBR averages `bitsPerSecond · targetPercentage / 100` over the stream and never lets the bits of any
///   `windowSize` span of pictures exceed `bitsPerSecond · windowSize`: a picture that would break the
///   window is coded again at a higher QP (up to `maxQP`).
public struct RateController: Sendable {
    public enum Mode: Sendable, Equatable { case cbr, vbr }

    public struct Parameters: Sendable, Equatable {
        public var mode: Mode
        /// CBR: the rate; VBR: the peak rate.
        public var bitsPerSecond: Int
        /// VBR: the average as a percentage of `bitsPerSecond` (1...100; 0 means 100).
        public var targetPercentage: Int
        /// The window, in milliseconds, over which VBR keeps to `bitsPerSecond` (0: one second).
        public var windowSize: Int
        /// QP of the first picture (0: derived from bits per pixel).
        public var initialQP: Int
        public var minQP: Int
        /// 0 means 51.
        public var maxQP: Int
        /// HRD buffer in bits (0: one second of `bitsPerSecond`).
        public var bufferSize: Int
        /// HRD initial fullness in bits (0: half the buffer).
        public var initialBufferFullness: Int
        public var framesPerSecond: Double
        /// Luma samples per picture, to guess a first QP from bits per pixel.
        public var lumaSamples: Int

        public init(mode: Mode, bitsPerSecond: Int, targetPercentage: Int = 100, windowSize: Int = 0, initialQP: Int = 0,
                    minQP: Int = 0, maxQP: Int = 0, bufferSize: Int = 0, initialBufferFullness: Int = 0,
                    framesPerSecond: Double = 30, lumaSamples: Int) {
            self.mode = mode
            self.bitsPerSecond = bitsPerSecond
            self.targetPercentage = targetPercentage
            self.windowSize = windowSize
            self.initialQP = initialQP
            self.minQP = minQP
            self.maxQP = maxQP
            self.bufferSize = bufferSize
            self.initialBufferFullness = initialBufferFullness
            self.framesPerSecond = framesPerSecond
            self.lumaSamples = lumaSamples
        }

        var averageRate: Double {
            let percentage = mode == .vbr && (1...100).contains(targetPercentage) ? targetPercentage : 100
            return Double(bitsPerSecond) * Double(percentage) / 100
        }
        var qpRange: ClosedRange<Int> {
            let low = min(max(minQP, 0), 51)
            return low...max(low, maxQP > 0 ? min(maxQP, 51) : 51)
        }
        var fps: Double { framesPerSecond > 0 ? framesPerSecond : 30 }
        /// Pictures in the VBR window (at least 1).
        var windowPictures: Int { max(1, Int((Double(windowSize > 0 ? windowSize : 1000) / 1000 * fps).rounded())) }
        var buffer: Double { Double(bufferSize > 0 ? bufferSize : bitsPerSecond) }
    }

    /// I, P and B pictures have very different costs; each keeps its own complexity.
    public enum PictureKind: Int, Sendable { case intra, predicted, bipredicted }

    public private(set) var parameters: Parameters
    /// Decoder buffer fullness in bits (Annex C): grows by the rate per picture, drops by each picture.
    public private(set) var bufferFullness: Double
    /// Bits coded so far and pictures coded so far.
    public private(set) var totalBits = 0
    public private(set) var pictureCount = 0
    private var complexity: [Double?] = [nil, nil, nil]
    private var lastQP: [Int?] = [nil, nil, nil]
    /// Bits of the last `windowPictures - 1` pictures (VBR peak check).
    private var window: [Int] = []

    public init(_ parameters: Parameters) {
        self.parameters = parameters
        bufferFullness = Double(parameters.initialBufferFullness > 0 ? parameters.initialBufferFullness : Int(parameters.buffer / 2))
    }

    /// Takes new parameters (a client may change the rate mid-stream) and keeps what was learnt.
    public mutating func update(_ new: Parameters) {
        guard new != parameters else { return }
        let restartBuffer = new.bufferSize != parameters.bufferSize || new.initialBufferFullness != parameters.initialBufferFullness
        parameters = new
        if restartBuffer { bufferFullness = Double(new.initialBufferFullness > 0 ? new.initialBufferFullness : Int(new.buffer / 2)) }
        window = Array(window.suffix(new.windowPictures - 1))
    }

    /// Bits the next picture of `kind` should take.
    public func targetBits(for kind: PictureKind) -> Double {
        let p = parameters
        let perPicture = p.averageRate / p.fps
        // Intra pictures cost several P pictures' worth; the buffer pays it back over the next ones.
        let weight: Double = kind == .intra ? 4 : (kind == .bipredicted ? 0.6 : 1)
        var target = perPicture * weight
        switch p.mode {
        case .cbr:
            // Steer the buffer back to its starting point over about a second of pictures.
            let aim = Double(p.initialBufferFullness > 0 ? p.initialBufferFullness : Int(p.buffer / 2))
            target += (bufferFullness - aim) / max(p.fps, 1)
        case .vbr:
            // Keep the long-run average: pay back (or spend) the difference over about two seconds.
            let expected = perPicture * Double(pictureCount)
            target += (expected - Double(totalBits)) / max(2 * p.fps, 1)
        }
        return max(target, perPicture * 0.1)
    }

    /// The QP for the next picture of `kind`.
    public func qp(for kind: PictureKind) -> Int {
        let range = parameters.qpRange
        let target = targetBits(for: kind)
        guard let c = complexity[kind.rawValue] ?? estimatedComplexity(kind) else {
            return clamp(firstQP, range)
        }
        var qp = Int((6 * log2(c / target)).rounded())
        // Half way from the last QP, and no jumps of more than a few: the model's slope is a rough one
        // (P pictures lose bits faster than 2^(-QP/6) as skips grow), and full steps make QP oscillate.
        if let last = lastQP[kind.rawValue] {
            qp = Int((Double(qp + last) / 2).rounded(qp > last ? .up : .down))
            qp = min(max(qp, last - 4), last + 4)
        }
        return clamp(qp, range)
    }

    /// Most bits the picture may take without breaking the VBR window or emptying the CBR buffer; nil
    /// when there is no such limit.
    public var maximumPictureBits: Int? {
        let p = parameters
        switch p.mode {
        case .vbr:
            let allowed = Double(p.bitsPerSecond) * Double(p.windowPictures) / p.fps
            return max(0, Int(allowed) - window.suffix(p.windowPictures - 1).reduce(0, +))
        case .cbr:
            // Annex C: the decoder's buffer must hold the picture when it is removed.
            return max(0, Int(bufferFullness + p.averageRate / p.fps))
        }
    }

    /// Whether a picture coded at `qp` in `bits` must be coded again; returns the QP to retry with.
    /// `maxFrameSize`: the client's own limit in bits (VA's MaxFrameSize), if any.
    public func retryQP(bits: Int, qp: Int, maxFrameSize: Int? = nil) -> Int? {
        guard let limit = [maximumPictureBits, maxFrameSize].compactMap({ $0 }).min(), bits > limit,
              qp < parameters.qpRange.upperBound else { return nil }
        // Bits halve every 6 QP: step up by what the overshoot says, at least one.
        let step = max(1, Int((6 * log2(Double(bits) / Double(max(limit, 1)))).rounded(.up)))
        return min(qp + step, parameters.qpRange.upperBound)
    }

    /// Records a coded picture.
    public mutating func record(bits: Int, qp: Int, kind: PictureKind) {
        let p = parameters
        let c = Double(max(bits, 1)) * pow(2, Double(qp) / 6)
        if let old = complexity[kind.rawValue] { complexity[kind.rawValue] = 0.5 * old + 0.5 * c } else { complexity[kind.rawValue] = c }
        lastQP[kind.rawValue] = qp
        totalBits += bits
        pictureCount += 1
        bufferFullness = min(bufferFullness + p.averageRate / p.fps - Double(bits), p.buffer)
        window.append(bits)
        if window.count > p.windowPictures - 1 { window.removeFirst(window.count - (p.windowPictures - 1)) }
    }

    /// A first guess for a kind not coded yet, from one that was (I ≈ 4 P, B ≈ 0.6 P).
    private func estimatedComplexity(_ kind: PictureKind) -> Double? {
        let scale: [Double] = [4, 1, 0.6]
        for other in [PictureKind.predicted, .intra, .bipredicted] where other != kind {
            if let c = complexity[other.rawValue] { return c * scale[kind.rawValue] / scale[other.rawValue] }
        }
        return nil
    }

    /// initial_qp, else a guess from bits per pixel (an intra picture of camera content: about 1 bpp at QP 26).
    private var firstQP: Int {
        let p = parameters
        if p.initialQP > 0 { return p.initialQP }
        let bitsPerPixel = targetBits(for: .intra) / Double(max(p.lumaSamples, 1))
        return Int((26 - 6 * log2(bitsPerPixel)).rounded())
    }

    private func clamp(_ qp: Int, _ range: ClosedRange<Int>) -> Int { min(max(qp, range.lowerBound), range.upperBound) }
}
