/// The SVG plot of a round trip: panels stacked on one frame axis, labels outside the frames.
struct RoundtripPlot {
    let report: RoundtripReport

    static let width = 960.0, left = 80.0, right = 24.0, panelHeight = 200.0, gap = 56.0, top = 48.0
    static let typeColours: [Character: String] = ["I": "#d62728", "P": "#1f77b4", "B": "#2ca02c", "?": "#7f7f7f"]

    private var records: [RoundtripCommand.FrameRecord] { report.records }
    private var plotWidth: Double { Self.width - Self.left - Self.right }
    private var step: Double { plotWidth / Double(max(records.count, 1)) }
    private func x(_ index: Int) -> Double { Self.left + (Double(index) + 0.5) * step }

    var svg: String {
        var panels: [(title: String, body: (Double) -> String)] = []
        let psnrs = records.map { $0.quality.psnr[0] }
        panels.append(("Y-PSNR per frame (dB)", { top in self.linePanel(top: top, values: psnrs, threshold: self.report.minPSNR,
                                                                        thresholdName: "--min-psnr", unit: "dB", digits: 1) }))
        if report.ssim {
            let ssims = records.map { $0.quality.ssimY ?? 0 }
            panels.append(("Y-SSIM per frame", { top in self.linePanel(top: top, values: ssims, threshold: self.report.minSSIM,
                                                                       thresholdName: "--min-ssim", unit: "", digits: 4) }))
        }
        panels.append(("bits per frame, by picture type", { top in self.bitsPanel(top: top) }))
        let height = Self.top + Double(panels.count) * (Self.panelHeight + Self.gap) + 10
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        let source = report.source
        out += "<text x=\"\(Self.left)\" y=\"20\">vtk roundtrip: \(Self.escape(source.displayName)) \(source.width)x\(source.height), "
            + "\(report.rateControlText), Y-PSNR \(String(format2: report.psnr[0])) dB, \(String(format1: report.bitRate / 1000)) kbit/s</text>\n"
        for (index, panel) in panels.enumerated() {
            let top = Self.top + Double(index) * (Self.panelHeight + Self.gap)
            out += "<text x=\"\(Self.left)\" y=\"\(top - 6)\" font-weight=\"bold\">\(panel.title)</text>\n"
            out += panel.body(top)
            out += frameAxis(top: top + Self.panelHeight)
        }
        return out + "</svg>\n"
    }

    /// A framed panel with a line of `values`, y labels left of the frame, and a dashed threshold line.
    private func linePanel(top: Double, values: [Double], threshold: Double?, thresholdName: String, unit: String, digits: Int) -> String {
        let all = values + (threshold.map { [$0] } ?? [])
        var lo = all.min() ?? 0, hi = all.max() ?? 1
        let pad = max((hi - lo) * 0.08, digits > 1 ? 0.0005 : 0.5)
        lo -= pad
        hi += pad
        func y(_ v: Double) -> Double { top + Self.panelHeight - (v - lo) / max(hi - lo, 1e-12) * Self.panelHeight }
        let format = { (v: Double) in String(decimals: digits, v) + (unit.isEmpty ? "" : " \(unit)") }
        var out = "<rect x=\"\(Self.left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(Self.panelHeight)\" fill=\"none\" stroke=\"#888\"/>\n"
        for i in 0...4 {
            let v = lo + (hi - lo) * Double(i) / 4
            out += "<line x1=\"\(Self.left - 4)\" y1=\"\(y(v))\" x2=\"\(Self.left)\" y2=\"\(y(v))\" stroke=\"#888\"/>"
            out += "<text x=\"\(Self.left - 6)\" y=\"\(y(v) + 4)\" text-anchor=\"end\">\(format(v))</text>\n"
        }
        let points = values.enumerated().map { "\(x($0.offset)),\(y($0.element))" }.joined(separator: " ")
        out += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"\(points)\"/>\n"
        if let threshold {
            out += "<line class=\"threshold\" x1=\"\(Self.left)\" y1=\"\(y(threshold))\" x2=\"\(Self.left + plotWidth)\" y2=\"\(y(threshold))\" "
                + "stroke=\"#d62728\" stroke-dasharray=\"6,4\"/>"
            out += "<text x=\"\(Self.left + plotWidth - 4)\" y=\"\(y(threshold) - 4)\" text-anchor=\"end\" fill=\"#d62728\">"
                + "\(thresholdName) \(format(threshold))</text>\n"
        }
        return out
    }

    /// Bars of bits per frame, coloured by picture type, the type written above each bar when there is room.
    private func bitsPanel(top: Double) -> String {
        let maxBits = Double(max(records.map(\.bits).max() ?? 1, 1))
        var out = "<rect x=\"\(Self.left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(Self.panelHeight)\" fill=\"none\" stroke=\"#888\"/>\n"
        for i in 0...4 {
            let v = maxBits * Double(i) / 4, y = top + Self.panelHeight - Double(i) / 4 * Self.panelHeight
            out += "<line x1=\"\(Self.left - 4)\" y1=\"\(y)\" x2=\"\(Self.left)\" y2=\"\(y)\" stroke=\"#888\"/>"
            out += "<text x=\"\(Self.left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\">\(Int(v.rounded()))</text>\n"
        }
        for r in records {
            let h = Double(r.bits) / maxBits * (Self.panelHeight - 14)
            let colour = Self.typeColours[r.type] ?? "#7f7f7f"
            out += "<rect class=\"frame-\(r.type)\" x=\"\(x(r.index) - step * 0.4)\" y=\"\(top + Self.panelHeight - h)\" width=\"\(max(step * 0.8, 0.5))\" "
                + "height=\"\(h)\" fill=\"\(colour)\"><title>frame \(r.index): \(r.type), \(r.bits) bits</title></rect>"
            if step >= 9 {
                out += "<text x=\"\(x(r.index))\" y=\"\(top + Self.panelHeight - h - 3)\" text-anchor=\"middle\" font-size=\"10\">\(r.type)</text>"
            }
            out += "\n"
        }
        var legendX = Self.left + plotWidth - 150
        for type in ["I", "P", "B"] as [Character] {
            out += "<rect x=\"\(legendX)\" y=\"\(top - 16)\" width=\"10\" height=\"10\" fill=\"\(Self.typeColours[type] ?? "")\"/>"
            out += "<text x=\"\(legendX + 14)\" y=\"\(top - 7)\">\(type)</text>\n"
            legendX += 48
        }
        return out
    }

    /// Frame numbers under a panel, at a round step that leaves room for the labels.
    private func frameAxis(top: Double) -> String {
        let count = records.count
        guard count > 0 else { return "" }
        let room = max(1, Int(plotWidth / 50))
        let tick = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 50_000, 100_000].first { count / $0 <= room } ?? count
        var out = ""
        for index in stride(from: 0, to: count, by: tick) {
            out += "<line x1=\"\(x(index))\" y1=\"\(top)\" x2=\"\(x(index))\" y2=\"\(top + 4)\" stroke=\"#888\"/>"
            out += "<text class=\"frame-number\" x=\"\(x(index))\" y=\"\(top + 16)\" text-anchor=\"middle\">\(index)</text>\n"
        }
        out += "<text x=\"\(Self.left + plotWidth)\" y=\"\(top + 32)\" text-anchor=\"end\">frame (display order)</text>\n"
        return out
    }

    static func escape(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}
