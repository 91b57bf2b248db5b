import NALStream

/// One picture's access unit as a decode session built it at vaEndPicture, with the coded picture size
/// its parameters gave, and for H.264 the field it codes and its frame_num (to pair fields).
struct PreparedAccessUnit {
    /// Its NAL units, in order: the decoder writes them as a byte stream (Annex B) straight into
    /// libavcodec's packet, with no byte stream of their own in between.
    let nalUnits: [NALUnit]
    let width: Int
    let height: Int
    var structure = PictureStructure.frame
    var frameNum = 0
}
