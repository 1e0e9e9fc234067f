/*
 * The C library's declarations that Swift's platform modules leave out, for the platform code of SQLiteToolkit
 * (Sources/SQLiteToolkit/Core/PlatformFileReplacement.swift): the extended-attribute calls of <sys/xattr.h>
 * (listxattr, getxattr, setxattr), which the Glibc, Musl and Android modules do not export. Darwin's module
 * exports them already, so the header is empty there. Declarations only: this target defines no symbol.
 */
#ifndef SQLTK_SYSTEM_SHIM_H
#define SQLTK_SYSTEM_SHIM_H

#if defined(__linux__) || defined(__ANDROID__)
#include <sys/xattr.h>
#endif

#endif /* SQLTK_SYSTEM_SHIM_H */
