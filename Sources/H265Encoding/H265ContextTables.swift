/// The H.265 CABAC contexts vtksoft codes: where each syntax element's contexts start (ctxIdx of its
/// first context) and their initValues per initType (9.3.2.2, Tables 9-5 to 9-37), transcribed from
/// the Recommendation.
enum H265Context {
    static let saoMergeFlag = 0
    static let saoTypeIdx = 1
    static let splitCUFlag = 2            // 3: ctxInc 0...2 (9.3.4.2.2)
    static let cuTransquantBypassFlag = 5
    static let cuSkipFlag = 6             // 3
    static let cuQPDeltaAbs = 9           // 2 used (first bin, the others)
    static let predModeFlag = 12
    static let partMode = 13              // 4
    static let prevIntraLumaPredFlag = 17
    static let intraChromaPredMode = 18
    static let mergeFlag = 20
    static let mergeIdx = 21
    static let interPredIdc = 22          // 5
    static let refIdx = 27                // 2, shared by both lists
    static let absMvdGreater0Flag = 31
    static let absMvdGreater1Flag = 34
    static let mvpFlag = 35
    static let rqtRootCbf = 36
    static let splitTransformFlag = 37    // 3: 5 - log2TrafoSize
    static let cbfLuma = 40               // 2: trafoDepth == 0
    static let cbfChroma = 42             // 4: trafoDepth
    static let transformSkipFlag = 46     // 2
    static let lastSigCoeffXPrefix = 52   // 18
    static let lastSigCoeffYPrefix = 70   // 18
    static let codedSubBlockFlag = 88     // 4
    static let sigCoeffFlag = 92          // 44 (42 without transform_skip_context)
    static let coeffAbsLevelGreater1Flag = 136  // 24
    static let coeffAbsLevelGreater2Flag = 160  // 6
    static let count = 166

    /// initValue by initType (0: I, 1 and 2: P and B as 9.3.2.2 assigns them), by ctxIdx.
    static let initValues: [[UInt8]] = [
        [153, 200, 139, 141, 157, 154, 154, 154, 154, 154, 154, 154, 154, 184, 154, 154, 154, 184, 63, 139,
         154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 153, 138, 138,
         111, 141, 94, 138, 182, 154, 139, 139, 139, 139, 139, 139,
         110, 110, 124, 125, 140, 153, 125, 127, 140, 109, 111, 143, 127, 111, 79, 108, 123, 63,
         110, 110, 124, 125, 140, 153, 125, 127, 140, 109, 111, 143, 127, 111, 79, 108, 123, 63,
         91, 171, 134, 141,
         111, 111, 125, 110, 110, 94, 124, 108, 124, 107, 125, 141, 179, 153, 125, 107, 125, 141, 179, 153,
         125, 107, 125, 141, 179, 153, 125, 140, 139, 182, 182, 152, 136, 152, 136, 153, 136, 139, 111, 136,
         139, 111, 141, 111,
         140, 92, 137, 138, 140, 152, 138, 139, 153, 74, 149, 92, 139, 107, 122, 152, 140, 179, 166, 182,
         140, 227, 122, 197,
         138, 153, 136, 167, 152, 152],
        [153, 185, 107, 139, 126, 154, 197, 185, 201, 154, 154, 154, 149, 154, 139, 154, 154, 154, 152, 139,
         110, 122, 95, 79, 63, 31, 31, 153, 153, 153, 153, 140, 198, 140, 198, 168, 79, 124, 138, 94,
         153, 111, 149, 107, 167, 154, 139, 139, 139, 139, 139, 139,
         125, 110, 94, 110, 95, 79, 125, 111, 110, 78, 110, 111, 111, 95, 94, 108, 123, 108,
         125, 110, 94, 110, 95, 79, 125, 111, 110, 78, 110, 111, 111, 95, 94, 108, 123, 108,
         121, 140, 61, 154,
         155, 154, 139, 153, 139, 123, 123, 63, 153, 166, 183, 140, 136, 153, 154, 166, 183, 140, 136, 153,
         154, 166, 183, 140, 136, 153, 154, 170, 153, 123, 123, 107, 121, 107, 121, 167, 151, 183, 140, 151,
         183, 140, 140, 140,
         154, 196, 196, 167, 154, 152, 167, 182, 182, 134, 149, 136, 153, 121, 136, 137, 169, 194, 166, 167,
         154, 167, 137, 182,
         107, 167, 91, 122, 107, 167],
        [153, 160, 107, 139, 126, 154, 197, 185, 201, 154, 154, 154, 134, 154, 139, 154, 154, 183, 152, 139,
         154, 137, 95, 79, 63, 31, 31, 153, 153, 153, 153, 169, 198, 169, 198, 168, 79, 224, 167, 122,
         153, 111, 149, 92, 167, 154, 139, 139, 139, 139, 139, 139,
         125, 110, 124, 110, 95, 94, 125, 111, 111, 79, 125, 126, 111, 111, 79, 108, 123, 93,
         125, 110, 124, 110, 95, 94, 125, 111, 111, 79, 125, 126, 111, 111, 79, 108, 123, 93,
         121, 140, 61, 154,
         170, 154, 139, 153, 139, 123, 123, 63, 124, 166, 183, 140, 136, 153, 154, 166, 183, 140, 136, 153,
         154, 166, 183, 140, 136, 153, 154, 170, 153, 138, 138, 122, 121, 122, 121, 167, 151, 183, 140, 151,
         183, 140, 140, 140,
         154, 196, 167, 167, 154, 152, 167, 182, 182, 134, 149, 136, 153, 121, 136, 122, 169, 208, 166, 167,
         154, 152, 167, 182,
         107, 167, 91, 107, 107, 167],
    ]
}
