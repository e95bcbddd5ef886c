// The system libxml2 (Debian: libxml2-dev). Imported only by CloudantHealthModule.
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, so its encoding header pulls in <unicode/ucnv.h>, whose declarations
// clash with the ICU that Foundation bundles (_FoundationICU) when a module sees both. Nothing here
// touches the ICU-only members of xmlCharEncodingHandler, so the headers are read without ICU.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
