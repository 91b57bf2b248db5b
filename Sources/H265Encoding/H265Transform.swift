/// The transforms and scaling of 8.6: the inverse DCT (sizes 4 to 32) and DST (4x4 intra luma) exactly as a
/// decoder computes them, their forward counterparts for the encoder, and quantisation.
enum H265Transform {
    /// cos((π/64)·a) scaled as the Recommendation's transMatrix (8-319) for a = 0...32.
    private static let quarterWave: [Int] = [64, 90, 90, 90, 89, 88, 87, 85, 83, 82, 80, 78, 75, 73, 70, 67, 64, 61, 57, 54, 50, 46,
                                             43, 38, 36, 31, 25, 22, 18, 13, 9, 4, 0]

    /// transMatrix of the 32-point transform, `[k][n]` (8.6.4.2); smaller sizes take rows k·32/N.
    static let matrix32: [[Int32]] = (0..<32).map { k in
        (0..<32).map { n in
            if k == 0 { return 64 }
            let a = (k * (2 * n + 1)) % 128
            let v: Int
            switch a {
            case 0...32: v = quarterWave[a]
            case 33...64: v = -quarterWave[64 - a]
            case 65...96: v = -quarterWave[a - 64]
            default: v = quarterWave[128 - a]
            }
            return Int32(v)
        }
    }

    /// The N-point matrix, `[k * N + n]`.
    static let matrices: [[Int32]] = (2...5).map { log2 in
        let n = 1 << log2
        var m = [Int32](repeating: 0, count: n * n)
        for k in 0..<n { for j in 0..<n { m[k * n + j] = matrix32[k * (32 / n)][j] } }
        return m
    }

    /// The DST-VII matrix of 4x4 intra luma blocks (8-317), `[k * 4 + n]`.
    static let dst: [Int32] = [29, 55, 74, 84, 74, 74, 0, -74, 84, -29, -74, 55, 55, -84, 74, -29]

    /// levelScale (8.6.3).
    static let levelScale: [Int32] = [40, 45, 51, 57, 64, 72]
    /// Forward quantiser scales (the inverse of levelScale: 2^20 / levelScale / 64 · 2^6).
    static let quantScale: [Int32] = [26214, 23302, 20560, 18396, 16384, 14564]

    /// transMatrix of the 32-point transform flattened, `[k * 32 + n]`: the butterflies read it through one pointer.
    static let flat32: [Int32] = matrix32.flatMap { $0 }

    /// Scaling (8.6.3, flat m = 16, no scaling lists) then the inverse transform (8.6.4.2) of the levels
    /// `c` into residuals `r` (both raster, N x N). `dst`: the 4x4 DST.
    static func inverse(_ c: [Int32], log2: Int, qp: Int, bitDepth: Int, dst useDST: Bool, into r: inout [Int32]) {
        c.withUnsafeBufferPointer { cc in
            r.withUnsafeMutableBufferPointer { rr in
                guard let levels = cc.baseAddress, let residuals = rr.baseAddress else { return }
                inverse(levels, log2: log2, qp: qp, bitDepth: bitDepth, dst: useDST, into: residuals, scratch: H265TransformScratch())
            }
        }
    }

    /// ``inverse(_:log2:qp:bitDepth:dst:into:)`` from N x N levels at `cc` into N x N residuals at `rr`.
    static func inverse(_ cc: UnsafePointer<Int32>, log2: Int, qp: Int, bitDepth: Int, dst useDST: Bool, into rr: UnsafeMutablePointer<Int32>,
                        scratch: H265TransformScratch) {
        let n = 1 << log2
        let bdShift = bitDepth + log2 - 5
        let scale = Int64(levelScale[qp % 6] << Int32(qp / 6))
        let add = Int64(1) << Int64(bdShift - 1)
        let shift2 = Int32(20 - bitDepth)
        let add2 = Int32(1) << (shift2 - 1)
        let base = scratch.values
        let d = base, g = base + 1024, out = base + 4096, tmp = base + 4096 + 32
        // Scaled levels, and the extent of the nonzero ones: rows below `rows` and columns beyond `columns` are zero.
        var rows = 0, columns = 0
        for k in 0..<n {
            for x in 0..<n {
                let level = cc[k * n + x]
                if level == 0 { d[k * n + x] = 0; continue }
                d[k * n + x] = Int32(min(max((Int64(level) * scale * 16 + add) >> Int64(bdShift), -32768), 32767))
                rows = k + 1
                columns = max(columns, x + 1)
            }
        }
        if rows == 0 {
            for i in 0..<(n * n) { rr[i] = 0 }
            return
        }
        if n >= 8 && !useDST {
            inverse8(d, rows: rows, columns: columns, n: n, shift2: shift2, into: rr, g: g, scratch: scratch)
            return
        }
        flat32.withUnsafeBufferPointer { mp in
            guard let m = mp.baseAddress else { return }
            // Columns (vertical 1-D transforms), then clip to 16 bits; all-zero columns give zero.
            for x in 0..<n {
                if x >= columns {
                    for y in 0..<n { g[y * n + x] = 0 }
                    continue
                }
                inverseLine(d + x, stride: n, n: n, nonZero: rows, dst: useDST, out: out, tmp: tmp, m: m)
                for y in 0..<n { g[y * n + x] = min(max((out[y] &+ 64) >> 7, -32768), 32767) }
            }
            // Rows.
            for y in 0..<n {
                inverseLine(g + y * n, stride: 1, n: n, nonZero: n, dst: useDST, out: out, tmp: tmp, m: m)
                for x in 0..<n { rr[y * n + x] = (out[x] &+ add2) &>> shift2 }
            }
        }
    }

