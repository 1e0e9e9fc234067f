import Foundation
import Testing

@testable import SQLiteToolkit

/// The entry point a queue or a pool calls on its writer: a key change that runs the set-up hook again on the
/// reopened connection, so its functions survive.
@Suite("Key change with a set-up hook")
struct KeyChangeSetUpTests {
    static func setUp(_ db: Database) throws {
        try db.createFunction("twice", argumentCount: 1, options: .deterministic) { context, arguments in
            context.resultInt64(arguments[0].valueInt64() * 2)
        }
    }

    @Test("changeKey, encrypt and decrypt with a set-up hook keep the connection's function")
    func functionSurvives() throws {
        try TemporaryFile.withDatabasePath { path in
            let db = try Database(path: path)
            try Self.setUp(db)
            // What a queue's or pool's connection records when its hook has run (ConnectionRecipe.open).
            db.setUpDefinitions = try db.customDefinitions()
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (21)")
            // Without the hook, the function would be lost: refused, nothing changed.
            let refused = try #require(throws: DatabaseError.self) { try db.encrypt(with: TestKeys.raw) }
            #expect(refused.reason == .keyChangeLosesConnectionState)
            try db.encrypt(with: TestKeys.raw, cipher: .default, reopeningWith: Self.setUp)
            #expect(try db.queryValue("SELECT twice(x) FROM t", as: Int.self) == 42)
            try db.changeKey(to: TestKeys.otherRaw, cipher: nil, reopeningWith: Self.setUp)
            #expect(try db.queryValue("SELECT twice(x) FROM t", as: Int.self) == 42)
            try db.decrypt(reopeningWith: Self.setUp)
            #expect(try db.queryValue("SELECT twice(x) FROM t", as: Int.self) == 42)
            #expect(!db.isEncrypted)
        }
    }
}
