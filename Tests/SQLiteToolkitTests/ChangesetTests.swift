import Foundation
import Testing

@testable import SQLiteToolkit

/// Two devices' databases from one schema, with the same starting rows.
private func makeReplica() throws -> Database {
    let db = try Database()
    try db.executeScript(
        """
        CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE tag (note INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (note, name));
        INSERT INTO note (id, body) VALUES (1, 'groceries'), (2, 'call Ann'), (3, 'gym'), (4, 'taxes');
        INSERT INTO tag VALUES (1, 'home'), (2, 'phone'), (4, 'money');
        """)
    return db
}

/// Every table's rows in a fixed order, to compare databases table by table.
private func contents(_ db: Database) throws -> [String: [[DatabaseValue]]] {
    [
        "note": try allValues(db, "SELECT * FROM note ORDER BY id"),
        "tag": try allValues(db, "SELECT * FROM tag ORDER BY note, name"),
    ]
}

/// A deterministic merge rule both devices apply, so they converge whichever order the changesets cross in:
/// a delete beats an edit, and between two edits of one row the greater body wins.
private func resolve(_ conflict: Changeset.Conflict) -> ChangesetConflictAction {
    guard let change = conflict.change else { return .omit }
    switch conflict.type {
    case .data:
        if change.operation == .delete { return .replace }
        let bodyColumn = 1
        let incoming = change.newValues.indices.contains(bodyColumn) ? change.newValues[bodyColumn] : nil
        let local =
            conflict.conflictingRow?.indices.contains(bodyColumn) == true
            ? conflict.conflictingRow?[bodyColumn] : nil
        guard case .text(let incomingBody)? = incoming, case .text(let localBody)? = local else {
            return .omit
        }
        return incomingBody > localBody ? .replace : .omit
    case .conflict:
        return .replace
    default:
        return .omit
    }
}