    /// One line of the 4x4 inverse DST (8-317) or of the N-point inverse DCT, its coefficients `c[k * stride]`, into `out`.
    private static func inverseLine(_ c: UnsafeMutablePointer<Int32>, stride: Int, n: Int, nonZero: Int, dst useDST: Bool,
                                    out: UnsafeMutablePointer<Int32>, tmp: UnsafeMutablePointer<Int32>, m: UnsafePointer<Int32>) {
        guard useDST else { return inverseButterfly(c, stride: stride, n: n, nonZero: nonZero, out: out, tmp: tmp, m: m) }
        for j in 0..<4 {
            var sum: Int32 = 0
            for k in 0..<4 { sum &+= dst[k * 4 + j] &* c[k * stride] }
            out[j] = sum
        }
    }

    /// One N-point inverse DCT (8-318 with transMatrix 8-319) by its even-odd decomposition: the even
    /// coefficients are the N/2-point transform E, the odd ones O, and x[i] = E[i] + O[i],
    /// x[N−1−i] = E[i] − O[i] (the matrix's rows are symmetric for even k, antisymmetric for odd k).
    /// `c[k * stride]` for k < nonZero may be nonzero; `tmp` holds N lanes. A lane is one line (Int32) or
    /// eight independent lines at once (SIMD8<Int32>).
    private static func inverseButterfly<Lane: TransformLane>(_ c: UnsafeMutablePointer<Lane>, stride: Int, n: Int, nonZero: Int,
                                                              out x: UnsafeMutablePointer<Lane>, tmp: UnsafeMutablePointer<Lane>,
                                                              m: UnsafePointer<Int32>) {
        if n == 1 {
            x[0] = c[0].scaled(by: 64)
            return
        }
        let half = n >> 1, step = 32 / n
        let e = tmp
        inverseButterfly(c, stride: 2 * stride, n: half, nonZero: (nonZero + 1) >> 1, out: e, tmp: tmp + half, m: m)
        for i in 0..<half {
            var o = Lane.zero
            var k = 1
            while k < nonZero {
                o = o.adding(c[k * stride].scaled(by: m[k * step * 32 + i]))
                k += 2
            }
            x[i] = e[i].adding(o)
            x[n - 1 - i] = e[i].subtracting(o)
        }
    }

    /// The two passes of ``inverse(_:log2:qp:bitDepth:dst:into:)`` for N >= 8, eight lines at a time: the
    /// columns of the scaled levels `d` (nonzero within `rows` x `columns`), clipped into `g`, then the rows
    /// as the columns of g's transpose.
    private static func inverse8(_ d: UnsafeMutablePointer<Int32>, rows: Int, columns: Int, n: Int, shift2: Int32,
                                 into r: UnsafeMutablePointer<Int32>, g: UnsafeMutablePointer<Int32>, scratch: H265TransformScratch) {
        let s = scratch.lanes, b = scratch.values + 2048
        let line = s, out = s + 32, tmp = s + 64
        let gt = b, rt = b + 1024
        flat32.withUnsafeBufferPointer { mp in
            guard let m = mp.baseAddress else { return }
            let low = SIMD8<Int32>(repeating: -32768), high = SIMD8<Int32>(repeating: 32767)
            let add = SIMD8<Int32>(repeating: 1 << (shift2 - 1))
            for c in stride(from: 0, to: n, by: 8) {
                if c >= columns {
                    for k in 0..<n { for i in 0..<8 { g[k * n + c + i] = 0 } }
                    continue
                }
                for k in 0..<rows { line[k] = UnsafeRawPointer(d + k * n + c).loadUnaligned(as: SIMD8<Int32>.self) }
                inverseButterfly(line, stride: 1, n: n, nonZero: rows, out: out, tmp: tmp, m: m)
                for k in 0..<n {
                    let v = ((out[k] &+ 64) &>> 7).clamped(lowerBound: low, upperBound: high)
                    UnsafeMutableRawPointer(g + k * n + c).storeBytes(of: v, as: SIMD8<Int32>.self)
                }
            }
            transpose(g, into: gt, n: n)
            // Columns at or beyond `columns` of g are zero: the rows' nonzero inputs end there.
            for c in stride(from: 0, to: n, by: 8) {
                for k in 0..<columns { line[k] = UnsafeRawPointer(gt + k * n + c).loadUnaligned(as: SIMD8<Int32>.self) }
                inverseButterfly(line, stride: 1, n: n, nonZero: columns, out: out, tmp: tmp, m: m)
                for k in 0..<n {
                    UnsafeMutableRawPointer(rt + k * n + c).storeBytes(of: (out[k] &+ add) &>> shift2, as: SIMD8<Int32>.self)
                }
            }
            transpose(rt, into: r, n: n)
        }
    }

