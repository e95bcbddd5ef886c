/*
 * CCipherVFS: the C half of CipherVFS.
 *
 * SQLite's VFS interface is a table of C function pointers, so the plumbing that sits in it is C. Everything
 * that is policy (which file has which key, how a page is sealed) stays in Swift and is handed in here as
 * three C function pointers, so this file never sees a cipher and the Swift side never sees an sqlite3_file.
 *
 * The header deliberately avoids sqlite3.h types: Swift only needs to install the VFS and read the layout
 * constants below.
 */
#ifndef CCIPHERVFS_H
#define CCIPHERVFS_H

#include <stdint.h>

/** Bytes in one database page. Encrypted databases must use exactly this page size. */
#define CIPHER_VFS_PAGE_SIZE 4096
/** Bytes SQLite reserves at the end of each page; the codec keeps its nonce and tag there. */
#define CIPHER_VFS_RESERVED_BYTES 28
/** Length of the key the codec receives. */
#define CIPHER_VFS_KEY_SIZE 32
/** Name under which the VFS registers (as the default VFS). */
#define CIPHER_VFS_NAME "otf-cipher"

/** Which file a page belongs to: part of the authenticated data, so a page cannot move between files. */
enum {
    CIPHER_VFS_KIND_DATABASE = 'D', /* index = page number (1-based) */
    CIPHER_VFS_KIND_WAL = 'W',      /* index = byte offset of the page content in the -wal file */
    CIPHER_VFS_KIND_JOURNAL = 'J',  /* index = byte offset of the page content in the -journal file */
};

/**
 * Looks up the key for the database at zDatabasePath (the main database file, as SQLite passes it to xOpen).
 * Writes CIPHER_VFS_KEY_SIZE bytes to keyOut and returns 1 when the database is encrypted, returns 0 when it
 * is not (the file then passes straight through to the wrapped VFS).
 */
typedef int (*cipher_vfs_lookup_fn)(const char *zDatabasePath, uint8_t *keyOut);

/**
 * Seals (encrypt) or opens (decrypt) one page of CIPHER_VFS_PAGE_SIZE bytes in place. Returns 0 on success,
 * non-zero when sealing fails or the page does not authenticate.
 */
typedef int (*cipher_vfs_page_fn)(const uint8_t *key, uint8_t kind, uint64_t index, uint8_t *page);

/** The callbacks Swift supplies. All three must be non-NULL and safe to call from any thread. */
typedef struct cipher_vfs_codec {
    cipher_vfs_lookup_fn lookup;
    cipher_vfs_page_fn encrypt;
    cipher_vfs_page_fn decrypt;
} cipher_vfs_codec;

/**
 * Registers the cipher VFS as SQLite's default VFS, wrapping the VFS that was the default before.
 * Idempotent and thread-safe; returns an SQLite result code.
 */
int cipher_vfs_install(cipher_vfs_codec codec);

#endif
