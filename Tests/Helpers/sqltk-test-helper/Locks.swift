import Foundation

/// `locks PATH`: the POSIX record locks other processes hold on the database file at PATH, its `-wal` and its
/// `-shm`, as `fcntl(F_GETLK)` sees them from this process (which holds none): one line per lock,
/// `lock FILE TYPE START LENGTH PID` (FILE is `db`, `wal` or `shm`; TYPE `read` or `write`; LENGTH 0 means to the end
/// of the file), then `done`. A file that does not exist has no lock. F_GETLK reports the first lock that would
/// conflict with a write lock on the range asked for, so the range is asked again after each lock found.
func locks(_ arguments: [String]) throws {
    guard arguments.count == 1 else { throw UsageError(description: "locks PATH") }
    let path = arguments[0]
    for (name, suffix) in [("db", ""), ("wal", "-wal"), ("shm", "-shm")] {
        let descriptor = open(path + suffix, O_RDONLY)
        if descriptor < 0 { continue }
        defer { close(descriptor) }
        var start: off_t = 0
        while true {
            var query = flock()
            query.l_type = Int16(F_WRLCK)
            query.l_whence = Int16(SEEK_SET)
            query.l_start = start
            query.l_len = 0
            guard fcntl(descriptor, F_GETLK, &query) == 0 else {
                throw UsageError(description: "fcntl(F_GETLK) failed on \(path + suffix): errno \(errno)")
            }
            if query.l_type == Int16(F_UNLCK) { break }
            let type = query.l_type == Int16(F_RDLCK) ? "read" : "write"
            print("lock \(name) \(type) \(query.l_start) \(query.l_len) \(query.l_pid)")
            if query.l_len == 0 { break }
            start = query.l_start + query.l_len
        }
    }
    print("done")
}
