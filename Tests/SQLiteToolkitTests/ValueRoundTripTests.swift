import Foundation
import SQLiteBindings
import SQLiteToolkit
import Testing

/// One value to store and read back, with the storage class SQLite must report for it.
struct RoundTripCase: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let check: @Sendable () throws -> Void

    /// Stores `value` in a column without affinity, through the typed (generic) path and through
    /// `StatementArguments`, and reads it back by index, by name and through `DatabaseValue`.
    static func of<T: DatabaseValueConvertible & Equatable & Sendable>(
        _ value: T,
        storedAs storageClass: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> RoundTripCase {
        RoundTripCase(testDescription: "\(T.self) \(value)") {
            let db = try Database()
            try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
            try db.execute("INSERT INTO t (id, v) VALUES (1, ?)", value)
            try db.execute("INSERT INTO t (id, v) VALUES (2, ?)", arguments: [value])
            try db.execute(sql: "INSERT INTO t (id, v) VALUES (3, \(value))")
            let rows = try db.query("SELECT v, typeof(v) AS type FROM t ORDER BY id")
            var count = 0
            while let row = try rows.next() {
                count += 1
                #expect(try row.value(named: "type", as: String.self) == storageClass, sourceLocation: sourceLocation)
                #expect(try row.value(at: 0, as: T.self) == value, sourceLocation: sourceLocation)
                #expect(try row.value(named: "V", as: T.self) == value, sourceLocation: sourceLocation)
                #expect(try row.value(at: 0, as: T?.self) == value, sourceLocation: sourceLocation)
                #expect(T.fromDatabaseValue(row[0]) == value, sourceLocation: sourceLocation)
            }
            #expect(count == 3, sourceLocation: sourceLocation)
            // The same value bound and read without a table in between.
            #expect(try db.queryValue("SELECT ?", value, as: T.self) == value, sourceLocation: sourceLocation)
        }
    }
}

@Suite("Values round-trip exactly")
struct ValueRoundTripTests {
    static let integerCases: [RoundTripCase] = [
        .of(Int.min, storedAs: "integer"), .of(-1 as Int, storedAs: "integer"), .of(0 as Int, storedAs: "integer"),
        .of(Int.max, storedAs: "integer"),
        .of(Int8.min, storedAs: "integer"), .of(Int8.max, storedAs: "integer"),
        .of(Int16.min, storedAs: "integer"), .of(Int16.max, storedAs: "integer"),
        .of(Int32.min, storedAs: "integer"), .of(Int32.max, storedAs: "integer"),
        .of(Int64.min, storedAs: "integer"), .of(Int64.max, storedAs: "integer"),
        .of(UInt8.min, storedAs: "integer"), .of(UInt8.max, storedAs: "integer"),
        .of(UInt16.max, storedAs: "integer"), .of(UInt32.max, storedAs: "integer"),
        .of(UInt(0), storedAs: "integer"), .of(UInt(Int64.max), storedAs: "integer"),
        .of(UInt64(0), storedAs: "integer"), .of(UInt64(Int64.max), storedAs: "integer"),
    ]

    @Test("every integer width round-trips, including the extremes", arguments: integerCases)
    func integers(_ testCase: RoundTripCase) throws {
        try testCase.check()
    }

    static let floatingPointCases: [RoundTripCase] = [
        .of(0.1, storedAs: "real"), .of(-1.5, storedAs: "real"), .of(2.0, storedAs: "real"),
        .of(Double.pi, storedAs: "real"), .of(Double.greatestFiniteMagnitude, storedAs: "real"),
        .of(-Double.greatestFiniteMagnitude, storedAs: "real"), .of(Double.leastNonzeroMagnitude, storedAs: "real"),
        .of(Double.leastNormalMagnitude, storedAs: "real"), .of(1e-300, storedAs: "real"),
        .of(Double.infinity, storedAs: "real"), .of(-Double.infinity, storedAs: "real"),
        .of(Float(0.1), storedAs: "real"), .of(Float.pi, storedAs: "real"),
        .of(Float.greatestFiniteMagnitude, storedAs: "real"), .of(Float.leastNonzeroMagnitude, storedAs: "real"),
        .of(-Float.infinity, storedAs: "real"),
    ]