    /// `b` = `a`ᵀ, both N x N (raster), by row pointers: no overflow-checked index per sample.
    private static func transpose(_ a: UnsafePointer<Int32>, into b: UnsafeMutablePointer<Int32>, n: Int) {
        for y in 0..<n {
            let row = a + y * n, column = b + y
            for x in 0..<n { column[x &* n] = row[x] }
        }
    }

    /// One N-point forward DCT (the transpose of 8-318) by its even-odd decomposition: the even outputs are
    /// the N/2-point transform of x[i] + x[N−1−i], the odd ones products with x[i] − x[N−1−i].
    /// Writes `y[k * stride]`; `tmp` holds 2N lanes (one line, or eight at once, as ``inverseButterfly``).
    private static func forwardButterfly<Lane: TransformLane>(_ x: UnsafeMutablePointer<Lane>, n: Int, out y: UnsafeMutablePointer<Lane>,
                                                              stride: Int, tmp: UnsafeMutablePointer<Lane>, m: UnsafePointer<Int32>) {
        if n == 1 {
            y[0] = x[0].scaled(by: 64)
            return
        }
        let half = n >> 1, step = 32 / n
        let e = tmp, o = tmp + half
        for i in 0..<half {
            e[i] = x[i].adding(x[n - 1 - i])
            o[i] = x[i].subtracting(x[n - 1 - i])
        }
        var k = 1
        while k < n {
            let row = m + k * step * 32
            var sum = Lane.zero
            for i in 0..<half { sum = sum.adding(o[i].scaled(by: row[i])) }
            y[k * stride] = sum
            k += 2
        }
        forwardButterfly(e, n: half, out: y, stride: 2 * stride, tmp: tmp + n, m: m)
    }

    /// One line of the 4x4 forward DST (the transpose of 8-317) or of the N-point DCT, into `out`.
    private static func forwardLine(_ line: UnsafeMutablePointer<Int32>, n: Int, dst useDST: Bool, out: UnsafeMutablePointer<Int32>,
                                    tmp: UnsafeMutablePointer<Int32>, m: UnsafePointer<Int32>) {
        guard useDST else { return forwardButterfly(line, n: n, out: out, stride: 1, tmp: tmp, m: m) }
        for k in 0..<4 {
            var sum: Int32 = 0
            for i in 0..<4 { sum &+= dst[k * 4 + i] &* line[i] }
            out[k] = sum
        }
    }

    /// The 1-D forward DCT of every column of the N x N block `a` (raster) into `b`, rounded by `shift`,
    /// eight columns at a time.
    private static func forwardColumns(_ a: UnsafePointer<Int32>, into b: UnsafeMutablePointer<Int32>, n: Int, shift: Int32,
                                       scratch: UnsafeMutablePointer<SIMD8<Int32>>, m: UnsafePointer<Int32>) {
        let line = scratch, out = scratch + 32, tmp = scratch + 64
        let add = SIMD8<Int32>(repeating: 1 << (shift - 1))
        for c in stride(from: 0, to: n, by: 8) {
            for i in 0..<n { line[i] = UnsafeRawPointer(a + i * n + c).loadUnaligned(as: SIMD8<Int32>.self) }
            forwardButterfly(line, n: n, out: out, stride: 1, tmp: tmp, m: m)
            for k in 0..<n { UnsafeMutableRawPointer(b + k * n + c).storeBytes(of: (out[k] &+ add) &>> shift, as: SIMD8<Int32>.self) }
        }
    }

