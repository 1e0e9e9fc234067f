/*
 * The fault-injecting VFS of the reliability tests: see include/sqltk_fault_vfs.h. It calls only the prefixed
 * SQLite API of CSQLiteToolkit, and its own exported names carry the same `sqltk_` prefix.
 */
#include "CSQLiteToolkit.h"
#include "sqltk_fault_vfs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SQLTK_FAULT_VFS_NAME "sqltk-fault"
#define SQLTK_FAULT_MAX_SCENARIOS 256
#define SQLTK_FAULT_SECTOR 512

typedef struct pending_write {
    struct pending_write *next;
    int64_t offset;
    int amount;
    unsigned char data[];
} pending_write;

typedef struct fault_file fault_file;

struct sqltk_fault_scenario {
    char *prefix;
    size_t prefix_length;
    int64_t calls[SQLTK_FAULT_KIND_COUNT];
    int64_t fail_at[SQLTK_FAULT_KIND_COUNT]; /* the call number that fails, 0 for none */
    int lasting[SQLTK_FAULT_KIND_COUNT];
    int64_t disk_limit; /* -1 for none */
    int64_t written_since_limit;
    int power_cut_mode;
    int64_t writes_and_syncs;
    int64_t power_cut_at; /* 0 for none */
    uint64_t power_cut_seed;
    int powered_off;
    int64_t injected;
    int64_t dropped_bytes;
    int64_t kept_bytes;
};

struct fault_file {
    sqltk_sqlite3_file base;
    sqltk_fault_scenario *scenario; /* NULL: no faults */
    pending_write *pending_head;    /* unsynced writes, oldest first */
    pending_write *pending_tail;
    fault_file *next_open;
    sqltk_sqlite3_file *real; /* the storage VFS's file, allocated right after this struct */
};

/* Guards the scenarios, their counters and every file's pending writes: the tests' connections run on many
   threads. Held only around bookkeeping and the real calls the bookkeeping depends on. */
static pthread_mutex_t fault_mutex = PTHREAD_MUTEX_INITIALIZER;
static sqltk_fault_scenario *scenarios[SQLTK_FAULT_MAX_SCENARIOS];
static fault_file *open_files;
static sqltk_sqlite3_vfs *storage_vfs;
static sqltk_sqlite3_vfs fault_vfs;

/* --- Pending writes (power-cut mode) --- */

static void free_pending(fault_file *file) {
    pending_write *write = file->pending_head;
    while (write) {
        pending_write *next = write->next;
        free(write);
        write = next;
    }
    file->pending_head = file->pending_tail = NULL;
}

/* Writes the pending writes to the storage file, oldest first: what a sync makes durable. */
static int apply_pending(fault_file *file) {
    int rc = SQLITE_OK;
    for (pending_write *write = file->pending_head; write && rc == SQLITE_OK; write = write->next) {
        rc = file->real->pMethods->xWrite(file->real, write->data, write->amount, write->offset);
    }
    free_pending(file);
    return rc;
}

static int64_t pending_end(const fault_file *file) {
    int64_t end = 0;
    for (const pending_write *write = file->pending_head; write; write = write->next) {
        if (write->offset + write->amount > end) end = write->offset + write->amount;
    }
    return end;
}

static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The power cut: each scenario file loses its unsynced writes, or keeps a random part of them in whole sectors;
   from now on every call of the scenario's files fails. Called with the mutex held. */
static void cut_power(sqltk_fault_scenario *scenario, uint64_t seed) {
    if (scenario->powered_off) return;
    scenario->powered_off = 1;
    scenario->injected += 1;
    uint64_t state = seed;
    for (fault_file *file = open_files; file; file = file->next_open) {
        if (file->scenario != scenario) continue;
        for (pending_write *write = file->pending_head; write; write = write->next) {
            int64_t start = write->offset;
            int64_t end = write->offset + write->amount;
            while (start < end) {
                int64_t sector_end = (start / SQLTK_FAULT_SECTOR + 1) * SQLTK_FAULT_SECTOR;
                int64_t piece_end = sector_end < end ? sector_end : end;
                int amount = (int)(piece_end - start);
                if (seed != 0 && (next_random(&state) & 1)) {
                    file->real->pMethods->xWrite(file->real, write->data + (start - write->offset), amount, start);
                    scenario->kept_bytes += amount;
                } else {
                    scenario->dropped_bytes += amount;
                }
                start = piece_end;
            }
        }
        free_pending(file);
    }
}

