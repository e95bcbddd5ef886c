// zlib (Debian: zlib1g-dev), for the CRC-32 of gzip attachments checked while they stream and of the
// health export members ZIPFoundation inflates.
#include <zlib.h>
