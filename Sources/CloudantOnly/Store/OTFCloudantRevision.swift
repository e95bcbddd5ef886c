public import CloudantCore

/// The name OTFCloudantStore users know: the same protocol, so their entity types conform unchanged.
public typealias OTFCloudantRevision = CloudantRevision
