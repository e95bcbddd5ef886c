// PCRE2 (Debian: libpcre2-dev), 8-bit code units: Mango's `$regex` runs on it as CouchDB's runs on Erlang's
// `re`, which is PCRE matching bytes. Swift calls the `_8` functions by name (the unsuffixed names are macros).
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
