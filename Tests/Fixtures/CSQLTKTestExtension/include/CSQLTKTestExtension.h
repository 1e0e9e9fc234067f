/*
 * A tiny SQLite extension for the tests of static registration (Database.registerExtension): compiled into the
 * test program in loadable style, it reaches SQLite only through the routines table its init function is given.
 *
 * The SQLite types are declared incomplete here, so Swift imports the init functions with exactly the type of
 * Database.ExtensionEntryPoint and the tests need not see SQLite's C API.
 */
#ifndef CSQLTK_TEST_EXTENSION_H
#define CSQLTK_TEST_EXTENSION_H

struct sqltk_sqlite3;
struct sqltk_sqlite3_api_routines;

/* Registers sqltk_test_twice(x): 2 * x for an integer or a real, NULL for NULL, an error otherwise. */
int sqltk_test_extension_init(
    struct sqltk_sqlite3 *db, char **errorMessage, const struct sqltk_sqlite3_api_routines *routines);

/* Registers nothing and fails with the message "sqltk_test_extension refuses to load", as an init function that
   finds something wrong does. */
int sqltk_test_extension_init_failing(
    struct sqltk_sqlite3 *db, char **errorMessage, const struct sqltk_sqlite3_api_routines *routines);

/* Runs SELECT load_extension(...) on `db` from inside the init function, while the extension is being loaded or
   registered, and fails with a message saying so unless SQLite refuses it as "not authorized"; then registers
   what sqltk_test_extension_init does. The tests also build this file as a shared library and load it, so the
   probe runs while the toolkit has the C API's loading switch on. */
int sqltk_test_extension_init_probing(
    struct sqltk_sqlite3 *db, char **errorMessage, const struct sqltk_sqlite3_api_routines *routines);

#endif
