import SQLiteBindings
import Testing

@Suite("ResultCode: names, descriptions, primary codes and pattern matching")
struct ResultCodeTests {
    @Test("every named code has its C name and SQLite's description", arguments: ResultCode.allNamed)
    func namesAndDescriptions(code: ResultCode) throws {
        let name = try #require(code.name)
        #expect(name.hasPrefix("SQLITE_"))
        #expect(code.description.hasSuffix("(\(name))"))
        #expect(code.description.count > name.count + 3)
        #expect(SQLiteLibrary.errorString(code)?.isEmpty == false)
    }

    @Test("an unnamed code is described by its number")
    func unnamedCode() {
        let code = ResultCode(rawValue: 12345)
        #expect(code.name == nil)
        #expect(code.description.hasSuffix("(12345)"))
    }

    @Test("an extended code knows its primary code")
    func primaryOfExtended() {
        #expect(ResultCode.ioerrRead.rawValue == 266)
        #expect(ResultCode.ioerrRead.primary == .ioerr)
        #expect(ResultCode.ioerrRead.isExtended)
        #expect(ResultCode.busySnapshot.primary == .busy)
        #expect(ResultCode.constraintUnique.primary == .constraint)
        #expect(!ResultCode.busy.isExtended)
        #expect(ResultCode.busy.primary == .busy)
    }

    @Test("a primary pattern matches its extended codes in a switch; an extended pattern matches only itself")
    func switchMatching() {
        func classify(_ code: ResultCode) -> String {
            switch code {
            case .constraintUnique: "unique"
            case .constraint: "constraint"
            case .busy: "busy"
            default: "other"
            }
        }
        #expect(classify(.constraintUnique) == "unique")
        #expect(classify(.constraintForeignkey) == "constraint")
        #expect(classify(.constraint) == "constraint")
        #expect(classify(.busySnapshot) == "busy")
        #expect(classify(.ioerrRead) == "other")
        #expect(!(ResultCode.constraintUnique ~= ResultCode.constraint))
    }

    @Test("a thrown code, or an error carrying one, is caught by a primary pattern")
    func catchMatching() {
        struct Failure: ResultCodeError {
            var resultCode: ResultCode
        }
        func fail(with error: any Error) throws {
            throw error
        }
        func caught(_ error: any Error) -> String {
            do {
                try fail(with: error)
                return "nothing thrown"
            } catch ResultCode.busy {
                return "busy"
            } catch ResultCode.constraint {
                return "constraint"
            } catch {
                return "other"
            }
        }
        #expect(caught(ResultCode.busyTimeout) == "busy")
        #expect(caught(Failure(resultCode: .constraintNotnull)) == "constraint")
        #expect(caught(Failure(resultCode: .ioerr)) == "other")
        #expect(caught(CancellationError()) == "other")
    }

    @Test("ok, row and done are not errors; everything else is, extended codes included")
    func isError() {
        #expect(!ResultCode.ok.isError)
        #expect(!ResultCode.row.isError)
        #expect(!ResultCode.done.isError)
        #expect(!ResultCode.okLoadPermanently.isError)
        #expect(ResultCode.error.isError)
        #expect(ResultCode.busySnapshot.isError)
        #expect(ResultCode.notadb.isError)
        #expect(ResultCode.interrupt.isError)
    }
}
