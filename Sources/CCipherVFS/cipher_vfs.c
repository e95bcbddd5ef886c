/*
 * cipher_vfs.c: an SQLite VFS that encrypts the pages of registered databases.
 *
 * It registers as the default VFS and wraps the previous default ("unix"), because GRDB opens connections
 * with sqlite3_open_v2(path, &db, flags, NULL) and cannot name a VFS. xOpen decides per file: a file whose
 * database has no key is opened by the wrapped VFS directly into SQLite's buffer, so SQLite then calls the
 * unix io methods itself and an unencrypted database pays nothing after open. An encrypted file gets the io
 * methods below, which seal pages on the way to disk and open them on the way back. The cipher itself is
 * Swift's (see cipher_vfs_codec); this file only knows where the pages are.
 *
 * On-disk layout (the DocC article "PageFormat" in the CipherVFS module is the full description):
 * - database: page n (1-based) is bytes [(n-1)*4096, n*4096); its last 28 bytes are SQLite's reserved bytes,
 *   which hold the 12-byte nonce and 16-byte tag. Authenticated data: kind 'D' + page number.
 * - -wal: 32-byte header, then frames of a 24-byte header and a page. Headers stay plaintext (SQLite checks
 *   their salts and checksums, which it computes over the plaintext page we give back); page contents are
 *   sealed with kind 'W' + the content's byte offset, which stays valid when SQLite rewrites a frame in place.
 * - -journal: records are a 4-byte page number, the page, a 4-byte checksum. Pages are written and read with
 *   one call of exactly one page at an offset = 4 (mod 8), while headers sit at sector-aligned offsets, so
 *   that shape alone identifies a page. Kind 'J' + offset.
 * - -shm, temp files, super-journals: pass through (no document content; temp files must be kept in memory
 *   with PRAGMA temp_store = MEMORY, which CipherVFS.prepare(connection:) sets).
 */
#include "CCipherVFS.h"

#include <sqlite3.h>
#include <string.h>

#define PAGE CIPHER_VFS_PAGE_SIZE
#define WAL_HEADER 32
#define WAL_FRAME_HEADER 24
#define WAL_FRAME (WAL_FRAME_HEADER + PAGE)

/* An open encrypted file. SQLite allocates szOsFile bytes per file: this struct, then the wrapped VFS's own
 * file right after it (pReal). Our sqlite3_file must come first because SQLite dispatches through
 * base.pMethods; a pass-through file instead uses the same buffer for the wrapped file alone. */
typedef struct CipherFile {
    sqlite3_file base;
    sqlite3_file *pReal;
    const char *zName;              /* SQLite's name for the file, used to pair a -wal/-journal with its db */
    struct CipherFile *pNextDb;     /* list of open encrypted main databases (gOpenDatabases) */
    uint8_t kind;
    uint8_t key[CIPHER_VFS_KEY_SIZE];
    /* Scratch for one page. SQLite uses a file from one thread at a time (a connection's mutex), and every
     * connection has its own database, -wal and -journal handles, so a per-file buffer needs no lock. */
    uint8_t page[PAGE];
} CipherFile;

static sqlite3_vfs gCipherVfs;
static sqlite3_vfs *gRoot;
static cipher_vfs_codec gCodec;
static CipherFile *gOpenDatabases; /* guarded by SQLITE_MUTEX_STATIC_APP2 */

/* Zeroes key material in a way the optimiser may not drop (memset before free can be elided). */
static void wipe(void *p, size_t n) {
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--) *v++ = 0;
}

static int isAllZero(const uint8_t *p, int n) {
    for (int i = 0; i < n; i++) if (p[i]) return 0;
    return 1;
}

/* Page 1 carries the layout the codec depends on. Refusing to write a page 1 that declares another page size
 * or reserve is what turns "forgot to call prepare(connection:)" into an error instead of silent corruption
 * (SQLite would otherwise keep data in the bytes we overwrite with the nonce and tag). Only page 1 starts with
 * the magic string: every other page starts with a b-tree flag byte or a page number. */
static int layoutIsValid(const uint8_t *page) {
    if (memcmp(page, "SQLite format 3", 16) != 0) return 1;
    int pageSize = (page[16] << 8) | page[17];
    return pageSize == PAGE && page[20] == CIPHER_VFS_RESERVED_BYTES;
}

