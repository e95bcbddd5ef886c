// zstd (Debian: libzstd-dev): stored document bodies are zstd frames, with dictionaries trained from the
// store's own documents (zdict.h).
#include <zstd.h>
#include <zdict.h>