/* Counts a call of `kind` and says whether it must fail. Called with the mutex held. */
static int count_and_check(sqltk_fault_scenario *scenario, int kind) {
    int64_t call = ++scenario->calls[kind];
    int64_t fail_at = scenario->fail_at[kind];
    if (fail_at != 0 && (call == fail_at || (scenario->lasting[kind] && call > fail_at))) {
        scenario->injected += 1;
        return 1;
    }
    return 0;
}

/* Counts a write or sync toward an armed power cut, and cuts the power when it is reached. */
static int reaches_power_cut(sqltk_fault_scenario *scenario) {
    scenario->writes_and_syncs += 1;
    if (scenario->power_cut_at != 0 && scenario->writes_and_syncs == scenario->power_cut_at) {
        cut_power(scenario, scenario->power_cut_seed);
        return 1;
    }
    return 0;
}

/* --- I/O methods --- */

static int fault_close(sqltk_sqlite3_file *base) {
    fault_file *file = (fault_file *)base;
    pthread_mutex_lock(&fault_mutex);
    if (file->scenario && file->scenario->powered_off) {
        free_pending(file);
    } else {
        apply_pending(file);
    }
    for (fault_file **link = &open_files; *link; link = &(*link)->next_open) {
        if (*link == file) {
            *link = file->next_open;
            break;
        }
    }
    pthread_mutex_unlock(&fault_mutex);
    return file->real->pMethods->xClose(file->real);
}

static int fault_read(sqltk_sqlite3_file *base, void *buffer, int amount, sqltk_sqlite3_int64 offset) {
    fault_file *file = (fault_file *)base;
    pthread_mutex_lock(&fault_mutex);
    sqltk_fault_scenario *scenario = file->scenario;
    if (scenario && (scenario->powered_off || count_and_check(scenario, SQLTK_FAULT_READ))) {
        pthread_mutex_unlock(&fault_mutex);
        return SQLITE_IOERR_READ;
    }
    int rc = file->real->pMethods->xRead(file->real, buffer, amount, offset);
    if (file->pending_head && (rc == SQLITE_OK || rc == SQLITE_IOERR_SHORT_READ)) {
        /* Overlay the unsynced writes, which this machine's cache would serve. */
        for (pending_write *write = file->pending_head; write; write = write->next) {
            int64_t start = write->offset > offset ? write->offset : offset;
            int64_t end = write->offset + write->amount;
            if (end > offset + amount) end = offset + amount;
            if (start < end) {
                memcpy((unsigned char *)buffer + (start - offset), write->data + (start - write->offset),
                       (size_t)(end - start));
            }
        }
        if (rc == SQLITE_IOERR_SHORT_READ && pending_end(file) >= offset + amount) rc = SQLITE_OK;
    }
    pthread_mutex_unlock(&fault_mutex);
    return rc;
}