    /// Forward transform of residuals `r` into coefficients (HM's scaling: shifts log2 + bitDepth − 9, then log2 + 6).
    static func forward(_ r: [Int32], log2: Int, bitDepth: Int, dst useDST: Bool) -> [Int32] {
        let n = 1 << log2
        var result = [Int32](repeating: 0, count: n * n)
        r.withUnsafeBufferPointer { rr in
            result.withUnsafeMutableBufferPointer { o in
                guard let residuals = rr.baseAddress, let coefficients = o.baseAddress else { return }
                forward(residuals, log2: log2, bitDepth: bitDepth, dst: useDST, into: coefficients, scratch: H265TransformScratch())
            }
        }
        return result
    }

    /// ``forward(_:log2:bitDepth:dst:)`` from N x N residuals at `rr` into N x N coefficients at `o`.
    static func forward(_ rr: UnsafePointer<Int32>, log2: Int, bitDepth: Int, dst useDST: Bool, into o: UnsafeMutablePointer<Int32>,
                        scratch: H265TransformScratch) {
        let n = 1 << log2
        if n >= 8 && !useDST { return forward8(rr, log2: log2, bitDepth: bitDepth, into: o, scratch: scratch) }
        let shift1 = Int32(log2 + bitDepth - 9), shift2 = Int32(log2 + 6)
        let add1 = Int32(1) << (shift1 - 1), add2 = Int32(1) << (shift2 - 1)
        let base = scratch.values
        let t = base, line = base + 4096, out = base + 4096 + 32, tmp = base + 4096 + 64
        flat32.withUnsafeBufferPointer { mp in
            guard let m = mp.baseAddress else { return }
            // Rows: t[y][k] = Σ_x m[k][x] r[y][x], rounded by shift1.
            for y in 0..<n {
                for i in 0..<n { line[i] = rr[y * n + i] }
                forwardLine(line, n: n, dst: useDST, out: out, tmp: tmp, m: m)
                for k in 0..<n { t[y * n + k] = (out[k] &+ add1) &>> shift1 }
            }
            // Columns.
            for x in 0..<n {
                for i in 0..<n { line[i] = t[i * n + x] }
                forwardLine(line, n: n, dst: useDST, out: out, tmp: tmp, m: m)
                for k in 0..<n { o[k * n + x] = (out[k] &+ add2) &>> shift2 }
            }
        }
    }

    /// ``forward(_:log2:bitDepth:dst:into:)`` for N >= 8 by columns of eight lanes: the rows are the columns of
    /// the transposed block, and the column pass runs on the transposed result.
    private static func forward8(_ rr: UnsafePointer<Int32>, log2: Int, bitDepth: Int, into o: UnsafeMutablePointer<Int32>,
                                 scratch: H265TransformScratch) {
        let n = 1 << log2
        let shift1 = Int32(log2 + bitDepth - 9), shift2 = Int32(log2 + 6)
        let base = scratch.values, s = scratch.lanes
        let xt = base, tt = base + 1024, t = base + 2048
        flat32.withUnsafeBufferPointer { mp in
            guard let m = mp.baseAddress else { return }
            transpose(rr, into: xt, n: n)
            // Tᵀ = M · Xᵀ (the row pass), T, then Y = M · T (the column pass).
            forwardColumns(xt, into: tt, n: n, shift: shift1, scratch: s, m: m)
            transpose(tt, into: t, n: n)
            forwardColumns(t, into: o, n: n, shift: shift2, scratch: s, m: m)
        }
    }

    /// Whether quantisation would leave every level of these residuals zero, judged from their sum of
    /// magnitudes alone (no coefficient can exceed 90 · 90 · Σ|r| scaled by the two transform shifts), so
    /// that the transform can be skipped without changing the result.
    static func quantisesToZero(sumOfMagnitudes: Int, log2: Int, qp: Int, bitDepth: Int, intra: Bool) -> Bool {
        let shifts = (log2 + bitDepth - 9) + (log2 + 6)
        let bound = ((8100 * sumOfMagnitudes) >> shifts) + 2
        let transformShift = 15 - bitDepth - log2
        let qBits = 14 + qp / 6 + transformShift
        let offset = (intra ? 171 : 85) << (qBits - 9)
        return bound * Int(quantScale[qp % 6]) + offset < (1 << qBits)
    }