/* A run of bytes in a file that is either one whole encrypted page or plaintext (headers). */
typedef struct Region {
    sqlite3_int64 start;
    sqlite3_int64 end;
    int encrypted;
    uint64_t index; /* authenticated page identity, see CCipherVFS.h */
} Region;

static Region regionAt(const CipherFile *p, sqlite3_int64 offset) {
    Region r;
    if (p->kind == CIPHER_VFS_KIND_DATABASE) {
        r.start = offset - offset % PAGE;
        r.end = r.start + PAGE;
        r.encrypted = 1;
        r.index = (uint64_t)(r.start / PAGE) + 1;
        return r;
    }
    /* -wal */
    if (offset < WAL_HEADER) {
        r.start = 0; r.end = WAL_HEADER; r.encrypted = 0; r.index = 0;
        return r;
    }
    sqlite3_int64 frame = WAL_HEADER + ((offset - WAL_HEADER) / WAL_FRAME) * WAL_FRAME;
    if (offset < frame + WAL_FRAME_HEADER) {
        r.start = frame; r.end = frame + WAL_FRAME_HEADER; r.encrypted = 0; r.index = 0;
    } else {
        r.start = frame + WAL_FRAME_HEADER; r.end = r.start + PAGE; r.encrypted = 1;
        r.index = (uint64_t)r.start;
    }
    return r;
}

/* Reads and decrypts the page at r into out. Returns SQLITE_OK, SQLITE_IOERR_SHORT_READ (page absent: out is
 * zeros, as the unix VFS zero-fills), SQLITE_IOERR_AUTH (page present but does not authenticate; out is
 * zeroed so no ciphertext or garbage reaches SQLite), or the wrapped VFS's error. */
static int readPage(CipherFile *p, const Region *r, uint8_t *out) {
    int rc = p->pReal->pMethods->xRead(p->pReal, out, PAGE, r->start);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) return rc;
    if (rc == SQLITE_IOERR_SHORT_READ && isAllZero(out, PAGE)) return SQLITE_IOERR_SHORT_READ;
    if (gCodec.decrypt(p->key, p->kind, r->index, out) != 0) {
        memset(out, 0, PAGE);
        return SQLITE_IOERR_AUTH;
    }
    return rc;
}

static int cipherRead(sqlite3_file *pFile, void *zBuf, int iAmt, sqlite3_int64 iOfst) {
    CipherFile *p = (CipherFile *)pFile;
    sqlite3_file *real = p->pReal;
    if (p->kind == CIPHER_VFS_KIND_JOURNAL) {
        if (iAmt != PAGE || iOfst % 8 != 4) return real->pMethods->xRead(real, zBuf, iAmt, iOfst);
        Region r = {iOfst, iOfst + PAGE, 1, (uint64_t)iOfst};
        return readPage(p, &r, zBuf);
    }

    /* Database and -wal: split the request at page boundaries. SQLite reads page 1's header with short reads
     * (100 bytes at 0, 16 bytes at 24), and WAL recovery reads a frame header and its page in one call. */
    uint8_t *out = zBuf;
    sqlite3_int64 offset = iOfst;
    int left = iAmt, shortRead = 0;
    while (left > 0) {
        Region r = regionAt(p, offset);
        int n = (int)(r.end - offset < left ? r.end - offset : left);
        int rc;
        if (!r.encrypted) {
            rc = real->pMethods->xRead(real, out, n, offset);
        } else {
            int whole = offset == r.start && n == PAGE;
            uint8_t *page = whole ? out : p->page;
            rc = readPage(p, &r, page);
            /* A read that includes the frame header is WAL recovery (or SQLite re-checksumming frames it just
             * wrote). A page there that does not authenticate is a torn frame from a crash: give SQLite random
             * bytes so the frame's checksum fails and recovery stops there, as it does for a torn plaintext
             * frame. Random, not zeros: frame headers are plaintext, so anyone could compute a valid checksum
             * for a known page. A wrong key never gets this far: SQLite reads the database header (page 1 of
             * the database file, which it always writes before the first WAL frame) when it opens a
             * connection, and that read fails with SQLITE_IOERR_AUTH. */
            if (rc == SQLITE_IOERR_AUTH && p->kind == CIPHER_VFS_KIND_WAL && iOfst <= r.start - WAL_FRAME_HEADER) {
                sqlite3_randomness(PAGE, page);
                rc = SQLITE_OK;
            }
            if (rc == SQLITE_OK || rc == SQLITE_IOERR_SHORT_READ) {
                if (!whole) memcpy(out, p->page + (offset - r.start), (size_t)n);
            } else if (!whole) {
                memset(out, 0, (size_t)n);
            }
        }
        if (rc == SQLITE_IOERR_SHORT_READ) shortRead = 1;
        else if (rc != SQLITE_OK) return rc;
        out += n; offset += n; left -= n;
    }
    return shortRead ? SQLITE_IOERR_SHORT_READ : SQLITE_OK;
}

