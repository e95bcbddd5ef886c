// zlib (Debian: zlib1g-dev), for the CRC-32 of gzip attachments checked while they stream.
#include <zlib.h>
