// zstd (Debian: libzstd-dev): stored document bodies are zstd frames, with dictionaries trained from the
// store's own documents (zdict.h). Its trainer's parameters (`ZDICT_fastCover_params_t`) are declared only for
// static linking, but libzstd.so exports the functions that take them.
#include <zstd.h>
#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>