static int fault_write(sqltk_sqlite3_file *base, const void *buffer, int amount, sqltk_sqlite3_int64 offset) {
    fault_file *file = (fault_file *)base;
    pthread_mutex_lock(&fault_mutex);
    sqltk_fault_scenario *scenario = file->scenario;
    if (scenario) {
        if (scenario->powered_off || reaches_power_cut(scenario) || count_and_check(scenario, SQLTK_FAULT_WRITE)) {
            pthread_mutex_unlock(&fault_mutex);
            return SQLITE_IOERR_WRITE;
        }
        if (scenario->disk_limit >= 0) {
            if (scenario->written_since_limit + amount > scenario->disk_limit) {
                scenario->injected += 1;
                pthread_mutex_unlock(&fault_mutex);
                return SQLITE_FULL;
            }
            scenario->written_since_limit += amount;
        }
        if (scenario->power_cut_mode) {
            pending_write *write = malloc(sizeof(pending_write) + (size_t)amount);
            if (!write) {
                pthread_mutex_unlock(&fault_mutex);
                return SQLITE_IOERR_NOMEM;
            }
            write->next = NULL;
            write->offset = offset;
            write->amount = amount;
            memcpy(write->data, buffer, (size_t)amount);
            if (file->pending_tail) {
                file->pending_tail->next = write;
            } else {
                file->pending_head = write;
            }
            file->pending_tail = write;
            pthread_mutex_unlock(&fault_mutex);
            return SQLITE_OK;
        }
    }
    pthread_mutex_unlock(&fault_mutex);
    return file->real->pMethods->xWrite(file->real, buffer, amount, offset);
}

static int fault_truncate(sqltk_sqlite3_file *base, sqltk_sqlite3_int64 size) {
    fault_file *file = (fault_file *)base;
    pthread_mutex_lock(&fault_mutex);
    sqltk_fault_scenario *scenario = file->scenario;
    if (scenario && (scenario->powered_off || count_and_check(scenario, SQLTK_FAULT_TRUNCATE))) {
        pthread_mutex_unlock(&fault_mutex);
        return SQLITE_IOERR_TRUNCATE;
    }
    int rc = apply_pending(file);
    pthread_mutex_unlock(&fault_mutex);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int fault_sync(sqltk_sqlite3_file *base, int flags) {
    fault_file *file = (fault_file *)base;
    pthread_mutex_lock(&fault_mutex);
    sqltk_fault_scenario *scenario = file->scenario;
    if (scenario && (scenario->powered_off || reaches_power_cut(scenario) || count_and_check(scenario, SQLTK_FAULT_SYNC))) {
        pthread_mutex_unlock(&fault_mutex);
        return SQLITE_IOERR_FSYNC;
    }
    int rc = apply_pending(file);
    pthread_mutex_unlock(&fault_mutex);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xSync(file->real, flags);
}

static int fault_file_size(sqltk_sqlite3_file *base, sqltk_sqlite3_int64 *size) {
    fault_file *file = (fault_file *)base;
    int rc = file->real->pMethods->xFileSize(file->real, size);
    pthread_mutex_lock(&fault_mutex);
    int64_t end = pending_end(file);
    if (rc == SQLITE_OK && end > *size) *size = end;
    pthread_mutex_unlock(&fault_mutex);
    return rc;
}

static int fault_lock(sqltk_sqlite3_file *base, int level) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xLock(file->real, level);
}

static int fault_unlock(sqltk_sqlite3_file *base, int level) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int fault_check_reserved_lock(sqltk_sqlite3_file *base, int *result) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int fault_file_control(sqltk_sqlite3_file *base, int op, void *argument) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int fault_sector_size(sqltk_sqlite3_file *base) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xSectorSize(file->real);
}

static int fault_device_characteristics(sqltk_sqlite3_file *base) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int fault_shm_map(sqltk_sqlite3_file *base, int region, int size, int extend, void volatile **memory) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, memory);
}

static int fault_shm_lock(sqltk_sqlite3_file *base, int offset, int count, int flags) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void fault_shm_barrier(sqltk_sqlite3_file *base) {
    fault_file *file = (fault_file *)base;
    file->real->pMethods->xShmBarrier(file->real);
}

static int fault_shm_unmap(sqltk_sqlite3_file *base, int delete_flag) {
    fault_file *file = (fault_file *)base;
    return file->real->pMethods->xShmUnmap(file->real, delete_flag);
}

/* Version 2: shared memory for WAL, but no memory-mapped reads, which would bypass xRead (and the unsynced
   writes a power cut drops). */
static const sqltk_sqlite3_io_methods fault_io_methods = {
    2,
    fault_close,
    fault_read,
    fault_write,
    fault_truncate,
    fault_sync,
    fault_file_size,
    fault_lock,
    fault_unlock,
    fault_check_reserved_lock,
    fault_file_control,
    fault_sector_size,
    fault_device_characteristics,
    fault_shm_map,
    fault_shm_lock,
    fault_shm_barrier,
    fault_shm_unmap,
    NULL,
    NULL,
};