/* Seals p->page (plaintext) for region r and writes it. */
static int sealAndWrite(CipherFile *p, const Region *r) {
    if (!layoutIsValid(p->page)) {
        sqlite3_log(SQLITE_IOERR_WRITE, "cipher-vfs: refusing to write a database whose page size is not %d or "
                    "whose reserved bytes are not %d; call CipherVFS.prepare(connection:) before the first write",
                    PAGE, CIPHER_VFS_RESERVED_BYTES);
        return SQLITE_IOERR_WRITE;
    }
    if (gCodec.encrypt(p->key, p->kind, r->index, p->page) != 0) return SQLITE_IOERR_WRITE;
    return p->pReal->pMethods->xWrite(p->pReal, p->page, PAGE, r->start);
}

static int cipherWrite(sqlite3_file *pFile, const void *zBuf, int iAmt, sqlite3_int64 iOfst) {
    CipherFile *p = (CipherFile *)pFile;
    sqlite3_file *real = p->pReal;
    if (p->kind == CIPHER_VFS_KIND_JOURNAL) {
        if (iAmt != PAGE || iOfst % 8 != 4) return real->pMethods->xWrite(real, zBuf, iAmt, iOfst);
        Region r = {iOfst, iOfst + PAGE, 1, (uint64_t)iOfst};
        memcpy(p->page, zBuf, PAGE);
        return sealAndWrite(p, &r);
    }

    const uint8_t *in = zBuf;
    sqlite3_int64 offset = iOfst;
    int left = iAmt;
    while (left > 0) {
        Region r = regionAt(p, offset);
        int n = (int)(r.end - offset < left ? r.end - offset : left);
        int rc;
        if (!r.encrypted) {
            rc = real->pMethods->xWrite(real, in, n, offset);
        } else {
            if (offset != r.start || n != PAGE) {
                /* SQLite writes whole pages. The one exception we know of is wal.c splitting a padding frame
                 * at a sector boundary, which needs a VFS without SQLITE_IOCAP_POWERSAFE_OVERWRITE (unix has
                 * it). Handle it anyway by read-modify-write: a page can only be sealed whole. */
                rc = readPage(p, &r, p->page);
                if (rc == SQLITE_IOERR_SHORT_READ) rc = SQLITE_OK;
                /* In the -wal, a stale frame being overwritten may be torn; its bytes are about to be replaced. */
                if (rc == SQLITE_IOERR_AUTH && p->kind == CIPHER_VFS_KIND_WAL) rc = SQLITE_OK;
                if (rc != SQLITE_OK) return rc;
                memcpy(p->page + (offset - r.start), in, (size_t)n);
            } else {
                memcpy(p->page, in, PAGE);
            }
            rc = sealAndWrite(p, &r);
        }
        if (rc != SQLITE_OK) return rc;
        in += n; offset += n; left -= n;
    }
    return SQLITE_OK;
}

static int cipherClose(sqlite3_file *pFile) {
    CipherFile *p = (CipherFile *)pFile;
    if (p->kind == CIPHER_VFS_KIND_DATABASE) {
        sqlite3_mutex *m = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP2);
        sqlite3_mutex_enter(m);
        for (CipherFile **pp = &gOpenDatabases; *pp; pp = &(*pp)->pNextDb) {
            if (*pp == p) { *pp = p->pNextDb; break; }
        }
        sqlite3_mutex_leave(m);
    }
    int rc = p->pReal->pMethods ? p->pReal->pMethods->xClose(p->pReal) : SQLITE_OK;
    wipe(p->key, sizeof p->key);
    wipe(p->page, sizeof p->page);
    return rc;
}

