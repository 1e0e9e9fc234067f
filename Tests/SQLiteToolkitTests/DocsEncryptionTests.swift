import Foundation
import SQLiteToolkit
import Testing

/// The sample of the Encryption article (Sources/SQLiteToolkit/SQLiteToolkit.docc/Encryption.md), line for line:
/// `DocsSampleTests` checks that every line of the article's samples appears here.
@Suite("Docs: Encryption")
struct DocsEncryptionTests {
    @Test("open with a passphrase, change to a raw key, export a plain copy; a wrong key throws at open")
    func keys() throws {
        try TemporaryFile.withDatabasePath { path in
            let plainCopyPath = path + ".plain"
            let newKeyBytes = [UInt8](repeating: 7, count: 32)
            do {
                var configuration = Database.Configuration()
                configuration.key = .passphrase("correct horse battery staple")  // its UTF-8 bytes
                configuration.cipher = TestKeys.fastChaCha20  // the article keeps the default cipher
                let db = try Database(path: path, configuration: configuration)
                // A wrong key has already thrown (reason .wrongKeyOrNotADatabase): nothing later fails at random.
                try db.execute("CREATE TABLE secret (x)")
                try db.execute("INSERT INTO secret VALUES ('the plans')")

                try db.changeKey(to: .raw(newKeyBytes))  // atomic: a re-keyed copy renamed over the file
                try db.export(to: plainCopyPath, key: nil)
            }
            let wrong = try #require(throws: DatabaseError.self) {
                try openEncrypted(path, key: .passphrase("correct horse battery staple"))
            }
            #expect(wrong.reason == .wrongKeyOrNotADatabase)
            let reopened = try openEncrypted(path, key: .raw(newKeyBytes))
            #expect(try reopened.queryValue("SELECT x FROM secret", as: String.self) == "the plans")
            #expect(try Database.isPlainDatabase(atPath: plainCopyPath))
            let plain = try Database(path: plainCopyPath)
            #expect(try plain.queryValue("SELECT x FROM secret", as: String.self) == "the plans")
        }
    }
}
