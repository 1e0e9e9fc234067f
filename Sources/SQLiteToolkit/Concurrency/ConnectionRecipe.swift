#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How every connection of a queue or pool is opened: the same path, configuration and set-up hook each time.
struct ConnectionRecipe: Sendable {
    var path: String
    var configuration: Database.Configuration
    var setUp: (@Sendable (Database) throws -> Void)?
    /// Whether the connection records the functions and collations it has once the hook ran
    /// (``Database/setUpDefinitions``), which a key change on it checks against. Only a connection that may change
    /// the key needs it (a queue's, a pool's writer): listing them prepares a statement, which loads the schema.
    var recordsSetUpDefinitions = true

    /// Opens a connection and runs the set-up hook on it; nothing stays open when either fails.
    ///
    /// The hook may set the key (``Database/setKey(_:cipher:)``), and an encrypted file has no SQLite header, so
    /// with a hook the check of the header (``Database/Configuration/checksHeaderAtOpen``) waits until the hook
    /// has run, and applies only when it set no key.
    func open() throws -> Database {
        var opening = configuration
        let checksHeaderAfterSetUp = setUp != nil && configuration.checksHeaderAtOpen
        if checksHeaderAfterSetUp { opening.checksHeaderAtOpen = false }
        // Database.init runs sqlite3_initialize once per process before the first open.
        let database = try Database(path: path, configuration: opening)
        do {
            try setUp?(database)
            if setUp != nil && recordsSetUpDefinitions {
                database.setUpDefinitions = try database.customDefinitions()
            }
            if checksHeaderAfterSetUp && database.mainCipher == nil {
                try database.checkHeaderAfterOpen(configuration: configuration)
            }
        } catch {
            var thrown = error
            // A hook that read a file that is not a database failed with a bare SQLITE_NOTADB: name the cause.
            if checksHeaderAfterSetUp && database.mainCipher == nil, let error = error as? DatabaseError,
                error.code == .notadb
            {
                do { try database.checkHeaderAfterOpen(configuration: configuration) } catch { thrown = error }
            }
            database.close()
            throw thrown
        }
        return database
    }
}
