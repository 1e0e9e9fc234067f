import Testing

@testable import BindgenCore

@Suite("Macro evaluation")
struct MacroEvaluatorTests {
    /// A dump in the shape `clang -x c -E -dM` prints: one `#define NAME BODY` per line, in no useful order.
    static let definitions = """
        #define __INT_MAX__ 2147483647
        #define SQLITE_IOERR_READ (SQLITE_IOERR | (1<<8))
        #define SQLITE_IOERR 10
        #define SQLITE_OK 0
        #define SQLITE_OPEN_MAIN_DB 0x00000100
        #define SQLITE_OPEN_EXRESCODE 0X02000000
        #define SQLITE_MAX_LENGTH 1000000000L
        #define SQLITE_MAX_MMAP_SIZE 0x7fff0000LL
        #define SQLITE_UNSIGNED 42U
        #define SQLITE_BIG 0xffffffffffffffffULL
        #define SQLITE_NEGATIVE (-1)
        #define SQLITE_COMPLEMENT (~0)
        #define SQLITE_ARITHMETIC (2 + 3 * 4 - 1)
        #define SQLITE_SHIFTED_DOWN (0x100 >> 4)
        #define SQLITE_MASKS ((0xff & 0x0f) ^ 0x3)
        #define SQLITE_FORWARD (SQLITE_LATER + 1)
        #define SQLITE_LATER 41
        #define SQLITE_OCTAL 0755
        #define SQLITE_VERSION "3.50.4"
        #define SQLITE_STATIC ((sqlite3_destructor_type)0)
        #define SQLITE_FLOATING 1.5
        #define SQLITE_CHARACTER 'a'
        #define SQLITE_DIVIDED (10 / 2)
        #define SQLITE_UNKNOWN_REFERENCE (SQLITE_NOT_DEFINED | 1)
        #define SQLITE_CYCLE_A (SQLITE_CYCLE_B + 1)
        #define SQLITE_CYCLE_B (SQLITE_CYCLE_A + 1)
        #define SQLITE_FUNCTION_LIKE(x) ((x) + 1)
        #define SQLITE_EMPTY_BODY
        #define SQLITE_UNBALANCED (1 | 2
        """

    @Test(
        "integer macros evaluate to their values",
        arguments: [
            ("__INT_MAX__", 2_147_483_647),
            ("SQLITE_OK", 0),
            ("SQLITE_IOERR", 10),
            ("SQLITE_IOERR_READ", 266),
            ("SQLITE_OPEN_MAIN_DB", 0x100),
            ("SQLITE_OPEN_EXRESCODE", 0x0200_0000),
            ("SQLITE_MAX_LENGTH", 1_000_000_000),
            ("SQLITE_MAX_MMAP_SIZE", 0x7fff_0000),
            ("SQLITE_UNSIGNED", 42),
            ("SQLITE_BIG", -1),
            ("SQLITE_NEGATIVE", -1),
            ("SQLITE_COMPLEMENT", -1),
            ("SQLITE_ARITHMETIC", 13),
            ("SQLITE_SHIFTED_DOWN", 16),
            ("SQLITE_MASKS", 0xc),
            ("SQLITE_FORWARD", 42),
            ("SQLITE_LATER", 41),
            ("SQLITE_OCTAL", 0o755),
        ] as [(String, Int64)]
    )
    func evaluatesIntegerMacro(name: String, value: Int64) {
        #expect(MacroEvaluator.evaluate(Self.definitions)[name] == value)
    }

    @Test(
        "macros that are not integer expressions are left out",
        arguments: [
            "SQLITE_VERSION", "SQLITE_STATIC", "SQLITE_FLOATING", "SQLITE_CHARACTER", "SQLITE_DIVIDED",
            "SQLITE_UNKNOWN_REFERENCE", "SQLITE_CYCLE_A", "SQLITE_CYCLE_B", "SQLITE_FUNCTION_LIKE", "SQLITE_EMPTY_BODY",
            "SQLITE_UNBALANCED",
        ]
    )
    func leavesOutNonIntegerMacro(name: String) {
        #expect(MacroEvaluator.evaluate(Self.definitions)[name] == nil)
    }

    @Test("the fixture header's macros come through clang evaluated")
    func evaluatesFixtureMacros() throws {
        let macros = try Fixtures.header().macros
        #expect(macros["SQLITE_IOERR_READ"] == 266)
        #expect(macros["SQLITE_IOERR_SHORT_READ"] == 522)
        #expect(macros["SQLITE_OPEN_SUPER_JOURNAL"] == 0x4000)
        #expect(macros["SQLITE_VERSION"] == nil)
        #expect(macros["SQLITE_TRANSIENT"] == nil)
    }
}
