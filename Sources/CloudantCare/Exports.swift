// The CloudantCare flavour: CloudantOnly plus the care entities. Never Health, never libxml2.
@_exported public import CloudantOnly
@_exported public import CloudantCareModule
