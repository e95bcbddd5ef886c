// CloudantModel: object models on the document store, in CDTDatastore's Core Data bridge layout.
// Generated entity types import only this module, so it re-exports what they name.
@_exported public import CloudantCore
@_exported public import CloudantModelSchema
@_exported public import CloudantStore
@_exported public import CloudantSync
