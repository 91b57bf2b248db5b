import VTKMedia

/// A reconstructed picture that a reference picture list entry names (8.3.4): its samples, POC and long-term marking.
public typealias H265ReferencePicture = EncoderReferencePicture<H265EncoderPicture>
