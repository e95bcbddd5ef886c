// The CloudantHealth flavour: CloudantOnly plus the health samples (libxml2). Never Care.
@_exported public import CloudantOnly
@_exported public import CloudantHealthModule
