public import CloudantBase

/// The operation-named codes `CloudantError.Code` had while it copied `OTFCloudantError`'s cases. The engine names
/// codes by cause; these aliases keep code written against the old names compiling, with a fix-it to the new one.
/// `OTFCloudantError` keeps its own cases, which are what the seeds' API reports.
extension CloudantError.Code {
    /// The code of a store that could not be read.
    @available(*, deprecated, renamed: "storeUnreadable")
    public static let fetchFailed = storeUnreadable
    /// The code of a store that could not be written.
    @available(*, deprecated, renamed: "storeUnwritable")
    public static let addFailed = storeUnwritable
    /// The code of a store that could not be written.
    @available(*, deprecated, renamed: "storeUnwritable")
    public static let updateFailed = storeUnwritable
    /// The code of a store that could not be written.
    @available(*, deprecated, renamed: "storeUnwritable")
    public static let deleteFailed = storeUnwritable
    /// The code of a peer that did not answer as its protocol requires.
    @available(*, deprecated, renamed: "peerProtocolError")
    public static let remoteSynchronizationFailed = peerProtocolError
    /// The code of an input that is not valid.
    @available(*, deprecated, renamed: "invalidInput")
    public static let invalidValue = invalidInput
}