@Suite("Changesets: capture, exchange, invert, combine, apply")
struct ChangesetTests {
    @Test("two diverging databases exchange changesets and end with identical rows")
    func divergingDatabasesConverge() throws {
        let phone = try makeReplica()
        let laptop = try makeReplica()
        let phoneSession = try Session(database: phone)
        try phoneSession.attachAll()
        let laptopSession = try Session(database: laptop)
        try laptopSession.attachAll()

        // Offline edits on the phone.
        try phone.execute("INSERT INTO note (id, body) VALUES (10, 'phone idea')")
        try phone.execute("UPDATE note SET body = 'groceries: milk' WHERE id = 1")  // both edit note 1
        try phone.execute("UPDATE note SET body = 'call Ann at 5' WHERE id = 2")  // the laptop deletes note 2
        try phone.execute("DELETE FROM note WHERE id = 3")
        try phone.execute("INSERT INTO tag VALUES (10, 'ideas')")
        // Offline edits on the laptop.
        try laptop.execute("INSERT INTO note (id, body) VALUES (20, 'laptop plan')")
        try laptop.execute("UPDATE note SET body = 'groceries: bread' WHERE id = 1")
        try laptop.execute("DELETE FROM note WHERE id = 2")
        try laptop.execute("DELETE FROM tag WHERE note = 2")
        try laptop.execute("UPDATE note SET pinned = 1 WHERE id = 4")

        let fromPhone = try phoneSession.changeset()
        let fromLaptop = try laptopSession.changeset()
        phoneSession.delete()
        laptopSession.delete()

        var phoneConflicts: [ChangesetConflict] = []
        var laptopConflicts: [ChangesetConflict] = []
        try phone.apply(fromLaptop) { conflict in
            phoneConflicts.append(conflict.type)
            return resolve(conflict)
        }
        try laptop.apply(fromPhone) { conflict in
            laptopConflicts.append(conflict.type)
            return resolve(conflict)
        }

        // The phone sees the laptop's edit of note 1 and its delete of note 2 over changed rows; the laptop sees
        // the phone's edit of note 1 over a changed row and its update of note 2, which it deleted.
        #expect(phoneConflicts.sorted { $0.rawValue < $1.rawValue } == [.data, .data])
        #expect(laptopConflicts.sorted { $0.rawValue < $1.rawValue } == [.data, .notfound])
        let phoneRows = try contents(phone)
        #expect(phoneRows == (try contents(laptop)))
        #expect(
            phoneRows["note"] == [
                [1, "groceries: milk", 0], [4, "taxes", 1], [10, "phone idea", 0], [20, "laptop plan", 0],
            ])
        #expect(phoneRows["tag"] == [[1, "home"], [4, "money"], [10, "ideas"]])
    }

    @Test("changes read back as typed operations with old and new values and the primary key")
    func typedOperations() throws {
        let db = try makeReplica()
        let session = try Session(database: db)
        try session.attach("note")
        try db.execute("INSERT INTO note (id, body) VALUES (5, 'new')")
        try db.execute("UPDATE note SET pinned = 1 WHERE id = 1")
        try db.execute("DELETE FROM note WHERE id = 3")
        let changes = try session.changeset().changes().sorted { $0.operation.rawValue < $1.operation.rawValue }
        #expect(changes.map(\.table) == ["note", "note", "note"])
        let delete = try #require(changes.first { $0.operation == .delete })
        #expect(delete.oldValues == [3, "gym", 0])
        #expect(delete.newValues.isEmpty)
        #expect(delete.primaryKeyColumns == [true, false, false])
        let insert = try #require(changes.first { $0.operation == .insert })
        #expect(insert.newValues == [5, "new", 0])
        #expect(insert.oldValues.isEmpty)
        let update = try #require(changes.first { $0.operation == .update })
        // An update carries the key, and the old and new values of changed columns only.
        #expect(update.oldValues == [1, nil, 0])
        #expect(update.newValues == [nil, nil, 1])
        #expect(!update.isIndirect)
    }

    @Test("an inverted changeset undoes the original exactly")
    func invertUndoes() throws {
        let db = try makeReplica()
        let before = try contents(db)
        let session = try Session(database: db)
        try session.attachAll()
        try db.execute("INSERT INTO note (id, body) VALUES (7, 'temp')")
        try db.execute("UPDATE note SET body = 'gym at 7', pinned = 1 WHERE id = 3")
        try db.execute("DELETE FROM note WHERE id = 4")
        try db.execute("DELETE FROM tag WHERE note = 4")
        let changeset = try session.changeset()
        session.delete()
        #expect(try contents(db) != before)

        try db.apply(changeset.inverted()) { _ in .abort }
        #expect(try contents(db) == before)
        // Inverting twice gives the original changes back.
        #expect(try changeset.inverted().inverted().changes() == changeset.changes())
    }

    @Test("concatenating two changesets has the effect of applying them in sequence")
    func concatEqualsSequence() throws {
        let source = try makeReplica()
        let first = try Session(database: source)
        try first.attachAll()
        try source.execute("INSERT INTO note (id, body) VALUES (8, 'draft')")
        try source.execute("UPDATE note SET body = 'gym, then swim' WHERE id = 3")
        let one = try first.changeset()
        first.delete()
        let second = try Session(database: source)
        try second.attachAll()
        try source.execute("UPDATE note SET body = 'final' WHERE id = 8")
        try source.execute("DELETE FROM note WHERE id = 3")
        try source.execute("INSERT INTO tag VALUES (8, 'work')")
        let two = try second.changeset()
        second.delete()

        let inSequence = try makeReplica()
        try inSequence.apply(one) { _ in .abort }
        try inSequence.apply(two) { _ in .abort }
        let combined = try makeReplica()
        try combined.apply(one.concatenated(with: two)) { _ in .abort }

        #expect(try contents(combined) == contents(inSequence))
        #expect(try contents(combined) == contents(source))
        // The combined changeset merges the changes of one row: note 3 is only deleted, note 8 only inserted.
        let notes = try one.concatenated(with: two).changes().filter { $0.table == "note" }
        #expect(notes.count == 2)
        #expect(Set(notes.map(\.operation)) == [.insert, .delete])
        #expect(try Changeset.combined([one, two]) == one.concatenated(with: two))
    }

    @Test("an abort from the handler rolls the whole apply back and throws a typed error")
    func abortLeavesTargetUnchanged() throws {
        let source = try makeReplica()
        let session = try Session(database: source)
        try session.attachAll()
        for id in 100..<150 { try source.execute("INSERT INTO note (id, body) VALUES (?, 'bulk')", id) }
        try source.execute("UPDATE note SET body = 'remote edit' WHERE id = 1")
        let changeset = try session.changeset()

        let target = try makeReplica()
        try target.execute("UPDATE note SET body = 'local edit' WHERE id = 1")
        let before = try contents(target)
        var calls = 0
        #expect {
            try target.apply(changeset) { _ in
                calls += 1
                return .abort
            }
        } throws: { error in
            (error as? DatabaseError)?.reason == .changesetApplyAborted
                && (error as? DatabaseError)?.extendedCode == .abort
        }
        #expect(calls == 1)
        #expect(try contents(target) == before)
        #expect(!target.isInTransaction)
    }

    @Test("an error thrown by the handler rolls the apply back and is rethrown unchanged")
    func handlerErrorAborts() throws {
        struct Refused: Error, Equatable {}
        let source = try makeReplica()
        let session = try Session(database: source)
        try session.attachAll()
        try source.execute("INSERT INTO note (id, body) VALUES (30, 'kept?')")
        try source.execute("UPDATE note SET body = 'remote' WHERE id = 2")
        let changeset = try session.changeset()
        let target = try makeReplica()
        try target.execute("UPDATE note SET body = 'local' WHERE id = 2")
        let before = try contents(target)
        #expect(throws: Refused()) {
            try target.apply(changeset) { _ in throw Refused() }
        }
        #expect(try contents(target) == before)
    }

    @Test("a truncated or corrupt changeset throws instead of crashing, and applies nothing")
    func corruptChangesetThrows() throws {
        let source = try makeReplica()
        let session = try Session(database: source)
        try session.attachAll()
        try source.execute("INSERT INTO note (id, body) VALUES (40, 'a longer body to cut in the middle')")
        try source.execute("UPDATE note SET body = 'edited' WHERE id = 1")
        try source.execute("DELETE FROM tag WHERE note = 2")
        let bytes = try session.changeset().data
        let changeCount = try Changeset(data: bytes).changes().count

        // Cut in the middle of the last value: reading and applying fail as corrupt.
        let truncated = Changeset(data: bytes.dropLast(3))
        #expect {
            _ = try truncated.changes()
        } throws: { error in
            (error as? DatabaseError)?.reason == .changesetCorrupt
        }
        let target = try makeReplica()
        let before = try contents(target)
        #expect(throws: DatabaseError.self) {
            try target.apply(truncated) { _ in .omit }
        }
        #expect(try contents(target) == before)

        // Every prefix and many byte flips: each either throws or reads no more changes than the whole.
        var generator = SeededRandom(seed: 14)
        var damaged: [Data] = (0..<bytes.count).map { bytes.prefix($0) }
        for _ in 0..<200 {
            var copy = Data(bytes)
            let index = Int(generator.next() % UInt64(copy.count))
            copy[copy.startIndex + index] = UInt8(truncatingIfNeeded: generator.next())
            damaged.append(copy)
        }
        for data in damaged {
            let changeset = Changeset(data: data)
            if let changes = try? changeset.changes() { #expect(changes.count <= changeCount + 1) }
            _ = try? changeset.inverted()
            let scratch = try makeReplica()
            _ = try? scratch.apply(changeset) { _ in .omit }
        }
    }

    @Test("a table without a primary key is not recorded: SQLite's sessions ignore such tables")
    func tableWithoutPrimaryKeyIsIgnored() throws {
        let db = try Database()
        try db.execute("CREATE TABLE log (message TEXT)")
        let session = try Session(database: db)
        try session.attachAll()
        try session.attach("log")
        try db.execute("INSERT INTO log VALUES ('not recorded')")
        #expect(session.isEmpty)
        #expect(try session.changeset().isEmpty)
    }

    @Test("a session's table filter and an apply's filter each exclude a table")
    func tableFilters() throws {
        let db = try makeReplica()
        var asked: [String] = []
        let session = try Session(database: db)
        try session.attachAll { table in
            asked.append(table)
            return table != "tag"
        }
        try db.execute("INSERT INTO note (id, body) VALUES (50, 'x')")
        try db.execute("INSERT INTO tag VALUES (50, 'y')")
        let changeset = try session.changeset()
        #expect(try changeset.changes().map(\.table) == ["note"])
        #expect(asked.sorted() == ["note", "tag"])

        let everything = try Session(database: db)
        try everything.attachAll()
        try db.execute("INSERT INTO note (id, body) VALUES (51, 'x')")
        try db.execute("INSERT INTO tag VALUES (51, 'y')")
        let target = try makeReplica()
        try target.apply(everything.changeset(), filter: { $0 == "tag" }, onConflict: { _ in .abort })
        #expect(try allValues(target, "SELECT note, name FROM tag WHERE note = 51") == [[51, "y"]])
        #expect(try allValues(target, "SELECT id FROM note WHERE id = 51").isEmpty)
    }

    @Test("local changes rebased over applied remote ones reach the remote side without a new conflict")
    func rebasing() throws {
        let remote = try makeReplica()
        let local = try makeReplica()
        let remoteSession = try Session(database: remote)
        try remoteSession.attachAll()
        let localSession = try Session(database: local)
        try localSession.attachAll()
        try remote.execute("UPDATE note SET body = 'remote wins' WHERE id = 1")
        try local.execute("UPDATE note SET body = 'local loses' WHERE id = 1")
        try local.execute("INSERT INTO note (id, body) VALUES (60, 'local only')")
        let remoteChanges = try remoteSession.changeset()
        remoteSession.delete()
        let localChanges = try localSession.changeset()
        localSession.delete()

        // The local side applies the remote changes first, letting them win, and keeps the rebase data.
        let rebase = try local.apply(remoteChanges) { _ in .replace }
        #expect(!rebase.data.isEmpty)
        let rebased = try localChanges.rebased(over: rebase)

        var conflicts = 0
        try remote.apply(rebased) { _ in
            conflicts += 1
            return .abort
        }
        #expect(conflicts == 0)
        #expect(try contents(remote) == contents(local))
        // Without the rebase, the stale local edit conflicts with the remote row.
        let fresh = try makeReplica()
        try fresh.execute("UPDATE note SET body = 'remote wins' WHERE id = 1")
        #expect(throws: DatabaseError.self) { try fresh.apply(localChanges) { _ in .abort } }
    }

    @Test("a patchset is smaller than the changeset and cannot be inverted")
    func patchset() throws {
        let db = try makeReplica()
        let session = try Session(database: db)
        try session.attachAll()
        try db.execute("DELETE FROM note WHERE id = 4")
        try db.execute("UPDATE note SET pinned = 1 WHERE id = 1")
        let patchset = try session.patchset()
        #expect(patchset.data.count < (try session.changeset().data.count))
        #expect {
            _ = try patchset.inverted()
        } throws: { error in
            (error as? DatabaseError)?.reason == .changesetCorrupt
        }
        let target = try makeReplica()
        try target.apply(patchset) { _ in .abort }
        #expect(try contents(target) == contents(db))
    }

    @Test("changesets capture and apply on encrypted databases; their bytes are plaintext")
    func encryptedDatabases() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            let key = Array("correct horse".utf8)
            let keyed = try #require(db.handle).key(key, count: Int32(key.count))
            #expect(keyed == .ok)
            try db.execute("CREATE TABLE secret (id INTEGER PRIMARY KEY, body TEXT)")
            let session = try Session(database: db)
            try session.attachAll()
            try db.execute("INSERT INTO secret VALUES (1, 'visible in the changeset')")
            let changeset = try session.changeset()
            #expect(changeset.data.range(of: Data("visible in the changeset".utf8)) != nil)
            db.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data("visible".utf8)) == nil)

            let other = try Database()
            try other.execute("CREATE TABLE secret (id INTEGER PRIMARY KEY, body TEXT)")
            try other.apply(changeset) { _ in .abort }
            #expect(try allValues(other, "SELECT * FROM secret") == [[1, "visible in the changeset"]])
        }
    }
}
