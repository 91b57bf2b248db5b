import Testing
@testable import H265Encoding

@Suite struct H265EncoderPictureTests {
    @Test func i420BytesOf10BitPlanesAreLittleEndian() {
        let p = H265EncoderPicture(width: 2, height: 2, bitDepth: 10, luma: [1, 0x3FF, 2, 3], cb: [0x200], cr: [5])
        #expect(p.hasConsistentPlanes)
        #expect(p.i420Bytes() == [1, 0, 0xFF, 3, 2, 0, 3, 0, 0, 2, 5, 0])
    }
}
