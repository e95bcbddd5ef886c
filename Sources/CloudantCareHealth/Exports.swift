// The CloudantCareHealth flavour: everything, plus the care-health bridge.
@_exported public import CloudantOnly
@_exported public import CloudantCareModule
@_exported public import CloudantHealthModule
@_exported public import CloudantCareHealthBridge
