/// One sei_message() (7.3.2.3.1): its payloadType and payload bytes (RBSP).
public struct SEIMessage: Hashable, Sendable {
    public var payloadType: Int
    public var payload: [UInt8]

    public static let recoveryPointType = 6

    /// Splits an SEI NAL unit into its messages (7.3.2.3).
    public static func messages(in unit: NALUnit) throws(BitstreamError) -> [SEIMessage] {
        guard unit.type == .sei else {
            throw .malformedNALUnit(byteOffset: unit.offset, reason: "expected SEI, found \(unit.type)")
        }
        let rbsp = unit.rbsp
        var messages: [SEIMessage] = []
        var i = 0
        // Stop at the rbsp_trailing_bits byte (0x80) that ends the last message.
        while i < rbsp.count && !(i == rbsp.count - 1 && rbsp[i] == 0x80) {
            var type = 0
            while i < rbsp.count && rbsp[i] == 0xFF { type += 255; i += 1 }
            guard i < rbsp.count else { throw .overrun(bitOffset: 8 * (unit.offset + 1 + i), needed: 8) }
            type += Int(rbsp[i]); i += 1
            var size = 0
            while i < rbsp.count && rbsp[i] == 0xFF { size += 255; i += 1 }
            guard i < rbsp.count else { throw .overrun(bitOffset: 8 * (unit.offset + 1 + i), needed: 8) }
            size += Int(rbsp[i]); i += 1
            guard size <= rbsp.count - i else {
                throw .overrun(bitOffset: 8 * (unit.offset + 1 + i), needed: 8 * (size - (rbsp.count - i)))
            }
            messages.append(SEIMessage(payloadType: type, payload: Array(rbsp[i..<(i + size)])))
            i += size
        }
        return messages
    }

    /// An SEI NAL unit carrying `messages` (7.3.2.3): type and size in 255-steps, payloads, trailing bits.
    public static func nalUnit(_ messages: [SEIMessage]) -> NALUnit {
        var rbsp: [UInt8] = []
        for m in messages {
            var type = m.payloadType, size = m.payload.count
            while type >= 255 { rbsp.append(0xFF); type -= 255 }
            rbsp.append(UInt8(type))
            while size >= 255 { rbsp.append(0xFF); size -= 255 }
            rbsp.append(UInt8(size))
            rbsp += m.payload
        }
        rbsp.append(0x80)
        return NALUnit([NALUnitHeader(nalRefIdc: 0, nalUnitType: .sei).byte] + EmulationPrevention.insert(rbsp))
    }
}

/// recovery_point() SEI (D.1.8): decoding can start at this access unit; pictures are right from
/// recovery_frame_cnt frames on.
public struct RecoveryPoint: Hashable, Sendable {
    public var recoveryFrameCnt: Int
    public var exactMatchFlag: Bool
    public var brokenLinkFlag: Bool
    public var changingSliceGroupIdc: Int

    public init(recoveryFrameCnt: Int, exactMatchFlag: Bool = true, brokenLinkFlag: Bool = false, changingSliceGroupIdc: Int = 0) {
        self.recoveryFrameCnt = recoveryFrameCnt
        self.exactMatchFlag = exactMatchFlag
        self.brokenLinkFlag = brokenLinkFlag
        self.changingSliceGroupIdc = changingSliceGroupIdc
    }

    public init(message: SEIMessage) throws(BitstreamError) {
        var r = BitReader(message.payload)
        recoveryFrameCnt = try r.ue(max: 65535, "recovery_frame_cnt")
        exactMatchFlag = try r.flag()
        brokenLinkFlag = try r.flag()
        changingSliceGroupIdc = Int(try r.u(2))
    }

    /// The message (D.1.8), its payload padded to a byte with a one bit and zeros (D.1).
    public var message: SEIMessage {
        var w = BitWriter()
        w.ue(recoveryFrameCnt)
        w.flag(exactMatchFlag)
        w.flag(brokenLinkFlag)
        w.u(2, changingSliceGroupIdc)
        if !w.isByteAligned { w.u(1, 1); w.alignWithZeros() }
        return SEIMessage(payloadType: SEIMessage.recoveryPointType, payload: w.bytes)
    }

    /// The recovery point of an SEI NAL unit, if it has one.
    public static func find(in unit: NALUnit) throws(BitstreamError) -> RecoveryPoint? {
        for message in try SEIMessage.messages(in: unit) where message.payloadType == SEIMessage.recoveryPointType {
            return try RecoveryPoint(message: message)
        }
        return nil
    }
}

/// access_unit_delimiter_rbsp() (7.3.2.4).
public struct AccessUnitDelimiter: Hashable, Sendable {
    /// primary_pic_type (Table 7-5): which slice types the picture may contain.
    public var primaryPicType: Int

    public init(primaryPicType: Int) { self.primaryPicType = primaryPicType }

    public init(nalUnit: NALUnit) throws(BitstreamError) {
        guard nalUnit.type == .accessUnitDelimiter else {
            throw .malformedNALUnit(byteOffset: nalUnit.offset, reason: "expected AUD, found \(nalUnit.type)")
        }
        var r = BitReader(nalUnit.rbsp, reportingBase: 8 * (nalUnit.offset + 1))
        primaryPicType = Int(try r.u(3))
    }

    public var nalUnit: NALUnit {
        NALUnit([NALUnitHeader(nalRefIdc: 0, nalUnitType: .accessUnitDelimiter).byte, UInt8(primaryPicType << 5) | 0x10])
    }
}

/// pic_timing() (D.1.3), as far as pic_struct: it needs the SPS's VUI to be read (the HRD delay lengths).
public enum PictureTiming {
    public static let payloadType = 1

    /// pic_struct (Table D-1) of a pic_timing payload, or nil when the SPS has no pic_struct_present_flag
    /// or the payload is too short.
    public static func picStruct(payload: [UInt8], sps: SequenceParameterSet) -> Int? {
        guard sps.vuiParametersPresentFlag, sps.vui.picStructPresentFlag else { return nil }
        var r = BitReader(payload)
        do {
            let vui = sps.vui
            if vui.nalHrdParametersPresentFlag || vui.vclHrdParametersPresentFlag {
                let hrd = vui.nalHrdParametersPresentFlag ? vui.nalHrd : vui.vclHrd
                _ = try r.u(Int(hrd.cpbRemovalDelayLengthMinus1) + 1)  // cpb_removal_delay
                _ = try r.u(Int(hrd.dpbOutputDelayLengthMinus1) + 1)  // dpb_output_delay
            }
            return Int(try r.u(4))
        } catch {
            return nil
        }
    }

    /// Whether pic_struct says which field comes first (Table D-1): true for top first (3, 5), false for
    /// bottom first (4, 6), nil otherwise.
    public static func topFieldFirst(picStruct: Int) -> Bool? {
        switch picStruct {
        case 3, 5: return true
        case 4, 6: return false
        default: return nil
        }
    }
}
