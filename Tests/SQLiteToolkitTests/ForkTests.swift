import Foundation
import Testing

@testable import SQLiteToolkit

#if canImport(Glibc)
    import Glibc

    /// A child made by `fork()` shares its parent's open file descriptions, and so the `flock` locks of the write
    /// gate's lock files: unchecked, the child's `LOCK_UN` gave back the gate its parent held.
    @Suite("fork() and the write gate's lock files")
    struct ForkTests {
        @Test("in a forked child, a lock file opened before fork() neither gives back nor takes the parent's lock")
        func childCannotReleaseParentsLock() throws {
            try TemporaryFile.withDatabasePath { path in
                let lockPath = path + "-writegate"
                let file = try LockFile(path: lockPath)
                defer { file.close() }
                #expect(file.tryLock())
                let child = fork()
                if child == 0 {
                    // Only system calls from here on, as the child of a threaded process may make.
                    file.unlock()
                    let took = file.tryLock()
                    let waited = file.lock()
                    _exit(took ? 2 : waited == 0 ? 3 : 0)
                }
                try #require(child > 0)
                var status: Int32 = 0
                #expect(waitpid(child, &status, 0) == child)
                // WIFEXITED and WEXITSTATUS are macros Swift does not import.
                #expect(status & 0x7f == 0, "the child did not exit normally")
                #expect((status >> 8) & 0xff == 0, "the child took the lock its parent holds")
                // The parent still holds it: another open file description cannot take it.
                let other = try LockFile(path: lockPath)
                defer { other.close() }
                #expect(!other.tryLock())
                file.unlock()
                #expect(other.tryLock())
                other.unlock()
            }
        }
    }
#endif
