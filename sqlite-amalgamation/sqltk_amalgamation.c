/*
 * The one translation unit of CSQLiteToolkit: SQLite3 Multiple Ciphers, with every
 * exported name prefixed `sqltk_`, compiled with the options in sqltk_options.h.
 *
 * The amalgamation is not committed; sqlite-amalgamation/fetch installs it.
 */
#include "include/sqltk_options.h"

#if __has_include("installed/sqlite3.c")
#include "installed/sqlite3.c"
#else
#error "SQLite amalgamation missing: in a package that depends on SQLiteToolkit, run: swift package --allow-writing-to-package-directory --allow-network-connections all install-sqlite (in the SQLiteToolkit repository itself: sqlite-amalgamation/fetch)"
#endif

/*
 * SQLITE_EXTRA_INIT (sqltk_options.h): called by the first sqlite3_initialize that succeeds,
 * once, before it returns; every Database opens after it. SQLite3 Multiple Ciphers detects the
 * CPU's features and picks its fastest AES, ChaCha20 and Poly1305 functions lazily, storing the
 * answers in unsynchronized globals on first use; doing it all here makes every later use a
 * read, so connections on several threads reading encrypted pages at once do not race (the
 * thread sanitizer reported that race). AEGIS picks its functions in sqlite3mc_initialize.
 */
int sqltk_extra_init(const char *unused) {
    (void)unused;
    (void)sqltk_sqlite3mcCpuFeatures();
    (void)aesHardwareAvailable();
    (void)sqltk_sqlite3mcHardwareInfo();
    (void)sqltk_sqlite3mcChaCha20HwAccelerated();
    poly1305_pick_best();
    poly1305_tagcmp_pick_best();
    return SQLITE_OK;
}

/*
 * carray(?) of BLOBs: sqlite3_carray_bind takes them as an array of `struct iovec`, a type of
 * <sys/uio.h> that Windows lacks (SQLite declares its own there), so the array is built here,
 * where sqlite3.c has declared it, from the blobs' addresses and lengths. SQLite copies the
 * blobs (SQLITE_TRANSIENT) before this returns.
 */
int sqltk_carray_bind_blobs(sqltk_sqlite3_stmt *statement, int index, const void *const *data,
                            const sqltk_sqlite3_int64 *lengths, int count) {
    struct iovec *vectors;
    int i, rc;
    if (count <= 0) return SQLITE_MISUSE;
    vectors = sqltk_sqlite3_malloc64((sqltk_sqlite3_uint64)count * sizeof(struct iovec));
    if (vectors == 0) return SQLITE_NOMEM;
    for (i = 0; i < count; i++) {
        if (lengths[i] < 0) {
            sqltk_sqlite3_free(vectors);
            return SQLITE_MISUSE;
        }
        vectors[i].iov_base = (void *)data[i];
        vectors[i].iov_len = (size_t)lengths[i];
    }
    rc = sqltk_sqlite3_carray_bind(statement, index, vectors, count, SQLITE_CARRAY_BLOB, SQLITE_TRANSIENT);
    sqltk_sqlite3_free(vectors);
    return rc;
}

/* Declared in sqltk_shim.h: the routines table of this SQLite, for extensions registered by
   their init function on one connection (Database.registerExtension in SQLiteToolkit). */
const sqltk_sqlite3_api_routines *sqltk_extension_api_routines(void) {
    return &sqltk_sqlite3Apis;
}

/* Declared in sqltk_shim.h: a copy of that table whose auto_extension entry is `record`, for an
   extension whose automatic extension must run only on some connections (LitestreamReplica in
   SQLiteToolkit). The copy is never freed: the extension keeps its pointer for its whole life. */
const sqltk_sqlite3_api_routines *sqltk_extension_api_routines_recording_auto_extensions(
    int (*record)(void (*)(void))) {
    sqltk_sqlite3_api_routines *copy = malloc(sizeof(sqltk_sqlite3_api_routines));
    if (copy == 0) return 0;
    *copy = sqltk_sqlite3Apis;
    copy->auto_extension = record;
    return copy;
}
