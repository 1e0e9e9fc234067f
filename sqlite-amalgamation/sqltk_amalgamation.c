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
