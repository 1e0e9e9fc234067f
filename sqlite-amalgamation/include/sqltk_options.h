/*
 * Compile-time options of SQLiteToolkit's SQLite: the single source of truth.
 *
 * Included first by sqltk_amalgamation.c and by the umbrella header
 * CSQLiteToolkit.h, so the C translation unit and the declarations Swift
 * imports always agree (a `.define` in Package.swift never reaches Swift).
 *
 * Options: https://sqlite.org/compile.html
 */
#ifndef SQLTK_OPTIONS_H
#define SQLTK_OPTIONS_H

/* Serialized threading is compiled in; connections are opened with
   SQLITE_OPEN_NOMUTEX and the Swift layer confines each to one thread. */
#define SQLITE_THREADSAFE 1

/* Double-quoted strings are identifiers, never string literals. */
#define SQLITE_DQS 0

/* No global memory statistics: they take a mutex on every allocation. */
#define SQLITE_DEFAULT_MEMSTATUS 0

/* synchronous=NORMAL in WAL mode: durable across application crashes,
   and consistent (though possibly missing the last commits) after power loss. */
#define SQLITE_DEFAULT_WAL_SYNCHRONOUS 1

/* The schema is not trusted: a view or trigger in a database file may call only
   functions marked SQLITE_INNOCUOUS, so opening a hostile file cannot make its
   schema run functions with side effects. PRAGMA trusted_schema=ON restores
   SQLite's default on one connection. */
#define SQLITE_TRUSTED_SCHEMA 0

/* Runs once at the end of sqlite3_initialize (sqltk_amalgamation.c defines it): picks the
   ChaCha20-Poly1305 cipher's CPU-specific functions there, before any connection exists. Left
   to themselves they are picked on first use, by whichever threads first read an encrypted
   page: two connections doing so at once race on the same global pointers. */
#define SQLITE_EXTRA_INIT sqltk_extra_init

/* The carray() table-valued function and sqlite3_carray_bind: an array bound as one parameter
   (`WHERE id IN carray(?)`), instead of one SQL variable per element. */
#define SQLITE_ENABLE_CARRAY 1

/* Extension loading is compiled in, but off on every connection, as SQLite leaves it. The toolkit
   turns on only the C API path (sqlite3_db_config(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION), which
   leaves the SQL function off) and only for the duration of one sqlite3_load_extension call;
   it never calls sqlite3_enable_load_extension, which would also enable the SQL function
   load_extension(), so SQL text (a query, a view, a trigger in a hostile file) can never load a
   library. SQLITE_OMIT_LOAD_EXTENSION is therefore not defined. */

#define SQLITE_LIKE_DOESNT_MATCH_BLOBS 1
#define SQLITE_OMIT_DEPRECATED 1
#define SQLITE_OMIT_SHARED_CACHE 1
#define SQLITE_USE_URI 1

/* Temporary tables and indices live in memory unless PRAGMA temp_store=FILE:
   temporary files are never encrypted. */
#define SQLITE_TEMP_STORE 2

/* Misuse (a NULL or finalized handle) returns SQLITE_MISUSE instead of crashing. */
#define SQLITE_ENABLE_API_ARMOR 1

#define SQLITE_ENABLE_FTS3 1
#define SQLITE_ENABLE_FTS3_PARENTHESIS 1
#define SQLITE_ENABLE_FTS4 1
#define SQLITE_ENABLE_FTS5 1
#define SQLITE_ENABLE_RTREE 1
#define SQLITE_ENABLE_COLUMN_METADATA 1
#define SQLITE_ENABLE_SNAPSHOT 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_DBSTAT_VTAB 1
#define SQLITE_ENABLE_MATH_FUNCTIONS 1

/* The codec API (sqlite3_key, sqlite3_rekey, ...) is present. sqlite3mc always
   builds it and ignores this macro; it is defined so code can test for it. */
#define SQLITE_HAS_CODEC 1

/* SQLITE_SECURE_DELETE stays off, as in SQLite's default build. Overwriting
   deleted content costs extra writes on every delete and update, and the two
   cases that need it are covered otherwise: an encrypted database keeps freed
   pages encrypted, and a plain one can turn it on per connection with
   PRAGMA secure_delete=ON (or FAST). */

#endif /* SQLTK_OPTIONS_H */
