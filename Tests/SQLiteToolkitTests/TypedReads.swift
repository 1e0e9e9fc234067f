import Foundation
import SQLiteToolkit
import Testing

/// Reads column `index` of `row` as every standard type, for the randomized and hostile-input tests. Each read
/// either gives a value or throws a ``DatabaseError``; anything else (another error type) is recorded as an issue.
/// Returns how many reads succeeded.
@discardableResult
func readEveryType(_ row: Row, at index: Int, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
    var successes = 0
    func attempt<T: DatabaseValueConvertible>(_: T.Type) {
        do {
            _ = try row.value(at: index, as: T.self)
            successes += 1
        } catch is DatabaseError {
        } catch {
            Issue.record(
                "reading \(T.self) threw \(type(of: error)), not DatabaseError", sourceLocation: sourceLocation)
        }
        do {
            _ = try row.value(at: index, as: T?.self)
        } catch is DatabaseError {
        } catch {
            Issue.record("reading \(T.self)? threw \(type(of: error))", sourceLocation: sourceLocation)
        }
    }
    attempt(Int.self)
    attempt(Int8.self)
    attempt(Int16.self)
    attempt(Int32.self)
    attempt(Int64.self)
    attempt(UInt.self)
    attempt(UInt8.self)
    attempt(UInt16.self)
    attempt(UInt32.self)
    attempt(UInt64.self)
    attempt(Double.self)
    attempt(Float.self)
    attempt(Bool.self)
    attempt(String.self)
    attempt(Data.self)
    attempt([UInt8].self)
    attempt(Date.self)
    attempt(ISO8601Date.self)
    attempt(UUID.self)
    attempt(DatabaseValue.self)
    _ = row.values
    _ = row.dictionary
    return successes
}
