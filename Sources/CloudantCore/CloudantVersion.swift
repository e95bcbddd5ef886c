/// The version of this package, as `cloudant version` and the HTTP endpoint's welcome report it.
public enum CloudantVersion {
    /// The semantic version of this release.
    public static let current = "0.1.0"
    /// The CouchDB API version whose behaviour the store and endpoint follow.
    public static let couchDBCompatibility = "3.5.1"
}
