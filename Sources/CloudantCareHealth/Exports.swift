// The CloudantCareHealth flavour: both flavours (their modules and their drop-in API), plus the care-health bridge.
@_exported public import CloudantCare
@_exported public import CloudantHealth
@_exported public import CloudantCareHealthBridge
