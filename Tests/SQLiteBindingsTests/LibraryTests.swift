import SQLiteBindings
import Testing

@Suite("The library: version, compile options, SQL text helpers, memory")
struct LibraryTests {
    @Test("the library is SQLite 3.54.0 with a source id")
    func version() throws {
        #expect(SQLiteLibrary.version() == "3.54.0")
        #expect(SQLiteLibrary.versionNumber() == 3_054_000)
        let sourceID = try #require(SQLiteLibrary.sourceID())
        #expect(sourceID.count > 60)
        #expect(sourceID.first?.isNumber == true)
    }

    @Test("compile options are listed and can be queried with or without their prefix")
    func compileOptions() {
        #expect(SQLiteLibrary.isCompileOptionUsed("ENABLE_FTS5"))
        #expect(SQLiteLibrary.isCompileOptionUsed("SQLITE_ENABLE_SNAPSHOT"))
        #expect(!SQLiteLibrary.isCompileOptionUsed("ENABLE_NO_SUCH_THING"))
        var options: [String] = []
        var index: Int32 = 0
        while let option = SQLiteLibrary.compileOption(at: index) {
            options.append(option)
            index += 1
        }
        #expect(options.contains("THREADSAFE=1"))
        // Extension loading is compiled in (and off on every connection until asked for).
        #expect(!options.contains("OMIT_LOAD_EXTENSION"))
    }

    @Test("the library is built serialized")
    func threadSafety() {
        #expect(SQLiteLibrary.threadSafety() == 1)
    }

    @Test("complete and incomplete SQL are told apart without parsing")
    func completeness() {
        #expect(SQLiteLibrary.isComplete("SELECT 1;"))
        #expect(SQLiteLibrary.isComplete("SELECT 1; /* trailing comment */ "))
        #expect(!SQLiteLibrary.isComplete("SELECT 1"))
        #expect(!SQLiteLibrary.isComplete("SELECT ';"))
        #expect(SQLiteLibrary.incompleteness("SELECT 1;") == 0)
        #expect(SQLiteLibrary.incompleteness("  /* only a comment */ ") == Int64(ResultCode.empty.rawValue))
        #expect(SQLiteLibrary.incompleteness("SELECT 1") != 0)
    }

    @Test("result codes have English descriptions")
    func errorStrings() {
        #expect(SQLiteLibrary.errorString(.busy) == "database is locked")
        #expect(SQLiteLibrary.errorString(.notadb) == "file is not a database")
        #expect(SQLiteLibrary.errorString(.row) == "another row available")
    }

    @Test("keywords are counted, listed and recognized in any letter case")
    func keywords() throws {
        let count = SQLiteLibrary.keywordCount()
        #expect(count > 100)
        var keywords: Set<String> = []
        for index in 0..<count {
            let (code, name, length) = SQLiteLibrary.keywordName(at: index)
            #expect(code == .ok)
            let start = try #require(name)
            let bytes = UnsafeRawBufferPointer(start: start, count: Int(length))
            keywords.insert(String(decoding: bytes, as: UTF8.self))
        }
        #expect(keywords.contains("SELECT"))
        #expect(keywords.count == Int(count))
        #expect(SQLiteLibrary.keywordName(at: count).code == .error)
        #expect(SQLiteLibrary.isKeyword("select", byteCount: 6))
        #expect(SQLiteLibrary.isKeyword("SELECTED", byteCount: 6))
        #expect(!SQLiteLibrary.isKeyword("person", byteCount: 6))
    }

    @Test("glob, like and case-insensitive comparisons follow SQL's rules")
    func stringMatching() {
        #expect(SQLiteLibrary.glob(pattern: "*.swift", string: "Package.swift") == 0)
        #expect(SQLiteLibrary.glob(pattern: "*.SWIFT", string: "Package.swift") != 0)
        #expect(SQLiteLibrary.like(pattern: "pack%", string: "Package.swift", escape: 0) == 0)
        #expect(SQLiteLibrary.like(pattern: "100!%", string: "100%", escape: UInt32(UInt8(ascii: "!"))) == 0)
        #expect(SQLiteLibrary.like(pattern: "100!%", string: "1000", escape: UInt32(UInt8(ascii: "!"))) != 0)
        #expect(SQLiteLibrary.compareCaseInsensitive("Hello", "hELLO") == 0)
        #expect(SQLiteLibrary.compareCaseInsensitive("apple", "banana") < 0)
        #expect(SQLiteLibrary.compareCaseInsensitive("HELLO there", "hello world", count: 5) == 0)
    }

    @Test("memory from SQLite's allocator can be filled with random bytes and freed")
    func memory() throws {
        let buffer = try #require(SQLiteLibrary.allocate(byteCount: 64))
        defer { SQLiteLibrary.free(buffer) }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
        SQLiteLibrary.randomBytes(count: 64, into: buffer)
        let bytes = UnsafeRawBufferPointer(start: buffer, count: 64)
        #expect(bytes.contains { $0 != 0 })
        SQLiteLibrary.free(nil)
        #expect(SQLiteLibrary.memoryUsed() >= 0)
        #expect(SQLiteLibrary.memoryHighwater(reset: false) >= SQLiteLibrary.memoryUsed())
        #expect(SQLiteLibrary.status(.memoryUsed, reset: false).code == .ok)
        #expect(SQLiteLibrary.releaseMemory(1024) >= 0)
        #expect(SQLiteLibrary.softHeapLimit(-1) >= 0)
        #expect(SQLiteLibrary.hardHeapLimit(-1) >= 0)
        #expect(SQLiteLibrary.sleep(milliseconds: 0) >= 0)
    }

    @Test("library configuration is refused once the library is initialized")
    func configureAfterInitialize() {
        #expect(SQLiteLibrary.initialize() == .ok)
        #expect(SQLiteLibrary.configure(.uri, 1) == .misuse)
        #expect(SQLiteLibrary.configure(.serialized) == .misuse)
        #expect(SQLiteLibrary.configureMemoryMapSize(defaultLimit: 0, maximumLimit: 0) == .misuse)
        // The error log is the exception: it may be set at any time.
        #expect(SQLiteLibrary.configureLog(nil, context: nil) == .ok)
    }
}