    @Test("floating-point values round-trip bit for bit", arguments: floatingPointCases)
    func floatingPoint(_ testCase: RoundTripCase) throws {
        try testCase.check()
    }

    static let otherCases: [RoundTripCase] = [
        .of(true, storedAs: "integer"), .of(false, storedAs: "integer"),
        .of("", storedAs: "text"), .of("plain ASCII", storedAs: "text"),
        .of("héllo wörld — Ελληνικά, 日本語, emoji 🎉👩‍👩‍👧", storedAs: "text"),
        .of("before\u{0}after", storedAs: "text"), .of("\u{0}", storedAs: "text"),
        .of("Robert'); DROP TABLE t; --", storedAs: "text"),
        .of(Data(), storedAs: "blob"), .of(Data([0, 1, 2, 0xFE, 0xFF]), storedAs: "blob"),
        .of(Data(repeating: 0, count: 3), storedAs: "blob"),
        .of(Data((0..<100_000).map { UInt8($0 % 251) }), storedAs: "blob"),
        .of([UInt8](), storedAs: "blob"), .of([UInt8]([0, 0x80, 0xFF]), storedAs: "blob"),
        .of(Date(timeIntervalSince1970: 0), storedAs: "real"),
        .of(Date(timeIntervalSince1970: 1_700_000_000.5), storedAs: "real"),
        .of(Date(timeIntervalSince1970: -1_000_000.25), storedAs: "real"),
        .of(UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)), storedAs: "blob"),
        .of(UUID(), storedAs: "blob"),
        .of(DatabaseValue.integer(Int64.min), storedAs: "integer"), .of(DatabaseValue.real(-2.5), storedAs: "real"),
        .of(DatabaseValue.text(""), storedAs: "text"), .of(DatabaseValue.blob(Data()), storedAs: "blob"),
        .of(Celsius(degrees: -40.5), storedAs: "real"),
    ]

    @Test("Bool, String, Data, [UInt8], Date, UUID, DatabaseValue and custom types round-trip", arguments: otherCases)
    func others(_ testCase: RoundTripCase) throws {
        try testCase.check()
    }

    @Test("Optional nil binds NULL and NULL reads back as nil; Optional values bind the wrapped value")
    func optional() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (v)")
        let missing: Int? = nil
        try db.execute("INSERT INTO t (v) VALUES (?)", missing)
        try db.execute("INSERT INTO t (v) VALUES (?)", arguments: [nil])
        try db.execute("INSERT INTO t (v) VALUES (?)", arguments: [missing])
        try db.execute(sql: "INSERT INTO t (v) VALUES (\(missing))")
        #expect(try db.queryValue("SELECT COUNT(*) FROM t WHERE v IS NULL", as: Int.self) == 4)
        #expect(try db.queryValue("SELECT v FROM t", as: Int?.self) == .some(nil))
        let rows = try db.query("SELECT v FROM t")
        while let row = try rows.next() {
            #expect(try row.value(at: 0, as: Int?.self) == nil)
            #expect(try row.value(at: 0, as: String?.self) == nil)
            #expect(try row.value(at: 0, as: Data?.self) == nil)
            #expect(try row.value(at: 0, as: Date?.self) == nil)
            #expect(try row.value(at: 0, as: UUID?.self) == nil)
            #expect(try row.value(at: 0, as: Celsius?.self) == nil)
            #expect(try row.value(at: 0, as: DatabaseValue.self) == .null)
        }
        let present: Int? = 7
        #expect(try db.queryValue("SELECT ?", present, as: Int?.self) == 7)
        #expect(try db.queryValue("SELECT typeof(?)", present, as: String.self) == "integer")
    }

    @Test(
        "reading NULL as a non-optional type throws a mismatch",
        arguments: [
            ("Int", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: Int.self) }),
            ("Int8", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: Int8.self) }),
            ("UInt64", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: UInt64.self) }),
            ("Double", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: Double.self) }),
            ("Bool", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: Bool.self) }),
            ("String", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: String.self) }),
            ("Data", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: Data.self) }),
            ("[UInt8]", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: [UInt8].self) }),
            ("Date", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: Date.self) }),
            ("UUID", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: UUID.self) }),
            ("Celsius", { @Sendable (row: Row) throws in _ = try row.value(at: 0, as: Celsius.self) }),
            ("by name", { @Sendable (row: Row) throws in _ = try row.value(named: "v", as: Int.self) }),
        ] as [(String, @Sendable (Row) throws -> Void)]
    )
    func nonOptionalNull(_ type: String, read: @Sendable (Row) throws -> Void) throws {
        let db = try Database()
        let rows = try db.query("SELECT NULL AS v")
        let row = try #require(try rows.next())
        let error = try #require(throws: DatabaseError.self) { try read(row) }
        #expect(error.extendedCode == .mismatch)
        #expect(error.message.contains("NULL"))
    }

    @Test("NULL reads as DatabaseValue.null, and as nil through DatabaseValue?")
    func nullAsDatabaseValue() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (v)")
        try db.execute("INSERT INTO t (v) VALUES (?)", DatabaseValue.null)
        try db.execute("INSERT INTO t (v) VALUES (?)", arguments: [DatabaseValue.null])
        #expect(try db.queryValue("SELECT COUNT(*) FROM t WHERE v IS NULL", as: Int.self) == 2)
        let rows = try db.query("SELECT v FROM t")
        while let row = try rows.next() {
            #expect(try row.value(at: 0, as: DatabaseValue.self) == .null)
            #expect(try row.value(named: "v", as: DatabaseValue.self) == .null)
            #expect(try row.value(at: 0, as: DatabaseValue?.self) == nil)
            #expect(row[0] == .null)
        }
    }

    @Test("empty text, NULL and an empty blob are three different values")
    func emptyTextNullAndEmptyBlob() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        try db.execute("INSERT INTO t (id, v) VALUES (1, ?)", "")
        try db.execute("INSERT INTO t (id, v) VALUES (2, ?)", String?.none)
        try db.execute("INSERT INTO t (id, v) VALUES (3, ?)", Data())
        try db.execute("INSERT INTO t (id, v) VALUES (4, ?)", [UInt8]())
        let types = try db.query("SELECT typeof(v), length(v), v IS NULL FROM t ORDER BY id").map {
            [
                try $0.value(at: 0, as: String.self), try $0.value(at: 1, as: Int?.self).map(String.init) ?? "NULL",
                String(try $0.value(at: 2, as: Bool.self)),
            ]
        }
        #expect(
            types == [
                ["text", "0", "false"], ["null", "NULL", "true"], ["blob", "0", "false"], ["blob", "0", "false"],
            ])
        let values = try allValues(db, "SELECT v FROM t ORDER BY id").map { $0[0] }
        #expect(values == [.text(""), .null, .blob(Data()), .blob(Data())])
        #expect(try db.queryValue("SELECT v FROM t WHERE id = 1", as: String?.self) == .some(""))
        #expect(try db.queryValue("SELECT v FROM t WHERE id = 3", as: Data?.self) == .some(Data()))
        #expect(try db.queryValue("SELECT v FROM t WHERE id = 4", as: [UInt8]?.self) == .some([]))
    }

    @Test("text with an embedded NUL keeps every byte")
    func embeddedNul() throws {
        let db = try Database()
        let text = "a\u{0}b\u{0}"
        #expect(try db.queryValue("SELECT length(CAST(? AS BLOB))", text, as: Int.self) == 4)
        #expect(try db.queryValue("SELECT ?", text, as: String.self) == text)
        #expect(try db.queryValue("SELECT ?", text, as: [UInt8].self) == [0x61, 0, 0x62, 0])
    }

    @Test("non-ASCII text is stored as its UTF-8 bytes")
    func nonASCIIBytes() throws {
        let db = try Database()
        let text = "é🎉"
        #expect(try db.queryValue("SELECT hex(?)", text, as: String.self) == "C3A9F09F8E89")
        #expect(try db.queryValue("SELECT length(?)", text, as: Int.self) == 2)  // characters, as SQLite counts them
    }

    @Test(
        "integers that do not fit SQLite's signed 64 bits are rejected, never wrapped or rounded",
        arguments: [UInt64(Int64.max) + 1, UInt64.max]
    )
    func unsignedAboveInt64Max(_ value: UInt64) throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (v)")
        let attempts: [(String, () throws -> Void)] = [
            ("variadic", { try db.execute("INSERT INTO t (v) VALUES (?)", value) }),
            ("UInt", { try db.execute("INSERT INTO t (v) VALUES (?)", UInt(value)) }),
            ("optional", { try db.execute("INSERT INTO t (v) VALUES (?)", UInt64?.some(value)) }),
            ("array", { try db.execute("INSERT INTO t (v) VALUES (?)", arguments: [value]) }),
            ("optional in array", { try db.execute("INSERT INTO t (v) VALUES (?)", arguments: [UInt64?.some(value)]) }),
            ("optional interpolation", { try db.execute(sql: "INSERT INTO t (v) VALUES (\(UInt64?.some(value)))") }),
            ("dictionary", { try db.execute("INSERT INTO t (v) VALUES (:v)", arguments: ["v": value]) }),
            ("interpolation", { try db.execute(sql: "INSERT INTO t (v) VALUES (\(value))") }),
            ("prepared", { try db.prepare("INSERT INTO t (v) VALUES (?)").execute(value) }),
            ("query", { _ = try db.queryValue("SELECT ?", value, as: Int.self) }),
        ]
        for (name, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(name): \(value) was accepted")
            } catch let error as DatabaseError {
                #expect(error.extendedCode == .mismatch, "\(name)")
                // Errors carry no user data: the type is named, the value is not.
                #expect(error.message.contains("above Int64.max"), "\(name)")
                #expect(!error.message.contains(String(value)), "\(name)")
            }
        }
        #expect(try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 0)
    }

    @Test("NaN is rejected with a mismatch error, whatever the path, and nothing is stored")
    func nanRejected() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t (v)")
        let attempts: [(String, () throws -> Void)] = [
            ("Double", { try db.execute("INSERT INTO t (v) VALUES (?)", Double.nan) }),
            ("Float", { try db.execute("INSERT INTO t (v) VALUES (?)", Float.nan) }),
            ("signalling", { try db.execute("INSERT INTO t (v) VALUES (?)", Double.signalingNaN) }),
            ("DatabaseValue", { try db.execute("INSERT INTO t (v) VALUES (?)", DatabaseValue.real(.nan)) }),
            ("array", { try db.execute("INSERT INTO t (v) VALUES (?)", arguments: [Double.nan]) }),
            ("interpolation", { try db.execute(sql: "INSERT INTO t (v) VALUES (\(Double.nan))") }),
        ]
        for (name, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(name): NaN was accepted")
            } catch let error as DatabaseError {
                #expect(error.extendedCode == .mismatch, "\(name)")
                #expect(error.message.contains("NaN"), "\(name)")
            }
        }
        #expect(try db.queryValue("SELECT COUNT(*) FROM t", as: Int.self) == 0)
    }

    /// SQLite keeps the sign of a negative zero in memory and in a column without affinity (8-byte IEEE
    /// storage), but a REAL column stores integral values as integers on disk, so -0.0 comes back as +0.0 there.
    /// Either way -0.0 == 0.0, so only the sign bit is at stake.
    @Test("-0.0 keeps its sign bound directly and in an untyped column; a REAL column gives back +0.0")
    func negativeZero() throws {
        let db = try Database()
        let direct = try #require(try db.queryValue("SELECT ?", -0.0, as: Double.self))
        #expect(direct == 0 && direct.sign == .minus)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, untyped, real REAL)")
        try db.execute("INSERT INTO t (id, untyped, real) VALUES (1, ?, ?)", -0.0, -0.0)
        let untyped = try #require(try db.queryValue("SELECT untyped FROM t", as: Double.self))
        #expect(untyped == 0 && untyped.sign == .minus)
        #expect(try db.queryValue("SELECT typeof(untyped) FROM t", as: String.self) == "real")
        let real = try #require(try db.queryValue("SELECT real FROM t", as: Double.self))
        #expect(real == 0 && real.sign == .plus)
        #expect(try db.queryValue("SELECT typeof(real) FROM t", as: String.self) == "real")
        let float = try #require(try db.queryValue("SELECT untyped FROM t", as: Float.self))
        #expect(float == 0 && float.sign == .minus)
    }

    @Test("a date with any fraction of a second round-trips to within a microsecond")
    func dateWithArbitraryFraction() throws {
        let db = try Database()
        for seconds in [1_700_000_000.123_456, 1.1, -86_400.999, 4_102_444_800.000_001] {
            let date = Date(timeIntervalSince1970: seconds)
            let read = try #require(try db.queryValue("SELECT ?", date, as: Date.self))
            #expect(abs(read.timeIntervalSince(date)) < 1e-6)
            #expect(try db.queryValue("SELECT ?", date, as: Double.self) == date.timeIntervalSince1970)
        }
    }

    @Test("a UUID is stored as its 16 bytes in order")
    func uuidBytes() throws {
        let db = try Database()
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try db.queryValue("SELECT hex(?)", uuid, as: String.self) == "E621E1F8C36C495A93FC0C247A3E6E5F")
        #expect(try db.queryValue("SELECT length(?)", uuid, as: Int.self) == 16)
    }

    @Test("a custom type binds and reads through databaseValue and fromDatabaseValue alone")
    func customType() throws {
        let db = try Database()
        try db.execute("CREATE TABLE reading (id INTEGER PRIMARY KEY, temperature)")
        try db.execute("INSERT INTO reading (id, temperature) VALUES (1, ?)", Celsius(degrees: 21.5))
        try db.execute("INSERT INTO reading (id, temperature) VALUES (2, ?)", arguments: [Celsius(degrees: -3)])
        try db.execute("INSERT INTO reading (id, temperature) VALUES (3, ?)", Celsius?.none)
        try db.execute("INSERT INTO reading (id, temperature) VALUES (4, 'warm')")
        let readings = try db.query("SELECT temperature FROM reading WHERE id <= 3 ORDER BY id").map {
            try $0.value(at: 0, as: Celsius?.self)
        }
        #expect(readings == [Celsius(degrees: 21.5), Celsius(degrees: -3), nil])
        let rows = try db.query("SELECT temperature FROM reading WHERE id = 4")
        let row = try #require(try rows.next())
        let error = try #require(throws: DatabaseError.self) { try row.value(at: 0, as: Celsius.self) }
        #expect(error.extendedCode == .mismatch)
        #expect(error.message.contains("Celsius"))
        #expect(throws: DatabaseError.self) { try row.value(at: 0, as: Celsius?.self) }
    }
}

/// A user type that states only how it becomes and comes from a `DatabaseValue`.
struct Celsius: DatabaseValueConvertible, Equatable, Sendable, CustomStringConvertible {
    var degrees: Double
    var databaseValue: DatabaseValue { .real(degrees) }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Celsius? {
        switch value {
        case .real(let degrees): Celsius(degrees: degrees)
        case .integer(let degrees): Celsius(degrees: Double(degrees))
        default: nil
        }
    }
    var description: String { "\(degrees)°C" }
}