/* --- VFS methods --- */

/* The scenario with the longest prefix of `path`, or NULL. Called with the mutex held. */
static sqltk_fault_scenario *scenario_for(const char *path) {
    sqltk_fault_scenario *found = NULL;
    if (!path) return NULL;
    for (int index = 0; index < SQLTK_FAULT_MAX_SCENARIOS; index++) {
        sqltk_fault_scenario *scenario = scenarios[index];
        if (scenario && strncmp(path, scenario->prefix, scenario->prefix_length) == 0
            && (!found || scenario->prefix_length > found->prefix_length)) {
            found = scenario;
        }
    }
    return found;
}

static int fault_open(sqltk_sqlite3_vfs *vfs, sqltk_sqlite3_filename name, sqltk_sqlite3_file *base, int flags,
                      int *out_flags) {
    (void)vfs;
    fault_file *file = (fault_file *)base;
    memset(file, 0, sizeof(fault_file));
    file->real = (sqltk_sqlite3_file *)&file[1];
    pthread_mutex_lock(&fault_mutex);
    sqltk_fault_scenario *scenario = scenario_for(name);
    int powered_off = scenario && scenario->powered_off;
    pthread_mutex_unlock(&fault_mutex);
    if (powered_off) return SQLITE_IOERR;
    int rc = storage_vfs->xOpen(storage_vfs, name, file->real, flags, out_flags);
    if (rc != SQLITE_OK) return rc;
    pthread_mutex_lock(&fault_mutex);
    file->scenario = scenario_for(name);
    file->next_open = open_files;
    open_files = file;
    pthread_mutex_unlock(&fault_mutex);
    file->base.pMethods = &fault_io_methods;
    return SQLITE_OK;
}

static int fault_delete(sqltk_sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    pthread_mutex_lock(&fault_mutex);
    sqltk_fault_scenario *scenario = scenario_for(name);
    int powered_off = scenario && scenario->powered_off;
    pthread_mutex_unlock(&fault_mutex);
    if (powered_off) return SQLITE_IOERR_DELETE;
    return storage_vfs->xDelete(storage_vfs, name, sync_directory);
}

/* --- The public functions --- */

int sqltk_fault_vfs_register(void) {
    static int result = -1;
    pthread_mutex_lock(&fault_mutex);
    if (result == -1) {
        storage_vfs = sqltk_sqlite3_vfs_find("unix");
        if (!storage_vfs) {
            result = SQLITE_ERROR;
        } else {
            /* Everything but opening and deleting is the storage VFS's own. */
            fault_vfs = *storage_vfs;
            fault_vfs.pNext = NULL;
            fault_vfs.zName = SQLTK_FAULT_VFS_NAME;
            fault_vfs.szOsFile = (int)sizeof(fault_file) + storage_vfs->szOsFile;
            fault_vfs.xOpen = fault_open;
            fault_vfs.xDelete = fault_delete;
            result = sqltk_sqlite3_vfs_register(&fault_vfs, 0);
            if (result == SQLITE_OK) result = sqltk_sqlite3mc_vfs_create(SQLTK_FAULT_VFS_NAME, 0);
        }
    }
    int rc = result;
    pthread_mutex_unlock(&fault_mutex);
    return rc;
}

sqltk_fault_scenario *sqltk_fault_scenario_create(const char *path_prefix) {
    sqltk_fault_scenario *scenario = calloc(1, sizeof(sqltk_fault_scenario));
    if (!scenario) return NULL;
    scenario->prefix = strdup(path_prefix);
    if (!scenario->prefix) {
        free(scenario);
        return NULL;
    }
    scenario->prefix_length = strlen(path_prefix);
    scenario->disk_limit = -1;
    pthread_mutex_lock(&fault_mutex);
    for (int index = 0; index < SQLTK_FAULT_MAX_SCENARIOS; index++) {
        if (!scenarios[index]) {
            scenarios[index] = scenario;
            pthread_mutex_unlock(&fault_mutex);
            return scenario;
        }
    }
    pthread_mutex_unlock(&fault_mutex);
    free(scenario->prefix);
    free(scenario);
    return NULL;
}

