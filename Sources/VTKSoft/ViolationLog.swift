/// One picture's encode violations as they are found: each is reported at once (``EncodeViolations``) and
/// kept for the picture's capture line. A class, so that its `record` can be handed to checks as a closure.
final class ViolationLog {
    private(set) var messages: [String]

    init(_ messages: [String] = []) { self.messages = messages }

    func record(_ message: String) {
        messages.append(message)
        EncodeViolations.report(message)
    }
}
