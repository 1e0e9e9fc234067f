/*
 * Umbrella header of CSQLiteToolkit: the prefixed SQLite and sqlite3mc C API
 * (`sqltk_sqlite3_open_v2`, `sqltk_sqlite3_key`, ...) and the shim for what Swift
 * cannot call directly.
 */
#ifndef CSQLITETOOLKIT_H
#define CSQLITETOOLKIT_H

#include "sqltk_options.h"

#if __has_include("../installed/sqlite3mc.h")
#include "../installed/sqlite3mc.h"
#else
#error "SQLite amalgamation missing: in a package that depends on SQLiteToolkit, run: swift package --allow-writing-to-package-directory --allow-network-connections all install-sqlite (in the SQLiteToolkit repository itself: sqlite-amalgamation/fetch)"
#endif

#include "sqltk_shim.h"

#endif /* CSQLITETOOLKIT_H */
