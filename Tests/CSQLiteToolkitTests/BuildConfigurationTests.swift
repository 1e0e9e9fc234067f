import CSQLiteToolkit
import Testing

/// A compile-time option from `sqltk_options.h` and the text `PRAGMA compile_options`
/// prints for it (SQLite drops the `SQLITE_` prefix).
struct CompileOption: CustomTestStringConvertible, Sendable {
    let option: String
    let reported: String

    init(_ option: String, reported: String? = nil) {
        self.option = option
        self.reported = reported ?? String(option.dropFirst("SQLITE_".count))
    }

    var testDescription: String { option }
}

@Suite("Version and compile-time options of the built library")
struct BuildConfigurationTests {
    static let options: [CompileOption] = [
        CompileOption("SQLITE_THREADSAFE=1"),
        CompileOption("SQLITE_DQS=0"),
        CompileOption("SQLITE_DEFAULT_MEMSTATUS=0"),
        CompileOption("SQLITE_DEFAULT_WAL_SYNCHRONOUS=1"),
        CompileOption("SQLITE_LIKE_DOESNT_MATCH_BLOBS"),
        CompileOption("SQLITE_OMIT_DEPRECATED"),
        CompileOption("SQLITE_OMIT_SHARED_CACHE"),
        // SQLite's list prints "USE_URI", without a value, and only when
        // SQLITE_USE_URI is non-zero, so its presence means SQLITE_USE_URI=1.
        CompileOption("SQLITE_USE_URI=1", reported: "USE_URI"),
        CompileOption("SQLITE_TEMP_STORE=2"),
        CompileOption("SQLITE_ENABLE_API_ARMOR"),
        CompileOption("SQLITE_ENABLE_FTS3"),
        CompileOption("SQLITE_ENABLE_FTS3_PARENTHESIS"),
        CompileOption("SQLITE_ENABLE_FTS4"),
        CompileOption("SQLITE_ENABLE_FTS5"),
        CompileOption("SQLITE_ENABLE_RTREE"),
        CompileOption("SQLITE_ENABLE_COLUMN_METADATA"),
        CompileOption("SQLITE_ENABLE_SNAPSHOT"),
        CompileOption("SQLITE_ENABLE_PREUPDATE_HOOK"),
        CompileOption("SQLITE_ENABLE_SESSION"),
        CompileOption("SQLITE_ENABLE_DBSTAT_VTAB"),
        CompileOption("SQLITE_ENABLE_MATH_FUNCTIONS"),
    ]

    @Test("the library reports SQLite 3.54.0 from C and from SQL")
    func sqliteVersion() throws {
        #expect(String(cString: sqltk_sqlite3_libversion()) == "3.54.0")
        #expect(sqltk_sqlite3_libversion_number() == 3_054_000)
        // The header Swift imports describes the library it links.
        #expect(SQLITE_VERSION == "3.54.0")
        let database = try TestDatabase()
        #expect(try database.scalar("SELECT sqlite_version()") == "3.54.0")
    }

    @Test("the library reports SQLite3 Multiple Ciphers 2.6.1 from C and from SQL")
    func sqlite3mcVersion() throws {
        #expect(String(cString: sqltk_sqlite3mc_version()) == "SQLite3 Multiple Ciphers 2.6.1")
        let database = try TestDatabase()
        #expect(try database.scalar("SELECT sqlite3mc_version()") == "SQLite3 Multiple Ciphers 2.6.1")
    }

    @Test("SQL function names keep their names: only C identifiers carry the prefix")
    func sqlFunctionNamesAreNotPrefixed() throws {
        let database = try TestDatabase()
        let failure = #expect(throws: SQLiteFailure.self) {
            try database.rows("SELECT sqltk_sqlite3mc_version()")
        }
        #expect(failure?.message == "no such function: sqltk_sqlite3mc_version")
    }

    @Test("PRAGMA compile_options lists the option", arguments: options)
    func compileOptionIsReported(_ option: CompileOption) throws {
        let database = try TestDatabase()
        #expect(try database.column("PRAGMA compile_options").contains(option.reported))
        #expect(sqltk_sqlite3_compileoption_used(option.reported) == 1)
    }

    @Test("extension loading is compiled in: SQLITE_OMIT_LOAD_EXTENSION is not set and the C function exists")
    func extensionLoadingCompiledIn() throws {
        let database = try TestDatabase()
        #expect(try !database.column("PRAGMA compile_options").contains("OMIT_LOAD_EXTENSION"))
        #expect(sqltk_sqlite3_compileoption_used("OMIT_LOAD_EXTENSION") == 0)
        #expect(sqltk_extension_api_routines() != nil)
    }

    @Test("SQLITE_HAS_CODEC is visible to Swift and the codec is built in")
    func codecIsBuiltIn() throws {
        // PRAGMA compile_options cannot show this one: SQLite removed the
        // SQLITE_HAS_CODEC option in 3.32.0, so its list of options has no entry for
        // it, and sqlite3mc builds its codec whatever the macro says. The options
        // header defines it for code to test, and the codec's API answers.
        #expect(SQLITE_HAS_CODEC == 1)
        // Cipher indexes count from 1.
        let ciphers = stride(from: 1, through: sqltk_sqlite3mc_cipher_count(), by: 1).map {
            String(cString: sqltk_sqlite3mc_cipher_name($0))
        }
        #expect(Set(ciphers) == ["aes128cbc", "aes256cbc", "chacha20", "sqlcipher", "rc4", "ascon128", "aegis"])
        // ChaCha20-Poly1305 is sqlite3mc's default cipher.
        let database = try TestDatabase()
        #expect(try database.scalar("PRAGMA cipher") == "chacha20")
    }

    @Test("the library is built thread-safe (serialized)")
    func threadSafe() {
        #expect(sqltk_sqlite3_threadsafe() == 1)
    }
}
