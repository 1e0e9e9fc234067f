/*
 * Compiled in loadable style: sqlite3ext.h turns every sqltk_sqlite3_... call below into a call through the
 * routines table (sqltk_sqlite3_api->...), so this file references no SQLite symbol and would work the same
 * loaded from a shared library. The include reaches the prefixed sqlite3ext.h that sqlite-amalgamation/fetch
 * installs, through CSQLiteToolkit's include folder on the search path.
 */
#include "../installed/sqlite3ext.h"
#include "CSQLTKTestExtension.h"

#include <string.h>

SQLITE_EXTENSION_INIT1

static void twice(sqltk_sqlite3_context *context, int argc, sqltk_sqlite3_value **argv) {
    (void)argc;
    sqltk_sqlite3_value *value = argv[0];
    switch (sqltk_sqlite3_value_type(value)) {
    case SQLITE_INTEGER: {
        sqltk_sqlite3_int64 x = sqltk_sqlite3_value_int64(value);
        sqltk_sqlite3_int64 result;
        if (__builtin_mul_overflow(x, 2, &result)) {
            sqltk_sqlite3_result_error(context, "sqltk_test_twice: integer overflow", -1);
        } else {
            sqltk_sqlite3_result_int64(context, result);
        }
        break;
    }
    case SQLITE_FLOAT:
        sqltk_sqlite3_result_double(context, 2 * sqltk_sqlite3_value_double(value));
        break;
    case SQLITE_NULL:
        sqltk_sqlite3_result_null(context);
        break;
    default:
        sqltk_sqlite3_result_error(context, "sqltk_test_twice: expects a number", -1);
        break;
    }
}

int sqltk_test_extension_init(
    struct sqltk_sqlite3 *db, char **errorMessage, const struct sqltk_sqlite3_api_routines *routines) {
    (void)errorMessage;
    SQLITE_EXTENSION_INIT2(routines);
    return sqltk_sqlite3_create_function_v2(
        db, "sqltk_test_twice", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, twice, 0, 0, 0);
}

int sqltk_test_extension_init_failing(
    struct sqltk_sqlite3 *db, char **errorMessage, const struct sqltk_sqlite3_api_routines *routines) {
    (void)db;
    SQLITE_EXTENSION_INIT2(routines);
    *errorMessage = sqltk_sqlite3_mprintf("sqltk_test_extension refuses to load");
    return SQLITE_ERROR;
}

int sqltk_test_extension_init_probing(
    struct sqltk_sqlite3 *db, char **errorMessage, const struct sqltk_sqlite3_api_routines *routines) {
    SQLITE_EXTENSION_INIT2(routines);
    char *message = 0;
    int code = sqltk_sqlite3_exec(db, "SELECT load_extension('/nonexistent/sqltk-probe')", 0, 0, &message);
    int refused = code == SQLITE_ERROR && message != 0 && strcmp(message, "not authorized") == 0;
    if (!refused) {
        *errorMessage = sqltk_sqlite3_mprintf(
            "load_extension() was not refused while the extension loaded: %s", message ? message : "(no message)");
        sqltk_sqlite3_free(message);
        return SQLITE_ERROR;
    }
    sqltk_sqlite3_free(message);
    return sqltk_test_extension_init(db, errorMessage, routines);
}
