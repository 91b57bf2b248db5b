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
        // Reserved once for the picture's slices: growing per data buffer cost a reallocation of 3 KB elements each.
        let sliceCount = buffers.reduce(0) { $0 + ($1.type == VASliceParameterBufferType ? $1.elementCount : 0) }
        var sliceParameters: [SliceParameters] = []
        var nalUnits: [ArraySlice<UInt8>] = []
        sliceParameters.reserveCapacity(sliceCount)
        nalUnits.reserveCapacity(sliceCount)
        // Slice parameters waiting for their data buffer, as (buffer, element): each (3 KB for H.264) is loaded once,
        // when its slice is made.
        var waiting: [(buffer: RenderedBuffer, element: Int)] = []
        waiting.reserveCapacity(sliceCount)
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
                for entry in waiting {
                    let parameters = entry.buffer.element(entry.element, as: SliceParameters.self)
                    let start = Int(parameters.slice_data_offset), size = Int(parameters.slice_data_size)
                    // Partial slices (VA_SLICE_DATA_FLAG_BEGIN/MIDDLE/END) are not reassembled.
                    guard parameters.slice_data_flag == UInt32(VA_SLICE_DATA_FLAG_ALL), size > headerSize,
                          start >= 0, start + size <= buffer.bytes.count else { throw .invalidParameter }
                    sliceParameters.append(parameters)
                    nalUnits.append(buffer.bytes[start..<start + size])
                }
                waiting.removeAll(keepingCapacity: true)
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
