// JSON and errors live in `CloudantBase` (see its file header); every module that imports `CloudantCore`
// sees them as before.
@_exported public import CloudantBase
