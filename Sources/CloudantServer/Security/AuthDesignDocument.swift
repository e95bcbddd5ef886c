internal import CloudantCore
internal import CloudantStore

/// `_design/_auth`, the design document an authentication database holds, as CouchDB's auth cache writes it
/// into one that lacks it (`chttpd_auth_cache:ensure_auth_ddoc_exists`): clients wait for it to appear after
/// they create the database, and replicas carry its `validate_doc_update`.
///
/// Its function states CouchDB's rules for user documents (the same reasons, word for word): a user document
/// has `type` `"user"`, a `name` without `:` or a leading `_`, `roles` of strings and no system role but
/// `_metrics`, the id `org.couchdb.user:NAME` and a password hash of a known scheme; a name never changes;
/// only admins set roles or touch another user's document. A server without a JavaScript engine checks the
/// shape natively (``UsersDatabase/refusal(of:)``). It is written only when missing: an admin's own version
/// is kept.
enum AuthDesignDocument {
    static let id = "_design/_auth"

    static let validateFunction = """
        function (newDoc, oldDoc, userCtx, secObj) {
          function forbid(reason) { throw({forbidden: reason}); }
          function truthy(value) { return !!value; }
          var admins = (secObj && secObj.admins) || {};
          var isAdmin = userCtx.roles.indexOf('_admin') !== -1
            || (admins.names || []).indexOf(userCtx.name) !== -1
            || userCtx.roles.some(function (role) { return (admins.roles || []).indexOf(role) !== -1; });

          if (newDoc._deleted === true) {
            if (isAdmin || (oldDoc && oldDoc.name === userCtx.name)) return;
            forbid('Only admins may delete other user docs.');
          }
          if (newDoc.type !== 'user') forbid('doc.type must be user');
          if (!newDoc.name) forbid('doc.name is required');
          if (!newDoc.roles) forbid('doc.roles must exist');
          if (!Array.isArray(newDoc.roles)) forbid('doc.roles must be an array');
          newDoc.roles.forEach(function (role) {
            if (typeof role !== 'string') forbid('doc.roles can only contain strings');
          });
          if (newDoc._id !== 'org.couchdb.user:' + newDoc.name) {
            forbid('Doc ID must be of the form org.couchdb.user:name');
          }
          if (oldDoc && oldDoc.name !== newDoc.name) forbid('Usernames can not be changed.');
          if (truthy(newDoc.password_sha) && !truthy(newDoc.salt)) {
            forbid('Users with password_sha must have a salt.See /_utils/script/couch.js for example code.');
          }
          var schemes = ['simple', 'pbkdf2', 'simple+pbkdf2'];
          if (truthy(newDoc.password_scheme) && schemes.indexOf(newDoc.password_scheme) === -1) {
            forbid('Password scheme `' + newDoc.password_scheme + '` not supported.');
          }
          if (newDoc.password_scheme === 'pbkdf2') {
            if (typeof newDoc.iterations !== 'number') forbid('iterations must be a number.');
            if (typeof newDoc.derived_key !== 'string') forbid('derived_key must be a string.');
          }
          if (!isAdmin) {
            if (oldDoc) {
              if (userCtx.name !== newDoc.name) forbid('You may only update your own user document.');
              var before = (oldDoc.roles || []).slice().sort();
              var after = newDoc.roles.slice().sort();
              if (before.length !== after.length || before.some(function (role, i) { return role !== after[i]; })) {
                forbid('Only _admin may edit roles');
              }
            } else if (newDoc.roles.length > 0) {
              forbid('Only _admin may set roles');
            }
          }
          newDoc.roles.forEach(function (role) {
            if (role !== '_metrics' && role.charAt(0) === '_') {
              forbid('No system roles (starting with underscore) in users db.');
            }
          });
          if (newDoc.name.charAt(0) === '_') forbid('Username may not start with underscore.');
          if (newDoc.name.indexOf(':') !== -1) forbid('Character `:` is not allowed in usernames.');
        }
        """

    /// The document's body.
    static var body: JSONObject {
        ["_id": .string(id), "language": "javascript", "validate_doc_update": .string(validateFunction)]
    }

    /// Writes the design document into `store` when it has none (a concurrent writer's version wins).
    static func ensure(in store: DocumentStore) async {
        if (try? await store.document(id: id)) != nil { return }
        _ = try? await store.put(body)
    }
}
