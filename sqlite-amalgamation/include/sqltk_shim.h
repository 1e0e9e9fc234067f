/*
 * What Swift cannot call or import from sqlite3.h directly, as static inline
 * functions: the destructor sentinels SQLITE_STATIC and SQLITE_TRANSIENT (macros
 * that cast integers to function pointers), and typed entry points for the
 * variadic sqlite3_config and sqlite3_db_config.
 */
#ifndef SQLTK_SHIM_H
#define SQLTK_SHIM_H

/* SQLITE_STATIC: SQLite uses the bound bytes in place; the caller keeps them alive. */
static inline sqltk_sqlite3_destructor_type sqltk_static(void) { return SQLITE_STATIC; }

/* SQLITE_TRANSIENT: SQLite copies the bound bytes before the bind call returns. */
static inline sqltk_sqlite3_destructor_type sqltk_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_db_config for the verbs that take an int and report the new setting
   through an int pointer (SQLITE_DBCONFIG_ENABLE_FKEY, _DEFENSIVE, _DQS_DML, ...).
   Pass -1 to read the setting without changing it; `result` may be NULL. */
static inline int sqltk_db_config_int(sqltk_sqlite3 *db, int op, int value, int *result) {
    return sqltk_sqlite3_db_config(db, op, value, result);
}

/* The routines table SQLite hands to an extension's init function (sqlite3_load_extension and
   sqlite3_auto_extension pass it as the third argument; it is static in the amalgamation, so
   sqltk_amalgamation.c exposes it). An extension compiled into the program in loadable style
   (sqlite3ext.h, SQLITE_EXTENSION_INIT1/2) reaches SQLite only through it, so the sqltk_ prefix
   of the exported names does not concern it. */
const sqltk_sqlite3_api_routines *sqltk_extension_api_routines(void);

/* A copy of that table, never freed, whose sqlite3_auto_extension calls `record` instead of
   registering the function with SQLite: the caller decides which connections run it. NULL when
   out of memory. */
const sqltk_sqlite3_api_routines *sqltk_extension_api_routines_recording_auto_extensions(
    int (*record)(void (*)(void)));

/* sqlite3_db_config(db, SQLITE_DBCONFIG_MAINDBNAME, name): `name` must outlive the use. */
static inline int sqltk_db_config_main_db_name(sqltk_sqlite3 *db, const char *name) {
    return sqltk_sqlite3_db_config(db, SQLITE_DBCONFIG_MAINDBNAME, name);
}

/* sqlite3_db_config(db, SQLITE_DBCONFIG_LOOKASIDE, buffer, slotSize, slotCount). */
static inline int sqltk_db_config_lookaside(sqltk_sqlite3 *db, void *buffer, int slotSize, int slotCount) {
    return sqltk_sqlite3_db_config(db, SQLITE_DBCONFIG_LOOKASIDE, buffer, slotSize, slotCount);
}

/* sqlite3_config for the verbs without arguments (SQLITE_CONFIG_SINGLETHREAD,
   _MULTITHREAD, _SERIALIZED). Only valid before sqlite3_initialize or after
   sqlite3_shutdown. */
static inline int sqltk_config(int op) { return sqltk_sqlite3_config(op); }

/* sqlite3_config for the verbs that take one int (SQLITE_CONFIG_MEMSTATUS, _URI,
   _COVERING_INDEX_SCAN, _STMTJRNL_SPILL, _SMALL_MALLOC, _SORTERREF_SIZE, ...). */
static inline int sqltk_config_int(int op, int value) { return sqltk_sqlite3_config(op, value); }

/* sqlite3_config(SQLITE_CONFIG_MMAP_SIZE, defaultLimit, maximumLimit). */
static inline int sqltk_config_mmap_size(sqltk_sqlite3_int64 defaultLimit, sqltk_sqlite3_int64 maximumLimit) {
    return sqltk_sqlite3_config(SQLITE_CONFIG_MMAP_SIZE, defaultLimit, maximumLimit);
}

/* sqlite3_config(SQLITE_CONFIG_LOG, callback, context): the error log callback. */
static inline int sqltk_config_log(void (*callback)(void *, int, const char *), void *context) {
    return sqltk_sqlite3_config(SQLITE_CONFIG_LOG, callback, context);
}

/* sqlite3_carray_bind of `count` BLOBs (count > 0), given by their addresses and lengths: builds the
   `struct iovec` array SQLite reads, and lets SQLite copy the blobs (sqltk_amalgamation.c). */
int sqltk_carray_bind_blobs(sqltk_sqlite3_stmt *statement, int index, const void *const *data,
                            const sqltk_sqlite3_int64 *lengths, int count);

#endif /* SQLTK_SHIM_H */
