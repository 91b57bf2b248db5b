import Foundation
import Y4M

// The tests name files by URL; Y4M itself takes paths (it does not link Foundation, nor does vtk).
extension Y4MReader {
    convenience init(url: URL) throws(Y4MError) { try self.init(path: url.path) }
}

extension Y4MWriter {
    convenience init(url: URL, header: Y4MHeader) throws(Y4MError) { try self.init(path: url.path, header: header) }
}