/* Everything else is the wrapped file's business. */
#define REAL(pFile) (((CipherFile *)(pFile))->pReal)
static int cipherTruncate(sqlite3_file *f, sqlite3_int64 size) { return REAL(f)->pMethods->xTruncate(REAL(f), size); }
static int cipherSync(sqlite3_file *f, int flags) { return REAL(f)->pMethods->xSync(REAL(f), flags); }
static int cipherFileSize(sqlite3_file *f, sqlite3_int64 *pSize) { return REAL(f)->pMethods->xFileSize(REAL(f), pSize); }
static int cipherLock(sqlite3_file *f, int lock) { return REAL(f)->pMethods->xLock(REAL(f), lock); }
static int cipherUnlock(sqlite3_file *f, int lock) { return REAL(f)->pMethods->xUnlock(REAL(f), lock); }
static int cipherCheckReservedLock(sqlite3_file *f, int *pResOut) {
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), pResOut);
}
static int cipherFileControl(sqlite3_file *f, int op, void *pArg) {
    return REAL(f)->pMethods->xFileControl(REAL(f), op, pArg);
}
static int cipherSectorSize(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int cipherDeviceCharacteristics(sqlite3_file *f) {
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int cipherShmMap(sqlite3_file *f, int iPg, int pgsz, int bExtend, void volatile **pp) {
    return REAL(f)->pMethods->xShmMap(REAL(f), iPg, pgsz, bExtend, pp);
}
static int cipherShmLock(sqlite3_file *f, int offset, int n, int flags) {
    return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}
static void cipherShmBarrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int cipherShmUnmap(sqlite3_file *f, int deleteFlag) { return REAL(f)->pMethods->xShmUnmap(REAL(f), deleteFlag); }

/* Version 2, not 3: without xFetch SQLite never memory-maps an encrypted file, whatever PRAGMA mmap_size says,
 * because a mapped page would bypass xRead and hand SQLite ciphertext. */
static const sqlite3_io_methods gCipherMethods = {
    2,
    cipherClose, cipherRead, cipherWrite, cipherTruncate, cipherSync, cipherFileSize,
    cipherLock, cipherUnlock, cipherCheckReservedLock, cipherFileControl,
    cipherSectorSize, cipherDeviceCharacteristics,
    cipherShmMap, cipherShmLock, cipherShmBarrier, cipherShmUnmap,
    0, 0,
};

/* Finds the key of an open encrypted database by the exact name pointer SQLite gave its xOpen. A -wal or
 * -journal follows its database this way even if the key was unregistered after the database was opened:
 * an encrypted database must never get a plaintext log. */
static int keyOfOpenDatabase(const char *zDb, uint8_t *keyOut) {
    int found = 0;
    sqlite3_mutex *m = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP2);
    sqlite3_mutex_enter(m);
    for (CipherFile *db = gOpenDatabases; db; db = db->pNextDb) {
        if (db->zName == zDb) { memcpy(keyOut, db->key, CIPHER_VFS_KEY_SIZE); found = 1; break; }
    }
    sqlite3_mutex_leave(m);
    return found;
}

static int cipherOpen(sqlite3_vfs *vfs, const char *zName, sqlite3_file *pFile, int flags, int *pOutFlags) {
    (void)vfs;
    uint8_t kind = 0;
    const char *zDb = NULL;
    if (zName) {
        if (flags & SQLITE_OPEN_MAIN_DB) { kind = CIPHER_VFS_KIND_DATABASE; zDb = zName; }
        else if (flags & SQLITE_OPEN_WAL) { kind = CIPHER_VFS_KIND_WAL; zDb = sqlite3_filename_database(zName); }
        else if (flags & SQLITE_OPEN_MAIN_JOURNAL) { kind = CIPHER_VFS_KIND_JOURNAL; zDb = sqlite3_filename_database(zName); }
    }
    uint8_t key[CIPHER_VFS_KEY_SIZE];
    int keyed = 0;
    if (kind) {
        keyed = kind != CIPHER_VFS_KIND_DATABASE && keyOfOpenDatabase(zDb, key);
        if (!keyed) keyed = gCodec.lookup(zDb, key);
    }
    if (!keyed) return gRoot->xOpen(gRoot, zName, pFile, flags, pOutFlags);

    CipherFile *p = (CipherFile *)pFile;
    memset(p, 0, sizeof *p);
    p->pReal = (sqlite3_file *)&p[1];
    int rc = gRoot->xOpen(gRoot, zName, p->pReal, flags, pOutFlags);
    if (rc != SQLITE_OK) {
        if (p->pReal->pMethods) p->pReal->pMethods->xClose(p->pReal);
        wipe(key, sizeof key);
        pFile->pMethods = NULL;
        return rc;
    }
    p->kind = kind;
    p->zName = zName;
    memcpy(p->key, key, sizeof key);
    wipe(key, sizeof key);
    p->base.pMethods = &gCipherMethods;
    if (kind == CIPHER_VFS_KIND_DATABASE) {
        sqlite3_mutex *m = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP2);
        sqlite3_mutex_enter(m);
        p->pNextDb = gOpenDatabases;
        gOpenDatabases = p;
        sqlite3_mutex_leave(m);
    }
    return SQLITE_OK;
}

