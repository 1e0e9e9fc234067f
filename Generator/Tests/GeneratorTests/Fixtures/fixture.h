/*
 * A tiny made-up C API in SQLite's style, with the `sqltk_` link prefix, for the
 * generator's golden tests. It is never compiled into a library: the tests only
 * read it through clang.
 */
#ifndef SQLTK_FIXTURE_H
#define SQLTK_FIXTURE_H

typedef struct sqltk_sqlite3 sqltk_sqlite3;
typedef struct sqltk_sqlite3_stmt sqltk_sqlite3_stmt;
typedef long long int sqltk_sqlite3_int64;
typedef unsigned long long int sqltk_sqlite3_uint64;
typedef void (*sqltk_sqlite3_destructor_type)(void *);

#define SQLITE_VERSION "3.99.0"
#define SQLITE_VERSION_NUMBER 3099000

#define SQLITE_OK 0
#define SQLITE_ERROR 1
#define SQLITE_BUSY 5
#define SQLITE_IOERR 10
#define SQLITE_ROW 100
#define SQLITE_DONE 101
#define SQLITE_BUSY_RECOVERY (SQLITE_BUSY | (1<<8))
#define SQLITE_IOERR_READ (SQLITE_IOERR | (1<<8))
#define SQLITE_IOERR_SHORT_READ (SQLITE_IOERR | (2<<8))

#define SQLITE_OPEN_READONLY 0x00000001
#define SQLITE_OPEN_READWRITE 0x00000002
#define SQLITE_OPEN_CREATE 0x00000004
#define SQLITE_OPEN_URI 0x00000040
#define SQLITE_OPEN_SUPER_JOURNAL 0x00004000
#define SQLITE_OPEN_MASTER_JOURNAL 0x00004000

#define SQLITE_PREPARE_PERSISTENT 0x01
#define SQLITE_PREPARE_NO_VTAB 0x04

#define SQLITE_INTEGER 1
#define SQLITE_FLOAT 2
#define SQLITE_TEXT 3
#define SQLITE_BLOB 4
#define SQLITE_NULL 5

#define SQLITE_DBSTATUS_LOOKASIDE_USED 0
#define SQLITE_DBSTATUS_CACHE_USED 1

#define SQLITE_STATIC ((sqltk_sqlite3_destructor_type)0)
#define SQLITE_TRANSIENT ((sqltk_sqlite3_destructor_type)-1)

int sqltk_sqlite3_open_v2(const char *filename, sqltk_sqlite3 **ppDb, int flags, const char *zVfs);
int sqltk_sqlite3_close(sqltk_sqlite3 *db);
const char *sqltk_sqlite3_errmsg(sqltk_sqlite3 *db);
const void *sqltk_sqlite3_errmsg16(sqltk_sqlite3 *db);
int sqltk_sqlite3_get_autocommit(sqltk_sqlite3 *db);
void sqltk_sqlite3_interrupt(sqltk_sqlite3 *db);
sqltk_sqlite3_int64 sqltk_sqlite3_last_insert_rowid(sqltk_sqlite3 *db);
int sqltk_sqlite3_db_status(sqltk_sqlite3 *db, int op, int *pCur, int *pHiwtr, int resetFlg);
int sqltk_sqlite3_busy_handler(sqltk_sqlite3 *db, int (*callback)(void *, int), void *context);
int sqltk_sqlite3_set_clientdata(sqltk_sqlite3 *db, const char *name, void *data, void (*destructor)(void *));
int sqltk_sqlite3_prepare_v3(
    sqltk_sqlite3 *db, const char *zSql, int nByte, unsigned int prepFlags, sqltk_sqlite3_stmt **ppStmt,
    const char **pzTail);
sqltk_sqlite3 *sqltk_sqlite3_db_handle(sqltk_sqlite3_stmt *pStmt);
int sqltk_sqlite3_bind_blob64(
    sqltk_sqlite3_stmt *pStmt, int index, const void *value, sqltk_sqlite3_uint64 length,
    void (*destructor)(void *));
int sqltk_sqlite3_bind_text64(
    sqltk_sqlite3_stmt *pStmt, int index, const char *value, sqltk_sqlite3_uint64 length,
    void (*destructor)(void *), unsigned char encoding);
int sqltk_sqlite3_column_type(sqltk_sqlite3_stmt *pStmt, int iCol);
int sqltk_sqlite3_column_bytes(sqltk_sqlite3_stmt *pStmt, int iCol);
const unsigned char *sqltk_sqlite3_column_text(sqltk_sqlite3_stmt *pStmt, int iCol);
const void *sqltk_sqlite3_column_blob(sqltk_sqlite3_stmt *pStmt, int iCol);
const void *sqltk_sqlite3_column_text16(sqltk_sqlite3_stmt *pStmt, int iCol);
void sqltk_sqlite3_free(void *pointer);
int sqltk_sqlite3_config(int op, ...);

/* The shim's own helper, as CSQLiteToolkit's sqltk_shim.h has it: keeps its prefix in the spec. */
static inline sqltk_sqlite3_destructor_type sqltk_transient(void) { return SQLITE_TRANSIENT; }

#endif /* SQLTK_FIXTURE_H */
