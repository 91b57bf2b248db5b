import Testing
import VideoAcceleration

@Suite("VAFixedArray")
struct VAFixedArrayTests {
    // The element type is the values' type: it must be the tuple's (Int32 here, not Int).
    @Test("store fills a tuple in order, pads the rest when asked, and drops values past its end")
    func store() {
        var array: (Int32, Int32, Int32, Int32) = (9, 9, 9, 9)
        VAFixedArray.store([Int32(1), 2], into: &array, padding: -1)
        #expect(array == (1, 2, -1, -1))
        VAFixedArray.store([Int32(5)], into: &array)
        #expect(array == (5, 2, -1, -1))  // without padding, the elements after the values keep what they held
        VAFixedArray.store([Int32(1), 2, 3, 4, 5, 6], into: &array)
        #expect(array == (1, 2, 3, 4))
    }
}
