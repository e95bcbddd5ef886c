// The system libxml2 (Debian: libxml2-dev). Imported only by CloudantHealthModule.
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlversion.h>
