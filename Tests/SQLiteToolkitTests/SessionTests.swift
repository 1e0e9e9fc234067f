import Testing

@testable import SQLiteToolkit

private func makeDatabase() throws -> Database {
    let db = try Database()
    try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
    return db
}

private func isSessionDeleted(_ error: any Error) -> Bool {
    (error as? DatabaseError)?.reason == .sessionDeleted && (error as? DatabaseError)?.code == .misuse
}

@Suite("Sessions: recording, state, and ownership")
struct SessionTests {
    @Test("a session records from the moment a table is attached, and only while enabled")
    func recordsWhileEnabled() throws {
        let db = try makeDatabase()
        try db.execute("INSERT INTO item VALUES (1, 'before')")
        let session = try Session(database: db)
        #expect(session.schema == "main")
        #expect(session.isEnabled)
        try session.attach("item")
        #expect(session.isEmpty)
        session.isEnabled = false
        try db.execute("INSERT INTO item VALUES (2, 'while off')")
        #expect(!session.isEnabled)
        #expect(session.isEmpty)
        session.isEnabled = true
        session.isIndirect = true
        #expect(session.isIndirect)
        try db.execute("INSERT INTO item VALUES (3, 'recorded')")
        #expect(!session.isEmpty)
        #expect(session.memoryUsed > 0)
        let changes = try session.changeset().changes()
        #expect(changes.map(\.newValues) == [[3, "recorded"]])
        #expect(changes.map(\.isIndirect) == [true])
    }

    @Test("a session on a schema that does not exist records nothing")
    func unknownSchema() throws {
        let db = try makeDatabase()
        let session = try Session(database: db, schema: "nowhere")
        try session.attach("item")
        try db.execute("INSERT INTO item VALUES (1, 'x')")
        #expect(try session.changeset().isEmpty)
    }

    @Test("diff records the changes between an attached copy of a table and the session's own")
    func diffAgainstAttachedDatabase() throws {
        let db = try makeDatabase()
        try db.execute("ATTACH ':memory:' AS old")
        try db.execute("CREATE TABLE old.item (id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute("INSERT INTO old.item VALUES (1, 'a'), (2, 'b')")
        try db.execute("INSERT INTO main.item VALUES (1, 'a'), (3, 'c')")
        let session = try Session(database: db)
        try session.attach("item")
        try session.diff(fromSchema: "old", table: "item")
        let changes = try session.changeset().changes()
        #expect(Set(changes.map(\.operation)) == [.insert, .delete])
        #expect(throws: DatabaseError.self) { try session.diff(fromSchema: "missing", table: "item") }
    }

    @Test("closing the connection deletes its sessions; using one afterwards throws, never touches SQLite")
    func closeDeletesSessions() throws {
        let db = try makeDatabase()
        let session = try Session(database: db)
        try session.attachAll()
        try db.execute("INSERT INTO item VALUES (1, 'x')")
        db.close()
        #expect(!session.isValid)
        #expect(session.isEmpty)
        #expect(!session.isEnabled)
        #expect(session.memoryUsed == 0)
        // Enabling a deleted session does nothing, and deleting it again is harmless.
        session.isEnabled = true
        #expect(!session.isEnabled)
        session.delete()
        #expect(!session.isValid)
        #expect(session.memoryUsed == 0)
        #expect { try session.changeset() } throws: { isSessionDeleted($0) }
        #expect { try session.patchset() } throws: { isSessionDeleted($0) }
        #expect { try session.attach("item") } throws: { isSessionDeleted($0) }
        #expect { try session.attachAll() } throws: { isSessionDeleted($0) }
        #expect { try Session(database: db) } throws: { ($0 as? DatabaseError)?.reason == .connectionClosed }
    }

    @Test("a session outliving its released connection is deleted with it")
    func sessionOutlivesConnection() throws {
        var session: Session?
        do {
            let db = try makeDatabase()
            session = try Session(database: db)
            try session?.attachAll()
            try db.execute("INSERT INTO item VALUES (1, 'x')")
        }
        let survivor = try #require(session)
        #expect(!survivor.isValid)
        #expect { try survivor.changeset() } throws: { isSessionDeleted($0) }
        session = nil
    }

    @Test("deleting or releasing sessions leaves the connection usable and its close clean")
    func releaseBeforeClose() throws {
        let db = try makeDatabase()
        var kept: [Session] = []
        for index in 0..<5 {
            let session = try Session(database: db)
            try session.attachAll { _ in index.isMultiple(of: 2) }
            kept.append(session)
        }
        kept[0].delete()
        kept[0].delete()
        kept.removeLast(2)
        try db.execute("INSERT INTO item VALUES (1, 'x')")
        #expect(kept.map { $0.isEmpty } == [true, true, false])
        #expect(db.liveSessions.count == 2)
        db.close()
        #expect(db.liveSessions.isEmpty)
        #expect(kept.allSatisfy { !$0.isValid })
    }

    @Test("closing the connection from a conflict handler takes effect when the apply returns")
    func closeInsideConflictHandler() throws {
        let source = try makeDatabase()
        let session = try Session(database: source)
        try session.attachAll()
        try source.execute("INSERT INTO item VALUES (1, 'remote'), (2, 'other')")
        let changeset = try session.changeset()
        let target = try makeDatabase()
        try target.execute("INSERT INTO item VALUES (1, 'local')")
        try target.apply(changeset) { _ in
            target.close()
            // Closed for its users at once; SQLite's apply keeps the connection until it returns.
            #expect(!target.isOpen)
            return .omit
        }
        #expect(!target.isOpen)
        let later = try #require(throws: DatabaseError.self) { try target.execute("SELECT 1") }
        #expect(later.reason == .connectionClosed)
    }

    @Test("applying a changeset from inside a conflict handler is refused with a typed error")
    func reentrantApply() throws {
        let source = try makeDatabase()
        let session = try Session(database: source)
        try session.attachAll()
        try source.execute("INSERT INTO item VALUES (1, 'remote')")
        let changeset = try session.changeset()
        let target = try makeDatabase()
        try target.execute("INSERT INTO item VALUES (1, 'local')")
        #expect {
            try target.apply(changeset) { _ in
                try target.apply(changeset) { _ in .omit }
                return .omit
            }
        } throws: { ($0 as? DatabaseError)?.reason == .changesetApplyReentered }
        #expect(try allValues(target, "SELECT name FROM item") == [["local"]])
        #expect(target.isOpen)
    }

    @Test("applying on a closed connection throws the closed-connection error")
    func applyAfterClose() throws {
        let db = try makeDatabase()
        db.close()
        #expect {
            try db.apply(Changeset(data: .init())) { _ in .omit }
        } throws: { ($0 as? DatabaseError)?.reason == .connectionClosed }
    }
}
