#if os(Windows)
    import WinSDK
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A file whose whole-file lock the write gate takes (see `WriteGate`): `flock` on Apple platforms, Linux (glibc
/// and musl) and Android, `LockFileEx` on Windows.
///
/// Both lock the open file (the open file description, or the Windows handle), not the process: two connections of
/// one process, each with its file opened separately, exclude each other, and closing one descriptor of the file
/// never drops a lock taken through another (unlike `fcntl`'s per-process locks, which is also why the toolkit never
/// takes a lock on the database file itself: SQLite's own locks live there). The kernel queues a blocking request
/// behind the holder and behind the requests already waiting, which is what makes the gate fair; a request is never
/// taken back, so a wait with a time limit runs on a thread of its own (`WriteGate`).
///
/// A value holding the descriptor (or handle), so that taking and giving back the lock costs a system call and
/// nothing else; its owner calls ``close()`` once.
///
/// After `fork()`, the child shares the parent's open file descriptions, and so the parent's `flock` locks: a
/// `LOCK_UN` in the child would give back the parent's gate while the parent's transaction runs, and a `LOCK_EX`
/// would succeed at once, the child "holding" the gate beside its parent. So a lock file remembers the process that
/// opened it, and in any other process it refuses to lock (``tryLock()`` is `false`, ``lock()`` returns `EPERM`)
/// and to unlock (``unlock()`` does nothing); closing the child's copy of the descriptor leaves the parent's lock as
/// it is. Using a connection opened before `fork()` in the child is unsupported, as SQLite says of its own
/// connections; this only keeps the child from breaking the parent's gate.
struct LockFile {
    #if os(Windows)
        private let handle: HANDLE
    #else
        private let descriptor: Int32
        /// The process that opened the file: the only one that may lock or unlock it.
        private let owner: pid_t
    #endif

    /// Opens (and creates when missing) the file at `path`, read-write, or read-only when writing is refused: a lock
    /// needs no write access.
    init(path: String) throws {
        #if os(Windows)
            let access = DWORD(GENERIC_READ) | DWORD(GENERIC_WRITE)
            let sharing = DWORD(FILE_SHARE_READ) | DWORD(FILE_SHARE_WRITE) | DWORD(FILE_SHARE_DELETE)
            let opened = path.withCString(encodedAs: UTF16.self) {
                CreateFileW($0, access, sharing, nil, DWORD(OPEN_ALWAYS), DWORD(FILE_ATTRIBUTE_NORMAL), nil)
            }
            guard let opened, opened != INVALID_HANDLE_VALUE else {
                throw DatabaseError(
                    extendedCode: .cantopen, message: "cannot open the write gate \(path): error \(GetLastError())")
            }
            handle = opened
        #else
            var opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            if opened < 0 && (errno == EACCES || errno == EROFS) { opened = open(path, O_RDONLY | O_CLOEXEC) }
            guard opened >= 0 else {
                throw DatabaseError(
                    extendedCode: .cantopen,
                    message: "cannot open the write gate \(path): \(PlatformFiles.lastErrorDescription())")
            }
            descriptor = opened
            owner = getpid()
        #endif
    }

    /// Takes the lock if no other open file holds it; `false` at once otherwise, and in a process forked from the one
    /// that opened the file.
    func tryLock() -> Bool {
        #if os(Windows)
            var overlapped = OVERLAPPED()
            let flags = DWORD(LOCKFILE_EXCLUSIVE_LOCK) | DWORD(LOCKFILE_FAIL_IMMEDIATELY)
            return LockFileEx(handle, flags, 0, 1, 0, &overlapped)
        #else
            guard getpid() == owner else { return false }
            while true {
                if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
                if errno != EINTR { return false }
            }
        #endif
    }

    /// Waits until the lock is free, in the kernel's queue, and takes it: 0, or the system's error code when it
    /// refuses (`errno`, for example `ENOLCK`; `GetLastError()` on Windows).
    func lock() -> Int32 {
        #if os(Windows)
            var overlapped = OVERLAPPED()
            if LockFileEx(handle, DWORD(LOCKFILE_EXCLUSIVE_LOCK), 0, 1, 0, &overlapped) { return 0 }
            return Int32(truncatingIfNeeded: GetLastError())
        #else
            guard getpid() == owner else { return EPERM }
            while true {
                if flock(descriptor, LOCK_EX) == 0 { return 0 }
                if errno != EINTR { return errno }
            }
        #endif
    }

    /// Gives the lock back; the first request the kernel queued takes it.
    func unlock() {
        #if os(Windows)
            var overlapped = OVERLAPPED()
            _ = UnlockFileEx(handle, 0, 1, 0, &overlapped)
        #else
            guard getpid() == owner else { return }
            _ = flock(descriptor, LOCK_UN)
        #endif
    }

    /// Closes the file, which gives back a lock it holds.
    func close() {
        #if os(Windows)
            _ = CloseHandle(handle)
        #else
            _ = closeFile(descriptor)
        #endif
    }
}

#if !os(Windows)
    /// `close(2)`, under a name of its own, so ``LockFile/close()`` does not call itself.
    private func closeFile(_ descriptor: Int32) -> Int32 {
        close(descriptor)
    }
#endif
