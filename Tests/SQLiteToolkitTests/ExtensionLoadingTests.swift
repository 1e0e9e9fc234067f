import CSQLTKTestExtension
import Foundation
import SQLiteToolkit
import Testing

/// Loading extensions through the C API only, its errors, and registering extensions compiled into the program.
@Suite("Extension loading")
struct ExtensionLoadingTests {
    /// Asserts that the SQL function `load_extension()` is refused on `db`, naming `path` so that a library that
    /// exists would be loaded if it were not.
    static func expectSQLLoadingRefused(_ db: Database, path: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let error = #expect(throws: DatabaseError.self, sourceLocation: sourceLocation) {
            try db.execute("SELECT load_extension(?)", path)
        }
        #expect(error?.message.contains("not authorized") == true, sourceLocation: sourceLocation)
    }

    /// A library every Linux system has that is not an SQLite extension: it has no init function.
    static let notAnExtension = "libm.so.6"

    @Test("SELECT load_extension() is refused on a new connection, and so is the C API")
    func refusedByDefault() throws {
        let db = try Database()
        try Self.expectSQLLoadingRefused(db, path: ExtensionPeers.sqliteVec ?? Self.notAnExtension)
        let handle = try #require(db.handle)
        #expect(handle.configure(.enableLoadExtension, -1).value == 0)
        let (code, message) = handle.loadExtension(atPath: Self.notAnExtension, entryPoint: nil)
        #expect(code == .error)
        #expect(message == "not authorized")
    }

    @Test("the C-API switch loadExtension turns on during its call leaves SELECT load_extension() refused")
    func cAPISwitchLeavesSQLFunctionOff() throws {
        let db = try Database()
        let handle = try #require(db.handle)
        #expect(handle.configure(.enableLoadExtension, 1).value == 1)
        try Self.expectSQLLoadingRefused(db, path: ExtensionPeers.sqliteVec ?? Self.notAnExtension)
        #expect(handle.configure(.enableLoadExtension, 0).value == 0)
    }

    @Test("a missing file throws extensionLoadFailed naming the path and SQLite's message; loading is off after")
    func missingFile() throws {
        let db = try Database()
        let path = "/nonexistent/sqltk-no-such-extension.so"
        let error = try #require(throws: DatabaseError.self) { try db.loadExtension(atPath: path) }
        #expect(error.reason == .extensionLoadFailed(path: path))
        #expect(error.code == .error)
        #expect(error.path == path)
        #expect(error.message.contains(path))
        #expect(error.message.contains("cannot open shared object file") || error.message.contains("not found"))
        #expect(db.handle?.configure(.enableLoadExtension, -1).value == 0)
        try Self.expectSQLLoadingRefused(db, path: path)
        #expect(try db.queryValue("SELECT 1", as: Int.self) == 1)
    }

    @Test("a file that is not a library throws extensionLoadFailed")
    func notALibrary() throws {
        try TemporaryFile.withDatabasePath { path in
            let file = path + ".so"
            try Data("not a shared library\n".utf8).write(to: URL(fileURLWithPath: file))
            let db = try Database()
            let error = try #require(throws: DatabaseError.self) { try db.loadExtension(atPath: file) }
            #expect(error.reason == .extensionLoadFailed(path: file))
            #expect(error.message.contains(file))
            #expect(db.handle?.configure(.enableLoadExtension, -1).value == 0)
        }
    }

    #if os(Linux)
        @Test("a library without the entry point throws extensionLoadFailed naming the missing symbol")
        func missingEntryPoint() throws {
            let db = try Database()
            let error = try #require(throws: DatabaseError.self) {
                try db.loadExtension(atPath: Self.notAnExtension, entryPoint: "sqltk_no_such_init")
            }
            #expect(error.reason == .extensionLoadFailed(path: Self.notAnExtension))
            #expect(error.message.contains("sqltk_no_such_init"))
            #expect(db.handle?.configure(.enableLoadExtension, -1).value == 0)
        }
    #endif

    @Test("loading on a closed connection throws connectionClosed")
    func closedConnection() throws {
        let db = try Database()
        db.close()
        #expect(throws: DatabaseError.self) { try db.loadExtension(atPath: Self.notAnExtension) }
        let error = try #require(throws: DatabaseError.self) { try db.loadExtension(atPath: Self.notAnExtension) }
        #expect(error.reason == .connectionClosed)
        let registration = try #require(throws: DatabaseError.self) {
            try db.registerExtension(sqltk_test_extension_init, named: "test")
        }
        #expect(registration.reason == .connectionClosed)
    }

    @Test("loading or registering from inside one of the connection's callbacks throws extensionLoadInCallback")
    func reentryFromCallback() throws {
        let db = try Database()
        // The function captures the connection, which keeps the function: closing breaks the cycle.
        defer { db.close() }
        nonisolated(unsafe) var reasons: [DatabaseError.Reason?] = []
        try db.createFunction("reenter") { (value: Int) -> Int in
            do {
                try db.loadExtension(atPath: Self.notAnExtension)
            } catch {
                reasons.append((error as? DatabaseError)?.reason)
            }
            do {
                try db.registerExtension(sqltk_test_extension_init, named: "test")
            } catch {
                reasons.append((error as? DatabaseError)?.reason)
            }
            try Self.expectSQLLoadingRefused(db, path: Self.notAnExtension)
            return value
        }
        #expect(try db.queryValue("SELECT reenter(1)", as: Int.self) == 1)
        #expect(reasons == [.extensionLoadInCallback, .extensionLoadInCallback])
        #expect(throws: DatabaseError.self) { try db.execute("SELECT sqltk_test_twice(1)") }
    }

    @Test("an extension compiled into the program registers by its init function, through the routines table")
    func staticRegistration() throws {
        let db = try Database()
        #expect(throws: DatabaseError.self) { try db.execute("SELECT sqltk_test_twice(1)") }
        try db.registerExtension(sqltk_test_extension_init, named: "sqltk_test_extension")
        #expect(try db.queryValue("SELECT sqltk_test_twice(21)", as: Int.self) == 42)
        #expect(try db.queryValue("SELECT sqltk_test_twice(1.25)", as: Double.self) == 2.5)
        #expect(try db.queryValue("SELECT sqltk_test_twice(NULL)", as: Int?.self) == .some(nil))
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT sqltk_test_twice('a')") }
        #expect(error.message.contains("sqltk_test_twice: expects a number"))
        // Registering needs no loading switch, and turns none on.
        #expect(db.handle?.configure(.enableLoadExtension, -1).value == 0)
        try Self.expectSQLLoadingRefused(db, path: Self.notAnExtension)
        // Another connection does not have it.
        let other = try Database()
        #expect(throws: DatabaseError.self) { try other.execute("SELECT sqltk_test_twice(1)") }
    }

    @Test("an init function that fails throws extensionRegistrationFailed with the extension's message")
    func failingRegistration() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) {
            try db.registerExtension(sqltk_test_extension_init_failing, named: "failing")
        }
        #expect(error.reason == .extensionRegistrationFailed(name: "failing"))
        #expect(error.code == .error)
        #expect(error.message == "sqltk_test_extension refuses to load")
        #expect(error.path == "failing")
    }

    @Test("Configuration.extensions reach every connection of a queue: at open and after reopen()")
    func queueConnections() throws {
        var configuration = Database.Configuration()
        configuration.extensions = [.linked(sqltk_test_extension_init, named: "sqltk_test_extension")]
        let queue = try DatabaseQueue(configuration: configuration)
        #expect(try queue.read { try $0.queryValue("SELECT sqltk_test_twice(2)", as: Int.self) } == 4)
        queue.close()
        try queue.reopen()
        #expect(try queue.read { try $0.queryValue("SELECT sqltk_test_twice(3)", as: Int.self) } == 6)
    }

    @Test("Configuration.extensions reach the writer and every reader of a pool, also after reopen()")
    func poolConnections() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.extensions = [.linked(sqltk_test_extension_init, named: "sqltk_test_extension")]
            let pool = try DatabasePool(path: path, configuration: configuration, maximumReaderCount: 3)
            try pool.write {
                try $0.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (sqltk_test_twice(5))")
            }
            // Three reads held open together need three readers: each waits (at most 10 s) until all are in.
            let arrived = Locked(0)
            let values = Locked<[Int?]>([])
            let together = Locked(true)
            let finished = DispatchGroup()
            for _ in 0..<3 {
                finished.enter()
                Thread {
                    let value = try? pool.read { db in
                        arrived.withLock { $0 += 1 }
                        let deadline = Date().addingTimeInterval(10)
                        while arrived.current < 3 && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                        return (try db.queryValue("SELECT sqltk_test_twice(x) FROM t", as: Int.self), arrived.current)
                    }
                    values.withLock { $0.append(value?.0) }
                    together.withLock { $0 = $0 && value?.1 == 3 }
                    finished.leave()
                }.start()
            }
            finished.wait()
            #expect(together.current)
            #expect(values.current == [20, 20, 20])
            pool.close()
            try pool.reopen()
            let afterReopen = try pool.read {
                try $0.queryValue("SELECT sqltk_test_twice(x) FROM t", as: Int.self)
            }
            #expect(afterReopen == 20)
            let writer = try pool.write { try $0.queryValue("SELECT sqltk_test_twice(7)", as: Int.self) }
            #expect(writer == 14)
        }
    }

    @Test("Configuration.extensions are registered again on the connection a key change reopens")
    func afterKeyChange() throws {
        try TemporaryFile.withDatabasePath { path in
            var configuration = Database.Configuration()
            configuration.key = TestKeys.raw
            configuration.cipher = TestKeys.fastChaCha20
            configuration.extensions = [.linked(sqltk_test_extension_init, named: "sqltk_test_extension")]
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.write { try $0.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            try queue.changeKey(to: TestKeys.otherRaw)
            #expect(try queue.read { try $0.queryValue("SELECT sqltk_test_twice(x) FROM t", as: Int.self) } == 2)
        }
    }

    @Test("an extension that fails at open makes the open throw, and nothing stays open")
    func failingAtOpen() throws {
        var configuration = Database.Configuration()
        configuration.extensions = [
            .linked(sqltk_test_extension_init, named: "first"), .library(atPath: "/nonexistent/ext.so"),
        ]
        let error = try #require(throws: DatabaseError.self) { try Database(configuration: configuration) }
        #expect(error.reason == .extensionLoadFailed(path: "/nonexistent/ext.so"))
        #expect(throws: DatabaseError.self) { try DatabaseQueue(configuration: configuration) }
    }
}

