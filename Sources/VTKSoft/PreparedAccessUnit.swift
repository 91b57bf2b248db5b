/// One picture's access unit as a decode session built it at vaEndPicture, with the coded picture size
/// its parameters gave, and for H.264 the field it codes and its frame_num (to pair fields).
struct PreparedAccessUnit {
    let bytes: [UInt8]
    let width: Int
    let height: Int
    var structure = PictureStructure.frame
    var frameNum = 0
}
