// Full Foundation, not FoundationEssentials: the case- and diacritic-insensitive `compare(_:options:)` of the
// built-in collations is in Foundation (FoundationInternationalization), not in FoundationEssentials.
import Foundation

/// A named way of comparing text, for `ORDER BY`, indexes, `UNIQUE` and comparisons with `COLLATE name`.
///
/// Register one with ``Database/createCollation(_:)``, or define one from a closure with
/// ``Database/createCollation(_:_:)``. The ready-made collations:
///
/// | Collation | Name in SQL | Compares |
/// |---|---|---|
/// | ``unicode`` | `unicode` | by Unicode canonical equivalence: precomposed `é` equals `e` + combining accent |
/// | ``caseInsensitive`` | `unicode_nocase` | ignoring case in every script (`NOCASE` folds ASCII only) |
/// | ``caseAndDiacriticInsensitive`` | `unicode_nocase_noaccent` | ignoring case and accents: `José` = `jose` |
///
/// ```swift
/// try db.createCollation(.caseInsensitive)
/// try db.execute("CREATE INDEX person_name ON person(name COLLATE unicode_nocase)")
/// let rows = try db.query("SELECT name FROM person ORDER BY name COLLATE unicode_nocase")
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/datatype3.html#collating_sequences>
public struct DatabaseCollation: Sendable {
    /// The name used after `COLLATE` in SQL (case-insensitive).
    public let name: String
    /// The comparison. It must be a total order (consistent, antisymmetric, transitive), or indexes that use the
    /// collation break.
    public let compare: @Sendable (String, String) -> ComparisonResult

    /// A collation named `name` that compares with `compare`.
    public init(_ name: String, compare: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.compare = compare
    }

    /// `unicode`: Swift's `String` ordering, by Unicode canonical equivalence, independent of the locale.
    public static let unicode = DatabaseCollation("unicode") { left, right in
        left == right ? .orderedSame : (left < right ? .orderedAscending : .orderedDescending)
    }

    /// `unicode_nocase`: ignores case in every script, independent of the locale.
    public static let caseInsensitive = DatabaseCollation("unicode_nocase") { left, right in
        left.compare(right, options: [.caseInsensitive])
    }

    /// `unicode_nocase_noaccent`: ignores case and diacritics, independent of the locale.
    public static let caseAndDiacriticInsensitive = DatabaseCollation("unicode_nocase_noaccent") { left, right in
        left.compare(right, options: [.caseInsensitive, .diacriticInsensitive])
    }
}
