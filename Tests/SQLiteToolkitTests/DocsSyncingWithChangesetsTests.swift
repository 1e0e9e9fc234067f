import Foundation
import SQLiteToolkit
import Testing

/// The samples of the Syncing with changesets article (Sources/SQLiteToolkit/SQLiteToolkit.docc/
/// SyncingWithChangesets.md), line for line: `DocsSampleTests` checks that every line of its samples appears here.
@Suite("Docs: Syncing with changesets")
struct DocsSyncingWithChangesetsTests {
    /// The notes of a device, in order.
    func notes(_ db: Database) throws -> [String] {
        try db.query("SELECT id || ':' || body FROM note ORDER BY id").map { try $0.value(at: 0) as String }
    }

    /// The article's rule: a delete beats an edit, and between two edits of one row the greater text wins.
    func resolve(_ conflict: Changeset.Conflict) -> ChangesetConflictAction {
        guard let change = conflict.change else { return .omit }
        switch conflict.type {
        case .data:
            if change.operation == .delete { return .replace }  // delete beats edit
            guard case .text(let incoming)? = change.newValues[1],
                case .text(let local)? = conflict.conflictingRow?[1]
            else { return .omit }
            return incoming > local ? .replace : .omit
        case .conflict:
            return .replace
        default:
            return .omit  // the row is gone here: a delete already won
        }
    }

    @Test("record on the phone, apply on the laptop with the conflict rule, then back: both converge")
    func exchange() throws {
        let phone = try Database()
        let laptop = try Database()
        var outbox: [Data] = []
        func send(_ data: Data) { outbox.append(data) }

        let schema = """
            CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE tag (note INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (note, name));
            """
        try phone.executeScript(schema)
        try laptop.executeScript(schema)
        for db in [phone, laptop] {
            try db.execute("CREATE TABLE cache (key TEXT PRIMARY KEY, value BLOB)")
            try db.execute("INSERT INTO note (id, body) VALUES (1, 'groceries'), (2, 'call'), (3, 'old')")
        }

        let session = try Session(database: phone)
        try session.attachAll { table in table != "cache" }

        try phone.execute("INSERT INTO note (id, body) VALUES (10, 'phone idea')")
        try phone.execute("UPDATE note SET body = 'groceries: milk' WHERE id = 1")
        try phone.execute("DELETE FROM note WHERE id = 3")
        try phone.execute("INSERT INTO cache (key) VALUES ('not synced')")

        let changeset = try session.changeset()  // one change per row, with old and new values
        send(changeset.data)

        // Meanwhile the laptop edited note 1 and note 3 (which the phone deleted) on its own session.
        let laptopSession = try Session(database: laptop)
        try laptopSession.attachAll { table in table != "cache" }
        try laptop.execute("UPDATE note SET body = 'groceries: eggs' WHERE id = 1")
        try laptop.execute("UPDATE note SET body = 'old, edited' WHERE id = 3")
        let laptopChanges = try laptopSession.changeset()

        let received = outbox[0]
        try laptop.apply(Changeset(data: received), onConflict: resolve)
        try phone.apply(laptopChanges, onConflict: resolve)

        // 'groceries: milk' > 'groceries: eggs' wins on both sides; the delete of note 3 wins on both sides.
        #expect(try notes(phone) == ["1:groceries: milk", "2:call", "10:phone idea"])
        #expect(try notes(laptop) == notes(phone))
        #expect(try laptop.queryValue("SELECT count(*) FROM cache", as: Int.self) == 0)
    }

    @Test("an inverted changeset undoes the import it was recorded from")
    func undo() throws {
        let db = try Database()
        try db.execute(
            "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0)")
        try db.execute("INSERT INTO note (id, body) VALUES (1, 'kept')")
        let session = try Session(database: db)
        try session.attachAll()
        try db.execute("INSERT INTO note (id, body) VALUES (2, 'imported')")
        try db.execute("UPDATE note SET body = 'changed by the import' WHERE id = 1")

        let lastImport = try session.changeset()
        // ... later
        try db.apply(lastImport.inverted()) { _ in .abort }  // any conflict means someone edited since: stop
        #expect(try notes(db) == ["1:kept"])
    }

    @Test("local changes rebased over the remote ones that won reach the remote side without conflict")
    func rebase() throws {
        func replica() throws -> Database {
            let db = try Database()
            try db.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try db.execute("INSERT INTO note (id, body) VALUES (1, 'first')")
            return db
        }
        let remote = try replica()
        let local = try replica()
        let remoteSession = try Session(database: remote)
        try remoteSession.attachAll()
        let localSession = try Session(database: local)
        try localSession.attachAll()
        try remote.execute("UPDATE note SET body = 'remote' WHERE id = 1")
        try local.execute("UPDATE note SET body = 'local' WHERE id = 1")
        try local.execute("INSERT INTO note (id, body) VALUES (2, 'local only')")
        let remoteChanges = try remoteSession.changeset()
        let localChanges = try localSession.changeset()
        var sent: [Data] = []
        func send(_ data: Data) { sent.append(data) }

        let rebase = try local.apply(remoteChanges) { _ in .replace }  // remote wins here
        let outgoing = try localChanges.rebased(over: rebase)  // local edits that lost are dropped or adjusted
        send(outgoing.data)

        try remote.apply(Changeset(data: sent[0])) { _ in .abort }  // no conflict left
        #expect(try notes(remote) == ["1:remote", "2:local only"])
        #expect(try notes(local) == notes(remote))
    }
}
