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

#endif
