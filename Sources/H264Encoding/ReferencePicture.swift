import VTKMedia

/// A reconstructed picture that a list entry names (8.2.4): its samples, POC and long-term marking.
public typealias ReferencePicture = EncoderReferencePicture<EncoderPicture>