void sqltk_fault_scenario_destroy(sqltk_fault_scenario *scenario) {
    if (!scenario) return;
    pthread_mutex_lock(&fault_mutex);
    for (int index = 0; index < SQLTK_FAULT_MAX_SCENARIOS; index++) {
        if (scenarios[index] == scenario) scenarios[index] = NULL;
    }
    for (fault_file *file = open_files; file; file = file->next_open) {
        if (file->scenario == scenario) file->scenario = NULL;
    }
    pthread_mutex_unlock(&fault_mutex);
    free(scenario->prefix);
    free(scenario);
}

void sqltk_fault_arm(sqltk_fault_scenario *scenario, int kind, int64_t nth, int lasting) {
    if (kind < 0 || kind >= SQLTK_FAULT_KIND_COUNT) return;
    pthread_mutex_lock(&fault_mutex);
    scenario->fail_at[kind] = nth > 0 ? scenario->calls[kind] + nth : 0;
    scenario->lasting[kind] = lasting;
    pthread_mutex_unlock(&fault_mutex);
}

void sqltk_fault_set_disk_limit(sqltk_fault_scenario *scenario, int64_t bytes) {
    pthread_mutex_lock(&fault_mutex);
    scenario->disk_limit = bytes;
    scenario->written_since_limit = 0;
    pthread_mutex_unlock(&fault_mutex);
}

void sqltk_fault_set_power_cut_mode(sqltk_fault_scenario *scenario, int enabled) {
    pthread_mutex_lock(&fault_mutex);
    scenario->power_cut_mode = enabled;
    pthread_mutex_unlock(&fault_mutex);
}

void sqltk_fault_arm_power_cut(sqltk_fault_scenario *scenario, int64_t nth, uint64_t seed) {
    pthread_mutex_lock(&fault_mutex);
    scenario->power_cut_mode = 1;
    scenario->power_cut_at = nth > 0 ? scenario->writes_and_syncs + nth : 0;
    scenario->power_cut_seed = seed;
    pthread_mutex_unlock(&fault_mutex);
}

void sqltk_fault_power_cut(sqltk_fault_scenario *scenario, uint64_t seed) {
    pthread_mutex_lock(&fault_mutex);
    cut_power(scenario, seed);
    pthread_mutex_unlock(&fault_mutex);
}

int64_t sqltk_fault_calls(const sqltk_fault_scenario *scenario, int kind) {
    if (kind < 0 || kind >= SQLTK_FAULT_KIND_COUNT) return 0;
    pthread_mutex_lock(&fault_mutex);
    int64_t calls = scenario->calls[kind];
    pthread_mutex_unlock(&fault_mutex);
    return calls;
}

int64_t sqltk_fault_injected(const sqltk_fault_scenario *scenario) {
    pthread_mutex_lock(&fault_mutex);
    int64_t injected = scenario->injected;
    pthread_mutex_unlock(&fault_mutex);
    return injected;
}

int sqltk_fault_is_powered_off(const sqltk_fault_scenario *scenario) {
    pthread_mutex_lock(&fault_mutex);
    int powered_off = scenario->powered_off;
    pthread_mutex_unlock(&fault_mutex);
    return powered_off;
}

int64_t sqltk_fault_dropped_bytes(const sqltk_fault_scenario *scenario) {
    pthread_mutex_lock(&fault_mutex);
    int64_t bytes = scenario->dropped_bytes;
    pthread_mutex_unlock(&fault_mutex);
    return bytes;
}

int64_t sqltk_fault_kept_bytes(const sqltk_fault_scenario *scenario) {
    pthread_mutex_lock(&fault_mutex);
    int64_t bytes = scenario->kept_bytes;
    pthread_mutex_unlock(&fault_mutex);
    return bytes;
}