/// The tests' extension built as a shared library at test time (with the toolchain's C compiler) and loaded by
/// path: a library compiled in loadable style, whose init function checks that SQL cannot load a library while
/// the toolkit has the C API's loading switch on for it.
@Suite("Extension loading: a library built from the tests' extension")
struct ExtensionLibraryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A C compiler on the `PATH` (`clang` comes with the Swift toolchain on Linux), or `nil`.
    static let compiler: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["clang", "cc"] {
            for folder in path.split(separator: ":") {
                let candidate = "\(folder)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }()

    /// Compiles Tests/Fixtures/CSQLTKTestExtension/test_extension.c into a shared library at `output`.
    static func buildLibrary(at output: String) throws {
        let compiler = try #require(compiler)
        let fixture = root.appendingPathComponent("Tests/Fixtures/CSQLTKTestExtension")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = [
            "-shared", "-fPIC", "-o", output,
            "-I", root.appendingPathComponent("sqlite-amalgamation/include").path,
            "-I", fixture.appendingPathComponent("include").path,
            fixture.appendingPathComponent("test_extension.c").path,
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "the compiler failed: \(errorText)")
    }

    @Test(
        "SELECT load_extension() is refused while loadExtension loads a library, whose functions then work",
        .enabled(if: compiler != nil, "no C compiler (clang or cc) on the PATH to build the test library")
    )
    func refusedDuringLoad() throws {
        try TemporaryFile.withDatabasePath { path in
            let library = path + "-extension.so"
            try Self.buildLibrary(at: library)
            let db = try Database()
            try db.loadExtension(atPath: library, entryPoint: "sqltk_test_extension_init_probing")
            #expect(try db.queryValue("SELECT sqltk_test_twice(8)", as: Int.self) == 16)
            #expect(db.handle?.configure(.enableLoadExtension, -1).value == 0)
            try ExtensionLoadingTests.expectSQLLoadingRefused(db, path: library)
            // The same probe, registered statically, finds loading refused too.
            let other = try Database()
            try other.registerExtension(sqltk_test_extension_init_probing, named: "probing")
            #expect(try other.queryValue("SELECT sqltk_test_twice(4)", as: Int.self) == 8)
        }
    }
}
