import Foundation
import Testing
@testable import VTKCommandLine

/// PathName against URL(fileURLWithPath:), whose spelling of paths `vtk suite` printed before.
@Suite("PathName")
struct PathNameTests {
    static let paths = ["rel/dir", "dir/", "/a/b/", "/a/b", "./x", "../x/./y", "/a//b", "/", "x", "/a/b/../c", "conf/h264", "./res/"]

    @Test("absolute, standardized, last component, parent and appending spell paths as URL did", arguments: paths)
    func sameAsURL(path: String) {
        let url = URL(fileURLWithPath: path)
        #expect(PathName.absolute(path) == url.path)
        #expect(PathName.standardized(path) == url.standardizedFileURL.path)
        #expect(PathName.lastComponent(PathName.absolute(path)) == url.lastPathComponent)
        #expect(PathName.parent(PathName.absolute(path)) == url.deletingLastPathComponent().path)
        #expect(PathName.appending(PathName.absolute(path), "f/g.264") == url.appendingPathComponent("f/g.264").path)
        #expect(PathName.lastComponent(PathName.parent(PathName.standardized(path))) == url.standardizedFileURL.deletingLastPathComponent().lastPathComponent)
    }
}
