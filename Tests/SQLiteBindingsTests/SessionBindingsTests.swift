import Foundation
import SQLiteBindings
import Testing

/// Records `body`'s changes to table `t` of `connection` and returns the changeset's bytes.
private func record(_ connection: TestConnection, _ body: () throws -> Void) throws -> [UInt8] {
    let (code, created) = SessionHandle.create(connection.handle, schema: "main")
    let session = try #require(created)
    #expect(code == .ok)
    defer { session.delete() }
    #expect(session.attach("t") == .ok)
    try body()
    let (changesetCode, changeset) = session.changeset()
    #expect(changesetCode == .ok)
    // An empty changeset comes back as no buffer at all.
    return changeset.map { Array($0.bytes) } ?? []
}

@Suite("Session extension bindings")
struct SessionBindingsTests {
    @Test("a session's changeset iterates as the operations made, with their values")
    func iterate() throws {
        let connection = try TestConnection()
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        let bytes = try record(connection) {
            try connection.execute("INSERT INTO t VALUES (1, 'one')")
        }
        try bytes.withUnsafeBytes { buffer in
            let (code, started) = ChangesetIteratorHandle.start(buffer)
            let iterator = try #require(started)
            #expect(code == .ok)
            #expect(iterator.next() == .row)
            let operation = iterator.operation()
            #expect(operation.code == .ok)
            #expect(operation.table == "t")
            #expect(operation.columnCount == 2)
            #expect(operation.operation == .insert)
            #expect(!operation.isIndirect)
            let (valueCode, value) = iterator.newValue(1)
            #expect(valueCode == .ok)
            #expect(try #require(value).valueString() == "one")
            let key = iterator.primaryKey()
            #expect(key.columnCount == 2)
            #expect(try #require(key.flags)[0] != 0)
            #expect(iterator.next() == .done)
            #expect(iterator.finalize() == .ok)
        }
    }

    @Test("the closure form of apply calls the filter per table and the handler per conflict")
    func applyWithClosures() throws {
        let source = try TestConnection()
        try source.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        let bytes = try record(source) {
            try source.execute("INSERT INTO t VALUES (1, 'remote'), (2, 'two')")
        }
        let target = try TestConnection()
        try target.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        try target.execute("INSERT INTO t VALUES (1, 'local')")
        var tables: [String] = []
        var conflicts: [ChangesetConflict] = []
        let (code, rebase) = bytes.withUnsafeBytes { buffer in
            target.handle.applyChangeset(
                buffer,
                filter: { table in
                    tables.append(table)
                    return true
                },
                conflictHandler: { conflict, iterator in
                    conflicts.append(conflict)
                    #expect(iterator.conflictingValue(1).value?.valueString() == "local")
                    return .replace
                })
        }
        #expect(code == .ok)
        #expect(tables == ["t"])
        #expect(conflicts == [.conflict])
        #expect(try #require(rebase).count > 0)
        #expect(try target.int64("SELECT count(*) FROM t WHERE name IN ('remote', 'two')") == 2)
    }

    @Test("an abort answer rolls the apply back and returns SQLITE_ABORT")
    func abortRollsBack() throws {
        let source = try TestConnection()
        try source.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        let bytes = try record(source) {
            try source.execute("INSERT INTO t VALUES (1, 'remote'), (2, 'two'), (3, 'three')")
        }
        let target = try TestConnection()
        try target.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        try target.execute("INSERT INTO t VALUES (2, 'local')")
        let (code, _) = bytes.withUnsafeBytes { buffer in
            target.handle.applyChangeset(buffer, filter: nil) { _, _ in .abort }
        }
        #expect(code == .abort)
        #expect(try target.int64("SELECT count(*) FROM t") == 1)
    }

    @Test("a buffer longer than a 32-bit length is refused with SQLITE_TOOBIG before SQLite reads it")
    func tooBig() throws {
        // The buffer is never read: the length check comes before the call, so one real byte is enough.
        var byte: UInt8 = 0
        try withUnsafeBytes(of: &byte) { one in
            let huge = UnsafeRawBufferPointer(start: one.baseAddress, count: Int(Int32.max) + 1)
            let (code, inverted) = SessionExtension.invert(huge)
            #expect(code == .toobig)
            #expect(inverted == nil)
            let (startCode, iterator) = ChangesetIteratorHandle.start(huge)
            #expect(startCode == .toobig)
            #expect(iterator == nil)
            let connection = try TestConnection()
            let (applyCode, rebase) = connection.handle.applyChangeset(huge, filter: nil) { _, _ in .abort }
            #expect(applyCode == .toobig)
            #expect(rebase == nil)
        }
    }

    @Test("changegroup, rebaser and session objects are created and deleted without leaking")
    func objectsLifecycle() throws {
        let connection = try TestConnection()
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        for _ in 0..<100 {
            let (groupCode, group) = ChangegroupHandle.create()
            #expect(groupCode == .ok)
            try #require(group).delete()
            let (rebaserCode, rebaser) = RebaserHandle.create()
            #expect(rebaserCode == .ok)
            try #require(rebaser).delete()
            let (sessionCode, session) = SessionHandle.create(connection.handle, schema: "main")
            #expect(sessionCode == .ok)
            try #require(session).delete()
        }
        let empty = try record(connection) {}
        #expect(empty.isEmpty)
    }

    @Test("a message SQLite allocates for a failed diff is returned as text")
    func diffMessage() throws {
        let connection = try TestConnection()
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        let (_, created) = SessionHandle.create(connection.handle, schema: "main")
        let session = try #require(created)
        defer { session.delete() }
        let (code, message) = session.diff(fromSchema: "missing", table: "t")
        #expect(code != .ok)
        #expect(message?.isEmpty == false)
    }
}
