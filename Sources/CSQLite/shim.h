// The system SQLite (Debian: libsqlite3-dev). Imported only by the raw-SQLite benchmark baseline;
// the store reaches SQLite through GRDB (see README, "SQLite access layer").
#include <sqlite3.h>
