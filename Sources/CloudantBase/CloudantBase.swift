// The values every module of the store shares and that need nothing but the standard library and
// Foundation: JSON (``JSONValue``, its parser and writer, ISO 8601 timestamps) and the errors
// (``CloudantError``, ``ErrorCategory``). `CloudantCore` re-exports this module, so code imports
// `CloudantCore` (or a flavour) and never names it.
//
// Why a module of its own: the object-model build plugin's tool needs JSON and errors only; linking it
// against `CloudantCore` pulled in swift-crypto (revision and attachment digests), whose BoringSSL every
// build then compiled a second time for the host, and once more for the command plugin.
