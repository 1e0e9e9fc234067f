/*
 * A fault-injecting VFS for the reliability tests, never part of a product.
 *
 * "sqltk-fault" wraps the storage VFS "unix"; "multipleciphers-sqltk-fault", the codec shim made on top of it,
 * is what tests open databases through (Configuration.vfs), so faults hit the bytes that reach the disk,
 * encrypted or not. Faults apply to the files whose path starts with a scenario's prefix (a test's own
 * database path), so tests running in parallel never see each other's faults.
 *
 * A scenario counts every read, write, sync and truncate of its files, and can:
 *   - fail the Nth call of a kind (or every call from the Nth on) with SQLITE_IOERR_READ, _WRITE, _FSYNC or
 *     _TRUNCATE;
 *   - answer SQLITE_FULL once more than a number of bytes were written;
 *   - simulate a power cut: writes stay in memory until synced; at the cut, the unsynced writes are dropped,
 *     all of them or a random part in whole 512-byte sectors, and every later call fails with SQLITE_IOERR
 *     (the machine is off) until the scenario is destroyed. Closing or truncating a file counts as syncing it.
 */
#ifndef SQLTK_FAULT_VFS_H
#define SQLTK_FAULT_VFS_H

#include <stdint.h>

/* The kinds of calls a scenario counts and fails. */
enum {
    SQLTK_FAULT_READ = 0,
    SQLTK_FAULT_WRITE = 1,
    SQLTK_FAULT_SYNC = 2,
    SQLTK_FAULT_TRUNCATE = 3,
    SQLTK_FAULT_KIND_COUNT = 4
};

typedef struct sqltk_fault_scenario sqltk_fault_scenario;

/* Registers "sqltk-fault" and "multipleciphers-sqltk-fault" (once per process); returns an SQLite result code. */
int sqltk_fault_vfs_register(void);

/* A scenario for the files whose path starts with `path_prefix`; NULL when out of memory or too many exist. */
sqltk_fault_scenario *sqltk_fault_scenario_create(const char *path_prefix);

/* Ends a scenario; files it still has open pass through without faults from then on. */
void sqltk_fault_scenario_destroy(sqltk_fault_scenario *scenario);

/* Fails the `nth` call (1-based) of `kind` counted from now; with `lasting`, that call and every later one. */
void sqltk_fault_arm(sqltk_fault_scenario *scenario, int kind, int64_t nth, int lasting);

/* Answers SQLITE_FULL to a write once `bytes` more bytes have been written from now; -1 lifts the limit. */
void sqltk_fault_set_disk_limit(sqltk_fault_scenario *scenario, int64_t bytes);

/* Keeps writes in memory until synced, so a power cut can drop them; off by default. */
void sqltk_fault_set_power_cut_mode(sqltk_fault_scenario *scenario, int enabled);

/* Cuts the power at the `nth` write or sync (1-based, counted from now), before it runs; see the seed below. */
void sqltk_fault_arm_power_cut(sqltk_fault_scenario *scenario, int64_t nth, uint64_t seed);

/* Cuts the power now. `seed` 0 drops every unsynced write; another seed keeps a random part of them, in whole
   sectors, chosen by a generator seeded with it. */
void sqltk_fault_power_cut(sqltk_fault_scenario *scenario, uint64_t seed);

/* The calls of `kind` the scenario's files made since it was created. */
int64_t sqltk_fault_calls(const sqltk_fault_scenario *scenario, int kind);

/* The faults injected so far (failed calls, full-disk answers and power cuts). */
int64_t sqltk_fault_injected(const sqltk_fault_scenario *scenario);

/* Whether the power was cut. */
int sqltk_fault_is_powered_off(const sqltk_fault_scenario *scenario);

/* The unsynced bytes dropped and kept by the power cut. */
int64_t sqltk_fault_dropped_bytes(const sqltk_fault_scenario *scenario);
int64_t sqltk_fault_kept_bytes(const sqltk_fault_scenario *scenario);

#endif /* SQLTK_FAULT_VFS_H */