    /// Dead-zone quantisation of forward-transform output to levels; `intra` rounds by 1/3, inter by 1/6.
    static func quantise(_ coefficients: [Int32], log2: Int, qp: Int, bitDepth: Int, intra: Bool) -> [Int32] {
        var levels = [Int32](repeating: 0, count: coefficients.count)
        coefficients.withUnsafeBufferPointer { c in
            levels.withUnsafeMutableBufferPointer { out in
                guard let input = c.baseAddress, let output = out.baseAddress else { return }
                quantise(input, count: c.count, log2: log2, qp: qp, bitDepth: bitDepth, intra: intra, into: output)
            }
        }
        return levels
    }

    /// ``quantise(_:log2:qp:bitDepth:intra:)`` of `count` coefficients at `c` into levels at `out`; returns
    /// whether any level is nonzero.
    @discardableResult
    static func quantise(_ c: UnsafePointer<Int32>, count: Int, log2: Int, qp: Int, bitDepth: Int, intra: Bool,
                         into out: UnsafeMutablePointer<Int32>) -> Bool {
        let transformShift = 15 - bitDepth - log2
        let qBits = 14 + qp / 6 + transformShift
        // |c| < 2^16 and scale < 2^15 (the forward transform's output is below 90 · 90 · 2^bitDepth · N² over its
        // shifts, 64800): level · scale + offset stays below 2^32, so 32-bit unsigned wrapping operators lose nothing.
        let uScale = UInt32(quantScale[qp % 6]), uOffset = UInt32(intra ? 171 : 85) << UInt32(qBits - 9), shift = UInt32(qBits)
        // Eight coefficients at a time (every block's count, N² with N ≥ 4, is a multiple of 8), by the same
        // operators lane-wise: |c| as (c ^ s) − s with s = c >> 31, the sign back the same way.
        var anyLanes = SIMD8<UInt32>()
        var first = 0
        while first &+ 8 <= count {
            let coefficients = UnsafeRawPointer(c + first).loadUnaligned(as: SIMD8<Int32>.self)
            let sign = coefficients &>> 31
            let magnitude = SIMD8<UInt32>(truncatingIfNeeded: (coefficients ^ sign) &- sign)
            let levels = pointwiseMin((magnitude &* uScale &+ uOffset) &>> shift, SIMD8(repeating: 32767))
            anyLanes |= levels
            let signed = (SIMD8<Int32>(truncatingIfNeeded: levels) ^ sign) &- sign
            UnsafeMutableRawPointer(out + first).storeBytes(of: signed, as: SIMD8<Int32>.self)
            first &+= 8
        }
        let halves = anyLanes.lowHalf | anyLanes.highHalf
        var any = halves[0] | halves[1] | halves[2] | halves[3]
        for i in first..<count {
            let magnitude = min((c[i].magnitude &* uScale &+ uOffset) &>> shift, 32767)
            any |= magnitude
            let level = Int32(truncatingIfNeeded: magnitude)
            out[i] = c[i] < 0 ? 0 &- level : level
        }
        return any != 0
    }
}

/// What the butterflies compute on: one line's sample, or the samples of eight independent lines (one per
/// lane), with wrapping arithmetic.
protocol TransformLane {
    static var zero: Self { get }
    func adding(_ other: Self) -> Self
    func subtracting(_ other: Self) -> Self
    /// Times a matrix coefficient, wrapping.
    func scaled(by coefficient: Int32) -> Self
}

extension Int32: TransformLane {
    func adding(_ other: Int32) -> Int32 { self &+ other }
    func subtracting(_ other: Int32) -> Int32 { self &- other }
    func scaled(by coefficient: Int32) -> Int32 { coefficient &* self }
}

extension SIMD8: TransformLane where Scalar == Int32 {
    func adding(_ other: SIMD8<Int32>) -> SIMD8<Int32> { self &+ other }
    func subtracting(_ other: SIMD8<Int32>) -> SIMD8<Int32> { self &- other }
    func scaled(by coefficient: Int32) -> SIMD8<Int32> { self &* coefficient }
}

/// Working memory of ``H265Transform``'s forward and inverse transforms up to 32x32, allocated once by its owner
/// so that transforming a block allocates nothing (temporary allocations above 1 KiB, or aligned to 32 bytes as
/// eight-lane vectors are, come from the heap).
final class H265TransformScratch {
    /// Four N x N blocks of values, then the lines of one 1-D transform.
    let values: UnsafeMutablePointer<Int32>
    /// Eight lines at a time: a line, its output and the butterflies' temporaries.
    let lanes: UnsafeMutablePointer<SIMD8<Int32>>

    init() {
        values = .allocate(capacity: 4 * 1024 + 128)
        lanes = .allocate(capacity: 64 + 128)
    }

    deinit {
        values.deallocate()
        lanes.deallocate()
    }
}