/* The rest of the VFS forwards to the wrapped default. */
static int cipherDelete(sqlite3_vfs *v, const char *z, int syncDir) { (void)v; return gRoot->xDelete(gRoot, z, syncDir); }
static int cipherAccess(sqlite3_vfs *v, const char *z, int flags, int *pResOut) {
    (void)v; return gRoot->xAccess(gRoot, z, flags, pResOut);
}
static int cipherFullPathname(sqlite3_vfs *v, const char *z, int nOut, char *zOut) {
    (void)v; return gRoot->xFullPathname(gRoot, z, nOut, zOut);
}
static void *cipherDlOpen(sqlite3_vfs *v, const char *z) { (void)v; return gRoot->xDlOpen(gRoot, z); }
static void cipherDlError(sqlite3_vfs *v, int n, char *z) { (void)v; gRoot->xDlError(gRoot, n, z); }
static void (*cipherDlSym(sqlite3_vfs *v, void *h, const char *z))(void) { (void)v; return gRoot->xDlSym(gRoot, h, z); }
static void cipherDlClose(sqlite3_vfs *v, void *h) { (void)v; gRoot->xDlClose(gRoot, h); }
static int cipherRandomness(sqlite3_vfs *v, int n, char *z) { (void)v; return gRoot->xRandomness(gRoot, n, z); }
static int cipherSleep(sqlite3_vfs *v, int us) { (void)v; return gRoot->xSleep(gRoot, us); }
static int cipherCurrentTime(sqlite3_vfs *v, double *t) { (void)v; return gRoot->xCurrentTime(gRoot, t); }
static int cipherGetLastError(sqlite3_vfs *v, int n, char *z) {
    (void)v; return gRoot->xGetLastError ? gRoot->xGetLastError(gRoot, n, z) : 0;
}
static int cipherCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *t) { (void)v; return gRoot->xCurrentTimeInt64(gRoot, t); }
static int cipherSetSystemCall(sqlite3_vfs *v, const char *z, sqlite3_syscall_ptr f) {
    (void)v; return gRoot->xSetSystemCall(gRoot, z, f);
}
static sqlite3_syscall_ptr cipherGetSystemCall(sqlite3_vfs *v, const char *z) { (void)v; return gRoot->xGetSystemCall(gRoot, z); }
static const char *cipherNextSystemCall(sqlite3_vfs *v, const char *z) { (void)v; return gRoot->xNextSystemCall(gRoot, z); }

int cipher_vfs_install(cipher_vfs_codec codec) {
    if (!codec.lookup || !codec.encrypt || !codec.decrypt) return SQLITE_MISUSE;
    int rc = sqlite3_initialize();
    if (rc != SQLITE_OK) return rc;
    sqlite3_mutex *m = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
    sqlite3_mutex_enter(m);
    if (gRoot) { sqlite3_mutex_leave(m); return SQLITE_OK; }
    sqlite3_vfs *root = sqlite3_vfs_find(NULL);
    /* We forward the version-3 methods unconditionally; every VFS SQLite has shipped since 3.7.6 has them. */
    if (!root || root->iVersion < 3) { sqlite3_mutex_leave(m); return SQLITE_ERROR; }
    gCodec = codec;
    sqlite3_vfs v = {
        3, (int)sizeof(CipherFile) + root->szOsFile, root->mxPathname, NULL, CIPHER_VFS_NAME, NULL,
        cipherOpen, cipherDelete, cipherAccess, cipherFullPathname,
        cipherDlOpen, cipherDlError, cipherDlSym, cipherDlClose,
        cipherRandomness, cipherSleep, cipherCurrentTime, cipherGetLastError, cipherCurrentTimeInt64,
        cipherSetSystemCall, cipherGetSystemCall, cipherNextSystemCall,
    };
    gCipherVfs = v;
    gRoot = root;
    rc = sqlite3_vfs_register(&gCipherVfs, 1);
    if (rc != SQLITE_OK) gRoot = NULL;
    sqlite3_mutex_leave(m);
    return rc;
}
