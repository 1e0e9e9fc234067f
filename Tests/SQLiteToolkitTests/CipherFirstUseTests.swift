import Foundation
import Testing

@testable import SQLiteToolkit

/// The first encrypted reads of a process, on several threads at once. SQLite3 Multiple Ciphers picks its
/// CPU-specific AES, ChaCha20 and Poly1305 functions on first use, in globals without synchronization; the
/// library's initialization picks them before any connection opens (`sqltk_extra_init` in sqlite-amalgamation/sqltk_amalgamation.c). Under
/// the thread sanitizer (scripts/test-sanitizers runs this suite) a child process that reads with many threads from
/// its very first encrypted read is where a regression shows: the sanitizer fails the child.
@Suite("The cipher's first use on several threads")
struct CipherFirstUseTests {
    static let passphrase = "first use"

    @Test(
        "eight threads of a fresh process read an encrypted database at once; every one reads every row",
        arguments: ["chacha20", "aes128cbc", "aes256cbc", "aegis", "ascon128", "sqlcipher"])
    func firstReadsOnManyThreads(cipherName: String) async throws {
        let cipher = try #require(Cipher(named: cipherName))
        try await TemporaryFile.withDatabasePathAsync { path in
            var configuration = Database.Configuration()
            configuration.key = .passphrase(Self.passphrase)
            configuration.cipher = cipher
            let db = try Database(path: path, configuration: configuration)
            try db.executeScript(
                "CREATE TABLE t(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) "
                    + "INSERT INTO t SELECT randomblob(100) FROM n")
            db.close()
            let child = try TestHelper.Child(["cipher-first-use", path, cipherName, Self.passphrase, "8"])
            let result = try #require(try await child.wait(seconds: 120), "cipher-first-use did not finish")
            #expect(result.status == 0, "cipher-first-use: \(result.output)")
            #expect(result.output.contains("ok 8 500"), "cipher-first-use: \(result.output)")
        }
    }
}
