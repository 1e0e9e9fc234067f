import Foundation
import SQLiteToolkit

/// The database of the running test, given by a ``DatabaseTrait`` on the test or its suite.
///
/// ```swift
/// @Test(.database(migrator: AppDatabase.migrator))
/// func playersStartEmpty() throws {
///     let count = try TestDatabase.current.read { db in
///         try db.queryRequiredValue("SELECT count(*) FROM player", as: Int.self)
///     }
///     #expect(count == 0)
/// }
/// ```
///
/// The database is reachable from the test's body and from the functions and child tasks it calls (a task-local
/// value), not from a detached task, and not from another test: every test, and every argument of a parameterized
/// test, gets a database of its own.
public enum TestDatabase {
    /// Where a test's database lives.
    public enum Storage: Sendable, Hashable, CustomStringConvertible {
        /// A private in-memory database behind a `DatabaseQueue`: the fastest, and nothing to remove.
        case inMemory
        /// A database file in a new temporary folder, behind a `DatabaseQueue`; the folder is removed when the test
        /// ends.
        case file
        /// A database file in WAL mode in a new temporary folder, behind a `DatabasePool` (readers beside the
        /// writer); the folder is removed when the test ends.
        case pool

        /// The case's name: `inMemory`, `file` or `pool`.
        public var description: String {
            switch self {
            case .inMemory: "inMemory"
            case .file: "file"
            case .pool: "pool"
            }
        }
    }

    /// The running test's database: a `DatabaseQueue` (storage ``Storage/inMemory`` or ``Storage/file``) or a
    /// `DatabasePool` (storage ``Storage/pool``), prepared by the trait's set-up.
    ///
    /// - Throws: ``TestDatabaseError/noDatabaseTrait`` when neither the test nor its suites have a
    ///   ``DatabaseTrait``.
    public static var current: any DatabaseWriter {
        get throws { try context().writer }
    }

    /// The running test's database as a `DatabaseQueue`, for the queue's own API (`inDatabase`, `transaction`).
    ///
    /// - Throws: ``TestDatabaseError/storageMismatch(expected:actual:)`` when the trait asked for a
    ///   ``Storage/pool``; ``TestDatabaseError/noDatabaseTrait`` without a trait.
    public static var queue: DatabaseQueue {
        get throws { try current(as: DatabaseQueue.self) }
    }

    /// The running test's database as a `DatabasePool`, for the pool's own API (`barrierWrite`, `checkpoint`).
    ///
    /// - Throws: ``TestDatabaseError/storageMismatch(expected:actual:)`` when the trait did not ask for a
    ///   ``Storage/pool``; ``TestDatabaseError/noDatabaseTrait`` without a trait.
    public static var pool: DatabasePool {
        get throws { try current(as: DatabasePool.self) }
    }

    private static func current<Writer: DatabaseWriter>(as type: Writer.Type) throws -> Writer {
        let context = try context()
        guard let writer = context.writer as? Writer else {
            throw TestDatabaseError.storageMismatch(expected: "a \(Writer.self)", actual: context.storage)
        }
        return writer
    }

    /// The running test's database file, or `nil` for an in-memory database.
    ///
    /// - Throws: ``TestDatabaseError/noDatabaseTrait`` without a trait.
    public static var path: String? {
        get throws {
            let context = try context()
            return context.storage == .inMemory ? nil : context.writer.path
        }
    }

    /// The running test's storage.
    ///
    /// - Throws: ``TestDatabaseError/noDatabaseTrait`` without a trait.
    public static var storage: Storage {
        get throws { try context().storage }
    }

    static func context() throws -> Context {
        guard let context = Context.current else { throw TestDatabaseError.noDatabaseTrait }
        return context
    }

    /// One test's database: the queue or pool, and the folder to remove with it.
    struct Context: Sendable {
        @TaskLocal static var current: Context?

        var writer: any DatabaseWriter
        var storage: Storage
        /// The temporary folder that holds the file and its `-wal`, `-shm` and `-journal`; `nil` in memory.
        var folder: URL?

        /// Opens a new, empty database in `storage` and runs `setUps` on it, in order. Removes what it made when
        /// a step throws.
        static func make(
            _ storage: Storage, configuration: Database.Configuration, setUps: [DatabaseSetUp]
        ) throws -> Context {
            var folder: URL?
            let writer: any DatabaseWriter
            do {
                switch storage {
                case .inMemory:
                    writer = try DatabaseQueue(path: nil, configuration: configuration)
                case .file, .pool:
                    let newFolder = FileManager.default.temporaryDirectory
                        .appendingPathComponent("SQLiteToolkitTesting-\(UUID().uuidString)", isDirectory: true)
                    try FileManager.default.createDirectory(at: newFolder, withIntermediateDirectories: true)
                    folder = newFolder
                    let path = newFolder.appendingPathComponent("test.sqlite").path
                    writer =
                        storage == .file
                        ? try DatabaseQueue(path: path, configuration: configuration)
                        : try DatabasePool(path: path, configuration: configuration)
                }
            } catch {
                if let folder { try? FileManager.default.removeItem(at: folder) }
                throw error
            }
            let context = Context(writer: writer, storage: storage, folder: folder)
            do {
                for setUp in setUps {
                    try writer.writeWithoutTransaction { db in try setUp.body(db) }
                }
            } catch {
                _ = context.remove()
                throw error
            }
            return context
        }

        /// Closes the database and removes its folder; returns what failed, if anything, so a test that threw
        /// keeps its own error.
        func remove() -> [any Error] {
            var errors: [any Error] = []
            writer.close()
            if let folder {
                do { try FileManager.default.removeItem(at: folder) } catch { errors.append(error) }
            }
            return errors
        }
    }
}

/// The errors of the testing support itself: a missing trait, a storage the test did not ask for, an unreadable
/// SQL file.
public enum TestDatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `TestDatabase` was read in a test (or outside any test) without a ``DatabaseTrait``.
    case noDatabaseTrait
    /// The test asked for one kind of database and the trait gave another.
    case storageMismatch(expected: String, actual: TestDatabase.Storage)
    /// The SQL file of a ``DatabaseSetUp/sqlFile(_:)`` set-up could not be read as UTF-8 text.
    case unreadableSQLFile(path: String)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .noDatabaseTrait:
            "no test database here: add the .database(...) trait to the @Test or its @Suite (TestDatabase is "
                + "reachable from the test and its child tasks, not from a detached task)"
        case .storageMismatch(let expected, let actual):
            "the test database is not \(expected): its trait asked for .\(actual) storage"
        case .unreadableSQLFile(let path):
            "the set-up SQL file cannot be read as UTF-8 text: \(path)"
        }
    }
}
