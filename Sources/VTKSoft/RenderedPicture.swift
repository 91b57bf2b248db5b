import CLibVA

/// Where a slice lies in the slice data buffer: the same three fields in every codec's VA slice parameters.
protocol VASliceDataLocation {
    var slice_data_offset: UInt32 { get }
    var slice_data_size: UInt32 { get }
    var slice_data_flag: UInt32 { get }
}

extension VASliceParameterBufferH264: VASliceDataLocation {}
extension VASliceParameterBufferHEVC: VASliceDataLocation {}

/// One picture's VA buffers as a decode context received them, gathered: the picture parameters, the
/// inverse-quantisation matrix, and each slice's parameters with its NAL unit.
///
/// The slices' parameters and NAL units are two arrays of the same length, not one of pairs: a slice's
/// parameters (3 KB for H.264) are then read where they are, rather than copied out with their NAL unit.
struct RenderedPicture<PictureParameters, Matrix, SliceParameters: VASliceDataLocation> {
    var picture: PictureParameters
    var matrix: Matrix?
    var sliceParameters: [SliceParameters]
    /// Slice `i`'s NAL unit, as `sliceParameters[i]` locates it in its slice data buffer.
    var nalUnits: [ArraySlice<UInt8>]

    /// `headerSize` is the codec's NAL unit header length: a slice must hold more than its header.
    init(_ buffers: [RenderedBuffer], headerSize: Int) throws(VAError) {
        var picture: PictureParameters?
        var sliceParameters: [SliceParameters] = []
        var nalUnits: [ArraySlice<UInt8>] = []
        // Slice parameters waiting for their data buffer, as (buffer, element): each (3 KB for H.264) is loaded once,
        // when its slice is made.
        var waiting: [(buffer: RenderedBuffer, element: Int)] = []
        for buffer in buffers {
            switch buffer.type {
            case VAPictureParameterBufferType:
                picture = buffer.element(as: PictureParameters.self)
            case VAIQMatrixBufferType:
                matrix = buffer.element(as: Matrix.self)
            case VASliceParameterBufferType:
                for element in 0..<buffer.elementCount { waiting.append((buffer, element)) }
            case VASliceDataBufferType:
                // Slice parameters describe the slice data buffer rendered after them.
                guard !waiting.isEmpty else { throw .invalidParameter }
                sliceParameters.reserveCapacity(sliceParameters.count + waiting.count)
                nalUnits.reserveCapacity(nalUnits.count + waiting.count)
                for entry in waiting {
                    sliceParameters.append(entry.buffer.element(entry.element, as: SliceParameters.self))
                    let last = sliceParameters.count - 1
                    let start = Int(sliceParameters[last].slice_data_offset), size = Int(sliceParameters[last].slice_data_size)
                    // Partial slices (VA_SLICE_DATA_FLAG_BEGIN/MIDDLE/END) are not reassembled.
                    guard sliceParameters[last].slice_data_flag == UInt32(VA_SLICE_DATA_FLAG_ALL), size > headerSize,
                          start >= 0, start + size <= buffer.bytes.count else { throw .invalidParameter }
                    nalUnits.append(buffer.bytes[start..<start + size])
                }
                waiting = []
            default:
                throw .invalidBuffer
            }
        }
        guard let picture, !nalUnits.isEmpty, waiting.isEmpty else { throw .invalidParameter }
        self.picture = picture
        self.sliceParameters = sliceParameters
        self.nalUnits = nalUnits
    }
}
